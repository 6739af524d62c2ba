/**
 * Reflowing a passage as extracted from a PDF into paragraphs, for display (pure). The same rules
 * as the query service's `services/query/reflow.py`, which reflows the direct answer; the chunk
 * and source cards show stored chunk text, which keeps the PDF's printed lines.
 *
 * A PDF's text layer breaks every printed line (`…清理約 110 公頃政府土` / `地。`). A line is joined
 * to the one before when that one was *wrapped* (at least WRAPPED_RATIO of the text's line width in
 * display columns, a CJK character counting 2) and the new line is not structure; a short line
 * ends its paragraph. Joins: nothing between two CJK characters or next to full-width punctuation,
 * one space between Latin words and between a CJK character and a Latin word or figure (`約 1,520
 * 戶`, as printed); a soft hyphen at a line end is dropped, a compound's hyphen kept without a
 * space. List items, topic headers, Q&A markers and bracketed notes start their own paragraph; a
 * line ending in `]` ends one, and so does a question's line ending in `？`/`?`. Markdown table rows
 * stay one per line, as one block. Blank lines of the input stay paragraph breaks. Spaces between
 * two CJK characters (which pdfium inserts: `試 場 的 人 手`) are removed.
 */

/** A line at least this share of the text's line width was wrapped by the PDF. */
export const WRAPPED_RATIO = 0.75;

/** A soft hyphen, and U+FFFE (how a soft hyphen comes out of some of the corpus's PDFs). */
const SOFT_HYPHENS = '\u00ad\ufffe';

/** East Asian Wide and Fullwidth code points (Unicode's EastAsianWidth W and F, the common ranges). */
const WIDE_RANGES: readonly [number, number][] = [
  [0x1100, 0x115f], [0x231a, 0x231b], [0x2329, 0x232a], [0x23e9, 0x23ec], [0x23f0, 0x23f0],
  [0x23f3, 0x23f3], [0x25fd, 0x25fe], [0x2614, 0x2615], [0x2648, 0x2653], [0x267f, 0x267f],
  [0x2693, 0x2693], [0x26a1, 0x26a1], [0x26aa, 0x26ab], [0x26bd, 0x26be], [0x26c4, 0x26c5],
  [0x26ce, 0x26ce], [0x26d4, 0x26d4], [0x26ea, 0x26ea], [0x26f2, 0x26f3], [0x26f5, 0x26f5],
  [0x26fa, 0x26fa], [0x26fd, 0x26fd], [0x2705, 0x2705], [0x270a, 0x270b], [0x2728, 0x2728],
  [0x274c, 0x274c], [0x274e, 0x274e], [0x2753, 0x2755], [0x2757, 0x2757], [0x2795, 0x2797],
  [0x27b0, 0x27b0], [0x27bf, 0x27bf], [0x2b1b, 0x2b1c], [0x2b50, 0x2b50], [0x2b55, 0x2b55],
  [0x2e80, 0x303e], [0x3041, 0x33ff], [0x3400, 0x4dbf], [0x4e00, 0x9fff], [0xa000, 0xa4cf],
  [0xa960, 0xa97f], [0xac00, 0xd7a3], [0xf900, 0xfaff], [0xfe10, 0xfe19], [0xfe30, 0xfe6f],
  [0xff00, 0xff60], [0xffe0, 0xffe6], [0x16fe0, 0x18aff], [0x1b000, 0x1b2ff], [0x1f004, 0x1f004],
  [0x1f0cf, 0x1f0cf], [0x1f18e, 0x1f18e], [0x1f191, 0x1f19a], [0x1f200, 0x1f64f], [0x1f680, 0x1f6ff],
  [0x1f900, 0x1f9ff], [0x20000, 0x3fffd],
];

function eastAsianWide(cp: number): boolean {
  let lo = 0;
  let hi = WIDE_RANGES.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const [a, b] = WIDE_RANGES[mid];
    if (cp < a) hi = mid - 1;
    else if (cp > b) lo = mid + 1;
    else return true;
  }
  return false;
}

/** Columns `line` takes in print: East Asian wide and full-width characters 2, others 1. */
export function displayWidth(line: string): number {
  let width = 0;
  for (const ch of line) width += eastAsianWide(ch.codePointAt(0) ?? 0) ? 2 : 1;
  return width;
}

/** A CJK character or full-width form (or a private-use code point: HK characters in PDFs). */
export function isWide(ch: string): boolean {
  const cp = ch.codePointAt(0) ?? 0;
  return eastAsianWide(cp) || (cp >= 0xe000 && cp <= 0xf8ff);
}

const isPunct = (ch: string) => /^[\p{P}\p{S}]$/u.test(ch);

/** The CJK ranges between which spaces are spurious (`shared/textnorm.py`'s `_CJK`). */
const CJK = '\\u3000-\\u303f\\u3400-\\u4dbf\\u4e00-\\u9fff\\uf900-\\ufaff\\uff00-\\uffef';
const CJK_SPACE = new RegExp(`(?<=[${CJK}])[ \\t]+(?=[${CJK}])`, 'g');

