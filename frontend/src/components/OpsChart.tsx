import { useEffect, useMemo, useRef, useState } from 'react';
import { Box, Group, Loader, Paper, Stack, Text, Title } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { ApiError } from '../lib/api';
import { errorText } from '../lib/errors';
import {
  AXIS_COLOR,
  GRID_COLOR,
  formatClock,
  formatFigure,
  formatOpsValue,
  hasData,
  lastValue,
  panelWords,
  seriesColor,
  seriesLabel,
  toColumns,
} from '../lib/opsChart';
import type { OpsPanel, OpsSeriesResponse } from '../types';

const HEIGHT = 220;
const FONT = '12px system-ui, -apple-system, "Segoe UI", Roboto, "Noto Sans HK", sans-serif';
/** Charts whose cursors move together (hovering one time shows it on every chart). */
const SYNC_KEY = 'legco-ops';

interface Props {
  panel: OpsPanel;
  response: OpsSeriesResponse | undefined;
  error: unknown;
  loading: boolean;
}

/** Whether this browser draws on a canvas (uPlot needs a 2-D context); checked once. */
let canvasSupport: boolean | null = null;
function canDraw(): boolean {
  if (canvasSupport === null) {
    try {
      canvasSupport = document.createElement('canvas').getContext('2d') !== null;
    } catch {
      canvasSupport = false;
    }
  }
  return canvasSupport;
}

/** The width of `ref`'s element, followed as it changes (a phone turned, the window resized). */
function useWidth(ref: React.RefObject<HTMLElement | null>, fallback: number): number {
  const [width, setWidth] = useState(fallback);
  useEffect(() => {
    const el = ref.current;
    if (!el) return;
    if (el.clientWidth > 0) setWidth(el.clientWidth);
    const observer = new ResizeObserver((entries) => {
      const w = Math.floor(entries[0]?.contentRect.width ?? 0);
      if (w > 0) setWidth(w);
    });
    observer.observe(el);
    return () => observer.disconnect();
  }, [ref]);
  return width;
}

/**
 * One panel of the Operations page: its title and description, a uPlot time-series chart of its
 * series (time on the x axis in the interface's clock, the unit on the y axis) and a legend with
 * each series' latest value, or its value where the cursor is. Without data it says "no data
 * yet"; when the gateway could not ask Prometheus it says so.
 */
