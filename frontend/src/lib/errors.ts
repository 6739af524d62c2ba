/**
 * What went wrong, in the interface language. The gateway explains its refusals in English
 * (`detail`); the app says each kind of failure in the officer's language, by HTTP status and a
 * few known cases, and keeps the gateway's sentence as a detail (shown with its own `lang`).
 */
import type { TFunction } from 'i18next';
import { i18n } from '../i18n';
import { ApiError, QueryAborted } from './api';

export type ErrorCase =
  | 'network'
  | 'unauthorized'
  | 'forbidden'
  | 'notFound'
  | 'tooLarge'
  | 'fileType'
  | 'invalid'
  | 'rateLimited'
  | 'unavailable'
  | 'timeout'
  | 'server'
  | 'refused'
  | 'cancelled'
  | 'queryTimeout'
  | 'unknown';

/** The gateway's 400 for an upload of a type it does not take (`services/gateway/api/routes/ingest.py`). */
const UNSUPPORTED_TYPE = /^Unsupported file type/i;

/** The kind of failure `error` (thrown by `lib/api.ts`, or anything else) is. */
export function errorCase(error: unknown): ErrorCase {
  if (error instanceof QueryAborted) return error.reason === 'cancelled' ? 'cancelled' : 'queryTimeout';
  if (!(error instanceof ApiError)) return 'unknown';
  switch (error.status) {
    case 0:
      return 'network';
    case 401:
      return 'unauthorized';
    case 403:
      return 'forbidden';
    case 404:
      return 'notFound';
    case 413:
      return 'tooLarge';
    case 415:
      return 'fileType';
    case 422:
      return 'invalid';
    case 429:
      return 'rateLimited';
    case 502:
    case 503:
      return 'unavailable';
    case 504:
      return 'timeout';
    default:
      if (error.status === 400 && UNSUPPORTED_TYPE.test(error.detail)) return 'fileType';
      return error.status >= 500 ? 'server' : 'refused';
  }
}

export interface ErrorText {
  /** The failure, in the interface language. */
  message: string;
  /** The server's own sentence (or the error's message) when it says more; else null. */
  detail: string | null;
}

/** `error` said in the interface language (`t`), with the server's sentence as its detail. */
export function errorText(error: unknown, t: TFunction = i18n.t.bind(i18n)): ErrorText {
  const kind = errorCase(error);
  let message: string;
  let detail: string | null = null;
  switch (kind) {
    case 'cancelled':
      message = t('errors.cancelled');
      break;
    case 'queryTimeout':
      message = t('errors.queryTimeout', { limit: (error as QueryAborted).limitS });
      break;
    case 'unknown':
      message = t('errors.unknown');
      detail = error instanceof Error && error.message ? error.message : null;
      break;
    default: {
      const api = error as ApiError;
      message = t(`errors.${kind}`, { status: api.status });
      detail = api.detail || null;
    }
  }
  if (detail && detail.trim() === message.trim()) detail = null;
  return { message, detail };
}

/** The failure alone, in the interface language (notifications' titles, short places). */
export function errorMessage(error: unknown, t?: TFunction): string {
  return errorText(error, t).message;
}
