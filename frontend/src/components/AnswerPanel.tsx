import { Accordion, Alert, Badge, Group, Loader, Paper, Stack, Text, Title } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { contentLang } from '../lib/contentLang';
import { serverNotice } from '../lib/serverText';
import type { QueryResponse } from '../types';
import { DirectAnswerCard, RelatedQuestions } from './DirectAnswerCard';
import { ExportSpeakingNote } from './ExportSpeakingNote';
import { Markdown } from './Markdown';
import { SourceList } from './SourceList';

export function AnswerModeBadge({ mode }: { mode: QueryResponse['answer_mode'] }) {
  const { t } = useTranslation();
  return mode === 'llm' ? (
    <Badge color="violet" variant="filled" data-answer-mode="llm">
      {t('answer.llm')}
    </Badge>
  ) : (
    <Badge color="orange" variant="light" data-answer-mode="extractive">
      {t('answer.extractive')}
    </Badge>
  );
}

/** No paper answers the question: say so plainly; the nearest passages stay folded away. */
function NotCovered({ response }: { response: QueryResponse }) {
  const { t } = useTranslation();
  const closest = response.closest ?? [];
  return (
    <Stack gap="sm" data-covered="false">
      <Alert color="gray" variant="light" title={t('answer.notCovered')}>
        {t('answer.notCoveredText')}
      </Alert>
      {closest.length > 0 && (
        <Accordion variant="contained">
          <Accordion.Item value="closest">
            <Accordion.Control>{t('answer.closestCount', { count: closest.length })}</Accordion.Control>
            <Accordion.Panel>
              <SourceList sources={closest} title={t('answer.closest')} />
            </Accordion.Panel>
          </Accordion.Item>
        </Accordion>
      )}
    </Stack>
  );
}

/** Shown instead of the mode badge while the answer is being written. */
function WritingBadge() {
  const { t } = useTranslation();
  return (
    <Badge color="violet" variant="light" leftSection={<Loader size={10} color="violet" />} data-answer-mode="streaming">
      {t('answer.writing')}
    </Badge>
  );
}

/**
 * The answer to `question`. `streaming`: the response is still arriving (its sources are known,
 * `answer` grows as the language model writes it); the panel says so, is `aria-busy` so that
 * screen readers announce it once complete, and offers no speaking note yet.
 */
export function AnswerPanel({
  response,
  question,
  streaming = false,
}: {
  response: QueryResponse;
  question?: string;
  streaming?: boolean;
}) {
  const { t } = useTranslation();
  const notice = response.notice ? serverNotice(response.notice, t) : null;
  // Older servers send neither field: treat their answers as covered, without a direct answer.
  const covered = response.covered ?? true;
  const direct = covered ? (response.direct ?? null) : null;
  const related = covered ? (response.related ?? []) : [];
  const llm = response.answer_mode === 'llm';
  return (
    <Stack gap="md" aria-live="polite" aria-busy={streaming} data-streaming={streaming || undefined}>
      <Paper withBorder p="md" radius="md">
        <Group justify="space-between" mb="sm" wrap="wrap" gap="xs">
          <Title order={2} size="h3">
            {t('answer.title')}
          </Title>
          {streaming ? <WritingBadge /> : covered && <AnswerModeBadge mode={response.answer_mode} />}
        </Group>
        {question && (
          <Title order={3} size="sm" c="dimmed" fw={500} mb="sm" style={{ whiteSpace: 'pre-wrap' }}>
            {t('answer.questionPrefix')}<span lang={contentLang(question)}>{question}</span>
          </Title>
        )}
        {question && !streaming && <ExportSpeakingNote question={question} response={response} />}
        {notice && (
          <Alert color="yellow" variant="light" mb="sm" title={t('answer.note')}>
            <span lang={notice.lang}>{notice.text}</span>
          </Alert>
        )}
        {response.guard && (
          <Alert color="orange" variant="light" mb="sm" title={t('answer.guardTitle')}>
            {t('answer.guard')} <span lang="en">({response.guard})</span>
          </Alert>
        )}
        {response.keyword_search === false && (
          <Alert color="yellow" variant="light" mb="sm" title={t('answer.note')}>
            {t('server.keywordsLoading')}
          </Alert>
        )}
        {!covered ? (
          <NotCovered response={response} />
        ) : direct && !llm ? (
          <DirectAnswerCard direct={direct} />
        ) : response.answer.trim() ? (
          <Markdown>{response.answer}</Markdown>
        ) : streaming ? (
          <Text c="dimmed" size="sm">
            {t('answer.waitingForModel')}
          </Text>
        ) : (
          <Alert color="gray" variant="light">
            {t('answer.noText')}
          </Alert>
        )}
        {direct && llm && (
          <Stack mt="md">
            <DirectAnswerCard direct={direct} title={t('answer.inThePapers')} />
          </Stack>
        )}
        {related.length > 0 && (
          <Stack mt="md">
            <RelatedQuestions related={related} />
          </Stack>
        )}
      </Paper>
      {covered && <SourceList sources={response.sources} />}
    </Stack>
  );
}
