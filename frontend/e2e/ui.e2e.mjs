#!/usr/bin/env node
// Browser end-to-end test of the web frontend against a real running stack.
//
//   node e2e/ui.e2e.mjs <base-url> <output-dir>
//
// Drives Debian's Chromium (headless, via playwright-core; no Playwright browser downloads):
// uploads the corpus fixture E_基礎設施.pdf with "Chunk by question" on the RAG Database page,
// follows its progress bar to "Indexed", expands the document and checks its Q&A chunks, then
// asks one of E's truth queries on the LTT page, checks the answer and a source from E, and
// fetches that source's one-page PDF. Saves screenshots of both pages at 1280 px and 900 px to
// <output-dir>. Exits non-zero with a message on the first failed check.
//
// Env: CHROMIUM (default /usr/bin/chromium), LEGCO_CORPUS (default ../shared/corpus next to the
// repo), UI_E2E_INDEX_TIMEOUT_S (default 240).
import { mkdirSync, mkdtempSync, readFileSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, '..', '..');
const [baseArg, outArg] = process.argv.slice(2);
if (!baseArg || !outArg) {
  console.error('usage: node e2e/ui.e2e.mjs <base-url> <output-dir>');
  process.exit(2);
}
const base = baseArg.replace(/\/+$/, '');
const outDir = path.resolve(outArg);
const corpus = path.resolve(process.env.LEGCO_CORPUS || path.join(repo, '..', 'shared', 'corpus'));
const executablePath = process.env.CHROMIUM || '/usr/bin/chromium';
const indexTimeoutMs = Number(process.env.UI_E2E_INDEX_TIMEOUT_S || 240) * 1000;

const FILENAME = 'E_基礎設施.pdf';
const pdfPath = path.join(corpus, 'fixtures', FILENAME);
const truth = JSON.parse(readFileSync(path.join(corpus, 'fixtures', 'E_基礎設施.truth.json'), 'utf8'));
const WIDE = { width: 1280, height: 900 };
const NARROW = { width: 900, height: 900 };
// Main screenshots: tall enough to show the upload panel with the expanded document, and the answer
// with its first sources.
const SHOT_WIDE = { width: 1280, height: 1400 };
const SHOT_NARROW = { width: 900, height: 1400 };

const t0 = Date.now();
const log = (msg) => console.log(`[ui-e2e +${((Date.now() - t0) / 1000).toFixed(1)}s] ${msg}`);

class CheckFailed extends Error {}
function check(condition, message) {
  if (!condition) throw new CheckFailed(message);
}

async function screenshot(page, name, viewport) {
  await page.setViewportSize(viewport);
  // Let Mantine's responsive layout settle after the resize.
  await page.waitForTimeout(300);
  const file = path.join(outDir, name);
  await page.screenshot({ path: file, fullPage: false });
  log(`screenshot ${file}`);
}

