import { useState } from 'react';
import { Stack, Text } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useTranslation } from 'react-i18next';
import type { DocumentInfo } from '../types';
import { useDeleteDocument } from '../lib/queries';
import { ErrorMessage } from './ErrorMessage';
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
  const { t } = useTranslation();
  const [expanded, setExpanded] = useState<Record<string, boolean>>({});
  const deleteDocument = useDeleteDocument();
  const caller = useCaller();

  if (documents.length === 0) {
    return (
      <Text c="dimmed" size="sm">
        {emptyText ?? t('documents.empty')}
      </Text>
    );
  }

  const handleDelete = (doc: DocumentInfo) => {
    deleteDocument.mutate(doc.document_id, {
      // The gateway's confirmation is English: the interface says it in its own language.
      onSuccess: () => notifications.show({ color: 'green', message: t('documents.deleted', { name: doc.filename }) }),
      onError: (error) =>
        notifications.show({
          color: 'red',
          title: t('documents.deleteFailed', { name: doc.filename }),
          message: <ErrorMessage error={error} />,
        }),
    });
  };

  return (
    <Stack gap="sm" role="list" aria-label={t('documents.list')}>
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
