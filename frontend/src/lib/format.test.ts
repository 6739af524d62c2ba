import { describe, expect, it } from 'vitest';
import { i18n } from '../i18n';
import { formatDay } from './format';

describe('formatDay', () => {
  it("says a date input's day in the interface language, the day given (no time zone shift)", () => {
    expect(formatDay('2026-05-01', i18n.getFixedT('en'))).toBe('1 May 2026');
    expect(formatDay('2026-12-31', i18n.getFixedT('en'))).toBe('31 December 2026');
    expect(formatDay('2026-05-01', i18n.getFixedT('zh-HK'))).toBe('2026年5月1日');
  });

  it('is null for what is not a day', () => {
    expect(formatDay('', i18n.getFixedT('en'))).toBeNull();
    expect(formatDay('2026-02-30', i18n.getFixedT('en'))).toBeNull();
    expect(formatDay('05/01/2026', i18n.getFixedT('en'))).toBeNull();
  });
});
