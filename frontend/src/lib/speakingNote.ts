/**
 * The speaking note of an answer (pure; no I/O): what an officer may read out, and where it comes from.
 *
 * One structure feeds every export — "Copy as speaking note" (plain text), Markdown
 * (`speakingNoteMarkdown.ts`) and DOCX (`speakingNoteDocx.ts`) — so they all leave out the same
 * things: internal notes (`[內部參考：…]`, `[內部補充：…]`, blocks of kind `internal`) never reach
 * a note; follow-ups (`[如被追問：…]`) are kept, labelled "If pressed: <question>" as the server's
 * `speaking_note` does (如被追問：<question> in the Chinese interface). Source snippets are left out too (they are raw passages, which may hold an
 * internal note); a source is named by its file, page and question id only.
 */
import type { AnswerBlock, DirectAnswer, QueryResponse, Source } from '../types';

/**
 * The words of a note, in the interface language the note is exported from (`noteLabels.ts`
 * builds them from the locale files' `note.*` strings), so a note made in the Chinese interface
 * says 問題, 答案, 來源, 如被追問 and 第7至8頁.
 */
export interface NoteLabels {
  title: string;
  question: string;
  answer: string;
  sources: string;
  notCovered: string;
  notCoveredText: string;
  internalLeftOut: string;
  /** A label leading a line: "Question:" / "問題：". */
  lead: (label: string) => string;
  /** The line introducing a follow-up: "If pressed: <question>" (or "If pressed:"). */
  followup: (question: string | null) => string;
  /** "page 2" / "pages 7–8" (第2頁 / 第7至8頁). */
  pages: (page: number, endPage: number | null) => string;
  /** Between a source's file name and its pages: ", " / "，". */
  separator: string;
  /** The document title of a note: "Speaking note: <question>". */
  titleOf: (question: string) => string;
  /** The Word document's language (its Latin text; East Asian text is zh-HK in both). */
  docLanguage: string;
}

/** A paragraph group to read out (markdown: paragraphs, lists, tables), or a follow-up and its answer. */
export type NotePart =
  | { kind: 'text'; text: string }
  | { kind: 'followup'; question: string | null; text: string };

/** Where a note's answer comes from and what it says (internal notes already left out). */
export interface NoteAnswer {
  /** `qa`: a prepared answer under its question; `passage`: the best passage's sentences; `answer`: the
   * response's answer text (an LLM answer, or a server without direct answers). */
  kind: 'qa' | 'passage' | 'answer';
  questionId: string | null;
  questionText: string | null;
  topic: string | null;
  filename: string | null;
  page: number | null;
  parts: NotePart[];
}

/** A cited source: its file and page(s), and the Q&A pair's id and question when it is one. */
export interface NoteSource {
  filename: string;
  page: number | null;
  /** The last page when the passage runs over several (`null`: one page). */
  endPage: number | null;
  questionId: string | null;
  questionText: string | null;
}

export interface SpeakingNote {
  question: string;
  /** False: no paper answers the question; the note says so and has no answer or sources. */
  covered: boolean;
  answer: NoteAnswer | null;
  sources: NoteSource[];
  /** How many internal notes were left out (the note says so when > 0). */
  internalLeftOut: number;
}

