#!/usr/bin/env node
// Browser end-to-end test of the web frontend against a real running stack.
//
//   node e2e/ui.e2e.mjs <base-url> <output-dir>
//
// Drives Debian's Chromium (headless, via playwright-core; no Playwright browser downloads):
// checks that a wrong key is refused on the sign-in screen, signs in with a member key, uploads
// the corpus fixture E_基礎設施.pdf with "Chunk by question" on the RAG Database page, follows its
// progress bar (SSE, sent with the key) to "Indexed", expands the document and checks its Q&A
// chunks, opens (and cancels) the delete confirmation, searches the list by filename and by
// content and filters it by status and strategy (each kept in the URL: a reload shows the same
// list). On the LTT page it asks E's first truth query and checks: the prepared answer of the
// expected pair verbatim (the truth file's first sentence) under its question id; the pair's
// internal note ([內部參考]) labelled and set apart; a source from E, whose "View" opens the page
// in the pdf.js viewer with a highlight layer over the cited words; the Markdown and DOCX speaking
// notes (downloaded) holding the answer and its source and not the internal note; the one-page
// PDF (a new tab, fetched with the key). Then an unanswerable question ("Not covered") and the
// history (newest first; an earlier answer shown again without a request). Then signs out, signs
// in with a reader key of the same department and checks that there is no upload and no delete
// control; with an admin key, checks the department filter and creates and revokes a key on the
// Keys page. axe-core runs on every page and dialog (sign-in, LTT before and after a question,
// the not-covered answer, RAG Database, Keys; delete confirmation, source viewer, new key, revoke
// confirmation) and the run fails on any critical or serious violation, listing them. At 390 px
// (sign-in, RAG Database, the answer, Keys) no page scrolls sideways, no element reaches past the
// right edge unless a scroll box of its own holds it, and the answer is reflowed prose (white-space
// normal, no line break inside a sentence). Saves screenshots at 1280, 900 and 390 px and the two
// speaking notes to <output-dir>. Exits non-zero with a message on the first failed check.
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
import { strFromU8, unzipSync } from 'fflate';

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
// A phone: no page may scroll sideways at this width.
const PHONE = { width: 390, height: 844 };
// A question no paper answers (bench/calibration/unanswerable.json): the app must say "Not covered".
const UNANSWERABLE = "What is the budget for this year's National Day fireworks display?";
const axeSource = readFileSync(path.join(repo, 'frontend', 'node_modules', 'axe-core', 'axe.min.js'), 'utf8');

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
    log(`axe-core: ${axeTotals.checks} pages and dialogs checked, ${axeFindings.length} critical/serious ` +
      `violation types on ${axeTotals.violations} elements`);
    check(axeFindings.length === 0, `axe-core found critical or serious violations:\n${axeFindings
      .map((v) => `  [${v.where}] ${v.impact} ${v.id} ×${v.count}: ${v.help}\n${v.nodes.map((n) => `      ${n}`).join('\n')}`)
      .join('\n')}`);
  } catch (err) {
    for (const v of axeFindings) log(`axe [${v.where}] ${v.impact} ${v.id} ×${v.count}: ${v.help}; ${v.nodes.join(' | ')}`);
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

/** Text without white space (PDF text and the app's reflowed text differ only in spaces and line breaks). */
const squash = (text) => String(text ?? '').replace(/\s+/g, '');

/** Critical and serious axe-core violations found so far (all pages and dialogs). */
const axeFindings = [];
const axeTotals = { checks: 0, violations: 0 };

/** Run axe-core on the page as it is (a dialog open included) and keep its critical and serious violations. */
async function axeCheck(page, where) {
  // Let dialogs finish their opening transition: mid-fade colours are not the page's.
  await page.waitForFunction(() => document.getAnimations()
    .every((a) => a.playState !== 'running' || a.effect?.getTiming().iterations === Infinity));
  if (!(await page.evaluate(() => typeof window.axe === 'object'))) await page.evaluate(axeSource);
  const violations = await page.evaluate(async () => {
    const result = await window.axe.run(document, { resultTypes: ['violations'] });
    return result.violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      count: v.nodes.length,
      nodes: v.nodes.slice(0, 3).map((n) => `${n.target.join(' ')}: ${(n.failureSummary ?? '').replace(/\s+/g, ' ').slice(0, 200)}`),
    }));
  });
  const bad = violations.filter((v) => v.impact === 'critical' || v.impact === 'serious');
  axeTotals.checks++;
  axeTotals.violations += bad.reduce((n, v) => n + v.count, 0);
  const minor = violations.filter((v) => !bad.includes(v)).map((v) => `${v.id} (${v.impact})`);
  log(`axe ${where}: ${bad.length ? bad.map((v) => `${v.impact} ${v.id} ×${v.count}`).join(', ') : '0 critical, 0 serious'}` +
    (minor.length ? `; minor: ${minor.join(', ')}` : ''));
  for (const v of bad) axeFindings.push({ where, ...v });
}

