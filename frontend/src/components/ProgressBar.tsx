import { Group, Progress, Stack, Text } from '@mantine/core';
import type { DocumentInfo } from '../types';
import { stageLabel } from '../lib/format';

type ProgressFields = Pick<DocumentInfo, 'filename' | 'status' | 'stage' | 'pages_done' | 'pages_total' | 'unit'> &
  Partial<Pick<DocumentInfo, 'waiting_for' | 'queue_position' | 'eta_s'>>;

/** Rough position of each pipeline stage, used when there is no page count yet. */
const STAGE_FALLBACK: Record<string, number> = {
  uploaded: 5,
  queued: 5,
  parsing: 15,
  splitting: 35,
  chunking: 35,
  tables: 50,
  embedding: 70,
  indexing: 90,
};

/**
 * The stage a document in line waits for, after the stage it last reported (the gateway's
 * `services/gateway/waits.py` puts a document in line once its stage has finished its part).
 */
const NEXT_STAGE: Record<string, string> = {
  parsing: 'tables',
  tables: 'splitting',
  splitting: 'embedding',
};

export function progressPercent(doc: ProgressFields): number {
  if (doc.status === 'indexed') return 100;
  if (doc.pages_total > 0) {
    return Math.max(0, Math.min(100, Math.round((doc.pages_done / doc.pages_total) * 100)));
  }
  return STAGE_FALLBACK[doc.stage?.toLowerCase()] ?? 5;
}

/** 1 → "1st", 2 → "2nd", 3 → "3rd", 11 → "11th", 22 → "22nd". */
export function ordinal(n: number): string {
  const tens = n % 100;
  if (tens >= 11 && tens <= 13) return `${n}th`;
  const suffix = { 1: 'st', 2: 'nd', 3: 'rd' }[n % 10] ?? 'th';
  return `${n}${suffix}`;
}

/** An estimate in seconds as people say it: "under a minute", "about 2 min", "about 1 h 20 min". */
export function aboutDuration(seconds: number): string {
  if (seconds < 60) return 'under a minute';
  const minutes = Math.round(seconds / 60);
  if (minutes < 60) return `about ${minutes} min`;
  const hours = Math.floor(minutes / 60);
  const rest = minutes % 60;
  return rest ? `about ${hours} h ${rest} min` : `about ${hours} h`;
}

/**
 * The progress line: stage (or "Queued …" while in line), counts, place in line and estimate,
 * e.g. "Queued · 3rd in line · about 2 min" or "Embedding · 8 / 18 chunks · about 1 min left".
 */
export function progressLabel(doc: ProgressFields): string {
  const stage = stageLabel(doc.status === 'queued' && !doc.stage ? 'queued' : doc.stage);
  const inLine = doc.queue_position != null && doc.queue_position > 0;
  const parts: string[] = [];
  if (inLine) {
    const next = NEXT_STAGE[doc.stage?.toLowerCase()];
    parts.push(next ? `Queued for ${stageLabel(next).toLowerCase()}` : 'Queued');
    parts.push(doc.queue_position === 1 ? 'next in line' : `${ordinal(doc.queue_position!)} in line`);
  } else {
    parts.push(stage);
    if (doc.pages_total > 0) parts.push(`${doc.pages_done} / ${doc.pages_total} ${doc.unit || 'pages'}`);
  }
  if (doc.eta_s != null && Number.isFinite(doc.eta_s)) {
    parts.push(inLine ? aboutDuration(doc.eta_s) : `${aboutDuration(doc.eta_s)} left`);
  }
  return parts.join(' · ');
}

export function ProgressBar({ doc }: { doc: ProgressFields }) {
  const value = progressPercent(doc);
  const label = progressLabel(doc);
  const waiting = doc.waiting_for
    ? `Waiting for ${doc.waiting_for}: it is not answering. Work goes on by itself when it is back.`
    : null;
  return (
    <Stack gap={4}>
      {/* Polite: a screen reader hears the new line when it changes, without being interrupted. */}
      <div aria-live="polite" aria-atomic="true" data-testid="progress-live">
        <Group justify="space-between" gap="xs" wrap="nowrap">
          <Text size="xs" fw={500} data-testid="progress-stage">
            {label}
          </Text>
          <Text size="xs" c="dimmed">
            {value}%
          </Text>
        </Group>
        {waiting && (
          <Text size="xs" fw={600} c="orange.8" data-testid="progress-waiting">
            {waiting}
          </Text>
        )}
      </div>
      <Progress
        value={value}
        animated={!doc.waiting_for}
        striped
        color={doc.waiting_for ? 'orange' : undefined}
        size="sm"
        aria-label={`Processing ${doc.filename}: ${label}${doc.waiting_for ? ` · waiting for ${doc.waiting_for}` : ''}`}
        transitionDuration={200}
      />
    </Stack>
  );
}