// The markers of services/query/notes.py (`_INTERNAL`), for answers that come without blocks.
const INTERNAL_MARKER =
  /^\[\s*(內部參考|內部補充資料|內部補充|內部資料|For internal reference|Internal reference)/i;

/**
 * `text` (reflowed markdown, paragraphs split by blank lines) without its internal notes: a
 * paragraph opening with an internal marker is dropped up to the paragraph where its bracket
 * closes (to the end when it never closes), keeping what follows the `]` there.
 * Returns the remaining text and how many notes were dropped.
 */
export function withoutInternalNotes(text: string): { text: string; dropped: number } {
  const paras = text.split(/\n\s*\n/).filter((p) => p.trim());
  const kept: string[] = [];
  let dropped = 0;
  for (let i = 0; i < paras.length; i++) {
    if (!INTERNAL_MARKER.test(paras[i])) {
      kept.push(paras[i]);
      continue;
    }
    dropped++;
    let depth = 0;
    let closed = false;
    for (; i < paras.length && !closed; i++) {
      const p = paras[i];
      for (let j = 0; j < p.length; j++) {
        if (p[j] === '[') depth++;
        else if (p[j] === ']' && --depth === 0) {
          const after = p.slice(j + 1).trim();
          if (after) kept.push(after);
          closed = true;
          break;
        }
      }
    }
    i--; // the for loop's i++ moves past the closing paragraph
  }
  return { text: kept.join('\n\n'), dropped };
}

/** A direct answer's blocks as note parts: internal notes left out, consecutive texts kept apart. */
export function directParts(blocks: AnswerBlock[], fallback: string): { parts: NotePart[]; dropped: number } {
  if (blocks.length === 0) {
    const { text, dropped } = withoutInternalNotes(fallback);
    return { parts: text.trim() ? [{ kind: 'text', text }] : [], dropped };
  }
  const parts: NotePart[] = [];
  let dropped = 0;
  for (const b of blocks) {
    if (b.kind === 'internal') dropped++;
    else if (b.kind === 'followup') parts.push({ kind: 'followup', question: b.question, text: b.text });
    else if (b.text.trim()) parts.push({ kind: 'text', text: b.text });
  }
  return { parts, dropped };
}

/** The parts as plain text to read out (what "Copy as speaking note" copies): paragraphs split by
 * blank lines, a follow-up as its "If pressed: …" line then its answer. */
export function speakingText(parts: NotePart[], labels: NoteLabels): string {
  return parts
    .flatMap((p) => (p.kind === 'text' ? [p.text] : [labels.followup(p.question), p.text]))
    .filter((x) => x.trim())
    .join('\n\n');
}

/** The speaking text of one direct answer (internal notes left out). */
export function directSpeakingText(direct: DirectAnswer, labels: NoteLabels): string {
  return speakingText(directParts(direct.blocks, direct.text).parts, labels);
}

function noteSource(s: Source): NoteSource {
  const range = s.source_page_range;
  const endPage = range && range[1] !== range[0] ? range[1] : null;
  return {
    filename: s.filename || s.document_id,
    page: s.page_number ?? (range ? range[0] : null),
    endPage,
    questionId: s.question_id,
    questionText: s.question_text,
  };
}

/** "page 2", "pages 2–3" (in the labels' language), or null for a source without pages (DOCX, TXT). */
export function pagesLabel(labels: NoteLabels, page: number | null, endPage: number | null = null): string | null {
  return page == null ? null : labels.pages(page, endPage);
}

/**
 * The speaking note of `response` to `question`. Covered: the direct answer when there is one
 * (a Q&A pair's prepared answer with its question id, topic and page, or the best passage's
 * sentences), else the response's answer text; internal notes left out either way. Not covered:
 * no answer and no sources (the closest passages do not answer the question).
 */
export function buildSpeakingNote(question: string, response: QueryResponse): SpeakingNote {
  const covered = response.covered ?? true;
  if (!covered) return { question, covered, answer: null, sources: [], internalLeftOut: 0 };
  const direct = response.direct ?? null;
  let answer: NoteAnswer | null;
  let dropped: number;
  if (direct) {
    const got = directParts(direct.blocks, direct.text);
    dropped = got.dropped;
    answer = {
      kind: direct.kind,
      questionId: direct.question_id,
      questionText: direct.question_text,
      topic: direct.topic,
      filename: direct.filename || direct.document_id,
      page: direct.page_number,
      parts: got.parts,
    };
  } else {
    const got = withoutInternalNotes(response.answer);
    dropped = got.dropped;
    answer = got.text.trim()
      ? { kind: 'answer', questionId: null, questionText: null, topic: null, filename: null, page: null,
          parts: [{ kind: 'text', text: got.text }] }
      : null;
  }
  return { question, covered, answer, sources: (response.sources ?? []).map(noteSource), internalLeftOut: dropped };
}

/** A file name for the note: `speaking-note-A1.<ext>` (the question id when there is one). */
export function noteFilename(note: SpeakingNote, ext: 'md' | 'docx'): string {
  const id = note.answer?.questionId?.replace(/[^\w.-]+/g, '') ?? '';
  return `speaking-note${id ? `-${id}` : note.covered ? '' : '-not-covered'}.${ext}`;
}
