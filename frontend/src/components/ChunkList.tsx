import { Alert, Loader, Stack, Text } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useTranslation } from 'react-i18next';
import { useChunks, useDeleteChunk } from '../lib/queries';
import { ChunkCard } from './ChunkCard';
import { ErrorMessage } from './ErrorMessage';

export interface ChunkListProps {
  documentId: string;
  filename: string;
  /** Offer to delete chunks (the caller may change this document). */
  canDelete: boolean;
}

export function ChunkList({ documentId, filename, canDelete }: ChunkListProps) {
  const { t } = useTranslation();
  const chunks = useChunks(documentId);
  const deleteChunk = useDeleteChunk(documentId);

  const handleDelete = (chunkId: string) => {
    deleteChunk.mutate(chunkId, {
      // The gateway's confirmation is English: the interface says it in its own language.
      onSuccess: () => notifications.show({ color: 'green', message: t('chunks.deleted') }),
      onError: (error) =>
        notifications.show({ color: 'red', title: t('chunks.deleteFailed'), message: <ErrorMessage error={error} /> }),
    });
  };

  if (chunks.isPending) {
    return (
      <Stack align="center" py="sm">
        <Loader size="sm" aria-label={t('chunks.loading', { name: filename })} />
      </Stack>
    );
  }
  if (chunks.isError) {
    return (
      <Alert color="red" title={t('chunks.loadFailed')}>
        <ErrorMessage error={chunks.error} />
      </Alert>
    );
  }
  const list = [...chunks.data.chunks].sort((a, b) => a.chunk_index - b.chunk_index);
  if (list.length === 0) {
    return (
      <Text size="sm" c="dimmed">
        {t('chunks.none')}
      </Text>
    );
  }
  return (
    <Stack gap="xs" aria-label={t('chunks.list', { name: filename })} role="list">
      {list.map((chunk) => (
        <div role="listitem" key={chunk.chunk_id}>
          <ChunkCard
            chunk={chunk}
            filename={filename}
            onDelete={canDelete ? handleDelete : undefined}
            deleting={deleteChunk.isPending && deleteChunk.variables === chunk.chunk_id}
          />
        </div>
      ))}
    </Stack>
  );
}
