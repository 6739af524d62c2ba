import { useState } from 'react';
import { Alert, Badge, Container, Group, Loader, Paper, SimpleGrid, Stack, Text, Title } from '@mantine/core';
import { DocumentList } from '../components/DocumentList';
import { DocumentUpload } from '../components/DocumentUpload';
import { useDocuments } from '../lib/queries';
import { useDocumentEvents } from '../lib/events';
import { errorMessage } from '../lib/api';
import type { IngestResponse } from '../types';

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

export function RAGDatabasePage() {
  const eventState = useDocumentEvents();
  const [replacements, setReplacements] = useState<Record<string, string[]>>({});
  // Poll only when the live stream is down or reconnecting (and only while something is processing).
  const documents = useDocuments({ pollWhileProcessing: eventState !== 'open' });

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
              Briefing papers indexed for question answering.
            </Text>
          </div>
          <Badge color={live.color} variant="dot" role="status">
            {live.text}
          </Badge>
        </Group>

        <SimpleGrid cols={{ base: 2, sm: 2 }} maw={480}>
          <Stat label="Documents" value={documents.data?.total_documents ?? '—'} />
          <Stat label="Chunks" value={documents.data?.total_chunks ?? '—'} />
        </SimpleGrid>

        <DocumentUpload existing={documents.data?.documents ?? []} onUploaded={onUploaded} />

        <section aria-labelledby="documents-heading">
          <Title order={2} size="h4" id="documents-heading" mb="sm">
            Documents
          </Title>
          {documents.isPending && <Loader size="sm" aria-label="Loading documents" />}
          {documents.isError && (
            <Alert color="red" title="Could not load documents" role="alert">
              {errorMessage(documents.error)}
            </Alert>
          )}
          {documents.isSuccess && (
            <DocumentList documents={documents.data.documents} replacements={replacements} />
          )}
        </section>
      </Stack>
    </Container>
  );
}
