/**
 * The interface language: Traditional Chinese (Hong Kong) or English. The strings are bundled
 * (`locales/*.json`, no download at run time). The language is the one chosen last in this
 * browser (`localStorage`, `LANGUAGE_STORAGE_KEY`), else the browser's preferred languages in
 * order (any Chinese → zh-HK, any English → en), else English. `<html lang>` and the page title
 * follow it.
 */
import i18next, { type i18n as I18n } from 'i18next';
import LanguageDetector from 'i18next-browser-languagedetector';
import { initReactI18next } from 'react-i18next';
import en from './locales/en.json';
import zhHK from './locales/zh-HK.json';

export const SUPPORTED_LANGUAGES = ['en', 'zh-HK'] as const;
export type Language = (typeof SUPPORTED_LANGUAGES)[number];

/** Where the officer's choice is kept (only an explicit choice: a detected default is not stored). */
export const LANGUAGE_STORAGE_KEY = 'legco.language';

export const RESOURCES = { en: { translation: en }, 'zh-HK': { translation: zhHK } } as const;

/**
 * The supported language for a BCP 47 tag: any Chinese (`zh`, `zh-TW`, `zh-Hant-HK`, `zh-CN`…)
 * is zh-HK, any English (`en`, `en-GB`…) is en; null for every other language.
 */
export function supportedLanguage(tag: string | null | undefined): Language | null {
  const primary = (tag ?? '').trim().toLowerCase().split(/[-_]/)[0];
  if (primary === 'zh') return 'zh-HK';
  if (primary === 'en') return 'en';
  return null;
}

/** The locale `Intl` formats numbers and dates with: Hong Kong English or Hong Kong Chinese. */
export function intlLocale(language: string | undefined): string {
  return supportedLanguage(language) === 'zh-HK' ? 'zh-HK' : 'en-HK';
}

/**
 * Initialise `instance` (the app's, or a fresh one in a test that simulates a reload) with the
 * bundled strings and the detection above. Synchronous: the language is known when it returns.
 * The app's instance is also react-i18next's (`useTranslation` without a provider).
 */
export function initI18n(instance: I18n): I18n {
  void instance.use(LanguageDetector).init({
    resources: RESOURCES,
    supportedLngs: [...SUPPORTED_LANGUAGES],
    fallbackLng: 'en',
    load: 'currentOnly',
    initAsync: false,
    returnNull: false,
    interpolation: { escapeValue: false }, // React escapes
    detection: {
      order: ['localStorage', 'navigator'],
      lookupLocalStorage: LANGUAGE_STORAGE_KEY,
      caches: [],
      // Unsupported tags stay as they are: i18next skips them and takes the next preference.
      convertDetectedLanguage: (tag: string) => supportedLanguage(tag) ?? tag,
    },
    react: { useSuspense: false },
  });
  return instance;
}

export const i18n = initI18n(i18next.createInstance().use(initReactI18next));

/** The interface language now (en until initialised). */
export function currentLanguage(): Language {
  return supportedLanguage(i18n.resolvedLanguage ?? i18n.language) ?? 'en';
}

/** Switch the interface to `language` and remember the choice in this browser. */
export async function setLanguage(language: Language, instance: I18n = i18n): Promise<void> {
  try {
    window.localStorage.setItem(LANGUAGE_STORAGE_KEY, language);
  } catch {
    // Storage disabled by the browser: the choice lasts until a reload.
  }
  await instance.changeLanguage(language);
}

/** `<html lang>` and the document title in the interface language. */
function syncDocument(language: string) {
  if (typeof document === 'undefined') return;
  const lang = supportedLanguage(language) ?? 'en';
  document.documentElement.lang = lang;
  document.title = i18n.t('app.name', { lng: lang });
}

i18n.on('languageChanged', syncDocument);
syncDocument(currentLanguage());
