/**
 * A speaking note (`speakingNote.ts`) as a Markdown document (pure). The answer's texts are
 * already markdown (paragraphs, lists, tables) and are kept as they are.
 */
import { pagesLabel, type NoteAnswer, type NoteLabels, type NoteSource, type SpeakingNote } from './speakingNote';

/** The answer's provenance line: "(A) 排水系統 · page 2 · E_基礎設施.pdf" ("… · 第2頁 · …"). */
export function answerWhere(answer: NoteAnswer, labels: NoteLabels): string {
  return [answer.topic, pagesLabel(labels, answer.page), answer.filename].filter(Boolean).join(' · ');
}

/** One source: "E_基礎設施.pdf, page 2 — A1 新發展區…？" ("E_基礎設施.pdf，第2頁 — …"). */
export function sourceLine(s: NoteSource, labels: NoteLabels): string {
  const where = [s.filename, pagesLabel(labels, s.page, s.endPage)].filter(Boolean).join(labels.separator);
  const qa = [s.questionId, s.questionText].filter(Boolean).join(' ');
  return qa ? `${where} — ${qa}` : where;
}

/** Emphasis with asterisks (file names hold underscores, `E_基礎設施.pdf`); an asterisk inside escaped. */
const italic = (text: string) => `*${text.replace(/\*/g, '\\*')}*`;

/** A line of plain text on one line (a heading or list item cannot hold a line break). */
const oneLine = (text: string) => text.replace(/\s*\n\s*/g, ' ').trim();

/** The note as Markdown, its own words (headings, "If pressed", pages) in `labels`' language. */
export function speakingNoteMarkdown(note: SpeakingNote, labels: NoteLabels): string {
  const out: string[] = [`# ${labels.title}`, `**${labels.lead(labels.question)}** ${oneLine(note.question)}`];
  if (!note.covered) {
    out.push(`## ${labels.notCovered}`, labels.notCoveredText);
    return `${out.join('\n\n')}\n`;
  }
  out.push(`## ${labels.answer}`);
  const answer = note.answer;
  if (answer) {
    const heading = [answer.questionId && `**${answer.questionId}**`, answer.questionText && oneLine(answer.questionText)]
      .filter(Boolean)
      .join(' ');
    if (heading) out.push(heading);
    const where = answerWhere(answer, labels);
    if (where) out.push(italic(where));
    for (const part of answer.parts) {
      if (part.kind === 'text') out.push(part.text.trim());
      else {
        out.push(`**${oneLine(labels.followup(part.question))}**`);
        if (part.text.trim()) out.push(part.text.trim());
      }
    }
  }
  if (note.sources.length > 0) {
    out.push(`## ${labels.sources}`, note.sources.map((s, i) => `${i + 1}. ${oneLine(sourceLine(s, labels))}`).join('\n'));
  }
  if (note.internalLeftOut > 0) out.push(italic(labels.internalLeftOut));
  return `${out.join('\n\n')}\n`;
}