export function OpsChart({ panel, response, error, loading }: Props) {
  const { t, i18n } = useTranslation();
  const words = panelWords(panel, t);
  const titleId = `ops-chart-${panel.id}`;
  const box = useRef<HTMLDivElement>(null);
  const plot = useRef<HTMLDivElement>(null);
  const width = useWidth(box, 560);
  const [cursor, setCursor] = useState<number | null>(null);
  const drawable = response !== undefined && hasData(response);
  const columns = useMemo(() => (response && drawable ? toColumns(response) : null), [response, drawable]);
  const labels = useMemo(
    () => (response ? response.series.map((s) => seriesLabel(panel.id, s, t)) : []),
    [response, panel.id, t],
  );
  // A new chart when what it shows changes shape (series, size, language); new values only: setData.
  const shape = `${labels.map((l) => l.text).join('\u0000')}|${width}|${i18n.language}|${panel.unit}`;
  const chart = useRef<uPlot | null>(null);
  const shown = useRef('');

  useEffect(() => {
    if (!columns || !plot.current || !canDraw()) return;
    if (chart.current && shown.current === shape) {
      chart.current.setData(columns as uPlot.AlignedData);
      return;
    }
    chart.current?.destroy();
    const opts: uPlot.Options = {
      width,
      height: HEIGHT,
      legend: { show: false },
      cursor: { sync: { key: SYNC_KEY }, drag: { x: false, y: false } },
      scales: {
        x: { time: true },
        y: {
          range: (_u, min, max) => {
            const lo = Math.min(0, min ?? 0);
            const hi = max === null || max === undefined || max <= lo ? lo + 1 : max * 1.1;
            return [lo, hi];
          },
        },
      },
      axes: [
        {
          stroke: AXIS_COLOR,
          font: FONT,
          grid: { stroke: GRID_COLOR, width: 1 },
          ticks: { stroke: GRID_COLOR, width: 1 },
          values: (_u, splits) => splits.map((s) => formatClock(s, t)),
        },
        {
          stroke: AXIS_COLOR,
          font: FONT,
          label: words.axis,
          labelFont: FONT,
          labelSize: 20,
          size: 56,
          grid: { stroke: GRID_COLOR, width: 1 },
          ticks: { stroke: GRID_COLOR, width: 1 },
          values: (_u, splits) => splits.map((s) => formatFigure(s, t)),
        },
      ],
      series: [
        {},
        ...labels.map((label, i) => ({ label: label.text, stroke: seriesColor(i), width: 2, spanGaps: false })),
      ],
      hooks: { setCursor: [(u: uPlot) => setCursor(u.cursor.idx ?? null)] },
    };
    chart.current = new uPlot(opts, columns as uPlot.AlignedData, plot.current);
    shown.current = shape;
  }, [columns, shape, width, labels, words.axis, t]);

  // No data (or an error) any more: the chart goes.
  useEffect(() => {
    if (columns) return;
    chart.current?.destroy();
    chart.current = null;
    shown.current = '';
  }, [columns]);
  useEffect(
    () => () => {
      chart.current?.destroy();
      chart.current = null;
    },
    [],
  );

  const at = cursor !== null && columns ? cursor : null;
  const values = columns ? columns.slice(1).map((col) => (at !== null ? (col[at] ?? null) : lastValue(col))) : [];
  const summary = labels
    .map((l, i) => `${l.text} ${formatOpsValue(values[i] ?? null, panel.unit, t)}`)
    .join(t('common.listSeparator'));
  const unavailable = error instanceof ApiError && error.status === 503;

  return (
    <Paper
      withBorder
      radius="md"
      p="md"
      component="figure"
      m={0}
      aria-labelledby={titleId}
      data-testid="ops-chart"
      data-panel={panel.id}
      data-series={response?.series.length ?? 0}
      data-state={error ? 'error' : drawable ? 'data' : response ? 'empty' : 'loading'}
    >
      <Stack gap={4}>
        <Title order={3} size="h5" id={titleId} lang={words.lang}>
          {words.title}
        </Title>
        <Text size="xs" c="dimmed" lang={words.lang}>
          {words.description}
        </Text>
      </Stack>
      <Box ref={box} mt="sm" pos="relative" mih={HEIGHT}>
        {drawable && (
          <div
            ref={plot}
            role="img"
            aria-label={t('ops.chartSummary', { title: words.title, count: labels.length, values: summary })}
            data-testid="ops-plot"
          />
        )}
        {!drawable && (
          <Stack h={HEIGHT} align="center" justify="center" gap={4} data-testid="ops-chart-placeholder">
            {error ? (
              <Text size="sm" c={unavailable ? 'dimmed' : 'red'} ta="center">
                {unavailable ? t('ops.chartUnavailable') : errorText(error, t).message}
              </Text>
            ) : response ? (
              <>
                <Text size="sm" fw={600}>
                  {t('ops.noData')}
                </Text>
                <Text size="xs" c="dimmed" ta="center" maw={320}>
                  {t('ops.noDataText')}
                </Text>
              </>
            ) : (
              loading && <Loader size="sm" aria-label={t('ops.loading', { title: words.title })} />
            )}
          </Stack>
        )}
      </Box>
      {drawable && (
        <Box component="figcaption" mt="xs">
          <Text size="xs" c="dimmed" mb={2}>
            {at !== null && columns ? t('ops.at', { time: formatClock(columns[0][at], t, true) }) : t('ops.latest')}
          </Text>
          <Group component="ul" gap="md" m={0} p={0} style={{ listStyle: 'none', rowGap: 2 }}>
            {labels.map((label, i) => (
              <Group component="li" key={`${label.text}-${i}`} gap={6} wrap="nowrap" data-testid="ops-legend-item">
                <Box
                  component="span"
                  aria-hidden="true"
                  w={12}
                  h={3}
                  style={{ background: seriesColor(i), borderRadius: 2, flex: 'none' }}
                />
                <Text size="xs" component="span" lang={label.lang}>
                  {label.text}
                </Text>
                <Text size="xs" component="span" fw={600} style={{ fontVariantNumeric: 'tabular-nums' }}>
                  {formatOpsValue(values[i] ?? null, panel.unit, t)}
                </Text>
              </Group>
            ))}
          </Group>
          {Boolean(error) && (
            // A refresh failed: the chart keeps the figures it had, and says so.
            <Text size="xs" c="dimmed" mt={4} data-testid="ops-chart-stale">
              {unavailable ? t('ops.chartStale') : errorText(error, t).message}
            </Text>
          )}
        </Box>
      )}
    </Paper>
  );
}