/** `text` without the spaces or tabs between two CJK characters (or full-width punctuation). */
export function collapseCjkSpaces(text: string): string {
  return text.replace(CJK_SPACE, '');
}

/** The last and first characters of a string (whole code points). */
const lastChar = (s: string) => Array.from(s.slice(-2)).pop() ?? '';
const firstChar = (s: string) => String.fromCodePoint(s.codePointAt(0) ?? 0);

/** `a` and the next line `b` of one paragraph, joined as printed (see the module doc). */
export function joinLines(a: string, b: string): string {
  if (!a || !b) return a + b;
  const last = lastChar(a);
  const first = firstChar(b);
  if (SOFT_HYPHENS.includes(last)) return a.slice(0, -1) + b;
  if (last === '-' && a.length > 1 && /\p{L}/u.test(a[a.length - 2]) && /^\p{L}/u.test(first)) return a + b;
  if (isWide(last) && isWide(first)) return a + b;
  if ((isWide(last) && isPunct(last)) || (isWide(first) && isPunct(first))) return a + b;
  return `${a} ${b}`;
}

/** A markdown table row, as the table stage writes them (`| a | b |`). */
export function isTableRow(line: string): boolean {
  const s = line.trim();
  return s.length >= 2 && s.startsWith('|') && s.endsWith('|');
}

/**
 * The text's printed line width in columns: the longest prose line, or with five lines or more the
 * 85th percentile (one long heading or leader line does not set the width).
 */
export function lineWidth(lines: string[]): number {
  const widths = lines.map(displayWidth).sort((x, y) => x - y);
  if (widths.length === 0) return 0;
  if (widths.length < 5) return widths[widths.length - 1];
  return widths[Math.floor(0.85 * (widths.length - 1))];
}

const QUESTION_MARKER = /^(?:問\s*[A-Z]?\d*\s*[：:︰]|Q\d{1,3}\s*[.．:：︰])/;

const BLOCK_START = new RegExp(
  '^(?:' +
    [
      '[⚫➢•●○■□◆◇▪►✓\\u2022\\u25cf\\uf0b7\\uf0be\\uf06c\\uf0fc\\uf0a7\\uf076\\uf0d8]', // bullets (Word's private-use ones too)
      '[-–*]\\s', // dash bullets
      '\\d{1,2}[.．、)](?!\\d)', // 1.  2、  3)
      '\\((?:[a-z]|[ivx]{1,4})\\)', // (a) (iv)
      '(?:[a-z]|[ivx]{1,4})\\.\\s', // a. iv.
      '[一二三四五六七八九十]{1,3}、', // 一、
      '[（(][一二三四五六七八九十]{1,3}[)）]', // （一）
      '\\([A-Z]\\)\\s', // (A) 排水系統
      '[問答]\\s*[A-Z]?\\d*\\s*[：:︰]', // 問 A1： 答 1：
      '[QA]\\d{1,3}\\s*[.．:：︰]', // Q3. A3.
      '\\[', // [內部參考：…] [如被追問：…]
    ].join('|') +
    ')',
  'u',
);

/** `line` (stripped) begins a paragraph of its own: a list item, marker, note or table row. */
export function startsBlock(line: string): boolean {
  return isTableRow(line) || BLOCK_START.test(line);
}

/**
 * `text` (a chunk as stored: PDF lines, markdown tables) as paragraphs joined by a blank line; a
 * table's rows stay one per line. Characters are kept as printed: only line breaks and spaces
 * change.
 */
export function reflow(text: string): string {
  const lines = text
    .replace(/\r\n?/g, '\n')
    .split('\n')
    .map((ln) => ln.trim())
    .map((ln) => (isTableRow(ln) ? ln : collapseCjkSpaces(ln)));
  const width = lineWidth(lines.filter((ln) => ln && !isTableRow(ln)));
  const blocks: string[] = [];
  let para: string | null = null;
  let prev = '';
  let table: string[] = [];
  const close = () => {
    if (para) blocks.push(para);
    para = null;
  };
  const closeTable = () => {
    if (table.length) blocks.push(table.join('\n'));
    table = [];
  };
  for (const ln of lines) {
    if (!ln) {
      close();
      closeTable();
      prev = '';
      continue;
    }
    if (isTableRow(ln)) {
      close();
      table.push(ln);
      continue;
    }
    closeTable();
    let wrapped = displayWidth(prev) >= WRAPPED_RATIO * width && !prev.endsWith(']');
    // A question (`Q3. …？`) ends where its answer begins.
    if (para !== null && /[？?]$/.test(prev) && QUESTION_MARKER.test(para)) wrapped = false;
    if (para !== null && wrapped && !startsBlock(ln)) {
      para = joinLines(para, ln);
    } else {
      close();
      para = ln;
    }
    prev = ln;
  }
  close();
  closeTable();
  return blocks.join('\n\n');
}
