import { afterEach, describe, expect, it, vi } from 'vitest';
import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import i18next from 'i18next';
import { App } from './App';
import { PHONE_QUERY } from './components/LanguageSwitcher';
import { LANGUAGE_STORAGE_KEY, i18n, initI18n, intlLocale, supportedLanguage } from './i18n';
import { formatDate, formatScore } from './lib/format';
import { installMockEventStream, jsonResponse, mockFetch, renderWithProviders } from './test/utils';

/** The browser's preferred languages, as `navigator.languages` (and `.language`) report them. */
function preferLanguages(...tags: string[]) {
  vi.spyOn(window.navigator, 'languages', 'get').mockReturnValue(tags);
  vi.spyOn(window.navigator, 'language', 'get').mockReturnValue(tags[0] ?? '');
}

/** The language a fresh start of the app (a page load) picks. */
function startLanguage(): string | undefined {
  return initI18n(i18next.createInstance()).resolvedLanguage;
}

function mockGateway() {
  installMockEventStream();
  mockFetch({ 'GET /api/v1/documents': () => jsonResponse({ documents: [], total_documents: 0, total_chunks: 0 }) });
}

afterEach(() => {
  document.documentElement.lang = 'en';
});

describe('supportedLanguage', () => {
  it('maps every Chinese to zh-HK, every English to en, and nothing else', () => {
    for (const tag of ['zh-HK', 'zh-TW', 'zh', 'zh-Hant', 'zh-Hant-HK', 'zh-Hant-TW', 'zh-CN', 'ZH_hk']) {
      expect(supportedLanguage(tag)).toBe('zh-HK');
    }
    for (const tag of ['en', 'en-GB', 'en-US', 'en-HK', 'EN']) expect(supportedLanguage(tag)).toBe('en');
    for (const tag of ['fr', 'fr-CA', 'ja', 'yue', '', null, undefined]) expect(supportedLanguage(tag)).toBeNull();
  });

  it('formats with the Hong Kong locale of the language', () => {
    expect(intlLocale('zh-HK')).toBe('zh-HK');
    expect(intlLocale('en')).toBe('en-HK');
    expect(intlLocale(undefined)).toBe('en-HK');
  });
});

describe('the default language', () => {
  it('follows the browser: Chinese → zh-HK, English and anything else → en', () => {
    const cases: [string[], string][] = [
      [['zh-HK'], 'zh-HK'],
      [['zh-TW'], 'zh-HK'],
      [['zh-Hant-HK', 'en'], 'zh-HK'],
      [['en-GB'], 'en'],
      [['en-US', 'en'], 'en'], // headless Chromium, as the browser e2e runs it
      [['fr'], 'en'],
      [['fr-FR', 'zh-TW'], 'zh-HK'], // the first supported preference wins
      [['ja', 'de'], 'en'],
    ];
    for (const [tags, expected] of cases) {
      preferLanguages(...tags);
      expect([tags.join(','), startLanguage()]).toEqual([tags.join(','), expected]);
    }
  });

  it('is the choice remembered in this browser, whatever the browser prefers', () => {
    preferLanguages('en-US', 'en');
    window.localStorage.setItem(LANGUAGE_STORAGE_KEY, 'zh-HK');
    expect(startLanguage()).toBe('zh-HK');
    preferLanguages('zh-HK');
    window.localStorage.setItem(LANGUAGE_STORAGE_KEY, 'en');
    expect(startLanguage()).toBe('en');
    // A value the app does not offer is ignored: the browser decides.
    window.localStorage.setItem(LANGUAGE_STORAGE_KEY, 'de');
    expect(startLanguage()).toBe('zh-HK');
  });

  it('is not stored until the officer chooses one', () => {
    preferLanguages('zh-TW');
    expect(startLanguage()).toBe('zh-HK');
    expect(window.localStorage.getItem(LANGUAGE_STORAGE_KEY)).toBeNull();
  });
});

