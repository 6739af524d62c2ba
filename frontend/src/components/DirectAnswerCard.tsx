import { Fragment, useState, type ReactNode } from 'react';
import { Badge, Box, Button, Group, Paper, Stack, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import type { TFunction } from 'i18next';
import type { AnswerBlock, DirectAnswer, RelatedQuestion } from '../types';
import { contentLang } from '../lib/contentLang';
import { Lang } from './Lang';
import { Markdown } from './Markdown';
import { noteLabels } from '../lib/noteLabels';
import { directSpeakingText } from '../lib/speakingNote';
import { PdfLink } from './PdfLink';

/** "report.pdf, page 3" (or the name alone without a page): what a PDF link opens. */
function namePage(t: TFunction, name: string, page: number | null | undefined): string {
  return page != null ? t('common.namePage', { name, page }) : name;
}

/** Where the direct answer comes from: the question with its id, topic section and page, or the passage's page. */
function DirectHeading({ direct }: { direct: DirectAnswer }) {
  const { t } = useTranslation();
  const name = direct.filename || direct.document_id;
  const where: ReactNode[] = [
    ...(direct.topic ? [<Lang key="topic">{direct.topic}</Lang>] : []),
    ...(direct.page_number != null ? [t('direct.page', { page: direct.page_number })] : []),
    ...(name ? [<Lang key="name">{name}</Lang>] : []),
  ];
  return (
    <Stack gap={2} mb="sm">
      {direct.kind === 'qa' ? (
        <Text fw={700} style={{ wordBreak: 'break-word' }} data-direct-question lang={contentLang(direct.question_text)}>
          {direct.question_id} {direct.question_text}
        </Text>
      ) : (
        <Text fw={600} size="sm">
          {t('direct.fromPassage')}
        </Text>
      )}
      <Text size="xs" c="dimmed" data-testid="direct-where">
        {where.map((part, i) => (
          <Fragment key={i}>
            {i > 0 && t('common.separator')}
            {part}
          </Fragment>
        ))}
        {direct.pdf_url ? (
          <>
            {t('common.separator')}
            <PdfLink
              href={direct.pdf_url}
              size="xs"
              what={namePage(t, name, direct.page_number)}
              label={t('direct.openPage', { name })}
            >
              {t('common.openPagePdf')}
            </PdfLink>
          </>
        ) : null}
      </Text>
    </Stack>
  );
}

function NoteBlock({ block }: { block: AnswerBlock }) {
  const { t } = useTranslation();
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
        {internal ? t('direct.internal') : t('direct.followup')}
      </Badge>
      {block.question && (
        <Text fw={600} size="sm" mb={4} style={{ wordBreak: 'break-word' }} lang={contentLang(block.question)}>
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
  const { t } = useTranslation();
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
        {t('direct.copy')}
      </Button>
      {state !== 'idle' && (
        <Text size="xs" c={state === 'copied' ? 'teal' : 'red'} role="status">
          {state === 'copied' ? t('direct.copied') : t('direct.copyFailed')}
        </Text>
      )}
    </Group>
  );
}

/** The answer taken from the papers: question (id, topic section, page) above the prepared answer. */
export function DirectAnswerCard({ direct, title }: { direct: DirectAnswer; title?: string }) {
  const { t } = useTranslation();
  return (
    <Paper withBorder p="md" radius="md" data-direct-kind={direct.kind}>
      <Group justify="space-between" mb="xs" wrap="wrap" gap="xs">
        <Text fw={600} size="sm" c="dimmed">
          {title ?? (direct.kind === 'qa' ? t('direct.prepared') : t('direct.bestPassage'))}
        </Text>
        <CopySpeakingNote text={directSpeakingText(direct, noteLabels(t))} />
      </Group>
      <DirectHeading direct={direct} />
      <AnswerBlocks blocks={direct.blocks} fallback={direct.text} />
    </Paper>
  );
}

/** Other Q&A pairs among the sources, listed (id, question, document, page), not pasted. */
export function RelatedQuestions({ related }: { related: RelatedQuestion[] }) {
  const { t } = useTranslation();
  if (related.length === 0) return null;
  return (
    <section aria-labelledby="related-heading">
      <Text fw={600} size="sm" id="related-heading" mb={4}>
        {t('direct.related')}
      </Text>
      <Stack gap={4} component="ul" style={{ margin: 0, paddingLeft: '1.2em' }}>
        {related.map((r) => {
          const name = r.filename || r.document_id;

          return (
            <Text component="li" size="sm" key={r.chunk_id} style={{ wordBreak: 'break-word' }}>
              <Text span fw={600}>
                {r.question_id}
              </Text>{' '}
              <Lang>{r.question_text}</Lang>{' '}
              <Text span c="dimmed" size="xs">
                — <Lang>{name}</Lang>
                {r.page_number != null ? t('direct.relatedPage', { page: r.page_number }) : null}
              </Text>
              {r.pdf_url ? (
                <>
                  {' '}
                  <PdfLink
                    href={r.pdf_url}
                    size="xs"
                    what={namePage(t, name, r.page_number)}
                    label={t('direct.openQuestion', { id: r.question_id ?? t('direct.question'), name })}
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
