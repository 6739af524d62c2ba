import { Anchor, Badge, Card, Group, Spoiler, Stack, Text } from '@mantine/core';
import type { ChunkInfo } from '../types';
import { pageRangeLabel } from '../lib/format';
import { ConfirmDelete } from './ConfirmDelete';
import { Markdown } from './Markdown';

export function isQaChunk(chunk: ChunkInfo): boolean {
  if (chunk.chunk_kind) return chunk.chunk_kind === 'qa';
  return chunk.strategy_type === 'question' && Boolean(chunk.question_id);
}

/** The chunk text is the question line followed by the answer; drop the question line. */
export function answerText(chunk: ChunkInfo): string {
  const text = chunk.text ?? '';
  const newline = text.indexOf('\n');
  if (newline < 0) return text;
  const first = text.slice(0, newline).trim();
  const q = chunk.question_text?.trim();
  const looksLikeQuestion =
    (q && (first.includes(q) || q.includes(first))) ||
    (chunk.question_id && first.startsWith(chunk.question_id)) ||
    /^(問|Q\d*|Question)\b/.test(first) ||
    first.startsWith('問');
  return looksLikeQuestion ? text.slice(newline + 1).replace(/^\s+/, '') : text;
}

export function qaHeading(chunk: ChunkInfo): string {
  const id = chunk.question_id ?? (chunk.question_index != null ? `Q${chunk.question_index}` : 'Q&A');
  return chunk.question_text ? `${id} — ${chunk.question_text}` : id;
}

function PdfLink({ chunk, filename }: { chunk: ChunkInfo; filename: string }) {
  if (!chunk.pdf_url) return null;
  const page = chunk.page_number != null ? `page ${chunk.page_number}` : 'source page';
  return (
    <Anchor
      href={chunk.pdf_url}
      target="_blank"
      rel="noopener noreferrer"
      size="sm"
      aria-label={`Open PDF of ${page} of ${filename} (opens in a new tab)`}
    >
      Open page PDF
    </Anchor>
  );
}

export interface ChunkCardProps {
  chunk: ChunkInfo;
  filename: string;
  onDelete: (chunkId: string) => void;
  deleting?: boolean;
}

export function ChunkCard({ chunk, filename, onDelete, deleting }: ChunkCardProps) {
  const qa = isQaChunk(chunk);
  const section = !qa && chunk.chunk_kind === 'section';
  const range = pageRangeLabel(chunk.source_page_range);
  const hasTable = Boolean(chunk.answer_contains_table || chunk.has_table);
  const partLabel = chunk.parts && chunk.parts > 1 ? `Part ${chunk.part ?? '?'} of ${chunk.parts}` : null;

  let heading: string;
  if (qa) heading = qaHeading(chunk);
  else if (section) heading = chunk.topic_section || `Section ${chunk.chunk_index + 1}`;
  else heading = chunk.page_number != null ? `Page ${chunk.page_number}` : `Chunk ${chunk.chunk_index + 1}`;

  const deleteControl = (
    <ConfirmDelete
      compact
      label={`Delete chunk ${heading}`}
      title="Delete this chunk?"
      message={`"${heading}" will be removed from ${filename}. It will no longer be used to answer questions.`}
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
          <Text fw={600} size="sm" style={{ wordBreak: 'break-word' }}>
            {heading}
          </Text>
          <Group gap="xs" wrap="wrap">
            {qa && chunk.topic_section && (
              <Text size="xs" c="dimmed">
                Topic: {chunk.topic_section}
              </Text>
            )}
            {(qa || section) && range && (
              <Text size="xs" c="dimmed">
                {range}
              </Text>
            )}
            {(qa || section) && !range && chunk.page_number != null && (
              <Text size="xs" c="dimmed">
                Page {chunk.page_number}
              </Text>
            )}
            {!qa && !section && (
              <Text size="xs" c="dimmed">
                Chunk #{chunk.chunk_index}
              </Text>
            )}
            {hasTable && (
              <Badge size="xs" color="grape" variant="light">
                Contains table
              </Badge>
            )}
            {partLabel && (
              <Badge size="xs" color="gray" variant="outline">
                {partLabel}
              </Badge>
            )}
            {qa && chunk.followup_count ? (
              <Badge size="xs" color="gray" variant="outline">
                {chunk.followup_count} follow-up{chunk.followup_count > 1 ? 's' : ''}
              </Badge>
            ) : null}
            <PdfLink chunk={chunk} filename={filename} />
          </Group>
        </Stack>
        {deleteControl}
      </Group>
      <Spoiler maxHeight={qa || section ? 220 : 120} showLabel="Show more" hideLabel="Show less" mt="xs">
        {qa || section ? (
          <Markdown>{qa ? answerText(chunk) : chunk.text}</Markdown>
        ) : (
          <Text size="sm" style={{ whiteSpace: 'pre-wrap', wordBreak: 'break-word' }}>
            {chunk.text || chunk.content_summary}
          </Text>
        )}
      </Spoiler>
    </Card>
  );
}