describe('the language switcher', () => {
  it('switches every label and <html lang>, and back', async () => {
    mockGateway();
    const user = userEvent.setup();
    renderWithProviders(<App />);
    expect(document.documentElement.lang).toBe('en');
    expect(screen.getByRole('heading', { name: 'Ask the briefing papers', level: 1 })).toBeInTheDocument();

    const switcher = screen.getByRole('combobox', { name: 'Interface language' });
    expect(within(switcher).getByRole('option', { name: '繁體中文' })).toHaveAttribute('lang', 'zh-HK');
    expect(within(switcher).getByRole('option', { name: 'English' })).toHaveAttribute('lang', 'en');
    // A native select in the tab order: the keyboard works as with any select.
    expect(switcher.tagName).toBe('SELECT');
    expect(switcher).not.toHaveAttribute('tabindex', '-1');
    await user.selectOptions(switcher, 'zh-HK');

    expect(await screen.findByRole('heading', { name: '查閱簡報文件', level: 1 })).toBeInTheDocument();
    expect(screen.getByRole('button', { name: '登出' })).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'RAG 資料庫' })).toBeInTheDocument();
    expect(screen.getByRole('navigation', { name: '主要導覽' })).toBeInTheDocument();
    expect(screen.getByRole('textbox', { name: /^問題/ })).toBeInTheDocument();
    // What a screen reader reads is one sentence, exactly (no space before "，"); the visible
    // department and role badge are hidden from it.
    expect(screen.getByTestId('signed-in-as-spoken').textContent).toBe('已登入部門：default，身分為成員');
    expect(screen.getByTestId('signed-in-as').querySelectorAll(':scope > :not([aria-hidden="true"])')).toHaveLength(1);
    expect(document.documentElement.lang).toBe('zh-HK');
    expect(document.title).toBe('立法會簡報助理');
    expect(window.localStorage.getItem(LANGUAGE_STORAGE_KEY)).toBe('zh-HK');
    expect(screen.queryByRole('button', { name: 'Sign out' })).not.toBeInTheDocument();

    await user.selectOptions(screen.getByRole('combobox', { name: '介面語言' }), 'en');
    expect(await screen.findByRole('button', { name: 'Sign out' })).toBeInTheDocument();
    expect(document.documentElement.lang).toBe('en');
    expect(document.title).toBe('LegCo Briefing Assistant');
    expect(window.localStorage.getItem(LANGUAGE_STORAGE_KEY)).toBe('en');
  });

  it('shows short names in the header on a phone, the full names staying the options\' names', async () => {
    // A phone: the header's media query (max-width: 36em) matches.
    vi.stubGlobal('matchMedia', (query: string) => ({
      matches: query === PHONE_QUERY, media: query, onchange: null, addListener: () => {}, removeListener: () => {},
      addEventListener: () => {}, removeEventListener: () => {}, dispatchEvent: () => false,
    }));
    mockGateway();
    const user = userEvent.setup();
    renderWithProviders(<App />);
    const switcher = screen.getByRole('combobox', { name: 'Interface language' });
    expect(switcher).toHaveAttribute('data-compact', 'true');
    expect([...switcher.querySelectorAll('option')].map((o) => o.textContent)).toEqual(['EN', '中文']);
    expect(within(switcher).getByRole('option', { name: '繁體中文' })).toHaveAttribute('lang', 'zh-HK');
    expect(within(switcher).getByRole('option', { name: 'English' })).toHaveAttribute('lang', 'en');
    await user.selectOptions(switcher, 'zh-HK');
    expect(await screen.findByRole('button', { name: '登出' })).toBeInTheDocument();
  });

  it('is offered on the sign-in screen too', async () => {
    mockGateway();
    const user = userEvent.setup();
    renderWithProviders(<App />, { caller: null });
    await user.selectOptions(screen.getByRole('combobox', { name: 'Interface language' }), 'zh-HK');
    expect(await screen.findByRole('heading', { name: '登入', level: 1 })).toBeInTheDocument();
    expect(screen.getByLabelText(/^API 密碼匙/)).toBeInTheDocument();
    expect(screen.getByRole('button', { name: '登入' })).toBeInTheDocument();
  });

  it('is remembered across a reload of the app', async () => {
    mockGateway();
    preferLanguages('en-US', 'en');
    const user = userEvent.setup();
    const first = renderWithProviders(<App />);
    await user.selectOptions(screen.getByRole('combobox', { name: 'Interface language' }), 'zh-HK');
    await screen.findByRole('button', { name: '登出' });
    first.unmount();
    // The app's own instance back to English (not stored): only the reload can bring Chinese back.
    await i18n.changeLanguage('en');

    // A page load: a new i18next instance, detecting from the browser (en-US) and localStorage.
    const reloaded = initI18n(i18next.createInstance());
    expect(reloaded.resolvedLanguage).toBe('zh-HK');
    mockGateway();
    renderWithProviders(<App />, { i18n: reloaded });
    expect(screen.getByRole('button', { name: '登出' })).toBeInTheDocument();
    expect(screen.getByRole('heading', { name: '查閱簡報文件', level: 1 })).toBeInTheDocument();
  });
});

describe('numbers and dates', () => {
  it('are written with the interface language', async () => {
    const iso = '2026-05-15T09:30:00Z';
    const english = formatDate(iso);
    expect(english).toMatch(/May/);
    await i18n.changeLanguage('zh-HK');
    expect(formatDate(iso)).toMatch(/2026年5月15日/);
    expect(formatScore(0.87654)).toBe('0.877');
  });
});
