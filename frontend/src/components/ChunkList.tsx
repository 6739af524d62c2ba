import { Alert, Loader, Stack, Text } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useChunks, useDeleteChunk } from '../lib/queries';
import { errorMessage } from '../lib/api';
import { ChunkCard } from './ChunkCard';

export interface ChunkListProps {
  documentId: string;
  filename: string;
  /** Offer to delete chunks (the caller may change this document). */
  canDelete: boolean;
}

export function ChunkList({ documentId, filename, canDelete }: ChunkListProps) {
  const chunks = useChunks(documentId);
  const deleteChunk = useDeleteChunk(documentId);

  const handleDelete = (chunkId: string) => {
    deleteChunk.mutate(chunkId, {
      onSuccess: (result) =>
        notifications.show({ color: 'green', message: result?.message || 'Chunk deleted.' }),
      onError: (error) =>
        notifications.show({ color: 'red', title: 'Could not delete chunk', message: errorMessage(error) }),
    });
  };

  if (chunks.isPending) {
    return (
      <Stack align="center" py="sm">
        <Loader size="sm" aria-label={`Loading chunks of ${filename}`} />
      </Stack>
    );
  }
  if (chunks.isError) {
    return (
      <Alert color="red" title="Could not load chunks">
        {errorMessage(chunks.error)}
      </Alert>
    );
  }
  const list = [...chunks.data.chunks].sort((a, b) => a.chunk_index - b.chunk_index);
  if (list.length === 0) {
    return (
      <Text size="sm" c="dimmed">
        This document has no chunks yet.
      </Text>
    );
  }
  return (
    <Stack gap="xs" aria-label={`Chunks of ${filename}`} role="list">
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
