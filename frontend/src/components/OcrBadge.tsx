import { Badge } from '@mantine/core';
import { useTranslation } from 'react-i18next';

/** What the badge needs: the `ocr` flag and the engine's confidence (0..1) of a chunk or source. */
export interface OcrFields {
  ocr?: boolean | null;
  ocr_confidence?: number | null;
}

/**
 * "OCR" on a passage read from a scanned page by local OCR (its text may hold misread
 * characters); the title gives the engine's confidence in percent when known. Nothing otherwise.
 */
export function OcrBadge({ item, size = 'sm' }: { item: OcrFields; size?: 'xs' | 'sm' }) {
  const { t } = useTranslation();
  if (item.ocr !== true) return null;
  const confidence = item.ocr_confidence;
  const title =
    confidence != null
      ? t('ocr.title', { confidence: Math.round(confidence * 100) })
      : t('ocr.titleNoConfidence');
  return (
    <Badge size={size} variant="outline" color="orange" title={title} aria-label={title} data-testid="ocr-badge">
      {t('ocr.label')}
    </Badge>
  );
}
