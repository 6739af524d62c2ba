/// <reference types="node" />
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';

// Read from disk: the tests run with `css: false`, so a CSS import would be empty.
const css = readFileSync(resolve(process.cwd(), 'src/focus.css'), 'utf-8');

/** The selectors of the rule that sets the focus ring, and its outline width in px. */
function focusRule(): { selectors: string[]; width: number } {
  const body = css.replace(/\/\*[\s\S]*?\*\//g, '');
  const match = /([^{}]+)\{([^}]*outline:\s*(\d+)px[^}]*)\}/.exec(body);
  if (!match) throw new Error('no outline rule in focus.css');
  return { selectors: match[1].split(',').map((s) => s.trim()), width: Number(match[3]) };
}

describe('focus ring', () => {
  it('is at least 2 px on every text field, button and link', () => {
    const { selectors, width } = focusRule();
    expect(width).toBeGreaterThanOrEqual(2);
    for (const s of ['a:focus-visible', 'button:focus-visible', 'input:focus-visible', 'textarea:focus-visible',
      '.mantine-Input-input:focus', "[role='button']:focus-visible"]) {
      expect(selectors).toContain(s);
    }
  });
});
