import { Badge, Button, Group, Paper, Stack, Text, Title, UnstyledButton } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import type { TFunction } from 'i18next';
import { contentLang } from '../lib/contentLang';
import type { HistoryEntry } from '../lib/history';
import { formatDate } from '../lib/format';

/** What an entry's answer was: the Q&A id, "Not covered", or nothing. */
function entryBadge(entry: HistoryEntry, t: TFunction) {
  if (entry.response.covered === false) return <Badge color="gray" variant="light">{t('answer.notCovered')}</Badge>;
  const id = entry.response.direct?.question_id;
  return id ? <Badge color="blue" variant="light">{id}</Badge> : null;
}

/** The key's recent questions, newest first; one click shows its answer again, without asking. */
export function AnswerHistory({ entries, shownId, onShow, onClear }: {
  entries: HistoryEntry[];
  shownId: string | null;
  onShow: (entry: HistoryEntry) => void;
  onClear: () => void;
}) {
  const { t } = useTranslation();
  if (entries.length === 0) return null;
  return (
    <Paper withBorder p="md" radius="md" component="section" aria-labelledby="history-heading">
      <Group justify="space-between" wrap="wrap" gap="xs" mb={4}>
        <Title order={2} size="h4" id="history-heading">
          {t('history.heading', { count: entries.length })}
        </Title>
        <Button size="xs" variant="subtle" color="red" onClick={onClear}>
          {t('history.clear')}
        </Button>
      </Group>
      <Text size="xs" c="dimmed" mb="xs">
        {t('history.hint')}
      </Text>
      <Stack gap={4} component="ol" style={{ listStyle: 'none', margin: 0, padding: 0 }}>
        {entries.map((entry) => {
          const shown = entry.id === shownId;
          return (
            <li key={entry.id}>
              <UnstyledButton
                onClick={() => onShow(entry)}
                aria-current={shown ? 'true' : undefined}
                data-history-entry={entry.id}
                w="100%"
                p={6}
                style={{
                  borderRadius: 4,
                  background: shown ? 'var(--mantine-color-blue-light)' : undefined,
                }}
              >
                <Text size="sm" style={{ wordBreak: 'break-word' }} lineClamp={2} lang={contentLang(entry.question)}>
                  {entry.question}
                </Text>
                <Group gap={6} wrap="wrap" mt={2}>
                  {entryBadge(entry, t)}
                  <Text size="xs" c="dimmed">
                    {formatDate(entry.askedAt, t)}
                    {shown ? `${t('common.separator')}${t('history.shown')}` : ''}
                  </Text>
                </Group>
              </UnstyledButton>
            </li>
          );
        })}
      </Stack>
    </Paper>
  );
}
