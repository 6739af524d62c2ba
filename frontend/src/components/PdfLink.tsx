import type { MouseEvent, ReactNode } from 'react';
import { Anchor } from '@mantine/core';
import { openPdf } from '../lib/pdf';

export interface PdfLinkProps {
  /** The API's `pdf_url`. */
  href: string;
  /** Accessible name, e.g. "Open page PDF of page 3 of report.pdf (opens in a new tab)". */
  label: string;
  /** Names the PDF in the loading tab and in an error, e.g. "page 3 of report.pdf". */
  what: string;
  size?: 'xs' | 'sm';
  children: ReactNode;
}

/**
 * A link to a one-page PDF that opens it in a new tab with the session's key (see `lib/pdf.ts`).
 * The href stays the real URL so the link reads and behaves as a link; every click, middle click
 * included, is taken over, since the browser would open the URL without the key.
 */
export function PdfLink({ href, label, what, size = 'sm', children }: PdfLinkProps) {
  const open = (event: MouseEvent<HTMLAnchorElement>) => {
    if (event.button > 1) return;
    event.preventDefault();
    void openPdf(href, what);
  };
  return (
    <Anchor
      href={href}
      target="_blank"
      rel="noopener noreferrer"
      size={size}
      // Underlined: a link inside a line of text must not be told apart by its colour alone.
      underline="always"
      aria-label={label}
      onClick={open}
      onAuxClick={open}
    >
      {children}
    </Anchor>
  );
}
