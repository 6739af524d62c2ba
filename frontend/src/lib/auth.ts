/**
 * The API key of this browser session and the signal that it stopped working.
 *
 * The key lives in `sessionStorage` (one tab's browser session: gone when the tab closes) and is
 * sent only as `Authorization: Bearer <key>` by `api.ts` and `sse.ts` — never in a URL, never in a
 * cookie, so no cross-site page can make the browser send it (no CSRF door).
 */

const STORAGE_KEY = 'legco.apiKey';

/** Keys as the gateway issues them: `lgk_<prefix>_<secret>`. */
export const KEY_PREFIX = 'lgk_';

/**
 * Why the last session ended, shown on the sign-in screen (`signIn.notice.<code>` in the
 * locales): any request was answered 401.
 */
export const KEY_REJECTED = 'keyRejected';

function storage(): Storage | null {
  try {
    return window.sessionStorage;
  } catch {
    // Storage disabled by the browser's privacy settings: the key then lasts until a reload.
    return null;
  }
}

let memoryKey: string | null = null;

/** The key requests are sent with, or null when signed out. */
export function currentKey(): string | null {
  return storage()?.getItem(STORAGE_KEY) ?? memoryKey;
}

export function storeKey(key: string): void {
  memoryKey = key;
  storage()?.setItem(STORAGE_KEY, key);
}

export function forgetKey(): void {
  memoryKey = null;
  storage()?.removeItem(STORAGE_KEY);
}

/** Headers that authenticate a request with `key` (none without a key). */
export function authHeaders(key: string | null = currentKey()): Record<string, string> {
  return key ? { Authorization: `Bearer ${key}` } : {};
}

type Listener = () => void;
const listeners = new Set<Listener>();

/** Call `listener` whenever the session's key is refused (401). Returns the unsubscribe function. */
export function onKeyRejected(listener: Listener): () => void {
  listeners.add(listener);
  return () => {
    listeners.delete(listener);
  };
}

/**
 * A request sent with `keySent` was answered 401. Signals the listeners only when that key is still
 * the session's: a late answer to a request of a previous session must not sign out the next one.
 */
export function reportKeyRejected(keySent: string | null): void {
  if (!keySent || keySent !== currentKey()) return;
  for (const listener of [...listeners]) listener();
}
