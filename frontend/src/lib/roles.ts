/**
 * What the caller's role lets the UI offer. The gateway decides (403/404 otherwise); these only
 * hide controls that would be refused: reader < member < admin.
 */
import type { Caller, DocumentInfo, Role, Source, Visibility } from '../types';

export const ROLE_LABELS: Record<Role, string> = { admin: 'Admin', member: 'Member', reader: 'Reader' };

export const ROLE_DESCRIPTIONS: Record<Role, string> = {
  reader: 'reads and asks in its own department',
  member: 'also uploads and deletes in its own department',
  admin: 'everything, in every department, and manages keys',
};

export const SHARED_LABEL = 'Shared';

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
export function scopeLabel(item: Pick<Source, 'department' | 'visibility'>): string | null {
  if (visibilityOf(item) === 'shared') return SHARED_LABEL;
  return item.department || null;
}
