import { useState } from 'react';
import {
  Alert,
  Anchor,
  Badge,
  Button,
  Code,
  Container,
  Group,
  Loader,
  SegmentedControl,
  SimpleGrid,
  Stack,
  Table,
  Text,
  Title,
  VisuallyHidden,
} from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { useSearchParams } from 'react-router-dom';
import { ErrorMessage } from '../components/ErrorMessage';
import { OpsChart } from '../components/OpsChart';
import { ApiError } from '../lib/api';
import { contentLang } from '../lib/contentLang';
import { errorText } from '../lib/errors';
import { formatDate, isKnownStage, stageLabel } from '../lib/format';
import { DEFAULT_RANGE, OPS_RANGES, formatClock, opsRange } from '../lib/opsChart';
import { OPS_REFRESH_MS, useDeadLetters, useOpsPanels, usePanelSeries, useReplayDeadLetter } from '../lib/queries';
import { isAdmin, roleLabel } from '../lib/roles';
import { useCaller } from '../lib/session';
import type { DeadLetterEntry, DocumentStatus, ReplayedDocument } from '../types';

const DEAD_LETTERS_ID = 'dead-letters';
const STATUS_COLORS: Record<DocumentStatus, string> = {
  queued: 'gray',
  processing: 'blue',
  indexed: 'green',
  failed: 'red',
};

/** Operations (admin): live charts of the pipeline from Prometheus, and the dead letters with "Retry". */
export function OperationsPage() {
  const { t } = useTranslation();
  const caller = useCaller();
  if (!isAdmin(caller)) {
    return (
      <Container size="lg" px="md" py="lg">
        <Alert color="gray" title={t('ops.adminsOnly')}>
          {t('ops.adminsOnlyText', { role: roleLabel(caller.role, t), department: caller.department })}
        </Alert>
      </Container>
    );
  }
  return <AdminOperations />;
}

function AdminOperations() {
  const { t } = useTranslation();
  const [params, setParams] = useSearchParams();
  const range = opsRange(params.get('range') ?? DEFAULT_RANGE);
  const panels = useOpsPanels();
  const list = panels.data?.panels ?? [];
  const series = usePanelSeries(
    list.map((p) => p.id),
    range.rangeS,
    range.stepS,
  );
  const deadLetters = useDeadLetters();
  // One alert for the page when the gateway could not ask Prometheus (each chart says it briefly).
  const down = series.find((q) => q.error instanceof ApiError && q.error.status === 503)?.error;
  const updatedAt = Math.max(0, ...series.map((q) => q.dataUpdatedAt));
  const refreshing = series.some((q) => q.isFetching);
  const count = deadLetters.data?.deadletters.length;

  return (
    <Container size="xl" px="md" py="lg">
      <Stack gap="lg">
        <div>
          <Title order={1} size="h2">
            {t('ops.title')}
          </Title>
          <Text c="dimmed" size="sm">
            {t('ops.intro')}
          </Text>
          {count !== undefined && count > 0 && (
            <Anchor href={`#${DEAD_LETTERS_ID}`} size="sm" data-testid="ops-deadletter-count">
              {t('ops.deadLetters.count', { count })}
            </Anchor>
          )}
        </div>

        <section aria-labelledby="ops-charts-heading">
          <Group justify="space-between" align="flex-end" mb="sm" gap="sm">
            <Title order={2} size="h4" id="ops-charts-heading">
              {t('ops.charts')}
            </Title>
            <Group gap="sm" align="center">
              <Text size="sm" id="ops-range-label" component="span">
                {t('ops.range.label')}
              </Text>
              <SegmentedControl
                aria-labelledby="ops-range-label"
                value={range.key}
                onChange={(value) => setParams((p) => ({ ...Object.fromEntries(p), range: value }), { replace: true })}
                data={OPS_RANGES.map((r) => ({ value: r.key, label: t(`ops.range.${r.key}`) }))}
                size="xs"
              />
              {/* Not `loading`: Mantine hides a loading button's text, leaving it without a name. */}
              <Button
                size="xs"
                variant="default"
                leftSection={refreshing ? <Loader size={10} aria-hidden="true" /> : undefined}
                onClick={() => series.forEach((q) => void q.refetch())}
              >
                {t('ops.refresh')}
              </Button>
            </Group>
          </Group>
          <Text size="xs" c="dimmed" mb="sm" role="status" data-testid="ops-updated">
            {updatedAt > 0
              ? t('ops.updated', { time: formatClock(updatedAt / 1000, t, true), seconds: OPS_REFRESH_MS / 1000 })
              : t('ops.refreshesEvery', { seconds: OPS_REFRESH_MS / 1000 })}
          </Text>
          {down !== undefined && (
            <Alert color="red" title={t('ops.prometheusDown')} role="alert" mb="md" data-testid="ops-prometheus-down">
              <Text size="sm">{t('ops.prometheusDownText')}</Text>
              {errorText(down, t).detail && (
                <Text size="xs" mt={4} lang={contentLang(errorText(down, t).detail ?? '')} data-testid="error-detail">
                  {errorText(down, t).detail}
                </Text>
              )}
            </Alert>
          )}
          {panels.isPending && <Loader size="sm" aria-label={t('ops.loadingPanels')} />}
          {panels.isError && (
            <Alert color="red" title={t('ops.panelsFailed')} role="alert">
              <ErrorMessage error={panels.error} />
            </Alert>
          )}
          <SimpleGrid cols={{ base: 1, lg: 2 }} spacing="md">
            {list.map((panel, i) => (
              <OpsChart
                key={panel.id}
                panel={panel}
                response={series[i]?.data}
                error={series[i]?.error ?? null}
                loading={series[i]?.isPending ?? true}
              />
            ))}
          </SimpleGrid>
        </section>

        <DeadLetters query={deadLetters} />
      </Stack>
    </Container>
  );
}

