import { Group, Pagination, Text } from '@mantine/core';

export interface DocumentPagerProps {
  page: number;
  pageSize: number;
  /** Documents matching the filters, on every page. */
  total: number;
  onPage: (page: number) => void;
}

/** "Showing 26–50 of 130 documents" and the page buttons (none when everything fits on one page). */
export function DocumentPager({ page, pageSize, total, onPage }: DocumentPagerProps) {
  const pages = Math.max(1, Math.ceil(total / pageSize));
  const first = total === 0 ? 0 : Math.min((page - 1) * pageSize + 1, total);
  const last = Math.min(page * pageSize, total);
  return (
    <Group justify="space-between" wrap="wrap" gap="sm">
      <Text size="sm" role="status" data-testid="pager-summary">
        {total === 0
          ? 'No matching documents'
          : first > total || page > pages
            ? `Page ${page} is past the last page (${pages})`
            : `Showing ${first}–${last} of ${total} ${total === 1 ? 'document' : 'documents'}`}
      </Text>
      {pages > 1 && (
        <nav aria-label="Document pages">
          <Pagination
            total={pages}
            value={Math.min(page, pages)}
            onChange={onPage}
            size="sm"
            getItemProps={(p) => ({ 'aria-label': `Page ${p}` })}
            getControlProps={(control) => ({
              'aria-label': { first: 'First page', last: 'Last page', next: 'Next page', previous: 'Previous page' }[
                control
              ],
            })}
          />
        </nav>
      )}
    </Group>
  );
}
