/**
 * Recent questions and their answers, kept in this browser per key (`localStorage`, one list per
 * key prefix: two keys signed in on one browser never see each other's questions). Newest first,
 * at most `HISTORY_CAP`; asking a question again moves it to the top with its new answer.
 * The list outlives signing out (it holds answers, never the key); "Clear history" removes it.
 */
import { useCallback, useEffect, useState } from 'react';
import type { QueryResponse } from '../types';

/** Entries kept per key; the oldest go first. */
export const HISTORY_CAP = 50;

export interface HistoryEntry {
  /** Unique in the list (time of asking and a random part). */
  id: string;
  question: string;
  /** When the answer arrived, ISO-8601 UTC. */
  askedAt: string;
  response: QueryResponse;
}

/** The `localStorage` item of a key's history. */
export function historyStorageKey(keyPrefix: string): string {
  return `legco.history.${keyPrefix}`;
}

function storage(): Storage | null {
  try {
    return window.localStorage;
  } catch {
    return null; // storage disabled: the history lasts as long as the page
  }
}

function isEntry(x: unknown): x is HistoryEntry {
  if (!x || typeof x !== 'object') return false;
  const e = x as Record<string, unknown>;
  return typeof e.id === 'string' && typeof e.question === 'string' && typeof e.askedAt === 'string' &&
    !!e.response && typeof e.response === 'object' && Array.isArray((e.response as QueryResponse).sources);
}

/** The key's entries, newest first (an unreadable item reads as none). */
export function loadHistory(keyPrefix: string): HistoryEntry[] {
  const raw = storage()?.getItem(historyStorageKey(keyPrefix));
  if (!raw) return [];
  try {
    const parsed: unknown = JSON.parse(raw);
    return Array.isArray(parsed) ? parsed.filter(isEntry).slice(0, HISTORY_CAP) : [];
  } catch {
    return [];
  }
}

/** Write `entries`; when the browser's quota is full, drop the oldest until they fit. Returns what was kept. */
function save(keyPrefix: string, entries: HistoryEntry[]): HistoryEntry[] {
  const store = storage();
  let kept = entries;
  for (;;) {
    try {
      store?.setItem(historyStorageKey(keyPrefix), JSON.stringify(kept));
      return kept;
    } catch {
      if (kept.length <= 1) return kept; // cannot store even one: keep it for this page only
      kept = kept.slice(0, -1);
    }
  }
}

/** `entries` with a new one for `question` on top (an earlier entry of the same question removed), capped. */
export function withEntry(entries: HistoryEntry[], entry: HistoryEntry): HistoryEntry[] {
  const same = (q: string) => q.trim() === entry.question.trim();
  return [entry, ...entries.filter((e) => !same(e.question))].slice(0, HISTORY_CAP);
}

export function newEntry(question: string, response: QueryResponse, now: Date = new Date()): HistoryEntry {
  const random = Math.random().toString(36).slice(2, 8);
  return { id: `${now.getTime()}-${random}`, question, askedAt: now.toISOString(), response };
}

/** Add an answer to the key's stored history; returns the new list. */
export function addToHistory(keyPrefix: string, entry: HistoryEntry): HistoryEntry[] {
  return save(keyPrefix, withEntry(loadHistory(keyPrefix), entry));
}

export function clearHistory(keyPrefix: string): void {
  storage()?.removeItem(historyStorageKey(keyPrefix));
}

/** The signed-in key's history, with `add` (returns the new entry) and `clear`. */
export function useAnswerHistory(keyPrefix: string) {
  const [entries, setEntries] = useState(() => loadHistory(keyPrefix));
  useEffect(() => setEntries(loadHistory(keyPrefix)), [keyPrefix]); // another key: its own list
  const add = useCallback(
    (question: string, response: QueryResponse): HistoryEntry => {
      const entry = newEntry(question, response);
      setEntries(addToHistory(keyPrefix, entry));
      return entry;
    },
    [keyPrefix],
  );
  const clear = useCallback(() => {
    clearHistory(keyPrefix);
    setEntries([]);
  }, [keyPrefix]);
  return { entries, add, clear };
}
