import { Group, Progress, Stack, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import type { TFunction } from 'i18next';
import { i18n } from '../i18n';
import type { DocumentInfo } from '../types';
import { formatNumber, localeOf, stageLabel, stageObject } from '../lib/format';

type ProgressFields = Pick<DocumentInfo, 'filename' | 'status' | 'stage' | 'pages_done' | 'pages_total' | 'unit'> &
  Partial<Pick<DocumentInfo, 'waiting_for' | 'queue_position' | 'eta_s' | 'step' | 'step_done' | 'step_total'>>;

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

function appT(): TFunction {
  return i18n.t.bind(i18n);
}

/** 1 → "1st", 2 → "2nd", 3 → "3rd", 11 → "11th", 22 → "22nd" (English ordinal plural rules; "第3" in Chinese). */
export function ordinal(n: number, t: TFunction = appT()): string {
  return t('progress.ordinal', { count: n, ordinal: true });
}

/** An estimate in seconds as people say it: "under a minute", "about 2 min", "about 1 h 20 min". */
export function aboutDuration(seconds: number, t: TFunction = appT()): string {
  if (seconds < 60) return t('progress.underAMinute');
  const minutes = Math.round(seconds / 60);
  if (minutes < 60) return t('progress.aboutMinutes', { minutes });
  const hours = Math.floor(minutes / 60);
  const rest = minutes % 60;
  return rest ? t('progress.aboutHoursMinutes', { hours, minutes: rest }) : t('progress.aboutHours', { hours });
}

/** What a stage counts ("pages", "chunks"); another unit as the server names it. */
function unitLabel(unit: string | null | undefined, t: TFunction): string {
  if (!unit || unit === 'pages') return t('progress.unit.pages');
  if (unit === 'chunks') return t('progress.unit.chunks');
  return unit;
}

/**
 * The part of the stage under way with its counts, e.g. "verifying Q&A pairs: 3 of 7" (the
 * splitter's LLM verification pass); a step this app has no words for by the server's name.
 */
function stepLabel(doc: ProgressFields, t: TFunction): string | null {
  if (!doc.step) return null;
  const counts = { done: formatNumber(doc.step_done ?? 0, t), total: formatNumber(doc.step_total ?? 0, t) };
  if (doc.step === 'verifying') return t('progress.step.verifying', counts);
  return (doc.step_total ?? 0) > 0 ? t('progress.step.other', { step: doc.step, ...counts }) : doc.step;
}

/**
 * The progress line: stage (or "Queued …" while in line), the step under way, counts, place in
 * line and estimate, e.g. "Queued · 3rd in line · about 2 min", "Embedding · 8 / 18 chunks · about
 * 1 min left" or "Splitting · verifying Q&A pairs: 3 of 7".
 */
export function progressLabel(doc: ProgressFields, t: TFunction = appT()): string {
  const stage = stageLabel(doc.status === 'queued' && !doc.stage ? 'queued' : doc.stage, t);
  const inLine = doc.queue_position != null && doc.queue_position > 0;
  const parts: string[] = [];
  if (inLine) {
    const next = NEXT_STAGE[doc.stage?.toLowerCase()];
    parts.push(next ? t('progress.queuedFor', { stage: stageObject(next, t) }) : t('format.stage.queued'));
    parts.push(
      doc.queue_position === 1
        ? t('progress.nextInLine')
        : t('progress.inLine', { place: ordinal(doc.queue_position!, t) }),
    );
  } else {
    parts.push(stage);
    const step = stepLabel(doc, t);
    if (step) parts.push(step);
    if (doc.pages_total > 0) {
      parts.push(
        t('progress.count', {
          done: formatNumber(doc.pages_done, t),
          total: formatNumber(doc.pages_total, t),
          unit: unitLabel(doc.unit, t),
        }),
      );
    }
  }
  if (doc.eta_s != null && Number.isFinite(doc.eta_s)) {
    parts.push(inLine ? aboutDuration(doc.eta_s, t) : t('progress.left', { duration: aboutDuration(doc.eta_s, t) }));
  }
  return parts.join(t('common.separator'));
}

export function ProgressBar({ doc }: { doc: ProgressFields }) {
  const { t } = useTranslation();
  const value = progressPercent(doc);
  const label = progressLabel(doc, t);
  const waiting = doc.waiting_for ? t('progress.waitingFor', { service: doc.waiting_for }) : null;
  return (
    <Stack gap={4}>
      {/* Polite: a screen reader hears the new line when it changes, without being interrupted. */}
      <div aria-live="polite" aria-atomic="true" data-testid="progress-live">
        <Group justify="space-between" gap="xs" wrap="nowrap">
          <Text size="xs" fw={500} data-testid="progress-stage">
            {label}
          </Text>
          <Text size="xs" c="dimmed">
            {new Intl.NumberFormat(localeOf(t), { style: 'percent' }).format(value / 100)}
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
        aria-label={t(doc.waiting_for ? 'progress.ariaWaiting' : 'progress.aria', {
          name: doc.filename,
          label,
          service: doc.waiting_for,
        })}
        transitionDuration={200}
      />
    </Stack>
  );
}
