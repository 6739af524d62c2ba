import { NativeSelect } from '@mantine/core';
import { useMediaQuery } from '@mantine/hooks';
import { useTranslation } from 'react-i18next';
import { SUPPORTED_LANGUAGES, setLanguage, supportedLanguage, type Language } from '../i18n';

/** Each language's short name, in its own script (a phone's header has no room for "繁體中文"). */
const SHORT_NAMES: Record<Language, string> = { en: 'EN', 'zh-HK': '中文' };

/** The width at which the header tightens (`NavBar.module.css`, 36em). */
export const PHONE_QUERY = '(max-width: 36em)';

/**
 * Chooses the interface language (remembered in this browser). A native select: its name is
 * "Interface language" in the current language, each option is written in its own language
 * and marked so, and the keyboard works as with any select. `compactOnPhone` (the header): on
 * a phone the options show their short names (EN, 中文; the full name stays their accessible
 * name), so the page links keep room in the bar.
 */
export function LanguageSwitcher({ compactOnPhone = false }: { compactOnPhone?: boolean }) {
  const { t, i18n } = useTranslation();
  const phone = useMediaQuery(PHONE_QUERY) ?? false;
  const compact = compactOnPhone && phone;
  const current = supportedLanguage(i18n.resolvedLanguage ?? i18n.language) ?? 'en';
  return (
    <NativeSelect
      size="xs"
      aria-label={t('language.label')}
      title={t('language.label')}
      value={current}
      onChange={(event) => void setLanguage(event.currentTarget.value as Language, i18n)}
      data-testid="language-switcher"
      data-compact={compact || undefined}
      w={compact ? 66 : 110}
    >
      {SUPPORTED_LANGUAGES.map((language) => (
        <option
          key={language}
          value={language}
          lang={language}
          aria-label={compact ? t(`language.${language}`) : undefined}
        >
          {compact ? SHORT_NAMES[language] : t(`language.${language}`)}
        </option>
      ))}
    </NativeSelect>
  );
}
