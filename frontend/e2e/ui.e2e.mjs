#!/usr/bin/env node
// Browser end-to-end test of the web frontend against a real running stack.
//
//   node e2e/ui.e2e.mjs <base-url> <output-dir>
//
// Drives Debian's Chromium (headless, via playwright-core; no Playwright browser downloads):
// checks that a wrong key is refused on the sign-in screen, signs in with a member key, uploads
// the corpus fixture E_基礎設施.pdf with "Chunk by question" on the RAG Database page, follows its
// progress bar (SSE, sent with the key) to "Indexed", expands the document and checks its Q&A
// chunks, then asks one of E's truth queries on the LTT page, checks the answer and a source from
// E, and opens that source's one-page PDF (a new tab, fetched with the key). Then signs out, signs
// in with a reader key of the same department and checks that there is no upload and no delete
// control; with an admin key, checks the department filter and creates and revokes a key on the
// Keys page. Saves screenshots at 1280 px and 900 px to <output-dir>. Exits non-zero with a
// message on the first failed check.
//
// Env: LEGCO_E2E_MEMBER_KEY and LEGCO_E2E_READER_KEY (required; keys of one department),
// LEGCO_E2E_ADMIN_KEY (optional: the admin part is skipped without it), CHROMIUM (default
// /usr/bin/chromium), LEGCO_CORPUS (default ../shared/corpus next to the repo),
// UI_E2E_INDEX_TIMEOUT_S (default 240).
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
const memberKey = process.env.LEGCO_E2E_MEMBER_KEY || '';
const readerKey = process.env.LEGCO_E2E_READER_KEY || '';
const adminKey = process.env.LEGCO_E2E_ADMIN_KEY || '';
/** The short prefix of a key `lgk_<prefix>_<secret>`, as the Keys page lists it. */
const prefixOf = (key) => key.split('_')[1] ?? '';

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
  check(memberKey.startsWith('lgk_') && readerKey.startsWith('lgk_'),
    'LEGCO_E2E_MEMBER_KEY and LEGCO_E2E_READER_KEY must hold API keys (lgk_…)');
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

/** Sign in on the sign-in screen with `key`; returns the department and role the header shows. */
async function signIn(page, key) {
  await page.getByRole('heading', { name: 'Sign in' }).waitFor();
  await page.getByLabel(/^API key/).fill(key);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await page.getByRole('navigation', { name: 'Main navigation' }).waitFor();
  const who = page.getByTestId('signed-in-as');
  const text = (await who.innerText()).replace(/\s+/g, ' ').trim();
  const department = await who.getAttribute('data-department');
  const role = await who.getAttribute('data-role');
  check(department && text.includes(department), `the header does not show the department: "${text}"`);
  return { department, role, text };
}

async function signOut(page) {
  await page.getByRole('button', { name: 'Sign out' }).click();
  await page.getByRole('heading', { name: 'Sign in' }).waitFor();
  const stored = await page.evaluate(() => sessionStorage.length + localStorage.length);
  check(stored === 0, `${stored} item(s) left in browser storage after signing out`);
}

async function openRagDatabase(page) {
  await page.getByRole('navigation', { name: 'Main navigation' }).getByRole('link', { name: 'RAG Database' }).click();
  await page.waitForURL(`${base}/rag-database`);
  await page.getByRole('heading', { name: 'RAG Database', level: 1 }).waitFor();
}

