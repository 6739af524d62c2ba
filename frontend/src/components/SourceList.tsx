import { Fragment, useId, type ReactNode } from 'react';
import { Badge, Card, Group, Stack, Text, Title } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import type { TFunction } from 'i18next';
import type { MatchedBy, Rendition, Source } from '../types';
import { contentLang } from '../lib/contentLang';
import { formatScore, pageRangeLabel } from '../lib/format';
import { Lang } from './Lang';
import { OcrBadge } from './OcrBadge';
import { PdfLink } from './PdfLink';
import { ScopeBadge } from './ScopeBadge';
import { ViewSourceButton } from './SourceViewer';

/** The question of a Q&A source ("A1 — question"), else its page (UI text, no `lang` of its own). */
function SourceHeading({ source }: { source: Source }) {
  const { t } = useTranslation();
  if (source.question_id) {
    const text = source.question_text ? `${source.question_id} — ${source.question_text}` : source.question_id;
    return <span lang={contentLang(source.question_text ?? source.question_id)}>{text}</span>;
  }
  if (source.page_number != null) return <>{t('common.page', { page: source.page_number })}</>;
  return <>{t('sources.noPage')}</>;
}

/** How each kind of match is labelled: `sources.match.<kind>.label` and `.title`. */
export const MATCH_KEYS: Record<MatchedBy, { key: 'dense' | 'questionLine' | 'keyword'; color: string }> = {
  dense: { key: 'dense', color: 'indigo' },
  'question-line': { key: 'questionLine', color: 'blue' },
  keyword: { key: 'keyword', color: 'grape' },
};

function MatchBadge({ matchedBy }: { matchedBy: Source['matched_by'] }) {
  const { t } = useTranslation();
  const badge = matchedBy ? MATCH_KEYS[matchedBy] : undefined;
  if (!badge) return null;
  return (
    <Badge
      variant="light"
      color={badge.color}
      title={t(`sources.match.${badge.key}.title`)}
      data-matched-by={matchedBy}
    >
      {t(`sources.match.${badge.key}.label`)}
    </Badge>
  );
}

/** "report.pdf, page 3" (or the name alone): what a link opens, in its accessible name. */
function namePage(t: TFunction, name: string, page: number | null | undefined): string {
  return page != null ? t('common.namePage', { name, page }) : name;
}

/** A link opening a one-page PDF in a new tab; its accessible name says what and which page. */
function SourcePdfLink({ href, size, what, page, children }: {
  href: string;
  size: 'xs' | 'sm';
  what: string;
  page?: number | null;
  children: ReactNode;
}) {
  const { t } = useTranslation();
  const named = namePage(t, what, page);
  return (
    <PdfLink href={href} size={size} label={t('sources.openPdf', { what: named })} what={named}>
      {children}
    </PdfLink>
  );
}

/** "Matched: a, b" — a label, then terms each with its own language, separated as the interface writes lists. */
function TermList({ label, terms, testId }: { label: string; terms: string[]; testId: string }) {
  const { t } = useTranslation();
  return (
    <Text size="xs" c="dimmed" style={{ wordBreak: 'break-word' }} data-testid={testId}>
      {label}
      {terms.map((term, i) => (
        <Fragment key={`${term}-${i}`}>
          {i > 0 ? t('common.listSeparator') : null}
          <Lang>{term}</Lang>
        </Fragment>
      ))}
    </Text>
  );
}

