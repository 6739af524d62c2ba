import type { ChunkingStrategy } from '../types';

export const STRATEGY_OPTIONS: { value: ChunkingStrategy; label: string; description: string }[] = [
  {
    value: 'token',
    label: 'Chunk by token — one page with overlap',
    description: 'Each page becomes one chunk, with some text from the neighbouring pages for context.',
  },
  {
    value: 'question',
    label: 'Chunk by question — Q&A pairs, tables as markdown',
    description: 'Detects 問/答 or Q/A pairs in briefing papers; tables inside answers are kept as markdown.',
  },
];

export function strategyBadgeLabel(strategy: string): string {
  return strategy === 'question' ? 'Chunked by question' : 'Chunked by token';
}

export function strategyColor(strategy: string): string {
  return strategy === 'question' ? 'blue' : 'gray';
}

const STAGE_LABELS: Record<string, string> = {
  uploaded: 'Uploaded',
  queued: 'Queued',
  parsing: 'Parsing',
  splitting: 'Splitting',
  chunking: 'Chunking',
  tables: 'Extracting tables',
  embedding: 'Embedding',
  indexing: 'Indexing',
  indexed: 'Indexed',
  failed: 'Failed',
};

export function stageLabel(stage: string | null | undefined): string {
  if (!stage) return 'Waiting';
  const known = STAGE_LABELS[stage.toLowerCase()];
  if (known) return known;
  const words = stage.replace(/[_-]+/g, ' ').trim();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

export function formatDate(iso: string | null | undefined): string {
  if (!iso) return '—';
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  return date.toLocaleString('en-HK', {
    year: 'numeric',
    month: 'short',
    day: 'numeric',
    hour: '2-digit',
    minute: '2-digit',
  });
}

export function pageRangeLabel(range: [number, number] | null | undefined): string | null {
  if (!range || range.length !== 2) return null;
  const [start, end] = range;
  return start === end ? `Page ${start}` : `Pages ${start}–${end}`;
}

export function formatScore(score: number): string {
  return Number.isFinite(score) ? score.toFixed(3) : String(score);
}
