import { Group, Progress, Stack, Text } from '@mantine/core';
import type { DocumentInfo } from '../types';
import { stageLabel } from '../lib/format';

type ProgressFields = Pick<DocumentInfo, 'filename' | 'status' | 'stage' | 'pages_done' | 'pages_total' | 'unit'> &
  Partial<Pick<DocumentInfo, 'waiting_for'>>;

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

export function progressPercent(doc: ProgressFields): number {
  if (doc.status === 'indexed') return 100;
  if (doc.pages_total > 0) {
    return Math.max(0, Math.min(100, Math.round((doc.pages_done / doc.pages_total) * 100)));
  }
  return STAGE_FALLBACK[doc.stage?.toLowerCase()] ?? 5;
}

export function ProgressBar({ doc }: { doc: ProgressFields }) {
  const value = progressPercent(doc);
  const stage = stageLabel(doc.status === 'queued' && !doc.stage ? 'queued' : doc.stage);
  const unit = doc.unit || 'pages';
  const pages = doc.pages_total > 0 ? `${doc.pages_done} / ${doc.pages_total} ${unit}` : null;
  const waiting = doc.waiting_for ? ` · waiting for ${doc.waiting_for}` : '';
  const label = `${stage}${pages ? ` · ${pages}` : ''}${waiting}`;
  return (
    <Stack gap={4}>
      <Group justify="space-between" gap="xs" wrap="nowrap">
        <Text size="xs" fw={500} data-testid="progress-stage">
          {label}
        </Text>
        <Text size="xs" c="dimmed">
          {value}%
        </Text>
      </Group>
      <Progress
        value={value}
        animated
        striped
        size="sm"
        aria-label={`Processing ${doc.filename}: ${label}`}
        transitionDuration={200}
      />
    </Stack>
  );
}
