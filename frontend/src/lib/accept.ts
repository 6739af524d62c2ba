import type { TFunction } from 'i18next';
import { i18n, intlLocale } from '../i18n';

/**
 * The file picker's filter, built from the extensions the gateway accepts (`GET /api/v1/config`),
 * so the app holds no list of its own.
 */

/**
 * Media types browsers report for upload extensions. react-dropzone judges a dragged file by its
 * type alone (the name is only known on drop), so each extension is listed under its type; an
 * extension missing here is still accepted by name once dropped.
 */
const MEDIA_TYPES: Record<string, string> = {
  '.pdf': 'application/pdf',
  '.docx': 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  '.txt': 'text/plain',
};

/** react-dropzone's `accept` (media type → extensions) for `extensions` (lower case, with the dot). */
export function dropzoneAccept(extensions: readonly string[]): Record<string, string[]> {
  const accept: Record<string, string[]> = {};
  for (const ext of extensions) {
    const type = MEDIA_TYPES[ext] ?? 'application/octet-stream';
    (accept[type] ??= []).push(ext);
  }
  return accept;
}

/**
 * The extensions as readers name them: `['.pdf', '.docx', '.txt']` → "PDF, DOCX or TXT"
 * ("PDF、DOCX 或 TXT" in Chinese: `Intl.ListFormat` of the interface language).
 */
export function fileTypeList(
  extensions: readonly string[],
  conjunction: 'or' | 'and',
  t: TFunction = i18n.t.bind(i18n),
): string {
  const names = extensions.map((ext) => ext.replace(/^\./, '').toUpperCase());
  const type = conjunction === 'or' ? 'disjunction' : 'conjunction';
  return new Intl.ListFormat(intlLocale(t('language.code')), { style: 'long', type }).format(names);
}
