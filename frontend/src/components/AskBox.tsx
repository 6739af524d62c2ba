import { useState, type KeyboardEvent } from 'react';
import { Button, Group, MultiSelect, NumberInput, Stack, Textarea } from '@mantine/core';
import type { DocumentInfo } from '../types';

export interface AskBoxProps {
  onAsk: (request: { question: string; top_k?: number; document_ids?: string[] }) => void;
  loading?: boolean;
  /** Indexed documents the question can be limited to. */
  documents?: DocumentInfo[];
}

export function AskBox({ onAsk, loading = false, documents = [] }: AskBoxProps) {
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
      aria-label="Ask a question"
    >
      <Stack gap="sm">
        <Textarea
          label="Question"
          description="Ask in Chinese or English. Enter to send, Shift+Enter for a new line."
          placeholder="e.g. 古洞北新發展區的收地進度如何？ / What is the compensation for affected farmers?"
          autosize
          minRows={2}
          maxRows={10}
          value={question}
          onChange={(event) => setQuestion(event.currentTarget.value)}
          onKeyDown={onKeyDown}
          lang="zh-HK"
        />
        <Group align="flex-end" gap="sm" wrap="wrap">
          {documents.length > 0 && (
            <MultiSelect
              label="Limit to documents"
              placeholder={documentIds.length ? undefined : 'All documents'}
              data={documents.map((d) => ({ value: d.document_id, label: d.filename }))}
              value={documentIds}
              onChange={setDocumentIds}
              clearable
              searchable
              style={{ flex: '1 1 260px' }}
              comboboxProps={{ withinPortal: true }}
            />
          )}
          <NumberInput
            label="Passages"
            aria-label="Number of passages to retrieve"
            min={1}
            max={20}
            value={topK}
            onChange={setTopK}
            w={110}
          />
          <Button type="submit" loading={loading} disabled={!trimmed}>
            Ask
          </Button>
        </Group>
      </Stack>
    </form>
  );
}
