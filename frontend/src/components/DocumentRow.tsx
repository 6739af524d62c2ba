import { Fragment, type ReactNode } from 'react';
import { Alert, Badge, Button, Collapse, Group, List, Paper, Stack, Text } from '@mantine/core';
import type { DocumentInfo } from '../types';
import { formatDate, strategyBadgeLabel, strategyColor } from '../lib/format';
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

const STATUS_LABELS: Record<string, string> = {
  queued: 'Queued',
  processing: 'Processing',
  indexed: 'Indexed',
  failed: 'Failed',
};

export function StrategyBadge({ strategy }: { strategy: string }) {
  return (
    <Badge color={strategyColor(strategy)} variant="light" data-strategy={strategy} data-color={strategyColor(strategy)}>
      {strategyBadgeLabel(strategy)}
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
  const inProgress = doc.status === 'queued' || doc.status === 'processing';
  const fellBack = doc.strategy_used && doc.strategy_used !== doc.strategy;
  const chunkRegion = `chunks-${doc.document_id}`;
  // Counts, type and date on one line; a wrapped line never starts with a separator.
  const meta: ReactNode[] = [
    `${doc.chunk_count} ${doc.chunk_count === 1 ? 'chunk' : 'chunks'}`,
    ...(doc.page_count != null ? [`${doc.page_count} ${doc.page_count === 1 ? 'page' : 'pages'}`] : []),
    ...(doc.file_type ? [doc.file_type.toUpperCase()] : []),
    <>
      uploaded <time dateTime={doc.upload_date}>{formatDate(doc.upload_date)}</time>
    </>,
  ];

  return (
    <Paper withBorder radius="md" p="sm" component="article" aria-label={doc.filename}>
      <Group justify="space-between" align="flex-start" gap="sm" wrap="wrap">
        <Stack gap={6} style={{ minWidth: 0, flex: '1 1 320px' }}>
          <Text fw={600} style={{ wordBreak: 'break-word' }}>
            {doc.filename}
          </Text>
          <Group gap="xs" wrap="wrap">
            <ScopeBadge item={doc} />
            <StrategyBadge strategy={doc.strategy} />
            {fellBack && (
              <Badge color="gray" variant="outline" title="The chosen strategy found nothing to split on">
                Fell back to {doc.strategy_used}
              </Badge>
            )}
            <Badge color={STATUS_COLORS[doc.status] ?? 'gray'} variant="dot" data-testid="status-badge">
              {STATUS_LABELS[doc.status] ?? doc.status}
            </Badge>
            {replacedCount > 0 && (
              <Badge color="cyan" variant="outline">
                Replaced previous upload
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
            aria-label={`${expanded ? 'Hide' : 'Show'} chunks of ${doc.filename}`}
          >
            {expanded ? 'Hide chunks' : 'Show chunks'}
          </Button>
          {onDelete && (
            <ConfirmDelete
              label={`Delete document ${doc.filename}`}
              title="Delete this document?"
              message={`"${doc.filename}" and all ${doc.chunk_count} of its chunks will be removed from the database.`}
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
        <Alert color="red" variant="light" mt="sm" title="Processing failed">
          {doc.error || 'No reason was given.'}
        </Alert>
      )}
      {doc.warnings?.length > 0 && (
        <Alert color="yellow" variant="light" mt="sm" title="Warnings">
          <List size="sm">
            {doc.warnings.map((w, i) => (
              <List.Item key={i}>{w}</List.Item>
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