function AlsoIn({ renditions }: { renditions: Rendition[] }) {
  const { t } = useTranslation();
  return (
    <Text size="xs" c="dimmed" style={{ wordBreak: 'break-word' }} data-testid="also-in">
      {t('sources.alsoIn')}{' '}
      {renditions.map((rendition, i) => {
        const name = rendition.filename || rendition.document_id;
        const label = (
          <>
            <Lang>{name}</Lang>
            {rendition.page_number != null ? t('sources.renditionPage', { page: rendition.page_number }) : null}
          </>
        );
        return (
          <Fragment key={`${rendition.chunk_id}-${i}`}>
            {i > 0 ? t('common.listSeparator') : null}
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

export function SourceList({ sources, title }: { sources: Source[]; title?: string }) {
  const { t } = useTranslation();
  const headingId = useId();
  if (sources.length === 0) {
    return (
      <Text c="dimmed" size="sm">
        {t('sources.none')}
      </Text>
    );
  }
  return (
    <section aria-labelledby={headingId} data-sources>
      <Title order={3} size="h4" id={headingId} mb="xs">
        {t('sources.heading', { title: title ?? t('sources.title'), count: sources.length })}
      </Title>
      <Stack gap="sm" component="ol" style={{ listStyle: 'none', padding: 0, margin: 0 }}>
        {sources.map((source, index) => {
          const range = pageRangeLabel(source.source_page_range, t);
          const matchedTerms = (source.matched_terms ?? []).filter((term) => term.trim() !== '');
          const matchedEntity = (source.matched_entity ?? []).filter((term) => term.trim() !== '');
          const alsoIn = source.also_in ?? [];
          return (
            <Card component="li" key={`${source.chunk_id}-${index}`} withBorder padding="sm" radius="md">
              <Group justify="space-between" align="flex-start" wrap="wrap" gap="xs">
                <Stack gap={2} style={{ minWidth: 0, flex: '1 1 240px' }}>
                  <Text fw={600} size="sm" style={{ wordBreak: 'break-word' }}>
                    [{index + 1}] <Lang>{source.filename}</Lang>
                  </Text>
                  <Text size="sm" c="dimmed" style={{ wordBreak: 'break-word' }}>
                    <SourceHeading source={source} />
                    {source.question_id && source.page_number != null
                      ? `${t('common.separator')}${t('direct.page', { page: source.page_number })}`
                      : ''}
                  </Text>
                  {(source.topic_section || range) && (
                    <Text size="xs" c="dimmed" data-testid="source-where">
                      <Lang>{source.topic_section}</Lang>
                      {source.topic_section && range ? t('common.separator') : null}
                      {range}
                    </Text>
                  )}
                </Stack>
                <Group gap="xs" wrap="wrap">
                  <ScopeBadge item={source} />
                  <MatchBadge matchedBy={source.matched_by} />
                  <OcrBadge item={source} />
                  <Badge variant="light" color="teal" title={t('sources.scoreTitle')}>
                    {t('sources.score', { score: formatScore(source.score) })}
                  </Badge>
                  <ViewSourceButton
                    cited={{ chunkId: source.chunk_id, documentId: source.document_id,
                      filename: source.filename ?? source.document_id, page: source.page_number,
                      pdf: Boolean(source.pdf_url) }}
                    label={t('sources.view', { n: index + 1, name: source.filename ?? t('sources.itsDocument') })}
                  />
                  {source.pdf_url ? (
                    <SourcePdfLink
                      href={source.pdf_url}
                      size="sm"
                      what={t('sources.pagePdfFor', { name: source.filename })}
                      page={source.page_number}
                    >
                      {t('common.openPagePdf')}
                    </SourcePdfLink>
                  ) : null}
                </Group>
              </Group>
              <Text
                size="sm"
                mt="xs"
                style={{ whiteSpace: 'pre-wrap', wordBreak: 'break-word' }}
                lang={contentLang(source.snippet)}
              >
                {/* Reflowed by the query service (its line wraps joined as printed, then on one line). */}
                {source.snippet}
              </Text>
              {(matchedTerms.length > 0 || matchedEntity.length > 0 || alsoIn.length > 0) && (
                <Stack gap={2} mt="xs">
                  {matchedTerms.length > 0 && (
                    <TermList label={t('sources.matched')} terms={matchedTerms} testId="matched-terms" />
                  )}
                  {matchedEntity.length > 0 && (
                    <TermList label={t('sources.namedPaper')} terms={matchedEntity} testId="matched-entity" />
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
