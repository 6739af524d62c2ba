/**
 * Rendering one PDF page with pdf.js (`pdfjs-dist`). The library and its worker are loaded on
 * first use only (a separate chunk of the build), and the worker is a file of our own build
 * (Vite's `?url` import), never a CDN. Everything the app needs from pdf.js goes through
 * `openPdfPage`, so tests replace this module where pdf.js cannot run (jsdom has no canvas).
 */

/** One page of a PDF, ready to draw. */
export interface PdfPage {
  /** Size of the page as displayed (crop box, rotation applied), in PDF points. */
  width: number;
  height: number;
  /** Draws the page on `canvas` at `scale` CSS pixels per point (sharp on high-DPI screens). */
  render(canvas: HTMLCanvasElement, scale: number): Promise<void>;
  /** Frees the document (its worker-side data). */
  destroy(): void;
}

type PdfJs = typeof import('pdfjs-dist');
let loading: Promise<PdfJs> | null = null;

function pdfjs(): Promise<PdfJs> {
  loading ??= Promise.all([import('pdfjs-dist'), import('pdfjs-dist/build/pdf.worker.min.mjs?url')]).then(
    ([lib, worker]) => {
      lib.GlobalWorkerOptions.workerSrc = worker.default;
      return lib;
    },
  );
  return loading;
}

/** The first page of the PDF in `data` (the gateway's one-page PDFs hold exactly one). */
export async function openPdfPage(data: ArrayBuffer): Promise<PdfPage> {
  const lib = await pdfjs();
  const doc = await lib.getDocument({ data: new Uint8Array(data) }).promise;
  const page = await doc.getPage(1);
  const base = page.getViewport({ scale: 1 });
  return {
    width: base.width,
    height: base.height,
    async render(canvas, scale) {
      const ratio = window.devicePixelRatio || 1;
      const viewport = page.getViewport({ scale: scale * ratio });
      canvas.width = Math.floor(viewport.width);
      canvas.height = Math.floor(viewport.height);
      canvas.style.width = `${Math.floor(base.width * scale)}px`;
      canvas.style.height = `${Math.floor(base.height * scale)}px`;
      await page.render({ canvas, viewport }).promise;
    },
    destroy() {
      void doc.destroy();
    },
  };
}
