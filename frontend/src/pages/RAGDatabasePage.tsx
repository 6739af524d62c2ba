import { useEffect, useState } from 'react';
import { Alert, Badge, Container, Group, Loader, Paper, SimpleGrid, Stack, Text, Title } from '@mantine/core';
import { useTranslation } from 'react-i18next';
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
import { formatNumber } from '../lib/format';
import { serverNotice } from '../lib/serverText';
import { ErrorMessage } from '../components/ErrorMessage';
import { canUpload, isAdmin, visibilityOf } from '../lib/roles';
import { useCaller } from '../lib/session';
import type { DocumentInfo, IngestResponse } from '../types';

function Stat({ label, value }: { label: string; value: number | string }) {
  const { t } = useTranslation();
  return (
    <Paper withBorder radius="md" p="sm">
      <Text size="xs" c="dimmed" tt="uppercase" fw={600}>
        {label}
      </Text>
      <Text fw={700} size="xl" aria-label={t('database.stat', { label, value })}>
        {value}
      </Text>
    </Paper>
  );
}

/** The live-updates badge per stream state (`database.live.<state>` in the locales). */
const LIVE_COLORS = { open: 'green', connecting: 'yellow', closed: 'red', unsupported: 'gray' } as const;

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
  const { t } = useTranslation();
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

  const notice = documents.data?.notice ? serverNotice(documents.data.notice, t) : null;

  return (
    <Container size="lg" px="md" py="lg">
      <Stack gap="lg">
        <Group justify="space-between" align="flex-end" wrap="wrap">
          <div>
            <Title order={1} size="h2">
              {t('database.title')}
            </Title>
            <Text c="dimmed" size="sm">
              {admin ? t('database.introAdmin') : t('database.intro', { department: caller.department })}
            </Text>
          </div>
          <Badge color={LIVE_COLORS[eventState]} variant="dot" role="status">
            {t(`database.live.${eventState}`)}
          </Badge>
        </Group>

        <Group align="flex-end" gap="lg" wrap="wrap">
          <SimpleGrid cols={{ base: 2, sm: 2 }} maw={480} style={{ flex: '1 1 320px' }}>
            <Stat
              label={t('database.documents')}
              value={documents.data ? formatNumber(documents.data.total_documents, t) : '—'}
            />
            <Stat
              label={t('database.chunks')}
              value={documents.data ? formatNumber(documents.data.total_chunks, t) : '—'}
            />
          </SimpleGrid>
        </Group>

        {canUpload(caller) ? (
          <DocumentUpload onUploaded={onUploaded} departments={departments} />
        ) : (
          <Alert color="gray" variant="light" title={t('database.readOnly')}>
            {t('database.readOnlyText')}
          </Alert>
        )}

        <section aria-labelledby="documents-heading">
          <Title order={2} size="h4" id="documents-heading" mb="sm">
            {t('database.documents')}
          </Title>
          <Stack gap="sm" mb="sm">
            <DocumentFilterBar filters={filters} onChange={changeFilters} departments={admin ? departments : null} />
          </Stack>
          {documents.isPending && <Loader size="sm" aria-label={t('database.loading')} />}
          {documents.isError && (
            <Alert color="red" title={t('database.loadFailed')} role="alert">
              <ErrorMessage error={documents.error} />
            </Alert>
          )}
          {notice && (
            <Alert color="gray" variant="light" mb="sm" role="status">
              <span lang={notice.lang}>{notice.text}</span>
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
                    ? t('database.noMatch')
                    : documents.data.total > 0
                      ? t('database.noneOnPage')
                      : canUpload(caller)
                        ? undefined
                        : t('database.noneYet')
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