async function run(page) {
  // Every API request must carry the key as a Bearer header, never in its URL.
  const apiRequests = [];
  page.on('request', (r) => {
    if (r.url().includes('/api/v1/')) apiRequests.push({ url: r.url(), auth: r.headers()['authorization'] ?? '' });
  });

  // --- Open the app: the sign-in screen. A wrong key is refused there.
  const response = await page.goto(`${base}/`);
  check(response?.ok(), `GET ${base}/ returned ${response?.status()}`);
  await page.getByRole('heading', { name: 'Sign in' }).waitFor();
  await screenshot(page, 'signin-1280.png', WIDE);
  await page.getByLabel(/^API key/).fill('lgk_00000000_notAKeyNotAKeyNotAKeyNotAKey');
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await page.getByText(/This key was not accepted/).waitFor();
  log('a wrong key is refused on the sign-in screen');

  // --- Sign in as a member; LTT is the start page. Go to the RAG Database page via the nav bar.
  const member = await signIn(page, memberKey);
  check(member.role === 'member' && /member$/i.test(member.text), `header after signing in as a member: "${member.text}"`);
  await page.getByRole('heading', { name: 'Ask the briefing papers' }).waitFor();
  log(`signed in as a member: "${member.text}"`);
  check((await page.context().cookies()).length === 0, 'the app set cookies');
  await openRagDatabase(page);
  // The progress below must come from the SSE stream, not from polling.
  await page.getByText('Live updates on').waitFor({ timeout: 20_000 });
  log('RAG Database page open, live updates on');
  const events = apiRequests.find((r) => r.url.includes('/api/v1/events'));
  check(events?.auth === `Bearer ${memberKey}`, 'the event stream was not requested with the Bearer key');

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

  // --- Open the first E source's one-page PDF: a new tab, fetched with the key (a plain link could
  // not send it), shown from a blob: URL.
  const link = fromE.first().getByRole('link', { name: /Open page PDF/ });
  check((await link.getAttribute('target')) === '_blank', 'source PDF link does not open in a new tab');
  const href = await link.getAttribute('href');
  check(href, 'source has no PDF link');
  const pdfUrl = new URL(href, `${base}/`).toString();
  const [popup, pdfResponse] = await Promise.all([
    page.context().waitForEvent('page'),
    page.waitForResponse((r) => r.url() === pdfUrl),
    link.click(),
  ]);
  check(pdfResponse.status() === 200, `GET ${pdfUrl} from the page returned HTTP ${pdfResponse.status()}`);
  check(pdfResponse.request().headers()['authorization'] === `Bearer ${memberKey}`, 'the PDF was fetched without the key');
  await popup.waitForURL(/^blob:/, { timeout: 15_000 });
  log(`source PDF opened in a new tab: ${popup.url()}`);
  await popup.close();
  // The same URL answers a PDF with the key, and 401 without.
  const pdf = await page.request.get(pdfUrl, { headers: { Authorization: `Bearer ${memberKey}` } });
  const type = pdf.headers()['content-type'] ?? '';
  const body = await pdf.body();
  check(pdf.status() === 200, `GET ${pdfUrl} returned HTTP ${pdf.status()}`);
  check(type.startsWith('application/pdf'), `GET ${pdfUrl} content-type is ${type}`);
  check(body.subarray(0, 5).toString('latin1') === '%PDF-', `GET ${pdfUrl} is not a PDF`);
  const keyless = await page.request.get(pdfUrl);
  check(keyless.status() === 401, `GET ${pdfUrl} without a key returned HTTP ${keyless.status()}`);
  log(`source PDF ${href}: HTTP 200, ${type}, ${body.length} bytes; without the key 401`);

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
  await page.setViewportSize(WIDE);

  const leaked = apiRequests.filter((r) => [memberKey, readerKey, adminKey].some((k) => k && r.url.includes(k)));
  check(leaked.length === 0, `a key was sent in a URL: ${leaked.map((r) => r.url).join(', ')}`);
  const unsigned = apiRequests.filter((r) => !r.auth.startsWith('Bearer lgk_'));
  check(unsigned.length === 0, `API requests without the key: ${unsigned.map((r) => r.url).join(', ')}`);

  // --- Sign out; sign in as a reader of the same department: the document is there, but no upload
  // and no delete control.
  await signOut(page);
  const reader = await signIn(page, readerKey);
  check(reader.role === 'reader' && /reader$/i.test(reader.text), `header after signing in as a reader: "${reader.text}"`);
  check(reader.department === member.department,
    `the reader's department (${reader.department}) is not the member's (${member.department})`);
  log(`signed in as a reader: "${reader.text}"`);
  await openRagDatabase(page);
  const readerRow = page.getByRole('article', { name: FILENAME }).first();
  await readerRow.waitFor();
  await page.getByText('Read-only access').waitFor();
  check((await page.getByRole('heading', { name: 'Upload documents' }).count()) === 0, 'a reader sees the upload panel');
  check((await page.getByRole('button', { name: 'Choose files…' }).count()) === 0, 'a reader sees "Choose files…"');
  check((await page.locator('input[type="file"]').count()) === 0, 'a reader has a file input');
  check((await page.getByRole('button', { name: /^Delete document/ }).count()) === 0, 'a reader sees a delete button');
  await readerRow.getByRole('button', { name: `Show chunks of ${FILENAME}` }).click();
  await readerRow.getByRole('list', { name: `Chunks of ${FILENAME}` }).locator('article').first().waitFor();
  check((await page.getByRole('button', { name: /^Delete chunk/ }).count()) === 0, 'a reader sees a chunk delete button');
  await page.evaluate(() => window.scrollTo(0, 0));
  await screenshot(page, 'rag-database-reader-1280.png', SHOT_WIDE);
  await page.setViewportSize(WIDE);
  log('a reader sees the document and no upload or delete control');

  if (!adminKey) {
    log('LEGCO_E2E_ADMIN_KEY not set: admin checks skipped');
    return;
  }
  // --- Sign in as the admin: a department filter on the RAG Database page, and the Keys page.
  await signOut(page);
  const admin = await signIn(page, adminKey);
  check(admin.role === 'admin' && /admin$/i.test(admin.text), `header after signing in as the admin: "${admin.text}"`);
  await openRagDatabase(page);
  const memberDepartment = member.department;
  const filter = page.getByRole('combobox', { name: /^Show department/ });
  await page.getByRole('article', { name: FILENAME }).first().waitFor();
  const options = await filter.locator('option').allTextContents();
  check(options.includes(memberDepartment), `department filter options ${options.join(', ')} lack ${memberDepartment}`);
  await Promise.all([
    page.waitForResponse((r) => r.url().includes(`/api/v1/documents?department=${encodeURIComponent(memberDepartment)}`)),
    filter.selectOption(memberDepartment),
  ]);
  await page.getByRole('article', { name: FILENAME }).first().waitFor();
  log(`admin filter: ${options.length - 1} departments, ${memberDepartment} shows ${FILENAME}`);

  await page.getByRole('navigation', { name: 'Main navigation' }).getByRole('link', { name: 'Keys' }).click();
  await page.waitForURL(`${base}/keys`);
  const table = page.getByRole('table', { name: 'Keys' });
  await table.waitFor();
  for (const key of [memberKey, readerKey, adminKey]) {
    await table.getByText(prefixOf(key), { exact: true }).waitFor();
  }
  check(!(await table.innerText()).includes('lgk_'), 'the key table shows a whole key');
  const form = page.getByRole('form', { name: 'Create a key' });
  await form.getByRole('combobox', { name: /^Department/ }).fill(memberDepartment);
  await form.getByRole('combobox', { name: /^Role/ }).selectOption('reader');
  await form.getByRole('textbox', { name: /^Label/ }).fill('ui-e2e temporary');
  await form.getByRole('button', { name: 'Create key' }).click();
  const dialog = page.getByRole('dialog', { name: 'New API key' });
  await dialog.waitFor();
  const created = await dialog.getByRole('textbox', { name: 'API key' }).inputValue();
  check(/^lgk_[0-9a-f]{8}_\S+$/.test(created), `the new key looks wrong: ${created.slice(0, 14)}…`);
  await dialog.getByText(/will not be shown again/).waitFor();
  await dialog.getByRole('button', { name: 'Done' }).click();
  await dialog.waitFor({ state: 'detached' });
  const createdRow = table.getByRole('row').filter({ hasText: prefixOf(created) });
  await createdRow.waitFor();
  await createdRow.getByRole('button', { name: `Revoke key ${prefixOf(created)}` }).click();
  const confirm = page.getByRole('dialog', { name: 'Revoke this key?' });
  await confirm.getByRole('button', { name: 'Revoke', exact: true }).click();
  await createdRow.getByText(/^Revoked/).waitFor();
  const revoked = await page.request.get(`${base}/api/v1/whoami`, { headers: { Authorization: `Bearer ${created}` } });
  check(revoked.status() === 401, `the revoked key still answers HTTP ${revoked.status()}`);
  await page.evaluate(() => window.scrollTo(0, 0));
  await screenshot(page, 'keys-1280.png', SHOT_WIDE);
  log(`keys page: created ${prefixOf(created)} (shown once), revoked it, its next request got 401`);
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
