import '@testing-library/jest-dom/vitest';
import { afterEach, beforeEach, vi } from 'vitest';
import { cleanup, configure } from '@testing-library/react';
import { forgetKey } from '../lib/auth';
import { i18n } from '../i18n';

// findBy*/waitFor give up after 1 s by default: too short when the 2 cores run several test files.
configure({ asyncUtilTimeout: 5000 });

// Every test runs in English unless it switches (the language tests do): no remembered choice.
beforeEach(async () => {
  window.localStorage.clear();
  await i18n.changeLanguage('en');
});

afterEach(() => {
  cleanup();
  vi.restoreAllMocks();
  vi.unstubAllGlobals();
  forgetKey();
  window.sessionStorage.clear();
  window.localStorage.clear(); // the answer history
});

// jsdom lacks these browser APIs that Mantine uses.
Object.defineProperty(window, 'matchMedia', {
  writable: true,
  value: (query: string) => ({
    matches: false,
    media: query,
    onchange: null,
    addListener: () => {},
    removeListener: () => {},
    addEventListener: () => {},
    removeEventListener: () => {},
    dispatchEvent: () => false,
  }),
});

class ResizeObserverStub {
  observe() {}
  unobserve() {}
  disconnect() {}
}
window.ResizeObserver = window.ResizeObserver ?? (ResizeObserverStub as unknown as typeof ResizeObserver);
Element.prototype.scrollIntoView = Element.prototype.scrollIntoView ?? (() => {});
const { getComputedStyle } = window;
window.getComputedStyle = (elt: Element, pseudo?: string | null) => getComputedStyle(elt, pseudo);
