/**
 * The two locale files hold the same strings: every key of one is in the other (plural forms as
 * each language needs them), none is empty, and each pair has the same placeholders and tags.
 */
import { describe, expect, it } from 'vitest';
import en from './en.json';
import zhHK from './zh-HK.json';

type Tree = { [key: string]: string | Tree };

/** Every leaf of `tree` as "a.b.c" → value. */
function leaves(tree: Tree, prefix = ''): Map<string, string> {
  const out = new Map<string, string>();
  for (const [key, value] of Object.entries(tree)) {
    const path = prefix ? `${prefix}.${key}` : key;
    if (typeof value === 'string') out.set(path, value);
    else for (const [k, v] of leaves(value, path)) out.set(k, v);
  }
  return out;
}

const PLURAL = /_(ordinal_)?(zero|one|two|few|many|other)$/;

/** The keys without i18next's plural suffixes, each with the suffixes (categories) it has. */
function baseKeys(keys: Iterable<string>): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  for (const key of keys) {
    const match = PLURAL.exec(key);
    const base = match ? key.slice(0, match.index) : key;
    const forms = out.get(base) ?? new Set<string>();
    if (match) forms.add(match[0].slice(1));
    out.set(base, forms);
  }
  return out;
}

/** The plural forms `locale` needs (`Intl.PluralRules`), as i18next names its suffixes. */
function neededForms(locale: string, ordinal: boolean): string[] {
  const categories = new Intl.PluralRules(locale, { type: ordinal ? 'ordinal' : 'cardinal' }).resolvedOptions()
    .pluralCategories;
  return categories.map((c) => (ordinal ? `ordinal_${c}` : c)).sort();
}

/** `{{name}}` placeholders and `<tag>` names of a string, sorted. */
function slots(value: string): string[] {
  const names = [...value.matchAll(/{{\s*([\w.]+)[^}]*}}/g)].map((m) => `{{${m[1]}}}`);
  const tags = [...value.matchAll(/<\/?(\w+)>/g)].map((m) => `<${m[1]}>`);
  return [...names, ...tags].sort();
}

const LOCALES = { en: leaves(en as Tree), 'zh-HK': leaves(zhHK as Tree) };

describe('locale files', () => {
  it('have the same keys (plural suffixes aside)', () => {
    const enKeys = [...baseKeys(LOCALES.en.keys()).keys()].sort();
    const zhKeys = [...baseKeys(LOCALES['zh-HK'].keys()).keys()].sort();
    expect(zhKeys.filter((k) => !enKeys.includes(k))).toEqual([]);
    expect(enKeys.filter((k) => !zhKeys.includes(k))).toEqual([]);
    expect(enKeys.length).toBeGreaterThan(300);
  });

  it('have every plural form each language needs, and no other', () => {
    for (const [locale, strings] of Object.entries(LOCALES)) {
      for (const [base, forms] of baseKeys(strings.keys())) {
        if (forms.size === 0) continue;
        const ordinal = [...forms].some((f) => f.startsWith('ordinal_'));
        expect([locale, base, [...forms].sort()]).toEqual([locale, base, neededForms(locale, ordinal)]);
      }
    }
  });

  it('have no empty string', () => {
    for (const [locale, strings] of Object.entries(LOCALES)) {
      const empty = [...strings].filter(([, value]) => value.trim() === '').map(([key]) => key);
      expect([locale, empty]).toEqual([locale, []]);
    }
  });

  it('say each string with the same placeholders and tags in both languages', () => {
    const zh = LOCALES['zh-HK'];
    const zhByBase = new Map([...zh].map(([key, value]) => [key.replace(PLURAL, ''), value]));
    for (const [key, value] of LOCALES.en) {
      const other = zh.get(key) ?? zhByBase.get(key.replace(PLURAL, ''));
      if (other === undefined) continue; // reported by the key test
      // A plural's `{{count}}` may be left implicit in one form ("a chunk").
      const strip = (s: string[]) => s.filter((slot) => slot !== '{{count}}');
      expect([key, strip(slots(other))]).toEqual([key, strip(slots(value))]);
    }
  });

  it('translate: Chinese strings are Chinese, not copies of the English', () => {
    const same = [...LOCALES.en].filter(([key, value]) => LOCALES['zh-HK'].get(key) === value).map(([key]) => key);
    // Only names written in their own language, and strings of numbers and symbols, are the same.
    expect(same.sort()).toEqual(
      [
        'common.none',
        'common.separator',
        'format.size.kb',
        'format.size.mb',
        'language.en',
        'language.zh-HK',
        'nav.ltt.label',
        'ocr.label', // "OCR" is what the badge says in Hong Kong Chinese too
        'progress.count',
      ].sort(),
    );
  });
});
