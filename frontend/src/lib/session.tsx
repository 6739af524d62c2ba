/**
 * The signed-in state of the app: which key (in `auth.ts`) and which caller (`GET /api/v1/whoami`).
 * Signing in checks the key first; a reload re-checks the stored key; any 401 from any request
 * signs out with the notice `KEY_REJECTED`. Signing in or out empties the query cache, so nothing
 * fetched with one key is shown under another.
 */
import { createContext, useCallback, useContext, useEffect, useMemo, useState, type ReactNode } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { ApiError, whoami } from './api';
import { KEY_REJECTED, currentKey, forgetKey, onKeyRejected, storeKey } from './auth';
import type { Caller } from '../types';

/** Why a session ended, as a code the sign-in screen says in the interface language. */
export type SignOutNotice = typeof KEY_REJECTED;

export type SessionState =
  /** A key is stored (a reload): asking the gateway whose it is. */
  | { status: 'restoring' }
  | { status: 'signed-out'; notice: SignOutNotice | null }
  /** A key is stored but the gateway could not be reached to check it (`error` says why). */
  | { status: 'unreachable'; error: unknown }
  | { status: 'signed-in'; caller: Caller };

export interface Session {
  state: SessionState;
  /** The signed-in caller, else null. */
  caller: Caller | null;
  /** Check `key` with the gateway and sign in with it. Throws ApiError (401: not accepted). */
  signIn: (key: string) => Promise<Caller>;
  /** Forget the key; `notice` is shown on the sign-in screen. */
  signOut: (notice?: SignOutNotice | null) => void;
  /** Check the stored key again (after `unreachable`). */
  retry: () => void;
}

export const SessionContext = createContext<Session | null>(null);

export function useSession(): Session {
  const session = useContext(SessionContext);
  if (!session) throw new Error('useSession() outside a SessionProvider');
  return session;
}

/** The signed-in caller; only for components rendered after sign-in. */
export function useCaller(): Caller {
  const caller = useSession().caller;
  if (!caller) throw new Error('useCaller() while signed out');
  return caller;
}

export function SessionProvider({ children }: { children: ReactNode }) {
  const queryClient = useQueryClient();
  const [state, setState] = useState<SessionState>(() =>
    currentKey() ? { status: 'restoring' } : { status: 'signed-out', notice: null },
  );

  const signOut = useCallback((notice: SignOutNotice | null = null) => {
    forgetKey();
    setState({ status: 'signed-out', notice });
  }, []);

  // Empty the cache once the signed-in pages are gone (clearing it while they are mounted would
  // make them refetch, keyless).
  useEffect(() => {
    if (state.status === 'signed-out') queryClient.clear();
  }, [state.status, queryClient]);

  useEffect(() => onKeyRejected(() => signOut(KEY_REJECTED)), [signOut]);

  useEffect(() => {
    if (state.status !== 'restoring') return undefined;
    const key = currentKey();
    if (!key) {
      setState({ status: 'signed-out', notice: null });
      return undefined;
    }
    let cancelled = false;
    whoami(key).then(
      (caller) => {
        if (!cancelled && currentKey() === key) setState({ status: 'signed-in', caller });
      },
      (error: unknown) => {
        if (cancelled) return;
        if (error instanceof ApiError && error.status === 401) signOut(KEY_REJECTED);
        else setState({ status: 'unreachable', error });
      },
    );
    return () => {
      cancelled = true;
    };
  }, [state.status, signOut]);

  const signIn = useCallback(
    async (key: string) => {
      const caller = await whoami(key);
      queryClient.clear();
      storeKey(key);
      setState({ status: 'signed-in', caller });
      return caller;
    },
    [queryClient],
  );

  const retry = useCallback(() => setState({ status: 'restoring' }), []);

  const session = useMemo<Session>(
    () => ({ state, caller: state.status === 'signed-in' ? state.caller : null, signIn, signOut, retry }),
    [state, signIn, signOut, retry],
  );
  return <SessionContext.Provider value={session}>{children}</SessionContext.Provider>;
}
