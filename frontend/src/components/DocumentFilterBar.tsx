import { useEffect, useState, type FormEvent } from 'react';
import { Button, Checkbox, Group, NativeSelect, Paper, Stack, TextInput } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { useTranslation } from 'react-i18next';
import type { TFunction } from 'i18next';
import { formatDay } from '../lib/format';
import {
  SORTS,
  STATUSES,
  STRATEGIES,
  isFiltered,
  type DocumentFilters,
  type DocumentSort,
} from '../lib/documentFilters';
import type { ChunkingStrategy, DocumentStatus } from '../types';

/**
 * A date filter's day in words in the interface language, under its label: the browser's own date
 * control shows its digits in the browser's order (mm/dd/yyyy in an en-US Chromium), not the
 * interface language's. "Any date" when none is set.
 */
function dayInWords(ymd: string, t: TFunction): string {
  return formatDay(ymd, t) ?? t('filters.anyDate');
}

/** Value of the department filter meaning "no filter". */
const ALL_DEPARTMENTS = '';

export interface DocumentFilterBarProps {
  filters: DocumentFilters;
  /** A change of some filters (the page goes back to 1). */
  onChange: (change: Partial<DocumentFilters>) => void;
  /** Departments an admin may pick; `null` for everyone else (no department filter). */
  departments: string[] | null;
}

/**
 * The Database page's search box (filename or text; sent 300 ms after typing stops, or on Enter),
 * status, strategy, department (admins) and upload-date filters, and the sort.
 */
export function DocumentFilterBar({ filters, onChange, departments }: DocumentFilterBarProps) {
  const { t } = useTranslation();
  const [text, setText] = useState(filters.q);
  const [debounced] = useDebouncedValue(text, 300);
  // A search from the URL (back, a shared link) replaces what is typed.
  useEffect(() => setText(filters.q), [filters.q]);
  useEffect(() => {
    if (debounced !== filters.q) onChange({ q: debounced });
    // Only a settled change of the typed text searches; `filters.q` changing is handled above.
  }, [debounced]);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (text !== filters.q) onChange({ q: text });
  };

  return (
    <Paper withBorder radius="md" p="md" component="section" aria-label={t('filters.region')}>
      <Stack gap="sm">
        <form role="search" onSubmit={submit}>
          <TextInput
            type="search"
            label={t('filters.search')}
            description={t('filters.searchDescription')}
            value={text}
            onChange={(e) => setText(e.currentTarget.value)}
            maxLength={200}
          />
        </form>
        <Group gap="lg" align="flex-end" wrap="wrap">
          <Checkbox.Group
            label={t('filters.status')}
            value={filters.status}
            onChange={(value) => onChange({ status: value as DocumentStatus[] })}
          >
            <Group gap="sm" mt={6}>
              {STATUSES.map((s) => (
                <Checkbox key={s.value} value={s.value} label={t(`documents.status.${s.value}`)} />
              ))}
            </Group>
          </Checkbox.Group>
          <NativeSelect
            label={t('upload.strategy')}
            value={filters.strategy}
            onChange={(e) => onChange({ strategy: e.currentTarget.value as ChunkingStrategy | '' })}
            data={[
              { value: '', label: t('filters.anyStrategy') },
              ...STRATEGIES.map((s) => ({ value: s.value, label: t(`format.strategy.${s.value}.filter`) })),
            ]}
            w={180}
          />
          {departments && (
            <NativeSelect
              label={t('filters.department')}
              description={t('filters.departmentDescription')}
              value={filters.department}
              onChange={(e) => onChange({ department: e.currentTarget.value })}
              data={[
                { value: ALL_DEPARTMENTS, label: t('filters.allDepartments') },
                ...departments.map((d) => ({ value: d, label: d })),
              ]}
              w={220}
            />
          )}
        </Group>
        <Group gap="lg" align="flex-end" wrap="wrap">
          <TextInput
            type="date"
            label={t('filters.from')}
            description={dayInWords(filters.from, t)}
            value={filters.from}
            max={filters.to || undefined}
            onChange={(e) => onChange({ from: e.currentTarget.value })}
            w={180}
          />
          <TextInput
            type="date"
            label={t('filters.to')}
            description={dayInWords(filters.to, t)}
            value={filters.to}
            min={filters.from || undefined}
            onChange={(e) => onChange({ to: e.currentTarget.value })}
            w={180}
          />
          <NativeSelect
            label={t('filters.sortBy')}
            value={filters.sort}
            onChange={(e) => onChange({ sort: e.currentTarget.value as DocumentSort })}
            data={SORTS.map((s) => ({ value: s.value, label: t(`filters.sort.${s.key}`) }))}
            w={220}
          />
          {isFiltered(filters) && (
            <Button
              variant="default"
              onClick={() => {
                setText('');
                onChange({ q: '', status: [], strategy: '', from: '', to: '' });
              }}
            >
              {t('filters.clear')}
            </Button>
          )}
        </Group>
      </Stack>
    </Paper>
  );
}