/** At a phone's width: nothing scrolls sideways, and no element (the fixed header's included) reaches
 * past the viewport unless a scroll container of its own holds it (a wide table scrolls inside its
 * box). `inside`: a part that must be there (the answer). Saves `<name>-390.png`. */
async function checkPhone(page, name, inside = null) {
  await page.setViewportSize(PHONE);
  await page.waitForTimeout(300);
  const found = await page.evaluate((selector) => {
    const root = document.scrollingElement;
    const width = root.clientWidth;
    const describe = (e) => `<${e.tagName.toLowerCase()}${e.className && typeof e.className === 'string' ? ` class="${e.className.slice(0, 60)}"` : ''}> ` +
      `right ${Math.round(e.getBoundingClientRect().right)}px "${(e.textContent ?? '').trim().slice(0, 40)}"`;
    // Held by a box of its own that clips or scrolls sideways, and that box is inside the viewport.
    const held = (e) => {
      for (let a = e.parentElement; a && a !== document.body; a = a.parentElement) {
        if (getComputedStyle(a).overflowX !== 'visible' && a.getBoundingClientRect().right <= width + 0.5) return true;
      }
      return false;
    };
    const wide = [];
    for (const e of document.body.querySelectorAll('*')) {
      const r = e.getBoundingClientRect();
      if (r.width > 0 && r.height > 0 && r.right > width + 0.5 && !held(e)) wide.push(describe(e));
    }
    return { scrollWidth: root.scrollWidth, clientWidth: width, wide: wide.slice(0, 5), part: !selector || !!document.querySelector(selector) };
  }, inside);
  check(found.scrollWidth <= found.clientWidth,
    `${name} at ${PHONE.width}px scrolls sideways: scrollWidth ${found.scrollWidth} > ${found.clientWidth}`);
  check(found.part, `${name}: nothing matches ${inside}`);
  check(found.wide.length === 0, `${name} at ${PHONE.width}px: past the viewport's right edge: ${found.wide.join(' | ')}`);
  const file = path.join(outDir, `${name}-390.png`);
  await page.screenshot({ path: file, fullPage: false });
  log(`${name} at ${PHONE.width}px: scrollWidth ${found.scrollWidth} <= ${found.clientWidth}, nothing past the edge; ` +
    `screenshot ${file}`);
}

/** Click `button` and save the download it starts to the output directory; returns its name and bytes. */
async function download(page, button) {
  const [dl] = await Promise.all([page.waitForEvent('download'), button.click()]);
  const file = path.join(outDir, dl.suggestedFilename());
  await dl.saveAs(file);
  return { name: dl.suggestedFilename(), file, bytes: readFileSync(file) };
}

