import { Fragment, useEffect, useRef } from 'react';
import { Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import type { ChunkInfo } from '../types';
import { contentLang } from '../lib/contentLang';

/** Shorter common stretches between two neighbouring chunks are a coincidence, not an overlap. */
const MIN_OVERLAP_CHARS = 20;

/**
 * How many characters at the start of `next` repeat the end of `prev`: token windows of a DOCX
 * or TXT document are plain slices of its text that overlap (200 tokens); Q&A and section chunks
 * do not. 0 when the common stretch is shorter than MIN_OVERLAP_CHARS.
 */
export function overlapLength(prev: string, next: string): number {
  const longest = Math.min(prev.length, next.length);
  for (let start = prev.length - longest; start <= prev.length - MIN_OVERLAP_CHARS; start += 1) {
    const k = prev.length - start;
    if (prev.charCodeAt(start) === next.charCodeAt(0) && prev.endsWith(next.slice(0, k))) return k;
  }
  return 0;
}

export interface TextPart {
  /** What separates it from the part before: a blank line, or nothing after an overlap. */
  before: string;
  text: string;
  cited: boolean;
}

/**
 * The document's text rebuilt from its chunks (in `chunk_index` order, overlaps taken once),
 * the cited chunk whole and marked. A neighbour's overlap with the cited chunk is cut from the
 * neighbour, so the passage reads as the chunk does.
 */
export function documentParts(chunks: ChunkInfo[], citedId: string): TextPart[] {
  const sorted = [...chunks].sort((a, b) => a.chunk_index - b.chunk_index);
  const texts = sorted.map((c) => c.text ?? '');
  const overlaps = texts.map((t, i) => (i === 0 ? 0 : overlapLength(texts[i - 1], t)));
  const cited = sorted.findIndex((c) => c.chunk_id === citedId);
  return sorted.map((_, i) => {
    const isCited = i === cited;
    let start = i > 0 && !isCited ? overlaps[i] : 0;
    let end = texts[i].length;
    if (i + 1 === cited) end -= overlaps[i + 1];
    if (i === cited + 1 && cited >= 0) start = overlaps[i];
    start = Math.min(start, end);
    const before = i > 0 && overlaps[i] === 0 ? '\n\n' : '';
    return { before, text: texts[i].slice(start, Math.max(start, end)), cited: isCited };
  });
}

export interface TextViewProps {
  /** Every chunk of the document (`GET /api/v1/documents/{id}/chunks`). */
  chunks: ChunkInfo[];
  chunkId: string;
  filename: string;
}

/** A DOCX or TXT document as text, the cited passage in a `<mark>` scrolled into view. */
export function TextView({ chunks, chunkId, filename }: TextViewProps) {
  const { t } = useTranslation();
  const mark = useRef<HTMLElement>(null);
  const parts = documentParts(chunks, chunkId);
  useEffect(() => mark.current?.scrollIntoView({ block: 'center' }), [chunkId, chunks]);
  if (!parts.some((p) => p.cited)) {
    return (
      <Text size="sm" c="dimmed">
        {t('viewer.gone', { name: filename })}
      </Text>
    );
  }
  return (
    <Text
      component="div"
      size="sm"
      aria-label={t('viewer.text', { name: filename })}
      lang={contentLang(parts.map((p) => p.text).join(''))}
      style={{ whiteSpace: 'pre-wrap', wordBreak: 'break-word', maxHeight: '70vh', overflow: 'auto' }}
    >
      {parts.map((part, i) => (
        <Fragment key={i}>
          {part.before}
          {part.cited ? (
            <mark ref={mark} data-testid="cited-passage">
              {part.text}
            </mark>
          ) : (
            part.text
          )}
        </Fragment>
      ))}
    </Text>
  );
}
