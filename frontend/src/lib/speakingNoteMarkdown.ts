/**
 * A speaking note (`speakingNote.ts`) as a Markdown document (pure). The answer's texts are
 * already markdown (paragraphs, lists, tables) and are kept as they are.
 */
import { NOTE_LABELS, followupLine, pagesLabel, type NoteAnswer, type NoteSource, type SpeakingNote } from './speakingNote';

/** The answer's provenance line: "(A) 排水系統 · page 2 · E_基礎設施.pdf". */
export function answerWhere(answer: NoteAnswer): string {
  return [answer.topic, pagesLabel(answer.page), answer.filename].filter(Boolean).join(' · ');
}

/** One source: "E_基礎設施.pdf, page 2 — A1 新發展區…？". */
export function sourceLine(s: NoteSource): string {
  const where = [s.filename, pagesLabel(s.page, s.endPage)].filter(Boolean).join(', ');
  const qa = [s.questionId, s.questionText].filter(Boolean).join(' ');
  return qa ? `${where} — ${qa}` : where;
}

/** Emphasis with asterisks (file names hold underscores, `E_基礎設施.pdf`); an asterisk inside escaped. */
const italic = (text: string) => `*${text.replace(/\*/g, '\\*')}*`;

/** A line of plain text on one line (a heading or list item cannot hold a line break). */
const oneLine = (text: string) => text.replace(/\s*\n\s*/g, ' ').trim();

export function speakingNoteMarkdown(note: SpeakingNote): string {
  const out: string[] = [`# ${NOTE_LABELS.title}`, `**${NOTE_LABELS.question}:** ${oneLine(note.question)}`];
  if (!note.covered) {
    out.push(`## ${NOTE_LABELS.notCovered}`, NOTE_LABELS.notCoveredText);
    return `${out.join('\n\n')}\n`;
  }
  out.push(`## ${NOTE_LABELS.answer}`);
  const answer = note.answer;
  if (answer) {
    const heading = [answer.questionId && `**${answer.questionId}**`, answer.questionText && oneLine(answer.questionText)]
      .filter(Boolean)
      .join(' ');
    if (heading) out.push(heading);
    const where = answerWhere(answer);
    if (where) out.push(italic(where));
    for (const part of answer.parts) {
      if (part.kind === 'text') out.push(part.text.trim());
      else {
        out.push(`**${oneLine(followupLine(part.question))}**`);
        if (part.text.trim()) out.push(part.text.trim());
      }
    }
  }
  if (note.sources.length > 0) {
    out.push(`## ${NOTE_LABELS.sources}`, note.sources.map((s, i) => `${i + 1}. ${oneLine(sourceLine(s))}`).join('\n'));
  }
  if (note.internalLeftOut > 0) out.push(italic(NOTE_LABELS.internalLeftOut));
  return `${out.join('\n\n')}\n`;
}