/** The text of a .docx file's body: its <w:t> runs, one per line. */
function docxText(bytes) {
  const xml = strFromU8(unzipSync(new Uint8Array(bytes))['word/document.xml']);
  const entities = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };
  return [...xml.matchAll(/<w:t(?:\s[^>]*)?>([^<]*)<\/w:t>/g)]
    .map((m) => m[1].replace(/&(amp|lt|gt|quot|apos);/g, (_, e) => entities[e]))
    .join('\n');
}

/** The answer's text is reflowed: its paragraphs wrap normally (white-space: normal) and no line
 * break (<br>) cuts a sentence — one may only follow a sentence's end or a colon. */
async function checkReflowed(page, selector) {
  const found = await page.evaluate((sel) => {
    const part = document.querySelector(sel);
    if (!part) return null;
    const blocks = [...part.querySelectorAll('.markdown-body p, .markdown-body li')];
    const notNormal = blocks.filter((e) => getComputedStyle(e).whiteSpace !== 'normal').map((e) => getComputedStyle(e).whiteSpace);
    const cuts = [...part.querySelectorAll('.markdown-body br')]
      .map((br) => (br.previousSibling?.textContent ?? '').trim())
      .filter((before) => !/[。！？；：.!?;:）)」』]$/.test(before))
      .map((before) => before.slice(-20));
    return { blocks: blocks.length, notNormal, cuts, brs: part.querySelectorAll('.markdown-body br').length };
  }, selector);
  check(found, `nothing matches ${selector}`);
  check(found.blocks > 0, `the answer (${selector}) has no paragraphs`);
  check(found.notNormal.length === 0, `answer paragraphs with white-space ${found.notNormal.join(', ')}`);
  check(found.cuts.length === 0, `line breaks inside sentences of the answer, after: ${found.cuts.join(' | ')}`);
  return found;
}

/**
 * Search and filter the RAG Database page (the member's, with FILENAME indexed): filename and
 * content search, the status and strategy filters, each sent to the gateway and kept in the URL,
 * so a reload shows the same list; "Clear filters" empties the query string.
 */
