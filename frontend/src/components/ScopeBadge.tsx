import { Badge, VisuallyHidden } from '@mantine/core';
import { scopeLabel, visibilityOf } from '../lib/roles';
import type { Source } from '../types';

/** The department a document or passage belongs to, or "Shared" for the shared library. */
export function ScopeBadge({ item }: { item: Pick<Source, 'department' | 'visibility'> }) {
  const label = scopeLabel(item);
  if (!label) return null;
  const shared = visibilityOf(item) === 'shared';
  return (
    <Badge
      variant="outline"
      color={shared ? 'teal' : 'gray'}
      title={shared ? 'Shared library: every department can read it' : `Department ${label}`}
      data-testid="scope-badge"
      data-scope={shared ? 'shared' : 'department'}
    >
      {!shared && <VisuallyHidden>Department: </VisuallyHidden>}
      {label}
    </Badge>
  );
}
