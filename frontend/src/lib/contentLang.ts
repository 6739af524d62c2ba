/**
 * The language of a piece of paper content (chunk text, answers, passages, filenames, question
 * text, topic sections, server messages), for its own `lang` attribute: screen readers then speak
 * a Chinese passage with a Chinese voice inside the English interface and an English one inside
 * the Chinese interface, and browsers pick Hong Kong glyphs for Chinese text.
 */

/** Han ideographs (CJK unified, extensions, compatibility). */
const HAN = /\p{Script=Han}/gu;
/** Latin letters (A–Z, accented letters). */
const LATIN = /\p{Script=Latin}/gu;

/**
 * How many Latin letters one Han character weighs: an English word of ~5 letters says about
 * what 1.5–2 Chinese characters say, so a Chinese sentence with an English term stays Chinese.
 */
const LATIN_LETTERS_PER_HAN = 3;

export type ContentLang = 'zh-HK' | 'en';

/**
 * "zh-HK" when `text` is mostly Han characters (each counted as LATIN_LETTERS_PER_HAN Latin
 * letters), else "en" — also for text with no letters at all (numbers, punctuation, empty).
 */
export function contentLang(text: string | null | undefined): ContentLang {
  if (!text) return 'en';
  const han = text.match(HAN)?.length ?? 0;
  if (han === 0) return 'en';
  const latin = text.match(LATIN)?.length ?? 0;
  return han * LATIN_LETTERS_PER_HAN >= latin ? 'zh-HK' : 'en';
}
