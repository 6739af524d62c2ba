import { useState } from 'react';
import { Stack, Text } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import type { DocumentInfo } from '../types';
import { useDeleteDocument } from '../lib/queries';
import { errorMessage } from '../lib/api';
import { canModify } from '../lib/roles';
import { useCaller } from '../lib/session';
import { DocumentRow } from './DocumentRow';

export interface DocumentListProps {
  /** In the order to show them (the server's sort). */
  documents: DocumentInfo[];
  /** document_id → ids of the documents it replaced (uploads made in this session). */
  replacements?: Record<string, string[]>;
  /** What an empty list says instead of inviting an upload. */
  emptyText?: string;
}

export function DocumentList({ documents, replacements = {}, emptyText }: DocumentListProps) {
  const [expanded, setExpanded] = useState<Record<string, boolean>>({});
  const deleteDocument = useDeleteDocument();
  const caller = useCaller();

  if (documents.length === 0) {
    return (
      <Text c="dimmed" size="sm">
        {emptyText ?? 'No documents yet. Upload briefing papers above to get started.'}
      </Text>
    );
  }

  const handleDelete = (doc: DocumentInfo) => {
    deleteDocument.mutate(doc.document_id, {
      onSuccess: (result) =>
        notifications.show({ color: 'green', message: result?.message || `Deleted ${doc.filename}.` }),
      onError: (error) =>
        notifications.show({ color: 'red', title: `Could not delete ${doc.filename}`, message: errorMessage(error) }),
    });
  };

  return (
    <Stack gap="sm" role="list" aria-label="Documents">
      {documents.map((doc) => (
        <div role="listitem" key={doc.document_id}>
          <DocumentRow
            doc={doc}
            expanded={Boolean(expanded[doc.document_id])}
            onToggle={() => setExpanded((prev) => ({ ...prev, [doc.document_id]: !prev[doc.document_id] }))}
            onDelete={canModify(caller, doc) ? () => handleDelete(doc) : undefined}
            deleting={deleteDocument.isPending && deleteDocument.variables === doc.document_id}
            replacedCount={replacements[doc.document_id]?.length ?? 0}
          />
        </div>
      ))}
    </Stack>
  );
}
