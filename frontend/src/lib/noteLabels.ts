/**
 * The words of a speaking note (`speakingNote.ts`'s `NoteLabels`) in the interface language:
 * the locale files' `note.*` strings, read through the component's `t` so a note exported after
 * a language switch is in the new language.
 */
import type { TFunction } from 'i18next';
import { i18n } from '../i18n';
import type { NoteLabels } from './speakingNote';

export function noteLabels(t: TFunction = i18n.t.bind(i18n)): NoteLabels {
  return {
    title: t('note.title'),
    question: t('note.question'),
    answer: t('note.answer'),
    sources: t('note.sources'),
    notCovered: t('note.notCovered'),
    notCoveredText: t('note.notCoveredText'),
    internalLeftOut: t('note.internalLeftOut'),
    lead: (label) => t('note.lead', { label }),
    followup: (question) => (question ? t('note.followupQuestion', { question }) : t('note.followupLead')),
    pages: (page, endPage) => (endPage != null ? t('note.pages', { start: page, end: endPage }) : t('note.page', { page })),
    separator: t('note.separator'),
    titleOf: (question) => t('note.titleOf', { question }),
    docLanguage: t('note.docLanguage'),
  };
}
