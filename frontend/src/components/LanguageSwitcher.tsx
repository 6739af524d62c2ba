import { NativeSelect } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { SUPPORTED_LANGUAGES, setLanguage, supportedLanguage, type Language } from '../i18n';

/**
 * Chooses the interface language (remembered in this browser). A native select: its name is
 * "Interface language" in the current language, each option is written in its own language
 * and marked so, and the keyboard works as with any select.
 */
export function LanguageSwitcher() {
  const { t, i18n } = useTranslation();
  const current = supportedLanguage(i18n.resolvedLanguage ?? i18n.language) ?? 'en';
  return (
    <NativeSelect
      size="xs"
      aria-label={t('language.label')}
      title={t('language.label')}
      value={current}
      onChange={(event) => void setLanguage(event.currentTarget.value as Language, i18n)}
      data-testid="language-switcher"
      w={110}
    >
      {SUPPORTED_LANGUAGES.map((language) => (
        <option key={language} value={language} lang={language}>
          {t(`language.${language}`)}
        </option>
      ))}
    </NativeSelect>
  );
}
