import { describe, expect, it } from 'vitest';
import { contentLang } from './contentLang';

describe('contentLang', () => {
  it('marks Chinese passages, questions and filenames zh-HK', () => {
    expect(contentLang('古洞北新發展區的收地進度如何？')).toBe('zh-HK');
    expect(contentLang('答 A1：政府已收回約 80% 的私人土地。')).toBe('zh-HK');
    expect(contentLang('E_基礎設施.pdf')).toBe('zh-HK');
    expect(contentLang('(A) 收地及清拆')).toBe('zh-HK');
    // A Chinese sentence with an English term or a paper number stays Chinese.
    expect(contentLang('本署已就 LegCo Paper No. CB(1)123/2025 作出回應')).toBe('zh-HK');
  });

  it('marks English text en, also with a Chinese name in it', () => {
    expect(contentLang('The allocation for Q4 is $12 million.')).toBe('en');
    expect(contentLang('budget.pdf')).toBe('en');
    expect(contentLang('The Kwu Tung North (古洞北) development will resume land in phases.')).toBe('en');
    expect(contentLang('The file is larger than the 100 MB limit.')).toBe('en');
  });

  it('says en for text without letters', () => {
    expect(contentLang('')).toBe('en');
    expect(contentLang(null)).toBe('en');
    expect(contentLang(undefined)).toBe('en');
    expect(contentLang('2024 · 18')).toBe('en');
  });

  it('counts Han characters of the extensions and compatibility blocks', () => {
    expect(contentLang('𠝹')).toBe('zh-HK'); // CJK extension B, a Hong Kong character
    expect(contentLang('﨑')).toBe('zh-HK'); // CJK compatibility ideograph
  });
});
