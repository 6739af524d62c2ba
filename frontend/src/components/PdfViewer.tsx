import { useEffect, useRef, useState } from 'react';
import { Alert, Button, Group, Loader, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import type { Highlight } from '../types';
import { API_BASE, fetchPdf } from '../lib/api';
import { contentLang } from '../lib/contentLang';
import { ErrorMessage } from './ErrorMessage';
import { openPdfPage, type PdfPage } from '../lib/pdfjs';
import { PdfLink } from './PdfLink';

export interface PdfViewerProps {
  documentId: string;
  filename: string;
  /** The page to open first (1-based). */
  page: number;
  /** Pages of the document, when known: "Next" stops at the last. */
  pageCount?: number | null;
  /** Where the cited text is printed (PDF points, top-left origin), on any of the document's pages. */
  highlights?: Highlight[] | null;
}

/** The gateway's one-page PDF of `page` (1-based). */
export function pagePdfUrl(documentId: string, page: number): string {
  return `${API_BASE}/documents/${encodeURIComponent(documentId)}/pages/${page}.pdf`;
}

/** Widest rendering, in CSS pixels per PDF point (an A4 page at 1.5 is ~890 px wide). */
const MAX_SCALE = 1.5;

type View =
  | { status: 'loading' }
  | { status: 'error'; error: unknown }
  | { status: 'ready'; width: number; height: number; scale: number };

const HIDDEN_TEXT = {
  position: 'absolute',
  width: 1,
  height: 1,
  overflow: 'hidden',
  clipPath: 'inset(50%)',
  whiteSpace: 'nowrap',
} as const;

/**
 * One page of a PDF document, rendered with pdf.js on a canvas, with the cited text marked:
 * a highlight layer of absolutely positioned boxes (`data-testid="highlight"`, the printed text in
 * their `title` and, for screen readers and tests, as their text). The page is the gateway's
 * one-page PDF, fetched with the session's key; Previous/Next step to the neighbouring pages.
 */
export function PdfViewer({ documentId, filename, page: firstPage, pageCount, highlights }: PdfViewerProps) {
  const { t } = useTranslation();
  const [page, setPage] = useState(firstPage);
  const [view, setView] = useState<View>({ status: 'loading' });
  const frame = useRef<HTMLDivElement>(null);
  const canvas = useRef<HTMLCanvasElement>(null);

  useEffect(() => setPage(firstPage), [firstPage, documentId]);

  useEffect(() => {
    let cancelled = false;
    let pdf: PdfPage | null = null;
    setView({ status: 'loading' });
    (async () => {
      try {
        const blob = await fetchPdf(pagePdfUrl(documentId, page));
        const opened = await openPdfPage(await blob.arrayBuffer());
        if (cancelled) {
          opened.destroy();
          return;
        }
        pdf = opened;
        const available = frame.current?.clientWidth ?? 0;
        const scale = available > 0 ? Math.min(available / opened.width, MAX_SCALE) : 1;
        setView({ status: 'ready', width: opened.width, height: opened.height, scale });
        if (canvas.current) await opened.render(canvas.current, scale);
      } catch (error) {
        if (!cancelled) setView({ status: 'error', error });
      }
    })();
    return () => {
      cancelled = true;
      pdf?.destroy();
    };
  }, [documentId, page]);

  const marked = (highlights ?? []).filter((h) => h.page === page);
  const citedPages = [...new Set((highlights ?? []).map((h) => h.page))].sort((a, b) => a - b);
  const lastPage = pageCount ?? null;
  const ready = view.status === 'ready' ? view : null;

  return (
    <div>
      <Group justify="space-between" mb="xs" wrap="wrap" gap="xs">
        <Group gap="xs">
          <Button size="xs" variant="default" disabled={page <= 1} onClick={() => setPage(page - 1)}>
            {t('viewer.previous')}
          </Button>
          <Text size="sm" aria-live="polite">
            {lastPage ? t('viewer.pageOfTotal', { page, total: lastPage }) : t('common.page', { page })}
          </Text>
          <Button
            size="xs"
            variant="default"
            disabled={lastPage != null && page >= lastPage}
            onClick={() => setPage(page + 1)}
          >
            {t('viewer.next')}
          </Button>
        </Group>
        <PdfLink
          href={pagePdfUrl(documentId, page)}
          label={t('chunks.openPdf', { what: t('common.pageOf', { page, name: filename }) })}
          what={t('common.pageOf', { page, name: filename })}
        >
          {t('common.openPagePdf')}
        </PdfLink>
      </Group>
      {citedPages.length > 0 && !citedPages.includes(page) && (
        <Text size="xs" c="dimmed" mb="xs">
          {t('viewer.citedOn', { count: citedPages.length, pages: citedPages.join(t('common.listSeparator')) })}
        </Text>
      )}
      {view.status === 'error' && (
        <Alert color="red" title={t('viewer.pageFailed', { page })} mb="xs">
          <ErrorMessage error={view.error} />
        </Alert>
      )}
      <div ref={frame} style={{ width: '100%', overflow: 'auto' }}>
        {view.status === 'loading' && <Loader size="sm" aria-label={t('viewer.loadingPage', { page })} />}
        <div
          data-testid="pdf-page"
          style={{
            position: 'relative',
            display: ready ? 'inline-block' : 'none',
            width: ready ? ready.width * ready.scale : undefined,
            height: ready ? ready.height * ready.scale : undefined,
            boxShadow: '0 0 0 1px var(--mantine-color-gray-4)',
          }}
        >
          <canvas ref={canvas} role="img" aria-label={t('viewer.canvas', { page, name: filename })} />
          {ready && (
            <div
              data-testid="highlight-layer"
              style={{ position: 'absolute', inset: 0, pointerEvents: 'none' }}
            >
              {marked.flatMap((h) =>
                (h.rects ?? []).map(([x0, y0, x1, y1], i) => {
                  const text = h.texts?.[i] ?? '';
                  return (
                    <div
                      key={`${h.page}-${i}`}
                      data-testid="highlight"
                      title={text}
                      lang={contentLang(text)}
                      style={{
                        position: 'absolute',
                        left: x0 * ready.scale,
                        top: y0 * ready.scale,
                        width: (x1 - x0) * ready.scale,
                        height: (y1 - y0) * ready.scale,
                        background: 'rgba(255, 200, 0, 0.35)',
                        mixBlendMode: 'multiply',
                        borderRadius: 2,
                      }}
                    >
                      <span style={HIDDEN_TEXT}>{text}</span>
                    </div>
                  );
                }),
              )}
            </div>
          )}
        </div>
      </div>
    </div>
  );
}