type Outcome = { documentId: string; result: ReplayedDocument } | { documentId: string; error: unknown };

/**
 * What a replay did to one document, in the interface language; `detail`: the gateway's own
 * reason (English) when the app has no words for it.
 */
function outcomeText(
  outcome: Outcome,
  t: ReturnType<typeof useTranslation>['t'],
): { text: string; ok: boolean; detail?: string } {
  if ('error' in outcome) {
    const { message, detail } = errorText(outcome.error, t);
    return { text: t('ops.deadLetters.retryFailed', { reason: message }), ok: false, detail: detail ?? undefined };
  }
  const { result } = outcome;
  if (!result.skipped) {
    return {
      text: t('ops.deadLetters.replayed', { count: result.replayed, stage: stageName(result.stage, t) }),
      ok: true,
    };
  }
  const notFailed = /^the document is (\w+), not failed$/.exec(result.skipped);
  if (notFailed) {
    return { text: t('ops.deadLetters.skippedNotFailed', { status: statusName(notFailed[1], t) }), ok: false };
  }
  if (result.skipped === 'the document was deleted') return { text: t('ops.deadLetters.skippedDeleted'), ok: false };
  return { text: t('ops.deadLetters.skipped'), ok: false, detail: result.skipped };
}

function stageName(stage: string | null | undefined, t: ReturnType<typeof useTranslation>['t']): string {
  return isKnownStage(stage) ? stageLabel(stage, t) : (stage ?? t('common.none'));
}

function statusName(status: string, t: ReturnType<typeof useTranslation>['t']): string {
  return status in STATUS_COLORS ? t(`documents.status.${status as DocumentStatus}`) : status;
}

