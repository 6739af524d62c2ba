import { VisuallyHidden } from '@mantine/core';
import { useEffect, useRef } from 'react';
import { useTranslation } from 'react-i18next';
import { useLocation } from 'react-router-dom';

/** The i18n key of the page's main heading (its h1) at `pathname`; unknown paths show LTT. */
export function pageTitleKey(pathname: string) {
  if (pathname.startsWith('/rag-database')) return 'database.title' as const;
  if (pathname.startsWith('/keys')) return 'keys.title' as const;
  return 'ltt.title' as const;
}

/**
 * The page's name, out of view, before "Skip to main content": where the focus goes after signing
 * in (`focusOnMount`) and after each change of page, as a page load would put it at the top of the
 * document. A screen reader reads the new page's name; the next Tab reaches the skip link, then the
 * header. A change of the query string only (the Database page's filters) moves nothing; the first
 * page shown without signing in here (a reload, a link) leaves the focus to the browser.
 */
export function PageAnnouncer({ focusOnMount }: { focusOnMount: boolean }) {
  const { t } = useTranslation();
  const { pathname } = useLocation();
  const target = useRef<HTMLDivElement>(null);
  const shownPath = useRef<string | null>(null);
  useEffect(() => {
    const first = shownPath.current === null;
    const changed = !first && shownPath.current !== pathname;
    shownPath.current = pathname;
    if ((first && focusOnMount) || changed) target.current?.focus({ preventScroll: true });
    // focusOnMount counts for the first page only: not a dependency.
  }, [pathname]);
  return (
    <VisuallyHidden tabIndex={-1} ref={target} data-testid="page-announcer">
      {t(pageTitleKey(pathname))}
    </VisuallyHidden>
  );
}
