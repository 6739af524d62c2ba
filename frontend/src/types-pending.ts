/**
 * API shapes of the departments work (keys, roles, visibility) written by hand UNTIL THE OPENAPI
 * HAS THEM. They follow the decided contract: `GET /api/v1/whoami`, `/api/v1/keys`,
 * `/api/v1/audit`, `DocumentRecord.visibility`, `Source.department` / `Source.visibility`.
 *
 * Once the gateway's routes and models are merged, run `npm run gen:api` and replace each
 * declaration below by an alias of `components['schemas'][...]` in `types.ts` (then delete this
 * file): nothing else imports it directly.
 */

/** What a key may do: reader < member < admin. */
export type Role = 'admin' | 'member' | 'reader';

/** Who can see a document: its department only, or every department (the shared library). */
export type Visibility = 'department' | 'shared';

/** `GET /api/v1/whoami`: the key's principal. */
export interface Caller {
  key_prefix: string;
  department: string;
  role: Role;
}

/** One key of `GET /api/v1/keys` (admin). Times are ISO 8601; the key itself is never sent again. */
export interface KeyInfo {
  key_prefix: string;
  department: string;
  role: Role;
  label: string | null;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
}

export interface KeyListResponse {
  keys: KeyInfo[];
}

/** Body of `POST /api/v1/keys` (admin). */
export interface KeyCreateRequest {
  department: string;
  role: Role;
  label?: string | null;
}

/** Answer of `POST /api/v1/keys`: the only time the whole key (`lgk_<prefix>_<secret>`) is shown. */
export interface KeyCreated {
  key: string;
  key_prefix: string;
  department: string;
  role: Role;
  created_at: string;
}

/** Answer of `DELETE /api/v1/keys/{prefix}` (admin). */
export interface KeyRevoked {
  revoked: boolean;
  key_prefix: string;
}

/** One entry of `GET /api/v1/audit` (admin). `result` is `ok` or an HTTP status such as `403`. */
export interface AuditEntry {
  ts: string;
  key_prefix: string | null;
  department: string | null;
  action: 'upload' | 'delete' | 'replace' | 'chunk_delete' | 'key_create' | 'key_revoke' | 'denied';
  target: string | null;
  result: string;
  detail: string | null;
}

export interface AuditResponse {
  entries: AuditEntry[];
}

/** Fields `DocumentRecord` gains (`visibility` absent = "department", as for older manifests). */
export interface DocumentRecordScope {
  visibility?: Visibility;
}

/** Fields `Source` gains: the department of the passage's document, and whether it is shared. */
export interface SourceScope {
  department?: string | null;
  visibility?: Visibility | null;
}
