import { useEffect, useState, type KeyboardEvent } from 'react';
import { Button, Group, Loader, MultiSelect, NumberInput, Stack, Text, Textarea } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import type { DocumentInfo } from '../types';
import { QUERY_SLOW_NOTICE_S, QUERY_TIME_LIMIT_S } from '../lib/api';
import { contentLang } from '../lib/contentLang';

export interface AskBoxProps {
  onAsk: (request: { question: string; top_k?: number; document_ids?: string[] }) => void;
  /** A question is being answered: shows the elapsed seconds and, with `onCancel`, a Cancel button. */
  loading?: boolean;
  /** Stop the question being answered. */
  onCancel?: () => void;
  /** Seconds after which the wait says the query service is slow (default QUERY_SLOW_NOTICE_S). */
  slowNoticeS?: number;
  /** Seconds after which the app gives up (shown in the slow notice; default QUERY_TIME_LIMIT_S). */
  timeLimitS?: number;
  /** Indexed documents the question can be limited to. */
  documents?: DocumentInfo[];
}

/** Whole seconds since this was mounted, counted once a second. */
function useElapsedSeconds(): number {
  const [start] = useState(() => Date.now());
  const [elapsed, setElapsed] = useState(0);
  useEffect(() => {
    const timer = setInterval(() => setElapsed(Math.floor((Date.now() - start) / 1000)), 1000);
    return () => clearInterval(timer);
  }, [start]);
  return elapsed;
}

/** While a question runs: what is happening, the seconds so far, and Cancel. */
function AskWait({ onCancel, slowNoticeS, timeLimitS }: { onCancel?: () => void; slowNoticeS: number;
  timeLimitS: number }) {
  const { t } = useTranslation();
  const elapsed = useElapsedSeconds();
  const slow = elapsed >= slowNoticeS;
  return (
    <Group gap="sm" wrap="nowrap" justify="space-between">
      <Group gap="xs" wrap="nowrap">
        <Loader size="sm" />
        {/* The message is announced when it changes (polite); the ticking seconds are not. */}
        <Text size="sm" role="status" aria-live="polite" c={slow ? 'orange.8' : undefined} fw={slow ? 600 : undefined}>
          {slow ? t('ask.slow', { limit: timeLimitS }) : t('ask.searching')}
        </Text>
        <Text size="sm" c="dimmed" aria-live="off" data-testid="ask-elapsed" style={{ whiteSpace: 'nowrap' }}>
          {t('common.seconds', { count: elapsed })}
        </Text>
      </Group>
      {onCancel && (
        <Button variant="default" size="xs" onClick={onCancel}>
          {t('common.cancel')}
        </Button>
      )}
    </Group>
  );
}

export function AskBox({
  onAsk,
  loading = false,
  onCancel,
  slowNoticeS = QUERY_SLOW_NOTICE_S,
  timeLimitS = QUERY_TIME_LIMIT_S,
  documents = [],
}: AskBoxProps) {
  const { t } = useTranslation();
  const [question, setQuestion] = useState('');
  const [topK, setTopK] = useState<number | string>(5);
  const [documentIds, setDocumentIds] = useState<string[]>([]);

  const trimmed = question.trim();

  const submit = () => {
    if (!trimmed || loading) return;
    const k = typeof topK === 'number' ? topK : Number.parseInt(topK, 10);
    onAsk({
      question: trimmed,
      ...(Number.isFinite(k) && k > 0 ? { top_k: k } : {}),
      ...(documentIds.length ? { document_ids: documentIds } : {}),
    });
  };

  const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    // Enter sends; Shift+Enter inserts a newline. Ignore Enter while an IME
    // (Chinese input method) is composing, so choosing a candidate doesn't send.
    if (event.key !== 'Enter' || event.shiftKey) return;
    if (event.nativeEvent.isComposing || event.keyCode === 229) return;
    event.preventDefault();
    submit();
  };

  return (
    <form
      onSubmit={(event) => {
        event.preventDefault();
        submit();
      }}
      aria-label={t('ask.form')}
    >
      <Stack gap="sm">
        <Textarea
          label={t('ask.question')}
          description={t('ask.questionDescription')}
          placeholder={t('ask.placeholder')}
          autosize
          minRows={2}
          maxRows={10}
          value={question}
          onChange={(event) => setQuestion(event.currentTarget.value)}
          onKeyDown={onKeyDown}
          // What is typed is the officer's question, in whichever language: marked as it is.
          lang={trimmed ? contentLang(trimmed) : undefined}
        />
        <Group align="flex-end" gap="sm" wrap="wrap">
          {documents.length > 0 && (
            <MultiSelect
              label={t('ask.limit')}
              placeholder={documentIds.length ? undefined : t('ask.allDocuments')}
              data={documents.map((d) => ({ value: d.document_id, label: d.filename }))}
              renderOption={({ option }) => <span lang={contentLang(option.label)}>{option.label}</span>}
              value={documentIds}
              onChange={setDocumentIds}
              clearable
              searchable
              style={{ flex: '1 1 260px' }}
              comboboxProps={{ withinPortal: true }}
            />
          )}
          <NumberInput
            label={t('ask.passages')}
            aria-label={t('ask.passagesLabel')}
            min={1}
            max={20}
            value={topK}
            onChange={setTopK}
            w={110}
          />
          <Button type="submit" loading={loading} disabled={!trimmed}>
            {t('ask.submit')}
          </Button>
        </Group>
        {loading && <AskWait onCancel={onCancel} slowNoticeS={slowNoticeS} timeLimitS={timeLimitS} />}
      </Stack>
    </form>
  );
}
