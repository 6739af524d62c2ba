/**
 * Colour contrast (WCAG 2.x) and the text colours the app uses so that text on Mantine's "light"
 * and "outline" surfaces (alert titles such as "Note" and "Warnings", badges such as "Score 0.82")
 * reaches 4.5:1. Mantine's defaults use shade 6 of a colour for that text, which is 1.8:1 (yellow)
 * to 3.5:1 (red) on its own light background.
 */

type Rgb = [number, number, number];

/** `#rrggbb` (or `#rgb`) as 0–255 channels. */
export function parseHex(hex: string): Rgb {
  let h = hex.replace('#', '');
  if (h.length === 3) h = [...h].map((c) => c + c).join('');
  return [0, 2, 4].map((i) => parseInt(h.slice(i, i + 2), 16)) as Rgb;
}

export function toHex([r, g, b]: Rgb): string {
  return `#${[r, g, b].map((v) => Math.round(v).toString(16).padStart(2, '0')).join('')}`;
}

/** `fg` at opacity `alpha` over `bg` (how the browser paints a translucent colour). */
export function composite(fg: string, alpha: number, bg = '#ffffff'): string {
  const f = parseHex(fg);
  const b = parseHex(bg);
  return toHex(f.map((v, i) => v * alpha + b[i] * (1 - alpha)) as Rgb);
}

function luminance(hex: string): number {
  const [r, g, b] = parseHex(hex).map((v) => {
    const c = v / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

/** The WCAG contrast ratio of two opaque colours (1 to 21). */
export function contrastRatio(a: string, b: string): number {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x);
  return (hi + 0.05) / (lo + 0.05);
}

/** The colour mixed `amount` (0–1) of the way to black. */
export function darken(hex: string, amount: number): string {
  return toHex(parseHex(hex).map((v) => v * (1 - amount)) as Rgb);
}

/** Contrast the app's text must reach (WCAG AA, normal text), with a little margin. */
export const MIN_CONTRAST = 4.6;

/**
 * The lightest colour of `palette` (shade 7, 8, 9, then shade 9 darkened step by step) whose
 * contrast with `background` is at least `MIN_CONTRAST`.
 */
export function readableShade(palette: readonly string[], background: string): string {
  for (const shade of [7, 8, 9]) if (contrastRatio(palette[shade], background) >= MIN_CONTRAST) return palette[shade];
  let color = palette[9];
  for (let step = 0; step < 20 && contrastRatio(color, background) < MIN_CONTRAST; step += 1) {
    color = darken(color, 0.08);
  }
  return color;
}

/** Mantine's light-scheme "light" background of `palette`: its primary shade at 10 % over white. */
export function lightBackground(palette: readonly string[], shade = 7): string {
  return composite(palette[shade], 0.1);
}