async function searchAndFilter(page, row) {
  const bar = page.getByRole('region', { name: 'Search and filter documents' });
  const search = bar.getByRole('searchbox', { name: /^Search documents/ });
  const none = page.getByText('No documents match this search and these filters.');
  const listing = (want) => page.waitForResponse((r) => {
    if (!r.url().includes('/api/v1/documents?')) return false;
    const got = new URL(r.url()).searchParams;
    return Object.entries(want).every(([k, v]) => (got.get(k) ?? '') === v);
  });
  /** Do `action`, wait for the list the gateway sends for `want`, and check whether FILENAME is listed. */
  // `sent`: the list must come from the gateway (false when a list seen before may come from the cache).
  const expect = async (what, action, want, shown, sent = true) => {
    await Promise.all([sent ? listing(want) : null, action()]);
    await (shown ? row : none).waitFor();
    if (!shown) check((await row.count()) === 0, `${what}: ${FILENAME} still listed`);
    const url = new URL(page.url()).searchParams;
    for (const [k, v] of Object.entries(want)) {
      check((url.get(k) ?? '') === v, `${what}: the page URL has ${k}=${url.get(k)}, expected ${v}`);
    }
    log(`Database ${what}: ${shown ? `${FILENAME} listed` : 'no document'}; URL ${page.url().replace(base, '')}`);
  };
  await expect('search by filename "基礎設施"', () => search.fill('基礎設施'), { q: '基礎設施' }, true);
  await expect('search by content "蓄洪池"', () => search.fill('蓄洪池'), { q: '蓄洪池' }, true);
  await expect('search "煙花匯演"', () => search.fill('煙花匯演'), { q: '煙花匯演' }, false);
  await expect('search cleared', () => search.fill(''), { q: '' }, true, false);
  // click, not check(): the boxes show the URL's filters, which change a moment after the click.
  const failed = bar.getByRole('checkbox', { name: 'Failed' });
  const indexed = bar.getByRole('checkbox', { name: 'Indexed' });
  await expect('status Failed', () => failed.click(), { status: 'failed' }, false);
  await expect('status Indexed', async () => {
    await failed.click();
    // The page re-rendered with the box cleared (a click before that would add to the old value).
    await page.waitForFunction((box) => !box.checked, await failed.elementHandle());
    await row.waitFor();
    await indexed.click();
  }, { status: 'indexed' }, true);
  const strategy = bar.getByRole('combobox', { name: 'Chunking strategy' });
  await expect('strategy By token', () => strategy.selectOption('token'), { status: 'indexed', strategy: 'token' }, false);
  await expect('strategy By question', () => strategy.selectOption('question'),
    { status: 'indexed', strategy: 'question' }, true);
  // The URL holds the filters: a reload shows the same list with the same controls set.
  await expect('reloaded', () => page.reload(), { status: 'indexed', strategy: 'question' }, true);
  check((await strategy.inputValue()) === 'question', 'after a reload the strategy filter is not "By question"');
  check(await bar.getByRole('checkbox', { name: 'Indexed' }).isChecked(), 'after a reload "Indexed" is not ticked');
  await bar.getByRole('button', { name: 'Clear filters' }).click();
  await page.waitForURL(`${base}/rag-database`);
  await row.waitFor();
}

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
  // The session (sessionStorage) is gone; what stays in localStorage (the per-key answer history)
  // never holds a key.
  const stored = await page.evaluate(() => ({
    session: sessionStorage.length,
    local: Object.keys(localStorage).map((k) => [k, localStorage.getItem(k) ?? '']),
  }));
  check(stored.session === 0, `${stored.session} item(s) left in sessionStorage after signing out`);
  const withKey = stored.local.filter(([k, v]) => /lgk_[0-9a-f]{8}_/.test(k + v)).map(([k]) => k);
  check(withKey.length === 0, `a key is left in localStorage after signing out: ${withKey.join(', ')}`);
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
  await axeCheck(page, 'sign-in');
  await checkPhone(page, 'signin');
  await page.setViewportSize(WIDE);
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
  await axeCheck(page, 'Ask (LTT), before a question');
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
  await axeCheck(page, 'RAG Database, chunks shown');

  // --- The delete confirmation (cancelled): focus on Cancel, checked by axe.
  await row.getByRole('button', { name: `Delete document ${FILENAME}` }).click();
  const deleteDialog = page.getByRole('dialog', { name: 'Delete this document?' });
  await deleteDialog.waitFor();
  await deleteDialog.getByRole('button', { name: 'Cancel' }).waitFor();
  check(await deleteDialog.getByRole('button', { name: 'Cancel' }).evaluate((b) => b === document.activeElement),
    'the delete confirmation does not open with the focus on Cancel');
  await axeCheck(page, 'delete confirmation dialog');
  await deleteDialog.getByRole('button', { name: 'Cancel' }).click();
  await deleteDialog.waitFor({ state: 'detached' });

  await searchAndFilter(page, row);
  await checkPhone(page, 'rag-database');
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

  // --- The prepared answer, verbatim, under its question id; its internal note styled and labelled.
  const pair = truth.qa_pairs.find((p) => p.qa_id === query.expected_qa_id);
  check(pair, `no qa_pair ${query.expected_qa_id} in the truth file`);
  const card = page.locator('[data-direct-kind="qa"]');
  await card.waitFor();
  const heading = (await card.locator('[data-direct-question]').innerText()).trim();
  check(heading.startsWith(`${pair.qa_id} `) && squash(heading).includes(squash(pair.question)),
    `the direct answer's heading is "${heading}", expected "${pair.qa_id} ${pair.question}"`);
  const publicText = squash((await card.locator('.markdown-body').allInnerTexts()).join(''));
  check(publicText.includes(squash(pair.answer_first_sentence)),
    `the prepared answer does not start with the paper's words "${pair.answer_first_sentence}"`);
  const internal = card.locator('[data-block="internal"]');
  check((await internal.count()) === pair.internal_refs,
    `${await internal.count()} internal notes shown, the paper has ${pair.internal_refs}`);
  await internal.first().getByText('Internal reference — do not read out').waitFor();
  const internalText = squash(await internal.first().innerText());
  check(internalText.includes(squash(pair.answer_last_sentence)),
    `the internal note does not hold the paper's internal sentence "${pair.answer_last_sentence}"`);
  const style = await internal.first().evaluate((e) => {
    const own = getComputedStyle(e);
    const body = getComputedStyle(e.closest('[data-direct-kind]'));
    return { border: own.borderLeftWidth, color: own.borderLeftColor, background: own.backgroundColor, card: body.backgroundColor };
  });
  check(parseFloat(style.border) >= 3 && style.background !== style.card,
    `the internal note is not set apart: border ${style.border} ${style.color}, background ${style.background} on ${style.card}`);
  log(`prepared answer: "${heading.slice(0, 40)}…" verbatim; internal note labelled (border ${style.border} ${style.color}, ` +
    `background ${style.background})`);
  await axeCheck(page, 'answer shown');

  // --- The viewer: the cited source opens on its page with the cited words highlighted.
  const cited = fromE.filter({ hasText: `${query.expected_qa_id} — ` }).first();
  await cited.getByRole('button', { name: /^View source \d+ in / }).click();
  const viewer = page.getByRole('dialog', { name: FILENAME });
  await viewer.waitFor();
  await viewer.getByTestId('highlight').first().waitFor({ timeout: 30_000 });
  const marks = await viewer.getByTestId('highlight').count();
  const layerText = squash(await viewer.getByTestId('highlight-layer').textContent());
  const cue = squash(pair.answer_first_sentence).slice(0, 16);
  check(layerText.includes(cue) || layerText.includes(squash(pair.question).slice(0, 16)),
    `the highlight layer does not cover the cited text ("${cue}…"): "${layerText.slice(0, 120)}"`);
  const pageLabel = await viewer.locator('canvas[role="img"]').getAttribute('aria-label');
  log(`viewer: ${pageLabel}, ${marks} highlighted lines, over "${layerText.slice(0, 30)}…"`);
  await axeCheck(page, 'source viewer dialog');
  await viewer.getByRole('button', { name: 'Close dialog' }).click();
  await viewer.waitFor({ state: 'detached' });

  // --- Export the speaking note: Markdown and DOCX, with the answer and its source, without the internal note.
  const exportGroup = page.getByRole('group', { name: 'Export as speaking note' });
  const md = await download(page, exportGroup.getByRole('button', { name: 'Download Markdown' }));
  const docx = await download(page, exportGroup.getByRole('button', { name: 'Download DOCX' }));
  const docxBody = docxText(docx.bytes);
  for (const [what, text] of [[md.name, md.bytes.toString('utf8')], [docx.name, docxBody]]) {
    const flat = squash(text);
    check(flat.includes(squash(pair.answer_first_sentence)), `${what} lacks the answer's first sentence`);
    check(flat.includes(squash(`${pair.qa_id}`)) && flat.includes(squash(FILENAME)), `${what} lacks the question id or the source`);
    check(!flat.includes(squash(pair.answer_last_sentence)), `${what} holds the internal note: "${pair.answer_last_sentence}"`);
    check(!/內部參考|內部補充|Internal reference —/.test(text), `${what} holds an internal-note label`);
  }
  log(`exported ${md.name} (${md.bytes.length} B) and ${docx.name} (${docx.bytes.length} B): answer and sources, ` +
    'no internal note');

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

  // --- At a phone's width: the answer fits and reads as reflowed prose.
  await page.evaluate(() => document.querySelector('[data-direct-kind]')?.scrollIntoView({ block: 'start' }));
  await page.evaluate(() => window.scrollBy(0, -70));
  await checkPhone(page, 'ltt', '[data-direct-kind]');
  const reflow = await checkReflowed(page, '[data-direct-kind]');
  log(`answer reflowed: ${reflow.blocks} paragraphs, white-space normal, ${reflow.brs} line breaks, none inside a sentence`);
  await page.setViewportSize(WIDE);

  // --- A question no paper answers: "Not covered", plainly.
  await box.fill(UNANSWERABLE);
  const [unanswered] = await Promise.all([
    page.waitForResponse((r) => r.url().endsWith('/api/v1/query') && r.request().method() === 'POST', { timeout: 60_000 }),
    box.press('Enter'),
  ]);
  check(unanswered.status() === 200, `query returned HTTP ${unanswered.status()}`);
  const notCovered = await unanswered.json();
  await page.getByText(`Q: ${UNANSWERABLE}`).waitFor();
  await page.locator('[data-covered="false"]').getByText('Not covered', { exact: true }).waitFor();
  await page.getByText("None of your department's papers answers this.").first().waitFor();
  check(notCovered.covered === false, `"${UNANSWERABLE}" came back covered`);
  check((await page.getByRole('region', { name: /^Sources \(\d+\)$/ }).count()) === 0, 'a not-covered answer lists sources');
  log(`"${UNANSWERABLE}": Not covered (coverage value ${notCovered.coverage?.value?.toFixed?.(3)} < threshold ` +
    `${notCovered.coverage?.threshold})`);
  await axeCheck(page, 'not-covered answer');

  // --- History: both questions, newest first; the first one shown again without asking again.
  const history = page.getByRole('region', { name: 'Recent questions (2)' });
  await history.waitFor();
  const entries = history.getByRole('listitem');
  const entryTexts = await entries.allInnerTexts();
  check(entryTexts[0].includes(UNANSWERABLE) && entryTexts[1].includes(query.query),
    `history is not newest first: ${entryTexts.map((t) => t.split('\n')[0]).join(' | ')}`);
  let asked = 0;
  const countQueries = (r) => { if (r.url().endsWith('/api/v1/query')) asked++; };
  page.on('request', countQueries);
  await entries.nth(1).getByRole('button').click();
  await page.getByText(`Q: ${query.query}`).waitFor();
  await page.locator('[data-direct-kind="qa"] [data-direct-question]').waitFor();
  page.off('request', countQueries);
  check(asked === 0, `showing a history entry sent ${asked} query request(s)`);
  log('history: 2 questions, newest first; the first answer shown again without a request');

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
  await axeCheck(page, 'Keys');
  await checkPhone(page, 'keys');
  await page.setViewportSize(WIDE);
  check(!(await table.innerText()).includes('lgk_'), 'the key table shows a whole key');
  const form = page.getByRole('form', { name: 'Create a key' });
  await form.getByRole('combobox', { name: /^Department/ }).fill(memberDepartment);
  await form.getByRole('combobox', { name: /^Role/ }).selectOption('reader');
  await form.getByRole('textbox', { name: /^Label/ }).fill('ui-e2e temporary');
  await form.getByRole('button', { name: 'Create key' }).click();
  const dialog = page.getByRole('dialog', { name: 'New API key' });
  await dialog.waitFor();
  const created = await dialog.getByRole('textbox', { name: 'API key' }).inputValue();
  await axeCheck(page, 'new key dialog');
  check(/^lgk_[0-9a-f]{8}_\S+$/.test(created), `the new key looks wrong: ${created.slice(0, 14)}…`);
  await dialog.getByText(/will not be shown again/).waitFor();
  await dialog.getByRole('button', { name: 'Done' }).click();
  await dialog.waitFor({ state: 'detached' });
  const createdRow = table.getByRole('row').filter({ hasText: prefixOf(created) });
  await createdRow.waitFor();
  await createdRow.getByRole('button', { name: `Revoke key ${prefixOf(created)}` }).click();
  const confirm = page.getByRole('dialog', { name: 'Revoke this key?' });
  await confirm.waitFor();
  await axeCheck(page, 'revoke confirmation dialog');
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
