import { Fragment, useId, type ReactNode } from 'react';
import { Badge, Card, Group, Stack, Text, Title } from '@mantine/core';
import type { MatchedBy, Rendition, Source } from '../types';
import { formatScore, pageRangeLabel } from '../lib/format';
import { PdfLink } from './PdfLink';
import { ScopeBadge } from './ScopeBadge';
import { ViewSourceButton } from './SourceViewer';

function sourceHeading(source: Source): string {
  if (source.question_id) {
    return source.question_text ? `${source.question_id} — ${source.question_text}` : source.question_id;
  }
  if (source.page_number != null) return `Page ${source.page_number}`;
  return 'No page reference';
}

export const MATCH_BADGES: Record<MatchedBy, { label: string; title: string; color: string }> = {
  dense: {
    label: 'Meaning match',
    title: 'Ranked by meaning: the question is semantically close to this passage',
    color: 'indigo',
  },
  'question-line': {
    label: 'Question match',
    title: 'Ranked by the question line: your question is close to the question of this prepared Q&A pair',
    color: 'blue',
  },
  keyword: {
    label: 'Keyword match',
    title: 'Ranked by word match: words of your question (or their English/Chinese translations) occur in this passage',
    color: 'grape',
  },
};

function MatchBadge({ matchedBy }: { matchedBy: Source['matched_by'] }) {
  const badge = matchedBy ? MATCH_BADGES[matchedBy] : undefined;
  if (!badge) return null;
  return (
    <Badge variant="light" color={badge.color} title={badge.title} data-matched-by={matchedBy}>
      {badge.label}
    </Badge>
  );
}

function renditionLabel(rendition: Rendition): string {
  const name = rendition.filename || rendition.document_id;
  return rendition.page_number != null ? `${name} p. ${rendition.page_number}` : name;
}

/** A link opening a one-page PDF in a new tab; its accessible name says what and which page. */
function SourcePdfLink({ href, size, what, page, children }: {
  href: string;
  size: 'xs' | 'sm';
  what: string;
  page?: number | null;
  children: ReactNode;
}) {
  const named = `${what}${page != null ? `, page ${page}` : ''}`;
  return (
    <PdfLink href={href} size={size} label={`Open ${named} (opens in a new tab)`} what={named}>
      {children}
    </PdfLink>
  );
}

function AlsoIn({ renditions }: { renditions: Rendition[] }) {
  return (
    <Text size="xs" c="dimmed" style={{ wordBreak: 'break-word' }}>
      Also in:{' '}
      {renditions.map((rendition, i) => {
        const label = renditionLabel(rendition);
        return (
          <Fragment key={`${rendition.chunk_id}-${i}`}>
            {i > 0 ? ', ' : null}
            {rendition.pdf_url ? (
              <SourcePdfLink
                href={rendition.pdf_url}
                size="xs"
                what={rendition.filename || rendition.document_id}
                page={rendition.page_number}
              >
                {label}
              </SourcePdfLink>
            ) : (
              label
            )}
          </Fragment>
        );
      })}
    </Text>
  );
}

export function SourceList({ sources, title = 'Sources' }: { sources: Source[]; title?: string }) {
  const headingId = useId();
  if (sources.length === 0) {
    return (
      <Text c="dimmed" size="sm">
        No source passages were returned.
      </Text>
    );
  }
  return (
    <section aria-labelledby={headingId}>
      <Title order={3} size="h4" id={headingId} mb="xs">
        {title} ({sources.length})
      </Title>
      <Stack gap="sm" component="ol" style={{ listStyle: 'none', padding: 0, margin: 0 }}>
        {sources.map((source, index) => {
          const range = pageRangeLabel(source.source_page_range);
          const matchedTerms = (source.matched_terms ?? []).filter((term) => term.trim() !== '');
          const matchedEntity = (source.matched_entity ?? []).filter((term) => term.trim() !== '');
          const alsoIn = source.also_in ?? [];
          return (
            <Card component="li" key={`${source.chunk_id}-${index}`} withBorder padding="sm" radius="md">
              <Group justify="space-between" align="flex-start" wrap="wrap" gap="xs">
                <Stack gap={2} style={{ minWidth: 0, flex: '1 1 240px' }}>
                  <Text fw={600} size="sm" style={{ wordBreak: 'break-word' }}>
                    [{index + 1}] {source.filename}
                  </Text>
                  <Text size="sm" c="dimmed" style={{ wordBreak: 'break-word' }}>
                    {sourceHeading(source)}
                    {source.question_id && source.page_number != null ? ` · page ${source.page_number}` : ''}
                  </Text>
                  {(source.topic_section || range) && (
                    <Text size="xs" c="dimmed">
                      {[source.topic_section, range].filter(Boolean).join(' · ')}
                    </Text>
                  )}
                </Stack>
                <Group gap="xs" wrap="wrap">
                  <ScopeBadge item={source} />
                  <MatchBadge matchedBy={source.matched_by} />
                  <Badge variant="light" color="teal" title="Relevance score">
                    Score {formatScore(source.score)}
                  </Badge>
                  <ViewSourceButton
                    cited={{ chunkId: source.chunk_id, documentId: source.document_id,
                      filename: source.filename ?? source.document_id, page: source.page_number,
                      pdf: Boolean(source.pdf_url) }}
                    label={`View source ${index + 1} in ${source.filename ?? 'its document'}`}
                  />
                  {source.pdf_url ? (
                    <SourcePdfLink
                      href={source.pdf_url}
                      size="sm"
                      what={`page PDF for ${source.filename}`}
                      page={source.page_number}
                    >
                      Open page PDF
                    </SourcePdfLink>
                  ) : null}
                </Group>
              </Group>
              <Text size="sm" mt="xs" style={{ whiteSpace: 'pre-wrap', wordBreak: 'break-word' }}>
                {source.snippet}
              </Text>
              {(matchedTerms.length > 0 || matchedEntity.length > 0 || alsoIn.length > 0) && (
                <Stack gap={2} mt="xs">
                  {matchedTerms.length > 0 && (
                    <Text size="xs" c="dimmed" style={{ wordBreak: 'break-word' }}>
                      Matched words: {matchedTerms.join(', ')}
                    </Text>
                  )}
                  {matchedEntity.length > 0 && (
                    <Text size="xs" c="dimmed" style={{ wordBreak: 'break-word' }}>
                      Paper named in the question: {matchedEntity.join(', ')}
                    </Text>
                  )}
                  {alsoIn.length > 0 && <AlsoIn renditions={alsoIn} />}
                </Stack>
              )}
            </Card>
          );
        })}
      </Stack>
    </section>
  );
}
