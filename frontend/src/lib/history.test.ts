import { describe, expect, it } from 'vitest';
import {
  HISTORY_CAP,
  addToHistory,
  clearHistory,
  historyStorageKey,
  loadHistory,
  newEntry,
} from './history';
import type { QueryResponse } from '../types';

const answer = (text: string): QueryResponse => ({
  answer: text, answer_mode: 'extractive', notice: null, llm_model: null, sources: [], covered: true,
  direct: null, related: [], closest: [], coverage: null, keyword_search: true, guard: null,
});

const at = (minute: number) => new Date(Date.UTC(2025, 0, 1, 9, minute));

describe('answer history', () => {
  it('keeps each key\'s questions apart, newest first', () => {
    addToHistory('aaaa1111', newEntry('first?', answer('one'), at(1)));
    addToHistory('aaaa1111', newEntry('second?', answer('two'), at(2)));
    addToHistory('bbbb2222', newEntry('other key?', answer('three'), at(3)));
    expect(loadHistory('aaaa1111').map((e) => [e.question, e.response.answer])).toEqual([
      ['second?', 'two'],
      ['first?', 'one'],
    ]);
    expect(loadHistory('bbbb2222').map((e) => e.question)).toEqual(['other key?']);
    expect(loadHistory('cccc3333')).toEqual([]);
    expect(loadHistory('aaaa1111')[0].askedAt).toBe('2025-01-01T09:02:00.000Z');
  });

  it('moves a question asked again to the top with its new answer', () => {
    addToHistory('aaaa1111', newEntry('same?', answer('old'), at(1)));
    addToHistory('aaaa1111', newEntry('between?', answer('x'), at(2)));
    addToHistory('aaaa1111', newEntry(' same? ', answer('new'), at(3)));
    expect(loadHistory('aaaa1111').map((e) => e.response.answer)).toEqual(['new', 'x']);
  });

  it(`keeps at most ${HISTORY_CAP} entries, dropping the oldest`, () => {
    for (let i = 0; i < HISTORY_CAP + 5; i++) addToHistory('aaaa1111', newEntry(`q${i}?`, answer(`a${i}`), at(i)));
    const entries = loadHistory('aaaa1111');
    expect(entries).toHaveLength(HISTORY_CAP);
    expect(entries[0].question).toBe(`q${HISTORY_CAP + 4}?`);
    expect(entries[HISTORY_CAP - 1].question).toBe('q5?');
  });

  it('clears one key\'s history only', () => {
    addToHistory('aaaa1111', newEntry('mine?', answer('1'), at(1)));
    addToHistory('bbbb2222', newEntry('theirs?', answer('2'), at(2)));
    clearHistory('aaaa1111');
    expect(loadHistory('aaaa1111')).toEqual([]);
    expect(window.localStorage.getItem(historyStorageKey('aaaa1111'))).toBeNull();
    expect(loadHistory('bbbb2222')).toHaveLength(1);
  });

  it('reads an unreadable item as no history, and skips malformed entries', () => {
    window.localStorage.setItem(historyStorageKey('aaaa1111'), '{not json');
    expect(loadHistory('aaaa1111')).toEqual([]);
    const good = newEntry('ok?', answer('fine'), at(1));
    window.localStorage.setItem(historyStorageKey('aaaa1111'), JSON.stringify([{ question: 'no answer' }, good]));
    expect(loadHistory('aaaa1111')).toEqual([good]);
  });

  it('drops the oldest entries when the browser\'s storage is full', () => {
    for (let i = 0; i < 3; i++) addToHistory('aaaa1111', newEntry(`q${i}?`, answer('a'), at(i)));
    const real = Storage.prototype.setItem;
    let calls = 0;
    Storage.prototype.setItem = function (this: Storage, k: string, v: string) {
      calls++;
      if (JSON.parse(v).length > 2) throw new DOMException('full', 'QuotaExceededError');
      real.call(this, k, v);
    };
    try {
      const kept = addToHistory('aaaa1111', newEntry('q3?', answer('a'), at(3)));
      expect(kept.map((e) => e.question)).toEqual(['q3?', 'q2?']);
      expect(calls).toBe(3);
    } finally {
      Storage.prototype.setItem = real;
    }
    expect(loadHistory('aaaa1111').map((e) => e.question)).toEqual(['q3?', 'q2?']);
  });
});
