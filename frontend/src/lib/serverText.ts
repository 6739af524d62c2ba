/**
 * Notices the services write in English (`services/query/answer.py`,
 * `services/gateway/content_search.py`), said in the interface language when they are known;
 * any other notice is shown as the server wrote it, marked with its own language.
 */
import type { TFunction } from 'i18next';
import { i18n } from '../i18n';
import { contentLang } from './contentLang';

interface KnownNotice {
  pattern: RegExp;
  /** The notice's key under `server.` in the locales. */
  key: 'noDocuments' | 'llmUnreachable' | 'noLlm' | 'filenamesOnly';
}

const KNOWN: KnownNotice[] = [
  { pattern: /^No documents are indexed yet, or none match the filter\.?$/, key: 'noDocuments' },
  { pattern: /^The language model could not be reached \((?<type>[^)]*)\)/, key: 'llmUnreachable' },
  { pattern: /^No language model is configured/, key: 'noLlm' },
  { pattern: /^Only filenames were searched/, key: 'filenamesOnly' },
];

export interface Notice {
  text: string;
  /** The language `text` is in (the interface's for a known notice). */
  lang: string;
}

/** `notice` in the interface language when it is a known one, else as it was sent. */
export function serverNotice(notice: string, t: TFunction = i18n.t.bind(i18n)): Notice {
  for (const known of KNOWN) {
    const match = known.pattern.exec(notice.trim());
    if (match) {
      return { text: t(`server.${known.key}`, { type: match.groups?.type ?? '' }), lang: t('language.code') };
    }
  }
  return { text: notice, lang: contentLang(notice) };
}
