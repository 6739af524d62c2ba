import { describe, expect, it } from 'vitest';
import { mergeMantineTheme, DEFAULT_THEME } from '@mantine/core';
import { composite, contrastRatio, lightBackground } from './contrast';
import { readableTextVariables, theme } from '../providers';

const merged = mergeMantineTheme(DEFAULT_THEME, theme);
const vars = readableTextVariables(merged);

describe('text contrast', () => {
  it('computes WCAG ratios', () => {
    expect(contrastRatio('#000000', '#ffffff')).toBeCloseTo(21, 1);
    expect(contrastRatio('#777777', '#ffffff')).toBeCloseTo(4.48, 1);
    expect(composite('#000000', 0.5)).toBe('#808080');
  });

  it("Mantine's default light-variant text fails 4.5:1 (why the app overrides it)", () => {
    const yellow = merged.colors.yellow;
    expect(contrastRatio(yellow[6], lightBackground(yellow))).toBeLessThan(2.5);
  });

  it.each(Object.keys(DEFAULT_THEME.colors))('%s text on its light background and on white is at least 4.5:1', (name) => {
    const palette = merged.colors[name];
    for (const kind of ['light-color', 'outline', 'text']) {
      const text = vars[`--mantine-color-${name}-${kind}`];
      expect(contrastRatio(text, lightBackground(palette))).toBeGreaterThanOrEqual(4.5);
      expect(contrastRatio(text, '#ffffff')).toBeGreaterThanOrEqual(4.5);
    }
  });

  it('covers the "Note" and "Warnings" titles (yellow), score badges (teal), dimmed text and links', () => {
    expect(contrastRatio(vars['--mantine-color-yellow-light-color'], lightBackground(merged.colors.yellow))).toBeGreaterThanOrEqual(4.5);
    expect(contrastRatio(vars['--mantine-color-teal-light-color'], lightBackground(merged.colors.teal))).toBeGreaterThanOrEqual(4.5);
    expect(contrastRatio(vars['--mantine-color-dimmed'], '#ffffff')).toBeGreaterThanOrEqual(4.5);
    expect(contrastRatio(vars['--mantine-color-anchor'], '#ffffff')).toBeGreaterThanOrEqual(4.5);
  });

  it.each(Object.keys(DEFAULT_THEME.colors))('white on a filled %s surface (a button, a badge) is at least 4.5:1', (name) => {
    expect(contrastRatio('#ffffff', vars[`--mantine-color-${name}-filled`])).toBeGreaterThanOrEqual(4.5);
    expect(contrastRatio('#ffffff', vars[`--mantine-color-${name}-filled-hover`])).toBeGreaterThanOrEqual(4.5);
  });

  it('white on a filled primary button is at least 4.5:1', () => {
    const shade = typeof merged.primaryShade === 'number' ? merged.primaryShade : merged.primaryShade.light;
    expect(contrastRatio('#ffffff', merged.colors[merged.primaryColor][shade])).toBeGreaterThanOrEqual(4.5);
  });
});
