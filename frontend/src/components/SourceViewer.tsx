import { useState } from 'react';
import { Alert, Button, Loader, Modal } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import type { Highlight } from '../types';
import { getChunk } from '../lib/api';
import { contentLang } from '../lib/contentLang';
import { useChunks, useDocument } from '../lib/queries';
import { ErrorMessage } from './ErrorMessage';
import { PdfViewer } from './PdfViewer';
import { TextView } from './TextView';

export interface CitedChunk {
  chunkId: string;
  documentId: string;
  filename: string;
  /** The page the chunk starts on (1-based); with `pdf`, the page the viewer opens. */
  page?: number | null;
  /** A PDF paper (it has page PDFs); otherwise DOCX/TXT, shown as text. */
  pdf: boolean;
  /** Its highlights when the caller has them (a chunk list); else they are fetched. */
  highlights?: Highlight[] | null;
}

function PdfSource({ cited }: { cited: CitedChunk }) {
  const { t } = useTranslation();
  const known = cited.highlights !== undefined;
  const chunk = useQuery({
    queryKey: ['chunk', cited.chunkId],
    queryFn: () => getChunk(cited.chunkId),
    enabled: !known,
  });
  const doc = useDocument(cited.documentId);
  const highlights = known ? cited.highlights : chunk.data?.highlights;
  if (!known && chunk.isPending) return <Loader size="sm" aria-label={t('viewer.loadingPassage')} />;
  const first = highlights?.[0]?.page ?? cited.page ?? chunk.data?.page_number ?? 1;
  return (
    <PdfViewer
      documentId={cited.documentId}
      filename={cited.filename}
      page={first}
      pageCount={doc.data?.page_count}
      highlights={highlights}
    />
  );
}

function TextSource({ cited }: { cited: CitedChunk }) {
  const { t } = useTranslation();
  const chunks = useChunks(cited.documentId);
  if (chunks.isPending) return <Loader size="sm" aria-label={t('viewer.loadingText')} />;
  if (chunks.isError) {
    return (
      <Alert color="red" title={t('viewer.textFailed')}>
        <ErrorMessage error={chunks.error} />
      </Alert>
    );
  }
  return <TextView chunks={chunks.data.chunks} chunkId={cited.chunkId} filename={cited.filename} />;
}

/**
 * A "View" button that opens the cited passage in the app: a PDF's page with the passage
 * highlighted (Previous/Next to the neighbouring pages), or a DOCX/TXT document's text with the
 * passage marked.
 */
export function ViewSourceButton({ cited, label }: { cited: CitedChunk; label?: string }) {
  const { t } = useTranslation();
  const [open, setOpen] = useState(false);
  const where =
    cited.pdf && cited.page != null ? t('common.pageOf', { page: cited.page, name: cited.filename }) : cited.filename;
  return (
    <>
      <Button
        size="compact-xs"
        variant="light"
        onClick={() => setOpen(true)}
        aria-label={label ?? t('viewer.view', { what: where })}
      >
        {t('common.view')}
      </Button>
      <Modal
        opened={open}
        onClose={() => setOpen(false)}
        title={<span lang={contentLang(cited.filename)}>{cited.filename}</span>}
        size="min(960px, 95vw)"
      >
        {open && (cited.pdf ? <PdfSource cited={cited} /> : <TextSource cited={cited} />)}
      </Modal>
    </>
  );
}
