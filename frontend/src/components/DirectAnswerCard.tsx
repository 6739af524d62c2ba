import { useState } from 'react';
import { Badge, Box, Button, Group, Paper, Stack, Text } from '@mantine/core';
import type { AnswerBlock, DirectAnswer, RelatedQuestion } from '../types';
import { Markdown } from './Markdown';
import { directSpeakingText } from '../lib/speakingNote';
import { PdfLink } from './PdfLink';

/** Labels of the note blocks of a prepared answer (`[內部參考：…]`, `[如被追問：…]`). */
export const BLOCK_LABELS = {
  internal: 'Internal reference — do not read out',
  followup: 'If pressed',
} as const;

function pageLabel(page: number | null | undefined): string | null {
  return page != null ? `page ${page}` : null;
}

/** Where the direct answer comes from: the question with its id, topic section and page, or the passage's page. */
function DirectHeading({ direct }: { direct: DirectAnswer }) {
  const where = [direct.topic, pageLabel(direct.page_number)].filter(Boolean).join(' · ');
  const name = direct.filename || direct.document_id;
  return (
    <Stack gap={2} mb="sm">
      {direct.kind === 'qa' ? (
        <Text fw={700} style={{ wordBreak: 'break-word' }} data-direct-question>
          {direct.question_id} {direct.question_text}
        </Text>
      ) : (
        <Text fw={600} size="sm">
          From the passage that matches best
        </Text>
      )}
      <Text size="xs" c="dimmed">
        {[where, name].filter(Boolean).join(' · ')}
        {direct.pdf_url ? (
          <>
            {' · '}
            <PdfLink
              href={direct.pdf_url}
              size="xs"
              what={`${name}${direct.page_number != null ? `, page ${direct.page_number}` : ''}`}
              label={`Open page PDF of this answer in ${name} (opens in a new tab)`}
            >
              Open page PDF
            </PdfLink>
          </>
        ) : null}
      </Text>
    </Stack>
  );
}

function NoteBlock({ block }: { block: AnswerBlock }) {
  const internal = block.kind === 'internal';
  return (
    <Box
      data-block={block.kind}
      p="sm"
      style={{
        borderLeft: `4px solid var(--mantine-color-${internal ? 'red' : 'blue'}-6)`,
        background: `var(--mantine-color-${internal ? 'red' : 'blue'}-0)`,
        borderRadius: 4,
      }}
    >
      {/* Filled: a light badge on the note's tinted background falls short of 4.5:1. */}
      <Badge color={internal ? 'red' : 'blue'} variant="filled" mb={6}>
        {internal ? BLOCK_LABELS.internal : BLOCK_LABELS.followup}
      </Badge>
      {block.question && (
        <Text fw={600} size="sm" mb={4} style={{ wordBreak: 'break-word' }}>
          {block.question}
        </Text>
      )}
      {block.text.trim() && <Markdown>{block.text}</Markdown>}
    </Box>
  );
}

/** The answer's blocks in order: plain text as markdown, internal notes and follow-ups labelled. */
export function AnswerBlocks({ blocks, fallback }: { blocks: AnswerBlock[]; fallback: string }) {
  if (blocks.length === 0) return <Markdown>{fallback}</Markdown>;
  return (
    <Stack gap="sm">
      {blocks.map((block, i) =>
        block.kind === 'text' ? (
          <Markdown key={i}>{block.text}</Markdown>
        ) : (
          <NoteBlock key={i} block={block} />
        ),
      )}
    </Stack>
  );
}

/** Copies the answer without its internal notes (`directSpeakingText`, as the exports build it). */
export function CopySpeakingNote({ text }: { text: string }) {
  const [state, setState] = useState<'idle' | 'copied' | 'failed'>('idle');
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(text);
      setState('copied');
    } catch {
      setState('failed');
    }
  };
  return (
    <Group gap="xs">
      <Button size="xs" variant="light" onClick={() => void copy()} disabled={!text.trim()}>
        Copy as speaking note
      </Button>
      {state !== 'idle' && (
        <Text size="xs" c={state === 'copied' ? 'teal' : 'red'} role="status">
          {state === 'copied' ? 'Copied, without the internal notes.' : 'Could not copy to the clipboard.'}
        </Text>
      )}
    </Group>
  );
}

/** The answer taken from the papers: question (id, topic section, page) above the prepared answer. */
export function DirectAnswerCard({ direct, title }: { direct: DirectAnswer; title?: string }) {
  return (
    <Paper withBorder p="md" radius="md" data-direct-kind={direct.kind}>
      <Group justify="space-between" mb="xs" wrap="wrap" gap="xs">
        <Text fw={600} size="sm" c="dimmed">
          {title ?? (direct.kind === 'qa' ? 'Prepared answer' : 'Best matching passage')}
        </Text>
        <CopySpeakingNote text={directSpeakingText(direct)} />
      </Group>
      <DirectHeading direct={direct} />
      <AnswerBlocks blocks={direct.blocks} fallback={direct.text} />
    </Paper>
  );
}

/** Other Q&A pairs among the sources, listed (id, question, document, page), not pasted. */
export function RelatedQuestions({ related }: { related: RelatedQuestion[] }) {
  if (related.length === 0) return null;
  return (
    <section aria-labelledby="related-heading">
      <Text fw={600} size="sm" id="related-heading" mb={4}>
        Related questions
      </Text>
      <Stack gap={4} component="ul" style={{ margin: 0, paddingLeft: '1.2em' }}>
        {related.map((r) => {
          const name = r.filename || r.document_id;
          const where = [name, pageLabel(r.page_number)].filter(Boolean).join(', ');
          return (
            <Text component="li" size="sm" key={r.chunk_id} style={{ wordBreak: 'break-word' }}>
              <Text span fw={600}>
                {r.question_id}
              </Text>{' '}
              {r.question_text}{' '}
              <Text span c="dimmed" size="xs">
                — {where}
              </Text>
              {r.pdf_url ? (
                <>
                  {' '}
                  <PdfLink
                    href={r.pdf_url}
                    size="xs"
                    what={`${name}${r.page_number != null ? `, page ${r.page_number}` : ''}`}
                    label={`Open ${r.question_id ?? 'question'} in ${name} (opens in a new tab)`}
                  >
                    PDF
                  </PdfLink>
                </>
              ) : null}
            </Text>
          );
        })}
      </Stack>
    </section>
  );
}
