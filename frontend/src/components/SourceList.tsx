import { Anchor, Badge, Card, Group, Stack, Text, Title } from '@mantine/core';
import type { Source } from '../types';
import { formatScore, pageRangeLabel } from '../lib/format';

function sourceHeading(source: Source): string {
  if (source.question_id) {
    return source.question_text ? `${source.question_id} — ${source.question_text}` : source.question_id;
  }
  if (source.page_number != null) return `Page ${source.page_number}`;
  return 'No page reference';
}

export function SourceList({ sources }: { sources: Source[] }) {
  if (sources.length === 0) {
    return (
      <Text c="dimmed" size="sm">
        No source passages were returned.
      </Text>
    );
  }
  return (
    <section aria-labelledby="sources-heading">
      <Title order={3} size="h4" id="sources-heading" mb="xs">
        Sources ({sources.length})
      </Title>
      <Stack gap="sm" component="ol" style={{ listStyle: 'none', padding: 0, margin: 0 }}>
        {sources.map((source, index) => {
          const range = pageRangeLabel(source.source_page_range);
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
                <Group gap="xs" wrap="nowrap">
                  <Badge variant="light" color="teal" title="Relevance score">
                    Score {formatScore(source.score)}
                  </Badge>
                  {source.pdf_url ? (
                    <Anchor
                      href={source.pdf_url}
                      target="_blank"
                      rel="noopener noreferrer"
                      size="sm"
                      aria-label={`Open page PDF for ${source.filename}${
                        source.page_number != null ? `, page ${source.page_number}` : ''
                      } (opens in a new tab)`}
                    >
                      Open page PDF
                    </Anchor>
                  ) : null}
                </Group>
              </Group>
              <Text size="sm" mt="xs" style={{ whiteSpace: 'pre-wrap', wordBreak: 'break-word' }}>
                {source.snippet}
              </Text>
            </Card>
          );
        })}
      </Stack>
    </section>
  );
}
