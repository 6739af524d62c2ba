/**
 * Labels, dates and numbers in the interface language. Each function takes the component's `t`
 * (so the component re-renders on a language switch); without it, the app's current language.
 */
import type { TFunction } from 'i18next';
import { i18n, intlLocale } from '../i18n';
import type { ChunkingStrategy } from '../types';

function appT(): TFunction {
  return i18n.t.bind(i18n);
}

/** The chunking strategies, in the order the upload offers them. */
export const STRATEGY_VALUES: ChunkingStrategy[] = ['token', 'question'];

/** A strategy's radio label ("Chunk by question — Q&A pairs, tables as markdown"). */
export function strategyLabel(strategy: string, t: TFunction = appT()): string {
  return t(`format.strategy.${strategy === 'question' ? 'question' : 'token'}.label`);
}

/** A strategy's short name ("token", "question"; in Chinese its badge). */
export function strategyName(strategy: string, t: TFunction = appT()): string {
  if (strategy !== 'question' && strategy !== 'token') return strategy;
  return t(`format.strategy.${strategy}.name`);
}

export function strategyBadgeLabel(strategy: string, t: TFunction = appT()): string {
  return t(`format.strategy.${strategy === 'question' ? 'question' : 'token'}.badge`);
}

export function strategyColor(strategy: string): string {
  return strategy === 'question' ? 'blue' : 'gray';
}

const STAGES = [
  'uploaded',
  'queued',
  'parsing',
  'splitting',
  'chunking',
  'tables',
  'embedding',
  'indexing',
  'indexed',
  'failed',
] as const;
type Stage = (typeof STAGES)[number];

function knownStage(stage: string): stage is Stage {
  return (STAGES as readonly string[]).includes(stage);
}

/** Whether `stage` is a pipeline stage the interface has a name for (`format.stage.*`). */
export function isKnownStage(stage: string | null | undefined): boolean {
  return Boolean(stage) && knownStage(String(stage).toLowerCase());
}

/** A pipeline stage as people say it ("Extracting tables"); an unknown stage's name, capitalised. */
export function stageLabel(stage: string | null | undefined, t: TFunction = appT()): string {
  if (!stage) return t('format.stage.waiting');
  const key = stage.toLowerCase();
  if (knownStage(key)) return t(`format.stage.${key}`);
  const words = stage.replace(/[_-]+/g, ' ').trim();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** A stage as the object of "Queued for …" ("embedding"; in Chinese the same as stageLabel). */
export function stageObject(stage: string, t: TFunction = appT()): string {
  const key = stage.toLowerCase();
  if (knownStage(key)) return t(`format.stageObject.${key}`);
  return stageLabel(stage, t).toLowerCase();
}

/** The `Intl` locale of `t`'s language (en-HK or zh-HK). */
export function localeOf(t: TFunction = appT()): string {
  return intlLocale(t('language.code'));
}

/** A date and time, short, in the interface language ("15 May 2026, 17:30"; "2026年5月15日 17:30"). */
export function formatDate(iso: string | null | undefined, t: TFunction = appT()): string {
  if (!iso) return '—';
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  return date.toLocaleString(localeOf(t), {
    year: 'numeric',
    month: 'short',
    day: 'numeric',
    hour: '2-digit',
    minute: '2-digit',
  });
}

/**
 * A calendar day `YYYY-MM-DD` (a date input's value) in words in the interface language
 * ("1 May 2026"; "2026年5月1日"), whatever order the browser's own date control shows; `null` for
 * anything else. No time zone shift: the day is the one given.
 */
export function formatDay(ymd: string, t: TFunction = appT()): string | null {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(ymd);
  if (!m) return null;
  const date = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])));
  if (date.getUTCDate() !== Number(m[3])) return null;
  return date.toLocaleDateString(localeOf(t), { timeZone: 'UTC', year: 'numeric', month: 'long', day: 'numeric' });
}

/** A whole number with the interface language's grouping ("1,234"). */
export function formatNumber(value: number, t: TFunction = appT()): string {
  return new Intl.NumberFormat(localeOf(t)).format(value);
}

export function pageRangeLabel(range: [number, number] | null | undefined, t: TFunction = appT()): string | null {
  if (!range || range.length !== 2) return null;
  const [start, end] = range;
  return start === end ? t('common.page', { page: start }) : t('common.pages', { start, end });
}

/** A relevance score with three decimals. */
export function formatScore(score: number, t: TFunction = appT()): string {
  if (!Number.isFinite(score)) return String(score);
  return new Intl.NumberFormat(localeOf(t), { minimumFractionDigits: 3, maximumFractionDigits: 3 }).format(score);
}

/** A file size in bytes as B, KB or MB. */
export function formatSize(bytes: number, t: TFunction = appT()): string {
  const locale = localeOf(t);
  if (bytes < 1024) return t('format.size.bytes', { size: new Intl.NumberFormat(locale).format(bytes) });
  if (bytes < 1024 * 1024) {
    return t('format.size.kb', { size: new Intl.NumberFormat(locale, { maximumFractionDigits: 0 }).format(bytes / 1024) });
  }
  const mb = new Intl.NumberFormat(locale, { minimumFractionDigits: 1, maximumFractionDigits: 1 });
  return t('format.size.mb', { size: mb.format(bytes / (1024 * 1024)) });
}
