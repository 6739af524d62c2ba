import { Badge, VisuallyHidden } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { contentLang } from '../lib/contentLang';
import { scopeLabel, visibilityOf } from '../lib/roles';
import type { Source } from '../types';

/** The department a document or passage belongs to, or "Shared" for the shared library. */
export function ScopeBadge({ item }: { item: Pick<Source, 'department' | 'visibility'> }) {
  const { t } = useTranslation();
  const label = scopeLabel(item, t);
  if (!label) return null;
  const shared = visibilityOf(item) === 'shared';
  return (
    <Badge
      variant="outline"
      color={shared ? 'teal' : 'gray'}
      title={shared ? t('roles.sharedTitle') : t('roles.departmentTitle', { department: label })}
      data-testid="scope-badge"
      data-scope={shared ? 'shared' : 'department'}
    >
      {!shared && <VisuallyHidden>{t('roles.departmentPrefix')}</VisuallyHidden>}
      {shared ? label : <span lang={contentLang(label)}>{label}</span>}
    </Badge>
  );
}
