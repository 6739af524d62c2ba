import { Fragment, type ReactNode } from 'react';
import { Alert, Badge, Button, Collapse, Group, List, Paper, Stack, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import type { DocumentInfo } from '../types';
import { contentLang } from '../lib/contentLang';
import { formatDate, formatNumber, strategyBadgeLabel, strategyColor, strategyName } from '../lib/format';
import { ChunkList } from './ChunkList';
import { ConfirmDelete } from './ConfirmDelete';
import { ProgressBar } from './ProgressBar';
import { ScopeBadge } from './ScopeBadge';

const STATUS_COLORS: Record<string, string> = {
  queued: 'gray',
  processing: 'yellow',
  indexed: 'green',
  failed: 'red',
};

const STATUSES = ['queued', 'processing', 'indexed', 'failed'] as const;
type Status = (typeof STATUSES)[number];

function knownStatus(status: string): status is Status {
  return (STATUSES as readonly string[]).includes(status);
}

export function StrategyBadge({ strategy }: { strategy: string }) {
  const { t } = useTranslation();
  return (
    <Badge color={strategyColor(strategy)} variant="light" data-strategy={strategy} data-color={strategyColor(strategy)}>
      {strategyBadgeLabel(strategy, t)}
    </Badge>
  );
}

export interface DocumentRowProps {
  doc: DocumentInfo;
  expanded: boolean;
  onToggle: () => void;
  /** Offers to delete the document (and its chunks) when given. */
  onDelete?: () => void;
  deleting?: boolean;
  /** Set when this upload replaced earlier documents with the same filename. */
  replacedCount?: number;
}

export function DocumentRow({ doc, expanded, onToggle, onDelete, deleting, replacedCount = 0 }: DocumentRowProps) {
  const { t } = useTranslation();
  const inProgress = doc.status === 'queued' || doc.status === 'processing';
  const fellBack = doc.strategy_used && doc.strategy_used !== doc.strategy;
  const chunkRegion = `chunks-${doc.document_id}`;
  // Counts, type and date on one line; a wrapped line never starts with a separator.
  const meta: ReactNode[] = [
    t('documents.chunks', { count: doc.chunk_count, n: formatNumber(doc.chunk_count, t) }),
    ...(doc.page_count != null
      ? [t('documents.pages', { count: doc.page_count, n: formatNumber(doc.page_count, t) })]
      : []),
    ...(doc.file_type ? [doc.file_type.toUpperCase()] : []),
    <>
      {t('documents.uploaded')}
      <time dateTime={doc.upload_date}>{formatDate(doc.upload_date, t)}</time>
    </>,
  ];

  return (
    <Paper withBorder radius="md" p="sm" component="article" aria-label={doc.filename}>
      <Group justify="space-between" align="flex-start" gap="sm" wrap="wrap">
        <Stack gap={6} style={{ minWidth: 0, flex: '1 1 320px' }}>
          <Text fw={600} style={{ wordBreak: 'break-word' }} lang={contentLang(doc.filename)}>
            {doc.filename}
          </Text>
          <Group gap="xs" wrap="wrap">
            <ScopeBadge item={doc} />
            <StrategyBadge strategy={doc.strategy} />
            {fellBack && (
              <Badge color="gray" variant="outline" title={t('documents.fellBackTitle')}>
                {t('documents.fellBack', { strategy: strategyName(doc.strategy_used ?? '', t) })}
              </Badge>
            )}
            <Badge color={STATUS_COLORS[doc.status] ?? 'gray'} variant="dot" data-testid="status-badge">
              {knownStatus(doc.status) ? t(`documents.status.${doc.status}`) : doc.status}
            </Badge>
            {replacedCount > 0 && (
              <Badge color="cyan" variant="outline">
                {t('documents.replaced')}
              </Badge>
            )}
          </Group>
          <Text size="sm" c="dimmed" data-testid="document-meta">
            {meta.map((item, i) => (
              <Fragment key={i}>
                {i > 0 && ' '}
                <span style={{ whiteSpace: 'nowrap' }}>
                  <span>{item}</span>
                  {i < meta.length - 1 && '\u00a0·'}
                </span>
              </Fragment>
            ))}
          </Text>
        </Stack>
        <Group gap="xs" wrap="nowrap">
          <Button
            variant="default"
            size="xs"
            onClick={onToggle}
            aria-expanded={expanded}
            aria-controls={chunkRegion}
            aria-label={t(expanded ? 'documents.hideChunksOf' : 'documents.showChunksOf', { name: doc.filename })}
          >
            {expanded ? t('documents.hideChunks') : t('documents.showChunks')}
          </Button>
          {onDelete && (
            <ConfirmDelete
              label={t('documents.deleteLabel', { name: doc.filename })}
              title={t('documents.deleteTitle')}
              message={t('documents.deleteMessage', { name: doc.filename, count: doc.chunk_count })}
              onConfirm={onDelete}
              loading={deleting}
            />
          )}
        </Group>
      </Group>

      {inProgress && (
        <div style={{ marginTop: 'var(--mantine-spacing-sm)' }}>
          <ProgressBar doc={doc} />
        </div>
      )}
      {doc.status === 'failed' && (
        <Alert color="red" variant="light" mt="sm" title={t('documents.failed')}>
          {doc.error ? <span lang={contentLang(doc.error)}>{doc.error}</span> : t('documents.noReason')}
        </Alert>
      )}
      {doc.warnings?.length > 0 && (
        <Alert color="yellow" variant="light" mt="sm" title={t('documents.warnings')}>
          <List size="sm">
            {doc.warnings.map((w, i) => (
              <List.Item key={i} lang={contentLang(w)}>
                {w}
              </List.Item>
            ))}
          </List>
        </Alert>
      )}

      <Collapse in={expanded} id={chunkRegion} transitionDuration={150}>
        {expanded && (
          <div style={{ marginTop: 'var(--mantine-spacing-sm)' }}>
            <ChunkList documentId={doc.document_id} filename={doc.filename} canDelete={Boolean(onDelete)} />
          </div>
        )}
      </Collapse>
    </Paper>
  );
}
