// Typed translation keys: `t('nav.signOut')` is checked against the English strings, so a
// misspelt key fails the type check (`npm run typecheck`).
import 'i18next';
import type en from './locales/en.json';

declare module 'i18next' {
  interface CustomTypeOptions {
    defaultNS: 'translation';
    resources: { translation: typeof en };
  }
}
