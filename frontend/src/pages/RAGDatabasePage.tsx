import { useEffect, useState } from 'react';
import { Alert, Badge, Container, Group, Loader, Paper, SimpleGrid, Stack, Text, Title } from '@mantine/core';
import { useSearchParams } from 'react-router-dom';
import { DocumentFilterBar } from '../components/DocumentFilterBar';
import { DocumentList } from '../components/DocumentList';
import { DocumentPager } from '../components/DocumentPager';
import { DocumentUpload } from '../components/DocumentUpload';
import {
  PAGE_SIZE,
  filtersFromSearch,
  filtersToSearch,
  isFiltered,
  listParams,
  type DocumentFilters,
} from '../lib/documentFilters';
import { useDocumentPage } from '../lib/queries';
import { useDocumentEvents } from '../lib/events';
import { errorMessage } from '../lib/api';
import { canUpload, isAdmin, visibilityOf } from '../lib/roles';
import { useCaller } from '../lib/session';
import type { DocumentInfo, IngestResponse } from '../types';

function Stat({ label, value }: { label: string; value: number | string }) {
  return (
    <Paper withBorder radius="md" p="sm">
      <Text size="xs" c="dimmed" tt="uppercase" fw={600}>
        {label}
      </Text>
      <Text fw={700} size="xl" aria-label={`${label}: ${value}`}>
        {value}
      </Text>
    </Paper>
  );
}

const LIVE_LABEL: Record<string, { text: string; color: string }> = {
  open: { text: 'Live updates on', color: 'green' },
  connecting: { text: 'Connecting to live updates…', color: 'yellow' },
  closed: { text: 'Live updates off — refreshing periodically', color: 'red' },
  unsupported: { text: 'Live updates unavailable — refreshing periodically', color: 'gray' },
};

/**
 * The departments an admin can filter by: those seen in any list so far (a filtered list shows
 * only one department and the shared library, so the options are kept, not recomputed), sorted.
 */
function useSeenDepartments(documents: DocumentInfo[] | undefined, own: string): string[] {
  const [seen, setSeen] = useState<string[]>([own]);
  useEffect(() => {
    if (!documents) return;
    setSeen((prev) => {
      const next = new Set(prev);
      for (const d of documents) if (visibilityOf(d) !== 'shared' && d.department) next.add(d.department);
      return next.size === prev.length ? prev : [...next].sort((a, b) => a.localeCompare(b));
    });
  }, [documents]);
  return seen;
}

export function RAGDatabasePage() {
  const caller = useCaller();
  const admin = isAdmin(caller);
  const eventState = useDocumentEvents();
  const [replacements, setReplacements] = useState<Record<string, string[]>>({});
  // Search, filters, sort and page live in the URL: a reload or a shared link shows the same list.
  const [search, setSearch] = useSearchParams();
  const filters = filtersFromSearch(search);
  const changeFilters = (change: Partial<DocumentFilters>) =>
    setSearch(filtersToSearch({ ...filters, ...change, page: change.page ?? 1 }), { replace: true });
  // Poll only when the live stream is down or reconnecting (and only while something is processing).
  const documents = useDocumentPage(listParams(filters, PAGE_SIZE), {
    pollWhileProcessing: eventState !== 'open',
    department: admin ? filters.department : null,
  });
  const departments = useSeenDepartments(documents.data?.documents, caller.department);
  const filtered = isFiltered(filters);

  const onUploaded = (response: IngestResponse) => {
    if (response.replaced?.length) {
      setReplacements((prev) => ({ ...prev, [response.document_id]: response.replaced }));
    }
  };

  const live = LIVE_LABEL[eventState];

  return (
    <Container size="lg" px="md" py="lg">
      <Stack gap="lg">
        <Group justify="space-between" align="flex-end" wrap="wrap">
          <div>
            <Title order={1} size="h2">
              RAG Database
            </Title>
            <Text c="dimmed" size="sm">
              {admin
                ? 'Briefing papers of every department indexed for question answering.'
                : `Briefing papers of ${caller.department} and the shared library, indexed for question answering.`}
            </Text>
          </div>
          <Badge color={live.color} variant="dot" role="status">
            {live.text}
          </Badge>
        </Group>

        <Group align="flex-end" gap="lg" wrap="wrap">
          <SimpleGrid cols={{ base: 2, sm: 2 }} maw={480} style={{ flex: '1 1 320px' }}>
            <Stat label="Documents" value={documents.data?.total_documents ?? '—'} />
            <Stat label="Chunks" value={documents.data?.total_chunks ?? '—'} />
          </SimpleGrid>
        </Group>

        {canUpload(caller) ? (
          <DocumentUpload onUploaded={onUploaded} departments={departments} />
        ) : (
          <Alert color="gray" variant="light" title="Read-only access">
            Your key can read and ask questions; uploading and deleting documents needs a member key.
          </Alert>
        )}

        <section aria-labelledby="documents-heading">
          <Title order={2} size="h4" id="documents-heading" mb="sm">
            Documents
          </Title>
          <Stack gap="sm" mb="sm">
            <DocumentFilterBar filters={filters} onChange={changeFilters} departments={admin ? departments : null} />
          </Stack>
          {documents.isPending && <Loader size="sm" aria-label="Loading documents" />}
          {documents.isError && (
            <Alert color="red" title="Could not load documents" role="alert">
              {errorMessage(documents.error)}
            </Alert>
          )}
          {documents.data?.notice && (
            <Alert color="gray" variant="light" mb="sm" role="status">
              {documents.data.notice}
            </Alert>
          )}
          {documents.isSuccess && (
            <Stack gap="sm">
              <DocumentPager
                page={filters.page}
                pageSize={PAGE_SIZE}
                total={documents.data.total}
                onPage={(page) => changeFilters({ page })}
              />
              <DocumentList
                documents={documents.data.documents}
                replacements={replacements}
                emptyText={
                  filtered
                    ? 'No documents match this search and these filters.'
                    : documents.data.total > 0
                      ? 'No documents on this page.'
                      : canUpload(caller)
                        ? undefined
                        : 'No documents yet.'
                }
              />
              {documents.data.documents.length > 5 && (
                <DocumentPager
                  page={filters.page}
                  pageSize={PAGE_SIZE}
                  total={documents.data.total}
                  onPage={(page) => changeFilters({ page })}
                />
              )}
            </Stack>
          )}
        </section>
      </Stack>
    </Container>
  );
}
