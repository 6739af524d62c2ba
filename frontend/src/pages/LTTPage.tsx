import { useEffect, useRef, useState } from 'react';
import { Alert, Anchor, Container, Stack, Text, Title } from '@mantine/core';
import { Link } from 'react-router-dom';
import { AskBox } from '../components/AskBox';
import { AnswerPanel } from '../components/AnswerPanel';
import { AnswerHistory } from '../components/AnswerHistory';
import { useAnswerHistory, type HistoryEntry } from '../lib/history';
import { useAskQuestion, useDocuments } from '../lib/queries';
import { ApiError, QueryAborted, errorMessage } from '../lib/api';
import { canUpload } from '../lib/roles';
import { useCaller } from '../lib/session';

function queryErrorText(error: unknown): { title: string; message: string } {
  if (error instanceof QueryAborted) {
    return error.reason === 'cancelled'
      ? { title: 'Cancelled', message: error.message }
      : { title: 'No answer in time', message: error.message };
  }
  if (error instanceof ApiError) {
    if (error.status === 504) return { title: 'No answer in time', message: error.detail };
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
  const running = useRef<AbortController | null>(null);
  useEffect(() => () => running.current?.abort(), []); // leaving the page stops the question
  const history = useAnswerHistory(caller.key_prefix);
  // The answer shown: the last one asked, or one picked from the history (not asked again).
  const [shown, setShown] = useState<HistoryEntry | null>(null);

  const askQuestion = (request: Parameters<typeof ask.mutate>[0]) => {
    running.current?.abort();
    const controller = new AbortController();
    running.current = controller;
    setShown(null);
    ask.mutate({ ...request, signal: controller.signal },
      { onSuccess: (data, variables) => setShown(history.add(variables.question, data)) });
  };
  const showEntry = (entry: HistoryEntry) => {
    ask.reset();
    setShown(entry);
  };
  const cancelled = ask.error instanceof QueryAborted && ask.error.reason === 'cancelled';

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

        <AskBox
          onAsk={askQuestion}
          loading={ask.isPending}
          onCancel={() => running.current?.abort()}
          documents={indexed}
        />

        {cancelled && (
          <Text size="sm" c="dimmed" role="status">
            The question was cancelled.
          </Text>
        )}
        {ask.isError && !cancelled && (
          <Alert color="red" title={queryErrorText(ask.error).title} role="alert">
            {queryErrorText(ask.error).message}
          </Alert>
        )}
        {shown && !ask.isPending && <AnswerPanel key={shown.id} response={shown.response} question={shown.question} />}
        <AnswerHistory entries={history.entries} shownId={shown?.id ?? null} onShow={showEntry}
          onClear={history.clear} />
      </Stack>
    </Container>
  );
}
