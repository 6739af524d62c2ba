import { Alert, Anchor, Container, Loader, Group, Stack, Text, Title } from '@mantine/core';
import { Link } from 'react-router-dom';
import { AskBox } from '../components/AskBox';
import { AnswerPanel } from '../components/AnswerPanel';
import { useAskQuestion, useDocuments } from '../lib/queries';
import { ApiError, errorMessage } from '../lib/api';
import { canUpload } from '../lib/roles';
import { useCaller } from '../lib/session';

function queryErrorText(error: unknown): { title: string; message: string } {
  if (error instanceof ApiError) {
    if (error.isNetworkError) return { title: 'Cannot reach the server', message: error.detail };
    if (error.status === 503) return { title: 'Service unavailable', message: error.detail };
    if (error.status >= 500) return { title: 'Server error', message: error.detail };
    return { title: 'Could not answer the question', message: error.detail };
  }
  return { title: 'Could not answer the question', message: errorMessage(error) };
}

export function LTTPage() {
  const caller = useCaller();
  const ask = useAskQuestion();
  const documents = useDocuments();
  const indexed = documents.data?.documents.filter((d) => d.status === 'indexed') ?? [];
  const noDocuments = documents.isSuccess && documents.data.total_documents === 0;

  return (
    <Container size="md" px="md" py="lg">
      <Stack gap="lg">
        <div>
          <Title order={1} size="h2">
            Ask the briefing papers
          </Title>
          <Text c="dimmed" size="sm">
            Answers cite the source pages; open a one-page PDF to check the original.
          </Text>
        </div>

        {noDocuments && (
          <Alert color="blue" title="No documents yet">
            There is nothing to search yet.{' '}
            {canUpload(caller) ? (
              <>
                <Anchor component={Link} to="/rag-database">
                  Upload briefing papers on the RAG Database page
                </Anchor>
                .
              </>
            ) : (
              `A member of ${caller.department} uploads briefing papers; they appear here once indexed.`
            )}
          </Alert>
        )}
        {documents.isError && (
          <Alert color="yellow" title="Could not load the document list">
            {errorMessage(documents.error)}
          </Alert>
        )}

        <AskBox onAsk={(request) => ask.mutate(request)} loading={ask.isPending} documents={indexed} />

        {ask.isPending && (
          <Group gap="xs" role="status">
            <Loader size="sm" />
            <Text size="sm">Searching the documents…</Text>
          </Group>
        )}
        {ask.isError && (
          <Alert color="red" title={queryErrorText(ask.error).title} role="alert">
            {queryErrorText(ask.error).message}
          </Alert>
        )}
        {ask.isSuccess && !ask.isPending && <AnswerPanel response={ask.data} question={ask.variables?.question} />}
      </Stack>
    </Container>
  );
}
