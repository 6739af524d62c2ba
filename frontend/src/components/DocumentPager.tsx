import { Group, Pagination, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { formatNumber } from '../lib/format';

export interface DocumentPagerProps {
  page: number;
  pageSize: number;
  /** Documents matching the filters, on every page. */
  total: number;
  onPage: (page: number) => void;
}

/** "Showing 26–50 of 130 documents" and the page buttons (none when everything fits on one page). */
export function DocumentPager({ page, pageSize, total, onPage }: DocumentPagerProps) {
  const { t } = useTranslation();
  const pages = Math.max(1, Math.ceil(total / pageSize));
  const first = total === 0 ? 0 : Math.min((page - 1) * pageSize + 1, total);
  const last = Math.min(page * pageSize, total);
  return (
    <Group justify="space-between" wrap="wrap" gap="sm">
      <Text size="sm" role="status" data-testid="pager-summary">
        {total === 0
          ? t('pager.none')
          : first > total || page > pages
            ? t('pager.past', { page, pages })
            : t('pager.showing', {
                count: total,
                first: formatNumber(first, t),
                last: formatNumber(last, t),
                total: formatNumber(total, t),
              })}
      </Text>
      {pages > 1 && (
        <nav aria-label={t('pager.nav')}>
          <Pagination
            total={pages}
            value={Math.min(page, pages)}
            onChange={onPage}
            size="sm"
            getItemProps={(p) => ({ 'aria-label': t('common.page', { page: p }) })}
            getControlProps={(control) => ({ 'aria-label': t(`pager.control.${control}`) })}
          />
        </nav>
      )}
    </Group>
  );
}
