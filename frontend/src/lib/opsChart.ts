/**
 * The Operations page's charts, as data: the time ranges it offers, the panels it knows by id
 * (their words are in the locale files; the ids are those of `shared/ops_panels.py`), a panel's
 * series as uPlot's columns, and values said with their unit in the interface language.
 */
import type { TFunction } from 'i18next';
import { i18n } from '../i18n';
import { contentLang } from './contentLang';
import { isKnownStage, localeOf, stageLabel } from './format';
import type { OpsSeries, OpsSeriesResponse } from '../types';

const appT = (): TFunction => i18n.t.bind(i18n);

/** The ranges of the picker: seconds of history and seconds between points (181–241 points). */
export const OPS_RANGES = [
  { key: '15m', rangeS: 900, stepS: 5 },
  { key: '1h', rangeS: 3600, stepS: 15 },
  { key: '6h', rangeS: 21600, stepS: 90 },
] as const;
export type OpsRangeKey = (typeof OPS_RANGES)[number]['key'];
export const DEFAULT_RANGE: OpsRangeKey = '1h';

export function opsRange(key: string) {
  return OPS_RANGES.find((r) => r.key === key) ?? OPS_RANGES[1];
}

/** The panels whose title, axis and description the locale files hold (`ops.panels.<id>`). */
export const PANEL_IDS = [
  'ingest-pages',
  'ingest-documents',
  'consumer-lag',
  'in-flight',
  'stage-p95',
  'stage-p50',
  'failures',
  'deadletters',
  'deadletter-rate',
  'embedder-tokens',
  'vision-calls',
  'vision-cache',
  'vision-rejections',
  'query-p95',
  'targets-up',
] as const;
export type PanelId = (typeof PANEL_IDS)[number];

/** Panels whose one series has no labels: their series' name is in the locale files too. */
export const SINGLE_SERIES_PANELS = ['deadletters', 'embedder-tokens', 'vision-cache', 'query-p95'] as const;
type SingleSeriesPanel = (typeof SINGLE_SERIES_PANELS)[number];

export function isKnownPanel(id: string): id is PanelId {
  return (PANEL_IDS as readonly string[]).includes(id);
}

/**
 * Line colours, in order of the series: each at least 3:1 against the white chart (WCAG 1.4.11,
 * graphical objects), and told apart by hue.
 */
export const SERIES_COLORS = [
  '#1971c2', // blue
  '#d9480f', // orange
  '#2b8a3e', // green
  '#9c36b5', // grape
  '#c92a2a', // red
  '#0b7285', // cyan
  '#5f3dc4', // violet
  '#a61e4d', // pink
  '#5c940d', // lime
  '#495057', // grey
] as const;

export function seriesColor(index: number): string {
  return SERIES_COLORS[index % SERIES_COLORS.length];
}

/** Text of the axes (gray 8, 10:1 on white) and the grid lines. */
export const AXIS_COLOR = '#343a40';
export const GRID_COLOR = '#e9ecef';

/** Words of a panel in the interface language; a panel the app does not know keeps the server's English. */
export function panelWords(
  panel: { id: string; title: string; description: string; unit: string },
  t: TFunction = appT(),
): { title: string; description: string; axis: string; lang: string | undefined } {
  if (isKnownPanel(panel.id)) {
    return {
      title: t(`ops.panels.${panel.id}.title`),
      description: t(`ops.panels.${panel.id}.description`),
      axis: t(`ops.panels.${panel.id}.axis`),
      lang: undefined,
    };
  }
  return { title: panel.title, description: panel.description, axis: unitAxis(panel.unit, t), lang: 'en' };
}

/** An axis label from a unit alone (panels the app does not know). */
export function unitAxis(unit: string, t: TFunction = appT()): string {
  if (unit === 'pps') return t('ops.unit.perSecondAxis');
  if (unit === 's') return t('ops.unit.secondsAxis');
  return t('ops.unit.countAxis');
}

/**
 * How a series is named in the legend: a labelless panel's series in the interface language, a
 * series by stage with the stage's name, else the gateway's name (label values: departments,
 * strategies, jobs…) marked with its own language.
 */
export function seriesLabel(panelId: string, series: OpsSeries, t: TFunction = appT()): { text: string; lang: string | undefined } {
  const names = Object.keys(series.labels);
  if (names.length === 0 && (SINGLE_SERIES_PANELS as readonly string[]).includes(panelId)) {
    return { text: t(`ops.panels.${panelId as SingleSeriesPanel}.series`), lang: undefined };
  }
  if (names.length === 1 && names[0] === 'stage' && isKnownStage(series.labels.stage)) {
    return { text: stageLabel(series.labels.stage, t), lang: undefined };
  }
  return { text: series.name, lang: contentLang(series.name) };
}

/** Whether any series of `response` has a value (else the chart says "no data yet"). */
export function hasData(response: OpsSeriesResponse | undefined): boolean {
  return Boolean(response?.series.some((s) => s.points.some(([, v]) => v !== null)));
}

/**
 * uPlot's columns: the time grid (unix seconds, shared by every series of one answer) and one
 * column of values per series (null where Prometheus had no sample).
 */
export function toColumns(response: OpsSeriesResponse): [number[], ...(number | null)[][]] {
  const xs = response.series[0]?.points.map(([ts]) => ts) ?? [];
  return [xs, ...response.series.map((s) => s.points.map(([, v]) => v))];
}

/** The last value of a series column (null when it has none). */
export function lastValue(values: readonly (number | null)[]): number | null {
  for (let i = values.length - 1; i >= 0; i -= 1) if (values[i] !== null) return values[i];
  return null;
}

/** A number for an axis or a legend: three significant digits, compact past ten thousand. */
export function formatFigure(value: number, t: TFunction = appT()): string {
  const abs = Math.abs(value);
  return new Intl.NumberFormat(localeOf(t), {
    maximumSignificantDigits: abs >= 1 && abs < 1000 ? 4 : 3,
    notation: abs >= 10_000 ? 'compact' : 'standard',
  }).format(value);
}

/** A value with its unit in the interface language ("1.25/s", "每秒 1.25", "0.4 s"); "—" for none. */
export function formatOpsValue(value: number | null, unit: string, t: TFunction = appT()): string {
  if (value === null) return t('common.none');
  const text = formatFigure(value, t);
  if (unit === 'pps') return t('ops.unit.perSecond', { value: text });
  if (unit === 's') return t('ops.unit.seconds', { value: text });
  return text;
}

/** A time of day on the chart's axis ("14:05"), in the interface locale. */
export function formatClock(unixS: number, t: TFunction = appT(), seconds = false): string {
  return new Intl.DateTimeFormat(localeOf(t), {
    hour: '2-digit',
    minute: '2-digit',
    ...(seconds ? { second: '2-digit' } : {}),
    hourCycle: 'h23',
  }).format(new Date(unixS * 1000));
}
