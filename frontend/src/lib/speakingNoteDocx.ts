/**
 * A speaking note (`speakingNote.ts`) as a Word document, with the `docx` library. Loaded on the
 * first DOCX export only (`import()` in the export button), so the library is its own chunk.
 *
 * The answer's markdown becomes Word paragraphs: blank-line-separated paragraphs (their line
 * wraps joined), `- ` / `1. ` list lines as list paragraphs, GFM pipe tables as Word tables,
 * `**bold**` as bold runs; other markdown marks are kept as printed.
 */
import {
  Document,
  HeadingLevel,
  Packer,
  Paragraph,
  Table,
  TableCell,
  TableRow,
  TextRun,
  WidthType,
  type FileChild,
} from 'docx';
import type { NoteLabels, NotePart, SpeakingNote } from './speakingNote';
import { answerWhere, sourceLine } from './speakingNoteMarkdown';

/** Text runs of one line, `**bold**` spans as bold runs. */
function runs(text: string, bold = false): TextRun[] {
  return text
    .split(/(\*\*[^*]+\*\*)/)
    .filter(Boolean)
    .map((piece) =>
      /^\*\*[^*]+\*\*$/.test(piece)
        ? new TextRun({ text: piece.slice(2, -2), bold: true })
        : new TextRun({ text: piece, bold }),
    );
}

const TABLE_ROW = /^\s*\|.*\|\s*$/;
const TABLE_RULE = /^\s*\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?\s*$/;
const LIST_ITEM = /^\s*(?:[-*+]|\d+[.)])\s+/;

function cells(line: string): string[] {
  return line.trim().replace(/^\|/, '').replace(/\|$/, '').split('|').map((c) => c.trim());
}

function table(lines: string[]): Table {
  const rows = lines.filter((l) => !TABLE_RULE.test(l)).map(cells);
  const width = Math.max(...rows.map((r) => r.length));
  return new Table({
    width: { size: 100, type: WidthType.PERCENTAGE },
    rows: rows.map(
      (row, i) =>
        new TableRow({
          tableHeader: i === 0,
          children: Array.from({ length: width }, (_, c) =>
            new TableCell({ children: [new Paragraph({ children: runs(row[c] ?? '', i === 0) })] }),
          ),
        }),
    ),
  });
}

/** Word blocks of a markdown text: paragraphs, list items and tables, in order. */
export function markdownBlocks(markdown: string): FileChild[] {
  const out: FileChild[] = [];
  for (const para of markdown.split(/\n\s*\n/).filter((p) => p.trim())) {
    const lines = para.split('\n').filter((l) => l.trim());
    let i = 0;
    while (i < lines.length) {
      if (TABLE_ROW.test(lines[i])) {
        const start = i;
        while (i < lines.length && TABLE_ROW.test(lines[i])) i++;
        out.push(table(lines.slice(start, i)));
      } else if (LIST_ITEM.test(lines[i])) {
        const marker = LIST_ITEM.exec(lines[i])?.[0].trim() ?? '-';
        const bullet = /^[-*+]$/.test(marker) ? '•' : marker;
        out.push(new Paragraph({ indent: { left: 360, hanging: 360 }, children: runs(`${bullet}\t${lines[i].replace(LIST_ITEM, '')}`) }));
        i++;
      } else {
        const start = i;
        while (i < lines.length && !TABLE_ROW.test(lines[i]) && !LIST_ITEM.test(lines[i])) i++;
        const text = lines.slice(start, i).map((l) => l.trim()).join(' ');
        out.push(new Paragraph({ spacing: { after: 120 }, children: runs(text) }));
      }
    }
  }
  return out;
}

function partBlocks(part: NotePart, labels: NoteLabels): FileChild[] {
  if (part.kind === 'text') return markdownBlocks(part.text);
  return [
    new Paragraph({ spacing: { before: 120 }, children: runs(labels.followup(part.question), true) }),
    ...markdownBlocks(part.text),
  ];
}

/** The note as a `docx` Document (question, answer with its provenance, sources), its own words in `labels`' language. */
export function speakingNoteDocument(note: SpeakingNote, labels: NoteLabels): Document {
  const children: FileChild[] = [
    new Paragraph({ heading: HeadingLevel.TITLE, children: [new TextRun(labels.title)] }),
    new Paragraph({
      spacing: { after: 200 },
      children: [new TextRun({ text: `${labels.lead(labels.question)} `, bold: true }), new TextRun(note.question)],
    }),
  ];
  if (!note.covered) {
    children.push(
      new Paragraph({ heading: HeadingLevel.HEADING_1, children: [new TextRun(labels.notCovered)] }),
      new Paragraph({ children: [new TextRun(labels.notCoveredText)] }),
    );
  } else {
    children.push(new Paragraph({ heading: HeadingLevel.HEADING_1, children: [new TextRun(labels.answer)] }));
    const answer = note.answer;
    if (answer) {
      const heading = [answer.questionId, answer.questionText].filter(Boolean).join(' ');
      if (heading) children.push(new Paragraph({ heading: HeadingLevel.HEADING_2, children: [new TextRun(heading)] }));
      const where = answerWhere(answer, labels);
      if (where) children.push(new Paragraph({ children: [new TextRun({ text: where, italics: true })] }));
      for (const part of answer.parts) children.push(...partBlocks(part, labels));
    }
    if (note.sources.length > 0) {
      children.push(new Paragraph({ heading: HeadingLevel.HEADING_1, children: [new TextRun(labels.sources)] }));
      note.sources.forEach((s, i) => children.push(new Paragraph({ children: [new TextRun(`${i + 1}. ${sourceLine(s, labels)}`)] })));
    }
    if (note.internalLeftOut > 0) {
      children.push(new Paragraph({ spacing: { before: 200 }, children: [new TextRun({ text: labels.internalLeftOut, italics: true })] }));
    }
  }
  return new Document({
    title: labels.titleOf(note.question),
    styles: { default: { document: { run: { language: { value: labels.docLanguage, eastAsia: 'zh-HK' } } } } },
    sections: [{ children }],
  });
}

/** The note as a .docx file. */
export function speakingNoteDocx(note: SpeakingNote, labels: NoteLabels): Promise<Blob> {
  return Packer.toBlob(speakingNoteDocument(note, labels));
}
