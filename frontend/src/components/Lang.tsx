import { contentLang } from '../lib/contentLang';

/**
 * A piece of paper content (a filename, a question, a topic) inside interface text, marked with
 * its own language (`lib/contentLang.ts`) so it is spoken and fonted as what it is.
 */
export function Lang({ children }: { children: string | null | undefined }) {
  if (!children) return null;
  return <span lang={contentLang(children)}>{children}</span>;
}