function DeadLetters({ query }: { query: ReturnType<typeof useDeadLetters> }) {
  const { t } = useTranslation();
  const replay = useReplayDeadLetter();
  const [outcomes, setOutcomes] = useState<Record<string, Outcome>>({});
  const retry = (entry: DeadLetterEntry) =>
    replay.mutate(entry.document_id, {
      onSuccess: (response) => {
        const result = response.documents.find((d) => d.document_id === entry.document_id) ?? {
          document_id: entry.document_id,
          filename: entry.filename ?? null,
          stage: null,
          replayed: 0,
          skipped: 'no dead letter',
        };
        setOutcomes((o) => ({ ...o, [entry.document_id]: { documentId: entry.document_id, result } }));
      },
      onError: (error) => setOutcomes((o) => ({ ...o, [entry.document_id]: { documentId: entry.document_id, error } })),
    });

  return (
    <section aria-labelledby="ops-deadletters-heading" id={DEAD_LETTERS_ID}>
      <Title order={2} size="h4" id="ops-deadletters-heading" mb={4}>
        {t('ops.deadLetters.title')}
      </Title>
      <Text size="sm" c="dimmed" mb="sm">
        {t('ops.deadLetters.intro')}
      </Text>
      {query.isPending && <Loader size="sm" aria-label={t('ops.deadLetters.loading')} />}
      {query.isError && (
        <Alert color="red" title={t('ops.deadLetters.loadFailed')} role="alert">
          <ErrorMessage error={query.error} />
        </Alert>
      )}
      {query.isSuccess && query.data.deadletters.length === 0 && (
        <Text size="sm" data-testid="ops-deadletters-empty">
          {t('ops.deadLetters.none')}
        </Text>
      )}
      {query.isSuccess && query.data.deadletters.length > 0 && (
        <Table.ScrollContainer minWidth={960}>
          <Table
            striped
            verticalSpacing="xs"
            aria-labelledby="ops-deadletters-heading"
            styles={{ th: { whiteSpace: 'nowrap' } }}
            data-testid="ops-deadletters"
          >
            <Table.Thead>
              <Table.Tr>
                <Table.Th scope="col">{t('ops.deadLetters.column.document')}</Table.Th>
                <Table.Th scope="col">{t('ops.deadLetters.column.department')}</Table.Th>
                <Table.Th scope="col">{t('ops.deadLetters.column.stage')}</Table.Th>
                <Table.Th scope="col">{t('ops.deadLetters.column.reason')}</Table.Th>
                <Table.Th scope="col">{t('ops.deadLetters.column.attempts')}</Table.Th>
                <Table.Th scope="col">{t('ops.deadLetters.column.time')}</Table.Th>
                <Table.Th scope="col">{t('ops.deadLetters.column.status')}</Table.Th>
                <Table.Th scope="col">
                  <VisuallyHidden>{t('ops.deadLetters.column.actions')}</VisuallyHidden>
                </Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {query.data.deadletters.map((entry) => {
                const name = entry.filename ?? entry.document_id;
                const outcome = outcomes[entry.document_id];
                const said = outcome ? outcomeText(outcome, t) : null;
                const pending = replay.isPending && replay.variables === entry.document_id;
                return (
                  <Table.Tr key={`${entry.document_id}-${entry.offset}`} data-document-id={entry.document_id}>
                    <Table.Td>
                      <Text size="sm" lang={contentLang(name)} style={{ overflowWrap: 'anywhere' }}>
                        {name}
                      </Text>
                      {entry.page_number !== null && entry.page_number !== undefined && (
                        <Text size="xs" c="dimmed">
                          {t('common.page', { page: entry.page_number })}
                        </Text>
                      )}
                    </Table.Td>
                    <Table.Td lang={contentLang(entry.department)} style={{ whiteSpace: 'nowrap' }}>
                      {entry.department}
                    </Table.Td>
                    <Table.Td style={{ whiteSpace: 'nowrap' }}>{stageName(entry.stage, t)}</Table.Td>
                    <Table.Td maw={320}>
                      <Text size="sm" lang={contentLang(entry.reason)} style={{ overflowWrap: 'anywhere' }}>
                        {entry.reason}
                      </Text>
                      <Code fz="xs" lang="en">
                        {entry.error_type}
                      </Code>
                    </Table.Td>
                    <Table.Td>{entry.attempts}</Table.Td>
                    <Table.Td>
                      <time dateTime={entry.ts} style={{ whiteSpace: 'nowrap' }}>
                        {formatDate(entry.ts, t)}
                      </time>
                    </Table.Td>
                    {/* Wide enough for the longest status badge (PROCESSING; Mantine cuts a badge's label). */}
                    <Table.Td style={{ whiteSpace: 'nowrap' }} miw={130}>
                      {entry.status ? (
                        <Badge variant="light" color={STATUS_COLORS[entry.status]}>
                          {t(`documents.status.${entry.status}`)}
                        </Badge>
                      ) : (
                        <Badge variant="light" color="gray">
                          {t('ops.deadLetters.deleted')}
                        </Badge>
                      )}
                    </Table.Td>
                    <Table.Td miw={180}>
                      <Button
                        size="xs"
                        variant="light"
                        aria-label={t('ops.deadLetters.retryLabel', { name })}
                        onClick={() => retry(entry)}
                        loading={pending}
                        disabled={!entry.status}
                      >
                        {t('ops.deadLetters.retry')}
                      </Button>
                      <Text
                        size="xs"
                        mt={4}
                        role="status"
                        c={said ? (said.ok ? 'green' : 'orange') : undefined}
                        data-testid="ops-replay-result"
                      >
                        {said?.text}
                        {said?.detail && (
                          <Text component="span" display="block" size="xs" lang={contentLang(said.detail)}>
                            {said.detail}
                          </Text>
                        )}
                      </Text>
                    </Table.Td>
                  </Table.Tr>
                );
              })}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
    </section>
  );
}
