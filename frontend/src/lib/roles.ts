/**
 * What the caller's role lets the UI offer. The gateway decides (403/404 otherwise); these only
 * hide controls that would be refused: reader < member < admin.
 */
import type { TFunction } from 'i18next';
import { i18n } from '../i18n';
import type { Caller, DocumentInfo, Role, Source, Visibility } from '../types';

/** A role as the interface names it ("Member"), in the interface language. */
export function roleLabel(role: Role, t: TFunction = i18n.t.bind(i18n)): string {
  return t(`roles.${role}.label`, { defaultValue: role });
}

/** What a role may do ("also uploads and deletes in its own department"). */
export function roleDescription(role: Role, t: TFunction = i18n.t.bind(i18n)): string {
  return t(`roles.${role}.description`, { defaultValue: '' });
}

export function isAdmin(caller: Caller): boolean {
  return caller.role === 'admin';
}

/** Members and admins upload; readers do not. */
export function canUpload(caller: Caller): boolean {
  return caller.role === 'admin' || caller.role === 'member';
}

/** A document's visibility; records written before visibility existed are "department". */
export function visibilityOf(item: { visibility?: Visibility | null }): Visibility {
  return item.visibility ?? 'department';
}

/**
 * Whether the caller may delete `doc` or its chunks: an admin any, a member those of its own
 * department (not the shared library, which only admins change), a reader none.
 */
export function canModify(caller: Caller, doc: Pick<DocumentInfo, 'department' | 'visibility'>): boolean {
  if (caller.role === 'admin') return true;
  if (caller.role !== 'member') return false;
  return visibilityOf(doc) !== 'shared' && doc.department === caller.department;
}

/** "Shared" for the shared library, else the department (null when the API did not say). */
export function scopeLabel(
  item: Pick<Source, 'department' | 'visibility'>,
  t: TFunction = i18n.t.bind(i18n),
): string | null {
  if (visibilityOf(item) === 'shared') return t('roles.shared');
  return item.department || null;
}