async function main() {
  check(existsSync(executablePath), `Chromium not found at ${executablePath} (run scripts/deps.sh browser)`);
  check(existsSync(pdfPath), `corpus fixture not found: ${pdfPath}`);
  mkdirSync(outDir, { recursive: true });

  const profile = mkdtempSync(path.join(tmpdir(), 'legco-ui-e2e-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath,
    headless: true,
    viewport: WIDE,
    locale: 'en-HK',
    timezoneId: 'Asia/Hong_Kong',
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  const pageErrors = [];
  const page = context.pages()[0] ?? (await context.newPage());
  page.setDefaultTimeout(30_000);
  // The Dropzone (react-dropzone) opens Chromium's File System Access picker when it exists, which
  // Playwright cannot drive; without it "Choose files…" clicks the <input type=file> as in other
  // browsers, and Playwright answers that file chooser.
  await page.addInitScript(() => {
    for (let o = window; o; o = Object.getPrototypeOf(o)) {
      if (Object.prototype.hasOwnProperty.call(o, 'showOpenFilePicker')) delete o.showOpenFilePicker;
    }
  });
  page.on('pageerror', (err) => pageErrors.push(String(err)));
  page.on('console', (msg) => {
    if (msg.type() === 'error') log(`browser console error: ${msg.text()}`);
  });

  try {
    await run(page);
    check(pageErrors.length === 0, `uncaught errors in the page:\n${pageErrors.join('\n')}`);
  } catch (err) {
    await page
      .screenshot({ path: path.join(outDir, 'failure.png'), fullPage: true })
      .then(() => log(`failure screenshot ${path.join(outDir, 'failure.png')}`))
      .catch(() => {});
    throw err;
  } finally {
    await context.close();
    rmSync(profile, { recursive: true, force: true });
  }
}

/** "A1 — question · page 2" (or "Page 3") line of a source card's text. */
const sourceRef = (text) => text.split('\n').map((l) => l.trim()).find((l) => /^([A-Z]\d+ — |Page \d)/.test(l)) ?? '?';

async function run(page) {
  // --- Open the app (LTT is the start page) and go to the RAG Database page via the nav bar.
  const response = await page.goto(`${base}/`);
  check(response?.ok(), `GET ${base}/ returned ${response?.status()}`);
  await page.getByRole('heading', { name: 'Ask the briefing papers' }).waitFor();
  await page.getByRole('navigation', { name: 'Main navigation' }).getByRole('link', { name: 'RAG Database' }).click();
  await page.waitForURL(`${base}/rag-database`);
  await page.getByRole('heading', { name: 'RAG Database', level: 1 }).waitFor();
  // The progress below must come from the SSE stream, not from polling.
  await page.getByText('Live updates on').waitFor({ timeout: 20_000 });
  log('RAG Database page open, live updates on');

  // --- Upload E with "Chunk by question".
  const questionRadio = page.getByRole('radio', { name: /Chunk by question/ });
  await questionRadio.check();
  check(await questionRadio.isChecked(), '"Chunk by question" is not selected');
  const [chooser] = await Promise.all([
    page.waitForEvent('filechooser'),
    page.getByRole('button', { name: 'Choose files…' }).click(),
  ]);
  await chooser.setFiles(pdfPath);
  const ready = page.getByRole('list', { name: 'Files ready to upload' });
  await ready.getByText(FILENAME, { exact: true }).waitFor();
  const [ingest] = await Promise.all([
    page.waitForResponse((r) => r.url().includes('/api/v1/ingest') && r.request().method() === 'POST'),
    page.getByRole('button', { name: 'Upload', exact: true }).click(),
  ]);
  check(ingest.status() === 202, `upload returned HTTP ${ingest.status()}: ${await ingest.text()}`);
  const ingestUrl = new URL(ingest.url());
  check(ingestUrl.searchParams.get('strategy') === 'question',
    `upload was sent with strategy=${ingestUrl.searchParams.get('strategy')}, expected question`);
  const { document_id: documentId } = await ingest.json();
  check(documentId, 'upload response has no document_id');
  log(`uploaded ${FILENAME} as ${documentId}`);

  // The row of this upload (a same-named older document may still be listed while it is replaced).
  const row = page.locator('article', { has: page.locator(`button[aria-controls="chunks-${documentId}"]`) });
  await row.waitFor();
  check((await row.getAttribute('aria-label')) === FILENAME, `row label is not ${FILENAME}`);

  // --- Follow the progress bar until the status is Indexed.
  const status = row.getByTestId('status-badge');
  const seen = [];
  const deadline = Date.now() + indexTimeoutMs;
  let lastValue = -1;
  for (;;) {
    const statusText = (await status.textContent())?.trim();
    if (statusText === 'Indexed' || statusText === 'Failed') break;
    const bar = row.getByRole('progressbar');
    if (await bar.count()) {
      const label = (await row.getByTestId('progress-stage').textContent().catch(() => null))?.trim();
      const value = Number(await bar.getAttribute('aria-valuenow').catch(() => NaN));
      if (label && seen[seen.length - 1] !== `${label} (${value}%)`) {
        seen.push(`${label} (${value}%)`);
        log(`progress: ${label} (${value}%)`);
      }
      if (Number.isFinite(value)) lastValue = Math.max(lastValue, value);
    }
    check(Date.now() < deadline, `${FILENAME} not indexed after ${indexTimeoutMs / 1000}s; last status ` +
      `${statusText}, progress seen: ${seen.join(' → ') || 'none'}`);
    await page.waitForTimeout(100);
  }
  const finalStatus = (await status.textContent())?.trim();
  if (finalStatus !== 'Indexed') {
    const reason = await row.getByRole('alert').allTextContents().catch(() => []);
    throw new CheckFailed(`${FILENAME} ended as ${finalStatus}: ${reason.join(' ')}`);
  }
  check(seen.length > 0, 'the progress bar was never shown while the document was processed');
  check((await row.getByRole('progressbar').count()) === 0, 'progress bar still shown after indexing');
  log(`indexed; progress seen: ${seen.join(' → ')}`);

  await row.getByText('Chunked by question').waitFor();
  const rowText = await row.innerText();
  const chunkCount = Number(/(\d+) chunks?/.exec(rowText)?.[1] ?? 0);
  check(chunkCount > 0, `row shows no chunks after indexing: ${rowText}`);
  check(!/Fell back to/.test(rowText), `question chunking fell back: ${rowText}`);

  // --- Expand the document and check its Q&A chunks.
  await row.getByRole('button', { name: `Show chunks of ${FILENAME}` }).click();
  const chunkList = row.getByRole('list', { name: `Chunks of ${FILENAME}` });
  await chunkList.waitFor();
  const qaCards = chunkList.locator('article[data-chunk-kind="qa"]');
  await qaCards.first().waitFor();
  const qaHeadings = await qaCards.evaluateAll((els) => els.map((e) => e.getAttribute('aria-label')));
  const cardCount = await chunkList.locator('article[data-chunk-kind]').count();
  check(cardCount === chunkCount, `${cardCount} chunk cards shown, row says ${chunkCount} chunks`);
  const a1 = qaHeadings.find((h) => /^A1 — \S/.test(h ?? ''));
  check(a1, `no "A1 — …" chunk among: ${qaHeadings.slice(0, 5).join(' | ')}`);
  const expectedIds = truth.queries.map((q) => q.expected_qa_id);
  const missing = expectedIds.filter((id) => !qaHeadings.some((h) => h?.startsWith(`${id} — `)));
  check(missing.length === 0, `Q&A chunks missing for ${missing.join(', ')}`);
  const firstCard = qaCards.first();
  const firstBody = (await firstCard.innerText()).trim();
  check(firstBody.length > (qaHeadings[0]?.length ?? 0) + 20, `first Q&A chunk shows no answer text: ${firstBody}`);
  log(`${cardCount} chunk cards, ${qaHeadings.length} Q&A, e.g. "${a1}"`);

  // Screenshot: the expanded document at the top of the viewport, with the upload panel above it.
  await page.evaluate(() => window.scrollTo(0, 0));
  await screenshot(page, 'rag-database-1280.png', SHOT_WIDE);
  await screenshot(page, 'rag-database-900.png', SHOT_NARROW);
  await row.scrollIntoViewIfNeeded();
  await page.evaluate(() => {
    const h = [...document.querySelectorAll('h2')].find((e) => e.textContent === 'Documents');
    h?.scrollIntoView({ block: 'start' });
    window.scrollBy(0, -70); // below the fixed header
  });
  await screenshot(page, 'rag-database-chunks-900.png', SHOT_NARROW);
  await page.setViewportSize(WIDE);

  // --- Ask one of E's truth queries on the LTT page.
  const query = truth.queries[0];
  await page.getByRole('navigation', { name: 'Main navigation' }).getByRole('link', { name: 'LTT' }).click();
  await page.waitForURL(`${base}/`);
  const box = page.getByRole('textbox', { name: 'Question' });
  await box.fill(query.query);
  const [answer] = await Promise.all([
    page.waitForResponse((r) => r.url().endsWith('/api/v1/query') && r.request().method() === 'POST',
      { timeout: 60_000 }),
    box.press('Enter'),
  ]);
  check(answer.status() === 200, `query returned HTTP ${answer.status()}: ${await answer.text()}`);
  await page.getByRole('heading', { name: 'Answer', level: 2 }).waitFor();
  await page.getByText(`Q: ${query.query}`).waitFor();
  const mode = await page.locator('[data-answer-mode]').getAttribute('data-answer-mode');
  check(mode === 'llm' || mode === 'extractive', `no answer-mode badge (got ${mode})`);
  const sources = page.getByRole('region', { name: /^Sources \(\d+\)$/ }).getByRole('listitem');
  await sources.first().waitFor();
  // A card whose own heading is "[n] E_基礎設施.pdf" (other cards may name it under "Also in").
  const fromE = sources.filter({ hasText: new RegExp(`\\[\\d+\\] ${FILENAME.replace('.', '\\.')}`) });
  check((await fromE.count()) > 0, `no source from ${FILENAME}: ${(await sources.allInnerTexts()).join(' | ')}`);
  const sourceTexts = await fromE.allInnerTexts();
  check(sourceTexts.some((t) => t.includes(`${query.expected_qa_id} — `)),
    `expected ${query.expected_qa_id} among the sources of "${query.query}": ${sourceTexts.map(sourceRef).join(' | ')}`);
  log(`answer (${mode}) with ${await sources.count()} sources; ${FILENAME}: ${sourceTexts.map(sourceRef).join(' | ')}`);

  // --- Fetch the first E source's one-page PDF link.
  const link = fromE.first().getByRole('link', { name: /Open page PDF/ });
  check((await link.getAttribute('target')) === '_blank', 'source PDF link does not open in a new tab');
  const href = await link.getAttribute('href');
  check(href, 'source has no PDF link');
  const pdfUrl = new URL(href, `${base}/`).toString();
  const pdf = await page.request.get(pdfUrl);
  const type = pdf.headers()['content-type'] ?? '';
  const body = await pdf.body();
  check(pdf.status() === 200, `GET ${pdfUrl} returned HTTP ${pdf.status()}`);
  check(type.startsWith('application/pdf'), `GET ${pdfUrl} content-type is ${type}`);
  check(body.subarray(0, 5).toString('latin1') === '%PDF-', `GET ${pdfUrl} is not a PDF`);
  log(`source PDF ${href}: HTTP 200, ${type}, ${body.length} bytes`);

  await page.evaluate(() => window.scrollTo(0, 0));
  await screenshot(page, 'ltt-1280.png', SHOT_WIDE);
  await screenshot(page, 'ltt-900.png', SHOT_NARROW);
  // The sources (below the extractive answer's passages).
  for (const [name, viewport] of [['ltt-sources-1280.png', WIDE], ['ltt-sources-900.png', NARROW]]) {
    await page.setViewportSize(viewport);
    await page.evaluate(() => {
      document.getElementById('sources-heading')?.scrollIntoView({ block: 'start' });
      window.scrollBy(0, -70); // below the fixed header
    });
    await screenshot(page, name, viewport);
  }
}

main().then(
  () => {
    log('PASS');
    process.exit(0);
  },
  (err) => {
    const msg = err instanceof CheckFailed ? err.message : err?.stack || String(err);
    console.error(`[ui-e2e] FAIL: ${msg}`);
    process.exit(1);
  },
);
