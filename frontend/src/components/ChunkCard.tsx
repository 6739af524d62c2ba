import { Badge, Card, Group, Spoiler, Stack, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import type { TFunction } from 'i18next';
import { i18n } from '../i18n';
import type { ChunkInfo } from '../types';
import { contentLang } from '../lib/contentLang';
import { pageRangeLabel } from '../lib/format';
import { reflow } from '../lib/reflow';
import { Lang } from './Lang';
import { ConfirmDelete } from './ConfirmDelete';
import { Markdown } from './Markdown';
import { OcrBadge } from './OcrBadge';
import { PdfLink } from './PdfLink';
import { ViewSourceButton } from './SourceViewer';

export function isQaChunk(chunk: ChunkInfo): boolean {
  if (chunk.chunk_kind) return chunk.chunk_kind === 'qa';
  return chunk.strategy_type === 'question' && Boolean(chunk.question_id);
}

function escapeRegExp(ch: string) {
  return ch.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * The answer part of a Q&A chunk. The chunk text is optional headings
 * ("備用問答", "(A) 排水系統"), the question (which may wrap over several
 * lines), then the answer ("答 A1：…" or plain paragraphs). Everything up to
 * the end of the question is dropped; if the question can't be located the
 * whole text is returned.
 */
export function answerText(chunk: ChunkInfo): string {
  const text = chunk.text ?? '';
  const question = (chunk.question_text ?? '').replace(/\s+/g, '');
  if (question) {
    // Match the question text with any whitespace/line breaks between characters.
    const pattern = new RegExp(Array.from(question, escapeRegExp).join('\\s*'));
    const match = pattern.exec(text);
    if (match) {
      const rest = text.slice(match.index + match[0].length).replace(/^\s+/, '');
      if (rest) return rest;
    }
  }
  // Fallback: start at an explicit answer marker (答 / A1: / Answer).
  const marker = /^\s*(答|Answer\b|A\d+\s*[:：︰.])/m.exec(text);
  if (marker) return text.slice(marker.index).replace(/^\s+/, '');
  return text;
}

export function qaHeading(chunk: ChunkInfo): string {
  // "Q1" and "Q&A" are the pair's id (as papers number them), not interface words.
  const id = chunk.question_id ?? (chunk.question_index != null ? `Q${chunk.question_index}` : 'Q&A');
  return chunk.question_text ? `${id} — ${chunk.question_text}` : id;
}

function ChunkPdfLink({ chunk, filename }: { chunk: ChunkInfo; filename: string }) {
  const { t } = useTranslation();
  if (!chunk.pdf_url) return null;
  const what =
    chunk.page_number != null
      ? t('common.pageOf', { page: chunk.page_number, name: filename })
      : t('chunks.sourcePageOf', { name: filename });
  return (
    <PdfLink href={chunk.pdf_url} label={t('chunks.openPdf', { what })} what={what}>
      {t('common.openPagePdf')}
    </PdfLink>
  );
}

/** The card's title: the Q&A pair or section (paper content), else the page or chunk number. */
function chunkHeading(chunk: ChunkInfo, qa: boolean, section: boolean, t: TFunction = i18n.t.bind(i18n)) {
  if (qa) return { heading: qaHeading(chunk), content: true };
  if (section) {
    const firstLine = (chunk.text ?? '').split('\n', 1)[0].trim();
    const short = firstLine.length > 80 ? `${firstLine.slice(0, 80)}…` : firstLine;
    const heading = chunk.topic_section || short;
    if (heading) return { heading, content: true };
    return { heading: t('chunks.section', { n: chunk.chunk_index + 1 }), content: false };
  }
  const heading =
    chunk.page_number != null
      ? t('common.page', { page: chunk.page_number })
      : t('chunks.chunk', { n: chunk.chunk_index + 1 });
  return { heading, content: false };
}

export interface ChunkCardProps {
  chunk: ChunkInfo;
  filename: string;
  /** Offers a delete control when given (the caller may change the chunk's document). */
  onDelete?: (chunkId: string) => void;
  deleting?: boolean;
}

export function ChunkCard({ chunk, filename, onDelete, deleting }: ChunkCardProps) {
  const { t } = useTranslation();
  const qa = isQaChunk(chunk);
  const section = !qa && chunk.chunk_kind === 'section';
  const range = pageRangeLabel(chunk.source_page_range, t);
  const hasTable = Boolean(chunk.answer_contains_table || chunk.has_table);
  const partLabel =
    chunk.parts && chunk.parts > 1 ? t('chunks.part', { part: chunk.part ?? '?', parts: chunk.parts }) : null;

  const { heading, content } = chunkHeading(chunk, qa, section, t);
  let sectionBody = chunk.text ?? '';
  if (section) {
    const text = chunk.text ?? '';
    const firstLine = text.split('\n', 1)[0].trim();
    // The title is the first line: don't repeat it as the first line of the body.
    const rest = text.replace(/^\s*[^\n]*\n?/, '').replace(/^\s+/, '');
    if (heading === firstLine && rest) sectionBody = rest;
  }
  const headingLang = content ? contentLang(chunk.question_text || heading) : undefined;

  const deleteControl = onDelete && (
    <ConfirmDelete
      compact
      label={t('chunks.deleteLabel', { heading })}
      title={t('chunks.deleteTitle')}
      message={t('chunks.deleteMessage', { heading, name: filename })}
      onConfirm={() => onDelete(chunk.chunk_id)}
      loading={deleting}
    />
  );

  return (
    <Card
      withBorder
      padding="sm"
      radius="md"
      component="article"
      data-chunk-kind={qa ? 'qa' : section ? 'section' : 'token'}
      aria-label={heading}
    >
      <Group justify="space-between" align="flex-start" wrap="nowrap" gap="xs">
        <Stack gap={4} style={{ minWidth: 0, flex: 1 }}>
          <Text fw={600} size="sm" style={{ wordBreak: 'break-word' }} lang={headingLang}>
            {heading}
          </Text>
          <Group gap="xs" wrap="wrap">
            {qa && chunk.topic_section && (
              <Text size="xs" c="dimmed" data-testid="chunk-topic">
                {t('chunks.topic')}
                <Lang>{chunk.topic_section}</Lang>
              </Text>
            )}
            {(qa || section) && range && (
              <Text size="xs" c="dimmed">
                {range}
              </Text>
            )}
            {(qa || section) && !range && chunk.page_number != null && (
              <Text size="xs" c="dimmed">
                {t('common.page', { page: chunk.page_number })}
              </Text>
            )}
            {!qa && !section && (
              <Text size="xs" c="dimmed">
                {t('chunks.index', { n: chunk.chunk_index })}
              </Text>
            )}
            {hasTable && (
              <Badge size="xs" color="grape" variant="light">
                {t('chunks.table')}
              </Badge>
            )}
            <OcrBadge item={chunk} size="xs" />
            {partLabel && (
              <Badge size="xs" color="gray" variant="outline">
                {partLabel}
              </Badge>
            )}
            {qa && chunk.followup_count ? (
              <Badge size="xs" color="gray" variant="outline">
                {t('chunks.followups', { count: chunk.followup_count })}
              </Badge>
            ) : null}
            <ViewSourceButton
              cited={{ chunkId: chunk.chunk_id, documentId: chunk.document_id, filename,
                page: chunk.page_number, pdf: Boolean(chunk.pdf_url), highlights: chunk.highlights ?? null }}
              label={t('chunks.view', { heading, name: filename })}
            />
            <ChunkPdfLink chunk={chunk} filename={filename} />
          </Group>
        </Stack>
        {deleteControl}
      </Group>
      <Spoiler
        maxHeight={qa || section ? 220 : 120}
        showLabel={t('chunks.showMore')}
        hideLabel={t('chunks.showLess')}
        mt="xs"
      >
        {/* The PDF's printed lines reflowed into paragraphs, as the answer is (lib/reflow). */}
        {qa || section ? (
          <Markdown>{reflow(qa ? answerText(chunk) : sectionBody)}</Markdown>
        ) : (
          <Text
            size="sm"
            style={{ whiteSpace: 'pre-wrap', wordBreak: 'break-word' }}
            lang={contentLang(chunk.text || chunk.content_summary)}
          >
            {reflow(chunk.text || chunk.content_summary || '')}
          </Text>
        )}
      </Spoiler>
    </Card>
  );
}
