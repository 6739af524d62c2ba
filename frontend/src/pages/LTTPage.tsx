import { useEffect, useRef, useState } from 'react';
import { Alert, Anchor, Container, Stack, Text, Title } from '@mantine/core';
import { Trans, useTranslation } from 'react-i18next';
import type { TFunction } from 'i18next';
import { Link } from 'react-router-dom';
import { AskBox } from '../components/AskBox';
import { AnswerPanel } from '../components/AnswerPanel';
import { AnswerHistory } from '../components/AnswerHistory';
import { ErrorMessage } from '../components/ErrorMessage';
import { useAnswerHistory, type HistoryEntry } from '../lib/history';
import { useAskQuestion, useDocuments } from '../lib/queries';
import { QueryAborted } from '../lib/api';
import type { QueryResponse } from '../types';
import { errorCase } from '../lib/errors';
import { canUpload } from '../lib/roles';
import { useCaller } from '../lib/session';

/** The title of the alert for a question that got no answer. */
function queryErrorTitle(error: unknown, t: TFunction): string {
  switch (errorCase(error)) {
    case 'cancelled':
      return t('ltt.error.cancelled');
    case 'queryTimeout':
    case 'timeout':
      return t('ltt.error.noAnswerInTime');
    case 'network':
      return t('ltt.error.unreachable');
    case 'unavailable':
      return t('ltt.error.unavailable');
    case 'server':
      return t('ltt.error.server');
    default:
      return t('ltt.error.couldNotAnswer');
  }
}

export function LTTPage() {
  const { t } = useTranslation();
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
  // The answer while it streams: its sources first, then the generated text as it is written.
  const [partial, setPartial] = useState<QueryResponse | null>(null);

  const askQuestion = (request: Parameters<typeof ask.mutate>[0]) => {
    running.current?.abort();
    const controller = new AbortController();
    running.current = controller;
    setShown(null);
    setPartial(null);
    const current = () => running.current === controller; // a newer question replaces this one
    ask.mutate(
      {
        ...request,
        signal: controller.signal,
        onSources: (response) => current() && setPartial(response),
        onToken: (text) => current() && setPartial((p) => p && { ...p, answer: p.answer + text }),
      },
      {
        onSuccess: (data, variables) => setShown(history.add(variables.question, data)),
        onSettled: () => current() && setPartial(null),
      },
    );
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
            {t('ltt.title')}
          </Title>
          <Text c="dimmed" size="sm">
            {t('ltt.intro')}
          </Text>
        </div>

        {noDocuments && (
          <Alert color="blue" title={t('ltt.noDocuments.title')}>
            {t('ltt.noDocuments.nothing')}{' '}
            {canUpload(caller) ? (
              <Trans
                i18nKey="ltt.noDocuments.upload"
                t={t}
                components={{ anchor: <Anchor component={Link} to="/rag-database" /> }}
              />
            ) : (
              t('ltt.noDocuments.reader', { department: caller.department })
            )}
          </Alert>
        )}
        {documents.isError && (
          <Alert color="yellow" title={t('ltt.documentsError')}>
            <ErrorMessage error={documents.error} />
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
            {t('errors.cancelled')}
          </Text>
        )}
        {ask.isError && !cancelled && (
          <Alert color="red" title={queryErrorTitle(ask.error, t)} role="alert">
            <ErrorMessage error={ask.error} />
          </Alert>
        )}
        {ask.isPending && partial && (
          <AnswerPanel response={partial} question={ask.variables?.question} streaming />
        )}
        {shown && !ask.isPending && <AnswerPanel key={shown.id} response={shown.response} question={shown.question} />}
        <AnswerHistory entries={history.entries} shownId={shown?.id ?? null} onShow={showEntry}
          onClear={history.clear} />
      </Stack>
    </Container>
  );
}
