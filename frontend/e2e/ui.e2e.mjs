#!/usr/bin/env node
// Browser end-to-end test of the web frontend against a real running stack, in both interface
// languages (Traditional Chinese zh-HK, then English).
//
//   node e2e/ui.e2e.mjs <base-url> <output-dir>
//
// Drives Debian's Chromium (headless, via playwright-core; no Playwright browser downloads). The
// browser's locale is the first language (zh-HK): the app must pick it by itself (no choice stored
// yet). The whole flow runs in that language: a wrong key is refused on the sign-in screen; signed
// in with a member key, it uploads the corpus fixture E_基礎設施.pdf with "Chunk by question" on the
// RAG Database page, follows its progress bar (SSE, sent with the key) to "Indexed", expands the
// document and checks its Q&A chunks, opens (and cancels) the delete confirmation, searches the list
// by filename and by content and filters it by status and strategy (each kept in the URL: a reload
// shows the same list). On the LTT page it asks E's first truth query and checks: the prepared
// answer of the expected pair verbatim (the truth file's first sentence) under its question id; the
// pair's internal note ([內部參考]) labelled and set apart; a source from E, whose "View" opens the
// page in the pdf.js viewer with a highlight layer over the cited words; the Markdown and DOCX
// speaking notes (downloaded) holding the answer and its source, their own words in the interface
// language, and not the internal note; the one-page PDF (a new tab, fetched with the key). Then an
// unanswerable question ("Not covered") and the history (newest first; an earlier answer shown
// again without a request). Then signs out, signs in with a reader key of the same department and
// checks that there is no upload and no delete control; with an admin key, checks the department
// filter and creates and revokes a key on the Keys page.
//
// Then it picks the second language (English) with the header's switcher, checks that the choice
// is remembered over a reload although the browser still prefers Chinese, and runs every check
// again in it against the document already indexed (no second upload; the history of the first
// run is cleared with "Clear history" first).
//
// Then, once (in English when it is one of the languages, else in the last), the keyboard alone
// (issue 13; page.keyboard only — Tab, Shift+Tab, Enter, Escape, typing; no click, no fill): signs
// in as the member (the focus then on the page's name, before the skip link: the first Tab is
// "Skip to main content"), Tabs to the RAG Database link, Enter; after each change of page the
// focus is on the new page's name, one Tab reaches "Skip to main content" (the page's first Tab
// stop, in view once focused) and Enter puts the focus on <main>, the URL unchanged; then Tabs
// past the dropzone to "Choose files…", opens the
// file chooser with Enter on that native button (the focus checked on it first; the page's
// choosers collected from before the press; Enter once more if none came within a third of the
// wait, and the run fails if the full wait, 90 s or more under load, passes too), uploads
// E_基礎設施.txt with "Upload" (Enter), waits for it to be indexed (the focus then on "Choose
// files…", not lost to the page while "Upload" was disabled); Shift+Tabs to the LTT
// link, Enter, through the skip link, Tabs to the question box, types E's first truth query and sends it with Enter; Tabs to
// the first source's "View", opens the viewer with Enter (its highlight or marked passage shown, the
// focus inside), closes it with Escape and checks the focus is back on "View"; Shift+Tabs to the RAG
// Database link, Enter, through the skip link, Tabs to the upload's delete button, Enter, finds the focus on Cancel in the
// confirmation, Tabs to Delete, Enter, and sees the row gone. At every Tab stop the focused element
// must show a focus indicator (a computed outline or box-shadow, not none); the Tab presses each
// task needed are logged. The header's screen-reader text (its accessibility tree) must be exactly
// the locale's nav.signedInAs sentence, in both languages.
//
// Every label the test looks for is read from the locale files (src/locales/<lang>.json), never
// written here. In both languages `<html lang>` is the interface language, and in English the
// Chinese answer, question and passage are inside an element with lang="zh-HK". axe-core runs on
// every page and dialog (sign-in, LTT before and after a question, the not-covered answer, RAG
// Database, Keys; delete confirmation, source viewer, new key, revoke confirmation) in each
// language and the run fails on any critical or serious violation, listing them. At 390 px
// (sign-in, RAG Database, the answer, Keys) no page scrolls sideways, no element reaches past the
// right edge unless a scroll box of its own holds it, and the answer is reflowed prose (white-space
// normal, no line break inside a sentence). Saves screenshots at 1280, 900 and 390 px, named per
// language (`ltt-zh-HK-390.png`, `ltt-en-390.png`, …), and the speaking notes
// (`speaking-note-A1-zh-HK.md`, …) to <output-dir>. Exits non-zero with a message on the first
// failed check.
//
// Env: LEGCO_E2E_MEMBER_KEY and LEGCO_E2E_READER_KEY (required; keys of one department),
// LEGCO_E2E_ADMIN_KEY (optional: the admin part is skipped without it), CHROMIUM (default
// /usr/bin/chromium), LEGCO_CORPUS (default ../shared/corpus next to the repo),
// UI_E2E_INDEX_TIMEOUT_S (default 240), UI_E2E_LANGUAGES (default "zh-HK,en": the languages in
// order; the first is the browser's locale and does the upload).
import { mkdirSync, mkdtempSync, readFileSync, rmSync, existsSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, errors as playwrightErrors } from 'playwright-core';
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
const LANGUAGES = (process.env.UI_E2E_LANGUAGES || 'zh-HK,en').split(',').map((l) => l.trim()).filter(Boolean);
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
// A question no paper answers (bench/calibration/unanswerable.json): the app must say "Not
// covered", in each interface language. Both interfaces ask the Chinese one (value 0.52-0.60
// against the threshold 0.946 of 2026-12-02; the thresholds are refitted with bench/abstention.py,
// services/query/README.md "Not covered"). The English one ("What is the budget for this year's National Day
// fireworks display?") scored 0.70 against 0.896 on a stack holding only this department's paper,
// but 0.938 (covered) in a full CI run, where other departments' papers share the collection:
// a known miss of the English threshold, measured by bench/abstention.py, not a UI behaviour.
const UNANSWERABLE_ALL = JSON.parse(readFileSync(path.join(repo, 'bench', 'calibration', 'unanswerable.json'), 'utf8'));
const fireworks = (lang) => {
  const list = Array.isArray(UNANSWERABLE_ALL) ? UNANSWERABLE_ALL : UNANSWERABLE_ALL.queries;
  const found = list.find((q) => q.lang === lang && /fireworks|煙花/.test(q.query));
  if (!found) throw new Error(`no ${lang} fireworks question in bench/calibration/unanswerable.json`);
  return found.query;
};
const axeSource = readFileSync(path.join(repo, 'frontend', 'node_modules', 'axe-core', 'axe.min.js'), 'utf8');

const t0 = Date.now();
const log = (msg) => console.log(`[ui-e2e +${((Date.now() - t0) / 1000).toFixed(1)}s] ${msg}`);

class CheckFailed extends Error {}
function check(condition, message) {
  if (!condition) throw new CheckFailed(message);
}

// --- The interface's strings, from the app's own locale files.

const LOCALE_FILES = { en: 'en.json', 'zh-HK': 'zh-HK.json' };
const escapeRx = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * A translator for `lang` like the app's i18next one: `t(key, vars)` fills `{{name}}`, picks the
 * plural form by `vars.count` (Intl.PluralRules), and drops the <tag>s of Trans strings;
 * `t.rx(key, vars)` is a RegExp of the string, `{{name}}`s missing from `vars` matching anything
 * (`\d+` for n, count, page); `t.starts(key, vars)` the same, anchored at the start only.
 */
function translator(lang) {
  const file = LOCALE_FILES[lang];
  check(file, `no locale file for ${lang}`);
  const strings = JSON.parse(readFileSync(path.join(repo, 'frontend', 'src', 'locales', file), 'utf8'));
  const rules = new Intl.PluralRules(lang);
  const raw = (key, count) => {
    const parts = key.split('.');
    const last = parts.pop();
    let node = strings;
    for (const part of parts) node = node?.[part];
    const value = count !== undefined ? (node?.[`${last}_${rules.select(count)}`] ?? node?.[`${last}_other`] ?? node?.[last])
      : (node?.[last] ?? node?.[`${last}_other`]);
    check(typeof value === 'string', `no string ${key} in ${file}`);
    return value.replace(/<\/?\w+>/g, '');
  };
  const t = (key, vars = {}) => raw(key, vars.count).replace(/{{\s*(\w+)\s*}}/g, (_, name) => String(vars[name] ?? `{{${name}}}`));
  const pattern = (key, vars = {}) =>
    raw(key, vars.count).split(/({{\s*\w+\s*}})/).map((piece) => {
      const slot = /^{{\s*(\w+)\s*}}$/.exec(piece);
      if (!slot) return escapeRx(piece);
      if (vars[slot[1]] !== undefined) return escapeRx(String(vars[slot[1]]));
      return ['n', 'count', 'page'].includes(slot[1]) ? '\\d+' : '.+?';
    }).join('');
  t.rx = (key, vars) => new RegExp(`^${pattern(key, vars)}$`);
  t.starts = (key, vars) => new RegExp(`^${pattern(key, vars)}`);
  t.lang = lang;
  return t;
}

// --- Helpers that do not depend on the language.

/**
 * The final QueryResponse of a `POST /api/v1/query/stream` response (the app asks that route):
 * the data of its `done` event, read once the whole stream has arrived.
 */
async function finalAnswer(response) {
  const events = (await response.text()).split(/\r?\n\r?\n/);
  const done = events.find((e) => /^event: done$/m.test(e));
  check(done, `the answer stream ended without a done event: ${events.map((e) => e.split(/\r?\n/)[0]).join(', ')}`);
  return JSON.parse(done.split(/\r?\n/).filter((l) => l.startsWith('data:')).map((l) => l.slice(5).replace(/^ /, '')).join('\n'));
}

async function screenshot(page, name, viewport) {
  await page.setViewportSize(viewport);
  // Let Mantine's responsive layout settle after the resize.
  await page.waitForTimeout(300);
  const file = path.join(outDir, name);
  await page.screenshot({ path: file, fullPage: false });
  log(`screenshot ${file}`);
}

/** "A1 — question · page 2" (or "Page 3", "第3頁") line of a source card's text. */
const sourceRef = (text) => text.split('\n').map((l) => l.trim()).find((l) => /^([A-Z]\d+ — |Page \d|第\d+頁)/.test(l)) ?? '?';

/** Text without white space (PDF text and the app's reflowed text differ only in spaces and line breaks). */
const squash = (text) => String(text ?? '').replace(/\s+/g, '');

/** Critical and serious axe-core violations found so far (all pages and dialogs, both languages). */
const axeFindings = [];
/** Per language: pages and dialogs checked, critical/serious elements found. */
const axeTotals = {};

/** Run axe-core on the page as it is (a dialog open included) and keep its critical and serious violations. */
async function axeCheck(page, lang, where) {
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
  const totals = (axeTotals[lang] ??= { checks: 0, violations: 0, minor: new Set() });
  totals.checks++;
  totals.violations += bad.reduce((n, v) => n + v.count, 0);
  const minor = violations.filter((v) => !bad.includes(v)).map((v) => `${v.id} (${v.impact})`);
  for (const m of minor) totals.minor.add(m);
  log(`axe [${lang}] ${where}: ${bad.length ? bad.map((v) => `${v.impact} ${v.id} ×${v.count}`).join(', ') : '0 critical, 0 serious'}` +
    (minor.length ? `; minor: ${minor.join(', ')}` : ''));
  for (const v of bad) axeFindings.push({ where: `${lang} ${where}`, ...v });
}

/** At a phone's width: nothing scrolls sideways, and no element (the fixed header's included) reaches
 * past the viewport unless a scroll container of its own holds it (a wide table scrolls inside its
 * box). `inside`: a part that must be there (the answer). Saves `<name>-390.png`. */
async function checkPhone(page, name, inside = null) {
  await page.setViewportSize(PHONE);
  await page.waitForTimeout(300);
  // Let running transitions end first (a toast sliding in from the right after the resize is past
  // the edge for a moment); endless ones (a spinner) are not waited for, and none longer than 5 s.
  const settle = () => page.evaluate(() => Promise.race([
    Promise.all(document.getAnimations()
      .filter((a) => a.effect?.getTiming?.().iterations !== Infinity)
      .map((a) => a.finished.catch(() => null))),
    new Promise((resolve) => setTimeout(resolve, 5000)),
  ]));
  await settle();
  const measure = () => page.evaluate((selector) => {
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
    // Signed in: the current page's link is in view inside the header's links (they scroll
    // sideways there), not pushed out by the caller, the language switcher and "Sign out".
    const nav = document.querySelector('header nav');
    const current = nav?.querySelector('[aria-current="page"]');
    let navLink = null;
    if (nav && current) {
      const box = nav.getBoundingClientRect();
      const link = current.getBoundingClientRect();
      navLink = { text: current.textContent?.trim() ?? '', shown: link.left >= box.left - 0.5 && link.right <= box.right + 0.5,
        box: Math.round(box.width), link: Math.round(link.width) };
    }
    return { scrollWidth: root.scrollWidth, clientWidth: width, wide: wide.slice(0, 5), navLink,
      part: !selector || !!document.querySelector(selector) };
  }, inside);
  let found = await measure();
  if (found.wide.length) {
    // A toast that started its exit (sliding out to the right) between the wait and the measure.
    await page.waitForTimeout(1000);
    await settle();
    found = await measure();
  }
  check(!found.navLink || found.navLink.shown, `${name} at ${PHONE.width}px: the current page's link ` +
    `"${found.navLink?.text}" (${found.navLink?.link}px) is not in view in the header's links (${found.navLink?.box}px wide)`);
  check(found.scrollWidth <= found.clientWidth,
    `${name} at ${PHONE.width}px scrolls sideways: scrollWidth ${found.scrollWidth} > ${found.clientWidth}`);
  check(found.part, `${name}: nothing matches ${inside}`);
  check(found.wide.length === 0, `${name} at ${PHONE.width}px: past the viewport's right edge: ${found.wide.join(' | ')}`);
  const file = path.join(outDir, `${name}-390.png`);
  await page.screenshot({ path: file, fullPage: false });
  log(`${name} at ${PHONE.width}px: scrollWidth ${found.scrollWidth} <= ${found.clientWidth}, nothing past the edge` +
    `${found.navLink ? `, current link "${found.navLink.text}" in view (${found.navLink.link}px of ${found.navLink.box}px)` : ''}; ` +
    `screenshot ${file}`);
}

/** Click `button` and save the download it starts to the output directory as `<name>-<lang>.<ext>`;
 * returns the name the app gave it, the saved file and its bytes. */
async function download(page, button, lang) {
  const [dl] = await Promise.all([page.waitForEvent('download'), button.click()]);
  const name = dl.suggestedFilename();
  const file = path.join(outDir, name.replace(/(\.\w+)$/, `-${lang}$1`));
  await dl.saveAs(file);
  return { name, file, bytes: readFileSync(file) };
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

/** `<html lang>` is the interface language (`where`: the page, for the message). */
async function checkHtmlLang(page, t, where) {
  const lang = await page.evaluate(() => document.documentElement.lang);
  check(lang === t.lang, `${where}: <html lang="${lang}">, the interface is ${t.lang}`);
}

/**
 * Chinese text under the elements `selector` matches that is not inside an element marked
 * lang="zh…" below <html> (the page's own lang does not count): each as `<tag lang> "text"`.
 */
const unmarkedChinese = (page, selector) => page.evaluate((sel) => {
  const found = [];
  for (const root of document.querySelectorAll(sel)) {
    const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const text = node.textContent ?? '';
      if (!/\p{Script=Han}/u.test(text)) continue;
      const marked = node.parentElement?.closest('[lang]');
      const lang = marked && marked !== document.documentElement ? marked.getAttribute('lang') ?? '' : '';
      if (!lang.toLowerCase().startsWith('zh')) {
        found.push(`<${node.parentElement?.tagName.toLowerCase()}${lang ? ` lang=${lang}` : ''}> "${text.trim().slice(0, 30)}"`);
      }
    }
  }
  return found;
}, selector);

// --- The flow, in one language.

/**
 * Search and filter the RAG Database page (the member's, with FILENAME indexed): filename and
 * content search, the status and strategy filters, each sent to the gateway and kept in the URL,
 * so a reload shows the same list; "Clear filters" empties the query string.
 */
async function searchAndFilter(page, t, row) {
  const bar = page.getByRole('region', { name: t('filters.region'), exact: true });
  const search = bar.getByRole('searchbox', { name: t.starts('filters.search') });
  const none = page.getByText(t('database.noMatch'), { exact: true });
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
  const failed = bar.getByRole('checkbox', { name: t('documents.status.failed'), exact: true });
  const indexed = bar.getByRole('checkbox', { name: t('documents.status.indexed'), exact: true });
  await expect('status Failed', () => failed.click(), { status: 'failed' }, false);
  await expect('status Indexed', async () => {
    await failed.click();
    // The page re-rendered with the box cleared (a click before that would add to the old value).
    await page.waitForFunction((box) => !box.checked, await failed.elementHandle());
    await row.waitFor();
    await indexed.click();
  }, { status: 'indexed' }, true);
  const strategy = bar.getByRole('combobox', { name: t('upload.strategy'), exact: true });
  await expect('strategy By token', () => strategy.selectOption('token'), { status: 'indexed', strategy: 'token' }, false);
  await expect('strategy By question', () => strategy.selectOption('question'),
    { status: 'indexed', strategy: 'question' }, true);
  // The URL holds the filters: a reload shows the same list with the same controls set.
  await expect('reloaded', () => page.reload(), { status: 'indexed', strategy: 'question' }, true);
  check((await strategy.inputValue()) === 'question', 'after a reload the strategy filter is not "By question"');
  check(await indexed.isChecked(), `after a reload "${t('documents.status.indexed')}" is not ticked`);
  await bar.getByRole('button', { name: t('filters.clear'), exact: true }).click();
  await page.waitForURL(`${base}/rag-database`);
  await row.waitFor();
}

const mainNav = (page, t) => page.getByRole('navigation', { name: t('nav.main'), exact: true });

/** Sign in on the sign-in screen with `key`; returns the department and role the header shows. */
async function signIn(page, t, key) {
  await page.getByRole('heading', { name: t('signIn.title'), exact: true }).waitFor();
  await page.getByLabel(t.starts('signIn.keyLabel')).fill(key);
  await page.getByRole('button', { name: t('signIn.submit'), exact: true }).click();
  await mainNav(page, t).waitFor();
  const who = page.getByTestId('signed-in-as');
  const text = (await who.innerText()).replace(/\s+/g, ' ').trim();
  const department = await who.getAttribute('data-department');
  const role = await who.getAttribute('data-role');
  check(department && text.includes(department), `the header does not show the department: "${text}"`);
  // (The role badge is upper-cased by CSS, which innerText follows.)
  check(text.toLowerCase().endsWith(t(`roles.${role}.label`).toLowerCase()),
    `the header "${text}" does not end with the ${role}'s label "${t(`roles.${role}.label`)}"`);
  // What a screen reader gets (the accessibility tree): one sentence, exactly as the locale has it.
  const spoken = (await who.ariaSnapshot()).trim().replace(/^- (?:text|paragraph):\s*/, '').replace(/^"(.*)"$/, '$1');
  const expected = t('nav.signedInAs', { department, role: t(`roles.${role}.label`) });
  check(spoken === expected, `the header reads "${spoken}" to a screen reader, not "${expected}"`);
  return { department, role, text: spoken };
}

async function signOut(page, t) {
  await page.getByRole('button', { name: t('nav.signOut'), exact: true }).click();
  await page.getByRole('heading', { name: t('signIn.title'), exact: true }).waitFor();
  // The session (sessionStorage) is gone; what stays in localStorage (the per-key answer history,
  // the interface language) never holds a key.
  const stored = await page.evaluate(() => ({
    session: sessionStorage.length,
    local: Object.keys(localStorage).map((k) => [k, localStorage.getItem(k) ?? '']),
  }));
  check(stored.session === 0, `${stored.session} item(s) left in sessionStorage after signing out`);
  const withKey = stored.local.filter(([k, v]) => /lgk_[0-9a-f]{8}_/.test(k + v)).map(([k]) => k);
  check(withKey.length === 0, `a key is left in localStorage after signing out: ${withKey.join(', ')}`);
}

async function openRagDatabase(page, t) {
  await mainNav(page, t).getByRole('link', { name: t('nav.ragDatabase.label'), exact: true }).click();
  await page.waitForURL(`${base}/rag-database`);
  await page.getByRole('heading', { name: t('database.title'), level: 1, exact: true }).waitFor();
}

/** Upload FILENAME with "Chunk by question" and follow its progress bar to Indexed; returns its id. */
async function uploadFixture(page, t) {
  const questionRadio = page.getByRole('radio', { name: t.starts('format.strategy.question.label') });
  await questionRadio.check();
  check(await questionRadio.isChecked(), '"Chunk by question" is not selected');
  const [chooser] = await Promise.all([
    page.waitForEvent('filechooser'),
    page.getByRole('button', { name: t('upload.choose'), exact: true }).click(),
  ]);
  await chooser.setFiles(pdfPath);
  const ready = page.getByRole('list', { name: t('upload.ready'), exact: true });
  await ready.getByText(FILENAME, { exact: true }).waitFor();
  const [ingest] = await Promise.all([
    page.waitForResponse((r) => r.url().includes('/api/v1/ingest') && r.request().method() === 'POST'),
    page.getByRole('button', { name: t('upload.upload'), exact: true }).click(),
  ]);
  check(ingest.status() === 202, `upload returned HTTP ${ingest.status()}: ${await ingest.text()}`);
  const ingestUrl = new URL(ingest.url());
  check(ingestUrl.searchParams.get('strategy') === 'question',
    `upload was sent with strategy=${ingestUrl.searchParams.get('strategy')}, expected question`);
  const { document_id: documentId } = await ingest.json();
  check(documentId, 'upload response has no document_id');
  log(`uploaded ${FILENAME} as ${documentId}`);

  const row = documentRow(page, documentId);
  await row.waitFor();
  // --- Follow the progress bar until the status is Indexed.
  const status = row.getByTestId('status-badge');
  const indexedLabel = t('documents.status.indexed');
  const failedLabel = t('documents.status.failed');
  const seen = [];
  const deadline = Date.now() + indexTimeoutMs;
  for (;;) {
    const statusText = (await status.textContent())?.trim();
    if (statusText === indexedLabel || statusText === failedLabel) break;
    const bar = row.getByRole('progressbar');
    if (await bar.count()) {
      const label = (await row.getByTestId('progress-stage').textContent().catch(() => null))?.trim();
      const value = Number(await bar.getAttribute('aria-valuenow').catch(() => NaN));
      if (label && seen[seen.length - 1] !== `${label} (${value}%)`) {
        seen.push(`${label} (${value}%)`);
        log(`progress: ${label} (${value}%)`);
      }
    }
    check(Date.now() < deadline, `${FILENAME} not indexed after ${indexTimeoutMs / 1000}s; last status ` +
      `${statusText}, progress seen: ${seen.join(' → ') || 'none'}`);
    await page.waitForTimeout(100);
  }
  const finalStatus = (await status.textContent())?.trim();
  if (finalStatus !== indexedLabel) {
    const reason = await row.getByRole('alert').allTextContents().catch(() => []);
    throw new CheckFailed(`${FILENAME} ended as ${finalStatus}: ${reason.join(' ')}`);
  }
  check(seen.length > 0, 'the progress bar was never shown while the document was processed');
  check((await row.getByRole('progressbar').count()) === 0, 'progress bar still shown after indexing');
  log(`indexed; progress seen: ${seen.join(' → ')}`);
  return documentId;
}

/** The row of the upload `documentId` (a same-named older document may still be listed while it is replaced). */
const documentRow = (page, documentId) =>
  page.locator('article', { has: page.locator(`button[aria-controls="chunks-${documentId}"]`) });

/** The RAG Database page with FILENAME indexed: its row, Q&A chunks, delete dialog, search and filters, phone. */
async function databaseChecks(page, t, documentId, shot) {
  const row = documentRow(page, documentId);
  await row.waitFor();
  check((await row.getAttribute('aria-label')) === FILENAME, `row label is not ${FILENAME}`);
  check((await row.getByTestId('status-badge').textContent())?.trim() === t('documents.status.indexed'),
    `${FILENAME} is not "${t('documents.status.indexed')}"`);
  await row.getByText(t('format.strategy.question.badge'), { exact: true }).waitFor();
  const rowText = await row.innerText();
  const counted = [t.starts('documents.chunks', { count: 1 }), t.starts('documents.chunks', { count: 2 })]
    .map((rx) => new RegExp(rx.source.slice(1).replace('\\d+', '(\\d+)')).exec(rowText)).find(Boolean);
  const chunkCount = Number(counted?.[1] ?? 0);
  check(chunkCount > 0, `row shows no chunks after indexing: ${rowText}`);
  check(!new RegExp(t.starts('documents.fellBack').source.slice(1)).test(rowText), `question chunking fell back: ${rowText}`);

  // --- Expand the document and check its Q&A chunks.
  await row.getByRole('button', { name: t('documents.showChunksOf', { name: FILENAME }), exact: true }).click();
  const chunkList = row.getByRole('list', { name: t('chunks.list', { name: FILENAME }), exact: true });
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
  const firstBody = (await qaCards.first().innerText()).trim();
  check(firstBody.length > (qaHeadings[0]?.length ?? 0) + 20, `first Q&A chunk shows no answer text: ${firstBody}`);
  log(`${cardCount} chunk cards, ${qaHeadings.length} Q&A, e.g. "${a1}"`);

  // Screenshot: the expanded document at the top of the viewport, with the upload panel above it.
  await page.evaluate(() => window.scrollTo(0, 0));
  await screenshot(page, shot('rag-database', 1280), SHOT_WIDE);
  await screenshot(page, shot('rag-database', 900), SHOT_NARROW);
  await row.scrollIntoViewIfNeeded();
  await page.evaluate(() => {
    document.getElementById('documents-heading')?.scrollIntoView({ block: 'start' });
    window.scrollBy(0, -((document.querySelector('header')?.offsetHeight ?? 56) + 14)); // below the fixed header
  });
  await screenshot(page, shot('rag-database-chunks', 900), SHOT_NARROW);
  await page.setViewportSize(WIDE);
  await axeCheck(page, t.lang, 'RAG Database, chunks shown');

  // --- The delete confirmation (cancelled): focus on Cancel, checked by axe.
  await row.getByRole('button', { name: t('documents.deleteLabel', { name: FILENAME }), exact: true }).click();
  const deleteDialog = page.getByRole('dialog', { name: t('documents.deleteTitle'), exact: true });
  await deleteDialog.waitFor();
  const cancel = deleteDialog.getByRole('button', { name: t('common.cancel'), exact: true });
  await cancel.waitFor();
  check(await cancel.evaluate((b) => b === document.activeElement), 'the delete confirmation does not open with the focus on Cancel');
  await axeCheck(page, t.lang, 'delete confirmation dialog');
  await cancel.click();
  await deleteDialog.waitFor({ state: 'detached' });

  await searchAndFilter(page, t, row);
  await checkHtmlLang(page, t, 'RAG Database');
  await checkPhone(page, shot('rag-database'));
  await page.setViewportSize(WIDE);
}

/**
 * Run every check in the language of `t` (the interface already in it). `first`: this run uploads
 * the fixture (else it is already indexed, as `state.documentId`).
 */
async function run(page, t, state, first) {
  const lang = t.lang;
  const shot = (name, width) => `${name}-${lang}${width ? `-${width}.png` : ''}`;
  // Every API request must carry the key as a Bearer header, never in its URL.
  const apiRequests = [];
  const onRequest = (r) => {
    if (r.url().includes('/api/v1/')) apiRequests.push({ url: r.url(), auth: r.headers()['authorization'] ?? '' });
  };
  page.on('request', onRequest);

  // --- Open the app: the sign-in screen. A wrong key is refused there.
  const response = await page.goto(`${base}/`);
  check(response?.ok(), `GET ${base}/ returned ${response?.status()}`);
  await page.getByRole('heading', { name: t('signIn.title'), exact: true }).waitFor();
  await checkHtmlLang(page, t, 'sign-in');
  await screenshot(page, shot('signin', 1280), WIDE);
  await axeCheck(page, lang, 'sign-in');
  await checkPhone(page, shot('signin'));
  await page.setViewportSize(WIDE);
  await page.getByLabel(t.starts('signIn.keyLabel')).fill('lgk_00000000_notAKeyNotAKeyNotAKeyNotAKey');
  await page.getByRole('button', { name: t('signIn.submit'), exact: true }).click();
  await page.getByText(t.starts('signIn.notAccepted')).waitFor();
  log('a wrong key is refused on the sign-in screen');

  // --- Sign in as a member; LTT is the start page. Go to the RAG Database page via the nav bar.
  const member = await signIn(page, t, memberKey);
  check(member.role === 'member', `signed in as a ${member.role}, expected member: "${member.text}"`);
  await page.getByRole('heading', { name: t('ltt.title'), exact: true }).waitFor();
  await checkHtmlLang(page, t, 'LTT');
  log(`signed in as a member: "${member.text}"`);
  check((await page.context().cookies()).length === 0, 'the app set cookies');
  await openRagDatabase(page, t);
  // The progress must come from the SSE stream, not from polling.
  await page.getByText(t('database.live.open'), { exact: true }).waitFor({ timeout: 20_000 });
  log('RAG Database page open, live updates on');
  const events = apiRequests.find((r) => r.url.includes('/api/v1/events'));
  check(events?.auth === `Bearer ${memberKey}`, 'the event stream was not requested with the Bearer key');

  if (first) state.documentId = await uploadFixture(page, t);
  await databaseChecks(page, t, state.documentId, shot);

  // --- Ask one of E's truth queries on the LTT page.
  const query = truth.queries[0];
  await mainNav(page, t).getByRole('link', { name: t('nav.ltt.label'), exact: true }).click();
  await page.waitForURL(`${base}/`);
  // The history of an earlier run (same key, same browser) is there: clear it.
  const anyHistory = page.getByRole('region', { name: t.rx('history.heading') });
  if (!first) {
    await anyHistory.waitFor();
    await anyHistory.getByRole('button', { name: t('history.clear'), exact: true }).click();
    await anyHistory.waitFor({ state: 'detached' });
    log('the earlier run\'s history cleared');
  }
  check((await anyHistory.count()) === 0, 'a history is shown before any question');
  await axeCheck(page, lang, 'Ask (LTT), before a question');
  const box = page.getByRole('textbox', { name: t('ask.question'), exact: true });
  await box.fill(query.query);
  const [answer] = await Promise.all([
    page.waitForResponse((r) => r.url().endsWith('/api/v1/query/stream') && r.request().method() === 'POST',
      { timeout: 60_000 }),
    box.press('Enter'),
  ]);
  check(answer.status() === 200, `query returned HTTP ${answer.status()}: ${await answer.text()}`);
  const answered = await finalAnswer(answer);
  check(answered.covered !== false, `"${query.query}" came back not covered (coverage value ` +
    `${answered.coverage?.value?.toFixed?.(3)}, threshold ${answered.coverage?.threshold})`);
  await page.getByRole('heading', { name: t('answer.title'), level: 2, exact: true }).waitFor();
  const questionHeading = page.getByRole('heading', { name: `${t('answer.questionPrefix')}${query.query}`, exact: true });
  await questionHeading.waitFor();
  const mode = await page.locator('[data-answer-mode]').getAttribute('data-answer-mode');
  check(mode === 'llm' || mode === 'extractive', `no answer-mode badge (got ${mode})`);
  const sourcesRegion = page.getByRole('region', { name: t.rx('sources.heading', { title: t('sources.title') }) });
  const sources = sourcesRegion.getByRole('listitem');
  await sources.first().waitFor();
  // A card whose own heading is "[n] E_基礎設施.pdf" (other cards may name it under "Also in").
  const fromE = sources.filter({ hasText: new RegExp(`\\[\\d+\\] ${escapeRx(FILENAME)}`) });
  check((await fromE.count()) > 0, `no source from ${FILENAME}: ${(await sources.allInnerTexts()).join(' | ')}`);
  const sourceTexts = await fromE.allInnerTexts();
  check(sourceTexts.some((text) => text.includes(`${query.expected_qa_id} — `)),
    `expected ${query.expected_qa_id} among the sources of "${query.query}": ${sourceTexts.map(sourceRef).join(' | ')}`);
  log(`answer (${mode}, coverage ${answered.coverage?.value?.toFixed?.(3)} >= ${answered.coverage?.threshold}) with ` +
    `${await sources.count()} sources; ${FILENAME}: ${sourceTexts.map(sourceRef).join(' | ')}`);

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
  await internal.first().getByText(t('direct.internal'), { exact: true }).waitFor();
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
  log(`prepared answer: "${heading.slice(0, 40)}…" verbatim; internal note labelled "${t('direct.internal')}" ` +
    `(border ${style.border} ${style.color}, background ${style.background})`);
  // The paper's Chinese (the question, the prepared answer, the sources' passages and names) is
  // marked lang="zh-HK" for screen readers and fonts: in the English interface every piece of it
  // must be inside such an element (in the Chinese one the page's own lang covers it too).
  const contentParts = 'main h3, [data-direct-kind], [data-sources]';
  const unmarked = await unmarkedChinese(page, contentParts);
  const chineseParts = await page.evaluate((sel) => [...document.querySelectorAll(sel)]
    .filter((e) => /\p{Script=Han}/u.test(e.textContent ?? '')).length, contentParts);
  check(chineseParts > 0, `no Chinese content found under ${contentParts}`);
  if (lang === 'en') {
    check(unmarked.length === 0, `Chinese content in the English interface not inside lang="zh-HK": ${unmarked.slice(0, 8).join(' | ')}`);
    log(`Chinese content (question, answer, sources) inside lang="zh-HK" elements, <html lang="en">`);
  }
  await axeCheck(page, lang, 'answer shown');

  // --- The viewer: the cited source opens on its page with the cited words highlighted.
  const cited = fromE.filter({ hasText: `${query.expected_qa_id} — ` }).first();
  await cited.getByRole('button', { name: t.rx('sources.view', { name: FILENAME }) }).click();
  const viewer = page.getByRole('dialog', { name: FILENAME });
  await viewer.waitFor();
  await viewer.getByTestId('highlight').first().waitFor({ timeout: 30_000 });
  const marks = await viewer.getByTestId('highlight').count();
  const layerText = squash(await viewer.getByTestId('highlight-layer').textContent());
  const cue = squash(pair.answer_first_sentence).slice(0, 16);
  check(layerText.includes(cue) || layerText.includes(squash(pair.question).slice(0, 16)),
    `the highlight layer does not cover the cited text ("${cue}…"): "${layerText.slice(0, 120)}"`);
  const pageLabel = await viewer.locator('canvas[role="img"]').getAttribute('aria-label');
  check(pageLabel === t('viewer.canvas', { page: pageLabel?.match(/\d+/)?.[0], name: FILENAME }),
    `the viewer's page is named "${pageLabel}", not in ${lang}`);
  log(`viewer: ${pageLabel}, ${marks} highlighted lines, over "${layerText.slice(0, 30)}…"`);
  await axeCheck(page, lang, 'source viewer dialog');
  await viewer.getByRole('button', { name: t('common.closeDialog'), exact: true }).click();
  await viewer.waitFor({ state: 'detached' });

  // --- Export the speaking note: Markdown and DOCX, with the answer and its source, its own words
  // in the interface language, without the internal note.
  const exportGroup = page.getByRole('group', { name: t('export.group'), exact: true });
  const md = await download(page, exportGroup.getByRole('button', { name: t('export.markdown'), exact: true }), lang);
  await exportGroup.getByText(t('export.saved', { name: md.name }), { exact: true }).waitFor();
  const docx = await download(page, exportGroup.getByRole('button', { name: t('export.docx'), exact: true }), lang);
  const docxBody = docxText(docx.bytes);
  const other = translator(lang === 'en' ? 'zh-HK' : 'en');
  for (const [what, text] of [[md.name, md.bytes.toString('utf8')], [docx.name, docxBody]]) {
    const flat = squash(text);
    check(flat.includes(squash(pair.answer_first_sentence)), `${what} lacks the answer's first sentence`);
    check(flat.includes(squash(`${pair.qa_id}`)) && flat.includes(squash(FILENAME)), `${what} lacks the question id or the source`);
    check(!flat.includes(squash(pair.answer_last_sentence)), `${what} holds the internal note: "${pair.answer_last_sentence}"`);
    check(!/\[內部參考|\[內部補充/.test(text) && !text.includes(t('direct.internal')) && !text.includes(other('direct.internal')),
      `${what} holds an internal-note label`);
    for (const key of ['note.title', 'note.answer', 'note.sources']) {
      check(text.includes(t(key)), `${what} lacks "${t(key)}" (${key} in ${lang})`);
      check(!text.includes(other(key)), `${what} holds "${other(key)}" (${key} of the other language)`);
    }
    check(text.includes(t('note.lead', { label: t('note.question') })), `${what} lacks "${t('note.lead', { label: t('note.question') })}"`);
  }
  check(md.bytes.toString('utf8').startsWith(`# ${t('note.title')}\n`), `${md.name} does not open with "# ${t('note.title')}"`);
  log(`exported ${md.name} (${md.bytes.length} B) and ${docx.name} (${docx.bytes.length} B) in ${lang}: answer and sources, ` +
    `"${t('note.title')}", "${t('note.answer')}", "${t('note.sources')}", no internal note`);

  // --- Open the first E source's one-page PDF: a new tab, fetched with the key (a plain link could
  // not send it), shown from a blob: URL.
  const link = fromE.first().getByRole('link').filter({ hasText: t('common.openPagePdf') }).first();
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
  if (first) {
    // The same URL answers a PDF with the key, and 401 without (the gateway's, not the language's).
    const pdf = await page.request.get(pdfUrl, { headers: { Authorization: `Bearer ${memberKey}` } });
    const type = pdf.headers()['content-type'] ?? '';
    const body = await pdf.body();
    check(pdf.status() === 200, `GET ${pdfUrl} returned HTTP ${pdf.status()}`);
    check(type.startsWith('application/pdf'), `GET ${pdfUrl} content-type is ${type}`);
    check(body.subarray(0, 5).toString('latin1') === '%PDF-', `GET ${pdfUrl} is not a PDF`);
    const keyless = await page.request.get(pdfUrl);
    check(keyless.status() === 401, `GET ${pdfUrl} without a key returned HTTP ${keyless.status()}`);
    log(`source PDF ${href}: HTTP 200, ${type}, ${body.length} bytes; without the key 401`);
  }

  await page.evaluate(() => window.scrollTo(0, 0));
  await screenshot(page, shot('ltt', 1280), SHOT_WIDE);
  await screenshot(page, shot('ltt', 900), SHOT_NARROW);
  // The sources (below the extractive answer's passages).
  for (const [name, viewport] of [[shot('ltt-sources', 1280), WIDE], [shot('ltt-sources', 900), NARROW]]) {
    await page.setViewportSize(viewport);
    await page.evaluate(() => {
      document.querySelector('[data-sources]')?.scrollIntoView({ block: 'start' });
      window.scrollBy(0, -((document.querySelector('header')?.offsetHeight ?? 56) + 14)); // below the fixed header
    });
    await screenshot(page, name, viewport);
  }
  await page.setViewportSize(WIDE);

  // --- At a phone's width: the answer fits and reads as reflowed prose.
  await page.evaluate(() => document.querySelector('[data-direct-kind]')?.scrollIntoView({ block: 'start' }));
  await page.evaluate(() => window.scrollBy(0, -((document.querySelector('header')?.offsetHeight ?? 56) + 14)));
  await checkPhone(page, shot('ltt'), '[data-direct-kind]');
  const reflow = await checkReflowed(page, '[data-direct-kind]');
  log(`answer reflowed: ${reflow.blocks} paragraphs, white-space normal, ${reflow.brs} line breaks, none inside a sentence`);
  await page.setViewportSize(WIDE);

  // --- A question no paper answers: "Not covered", plainly, in the interface's language.
  const unanswerable = fireworks('zh');
  await box.fill(unanswerable);
  const [unanswered] = await Promise.all([
    page.waitForResponse((r) => r.url().endsWith('/api/v1/query/stream') && r.request().method() === 'POST', { timeout: 60_000 }),
    box.press('Enter'),
  ]);
  check(unanswered.status() === 200, `query returned HTTP ${unanswered.status()}`);
  const notCovered = await finalAnswer(unanswered);
  check(notCovered.covered === false, `"${unanswerable}" came back covered (coverage value ` +
    `${notCovered.coverage?.value?.toFixed?.(3)}, threshold ${notCovered.coverage?.threshold})`);
  await page.getByRole('heading', { name: `${t('answer.questionPrefix')}${unanswerable}`, exact: true }).waitFor();
  await page.locator('[data-covered="false"]').getByText(t('answer.notCovered'), { exact: true }).waitFor();
  await page.getByText(t('answer.notCoveredText'), { exact: true }).first().waitFor();
  check((await sourcesRegion.count()) === 0, 'a not-covered answer lists sources');
  log(`"${unanswerable}": ${t('answer.notCovered')} (coverage value ${notCovered.coverage?.value?.toFixed?.(3)} < threshold ` +
    `${notCovered.coverage?.threshold})`);
  await axeCheck(page, lang, 'not-covered answer');

  // --- History: both questions, newest first; the first one shown again without asking again.
  const history = page.getByRole('region', { name: t('history.heading', { count: 2 }), exact: true });
  await history.waitFor();
  const entries = history.getByRole('listitem');
  const entryTexts = await entries.allInnerTexts();
  check(entryTexts.length === 2 && entryTexts[0].includes(unanswerable) && entryTexts[1].includes(query.query),
    `history is not newest first: ${entryTexts.map((text) => text.split('\n')[0]).join(' | ')}`);
  // (Badges are upper-cased by CSS, which innerText follows.)
  check(entryTexts[0].toLowerCase().includes(t('answer.notCovered').toLowerCase()) && entryTexts[1].includes(query.expected_qa_id),
    `history entries do not say "${t('answer.notCovered')}" and ${query.expected_qa_id}: ${entryTexts.join(' | ')}`);
  let asked = 0;
  const countQueries = (r) => { if (r.url().endsWith('/api/v1/query/stream')) asked++; };
  page.on('request', countQueries);
  await entries.nth(1).getByRole('button').click();
  await questionHeading.waitFor();
  await page.locator('[data-direct-kind="qa"] [data-direct-question]').waitFor();
  page.off('request', countQueries);
  check(asked === 0, `showing a history entry sent ${asked} query request(s)`);
  check((await entries.nth(1).innerText()).includes(t('history.shown')), `the entry shown again is not marked "${t('history.shown')}"`);
  log('history: 2 questions, newest first; the first answer shown again without a request');

  const leaked = apiRequests.filter((r) => [memberKey, readerKey, adminKey].some((k) => k && r.url.includes(k)));
  check(leaked.length === 0, `a key was sent in a URL: ${leaked.map((r) => r.url).join(', ')}`);
  const unsigned = apiRequests.filter((r) => !r.auth.startsWith('Bearer lgk_'));
  check(unsigned.length === 0, `API requests without the key: ${unsigned.map((r) => r.url).join(', ')}`);
  page.off('request', onRequest);

  // --- Sign out; sign in as a reader of the same department: the document is there, but no upload
  // and no delete control.
  await signOut(page, t);
  const reader = await signIn(page, t, readerKey);
  check(reader.role === 'reader', `signed in as a ${reader.role}, expected reader: "${reader.text}"`);
  check(reader.department === member.department,
    `the reader's department (${reader.department}) is not the member's (${member.department})`);
  log(`signed in as a reader: "${reader.text}"`);
  await openRagDatabase(page, t);
  const readerRow = page.getByRole('article', { name: FILENAME, exact: true }).first();
  await readerRow.waitFor();
  await page.getByText(t('database.readOnly'), { exact: true }).waitFor();
  check((await page.getByRole('heading', { name: t('upload.title'), exact: true }).count()) === 0, 'a reader sees the upload panel');
  check((await page.getByRole('button', { name: t('upload.choose'), exact: true }).count()) === 0, 'a reader sees "Choose files…"');
  check((await page.locator('input[type="file"]').count()) === 0, 'a reader has a file input');
  check((await page.getByRole('button', { name: t.starts('documents.deleteLabel') }).count()) === 0, 'a reader sees a delete button');
  await readerRow.getByRole('button', { name: t('documents.showChunksOf', { name: FILENAME }), exact: true }).click();
  await readerRow.getByRole('list', { name: t('chunks.list', { name: FILENAME }), exact: true }).locator('article').first().waitFor();
  check((await page.getByRole('button', { name: t.starts('chunks.deleteLabel') }).count()) === 0, 'a reader sees a chunk delete button');
  await page.evaluate(() => window.scrollTo(0, 0));
  await screenshot(page, shot('rag-database-reader', 1280), SHOT_WIDE);
  await page.setViewportSize(WIDE);
  log('a reader sees the document and no upload or delete control');

  if (!adminKey) {
    log('LEGCO_E2E_ADMIN_KEY not set: admin checks skipped');
    await signOut(page, t);
    return;
  }
  // --- Sign in as the admin: a department filter on the RAG Database page, and the Keys page.
  await signOut(page, t);
  const admin = await signIn(page, t, adminKey);
  check(admin.role === 'admin', `signed in as a ${admin.role}, expected admin: "${admin.text}"`);
  await openRagDatabase(page, t);
  const memberDepartment = member.department;
  const filter = page.getByRole('combobox', { name: t.starts('filters.department') });
  await page.getByRole('article', { name: FILENAME, exact: true }).first().waitFor();
  const options = await filter.locator('option').allTextContents();
  check(options.includes(memberDepartment), `department filter options ${options.join(', ')} lack ${memberDepartment}`);
  check(options.includes(t('filters.allDepartments')), `department filter lacks "${t('filters.allDepartments')}"`);
  await Promise.all([
    page.waitForResponse((r) => r.url().includes(`/api/v1/documents?department=${encodeURIComponent(memberDepartment)}`)),
    filter.selectOption(memberDepartment),
  ]);
  await page.getByRole('article', { name: FILENAME, exact: true }).first().waitFor();
  log(`admin filter: ${options.length - 1} departments, ${memberDepartment} shows ${FILENAME}`);

  await mainNav(page, t).getByRole('link', { name: t('nav.keys.label'), exact: true }).click();
  await page.waitForURL(`${base}/keys`);
  const table = page.getByRole('table', { name: t('nav.keys.label'), exact: true });
  await table.waitFor();
  await checkHtmlLang(page, t, 'Keys');
  for (const key of [memberKey, readerKey, adminKey]) {
    await table.getByText(prefixOf(key), { exact: true }).waitFor();
  }
  await axeCheck(page, lang, 'Keys');
  await checkPhone(page, shot('keys'));
  await page.setViewportSize(WIDE);
  check(!(await table.innerText()).includes('lgk_'), 'the key table shows a whole key');
  const form = page.getByRole('form', { name: t('keys.create'), exact: true });
  await form.getByRole('combobox', { name: t.starts('keys.department') }).fill(memberDepartment);
  await form.getByRole('combobox', { name: t.starts('keys.role') }).selectOption('reader');
  await form.getByRole('textbox', { name: t.starts('keys.label') }).fill('ui-e2e temporary');
  await form.getByRole('button', { name: t('keys.createSubmit'), exact: true }).click();
  const dialog = page.getByRole('dialog', { name: t('keys.newKey'), exact: true });
  await dialog.waitFor();
  const created = await dialog.getByRole('textbox', { name: t('signIn.keyLabel'), exact: true }).inputValue();
  await axeCheck(page, lang, 'new key dialog');
  check(/^lgk_[0-9a-f]{8}_\S+$/.test(created), `the new key looks wrong: ${created.slice(0, 14)}…`);
  await dialog.getByText(t('keys.copyNowText'), { exact: true }).waitFor();
  await dialog.getByRole('button', { name: t('keys.done'), exact: true }).click();
  await dialog.waitFor({ state: 'detached' });
  const createdRow = table.getByRole('row').filter({ hasText: prefixOf(created) });
  await createdRow.waitFor();
  await createdRow.getByRole('button', { name: t('keys.revokeLabel', { prefix: prefixOf(created) }), exact: true }).click();
  const confirm = page.getByRole('dialog', { name: t('keys.revokeTitle'), exact: true });
  await confirm.waitFor();
  await axeCheck(page, lang, 'revoke confirmation dialog');
  await confirm.getByRole('button', { name: t('keys.revoke'), exact: true }).click();
  await createdRow.getByText(t.starts('keys.revoked')).waitFor();
  const revoked = await page.request.get(`${base}/api/v1/whoami`, { headers: { Authorization: `Bearer ${created}` } });
  check(revoked.status() === 401, `the revoked key still answers HTTP ${revoked.status()}`);
  await page.evaluate(() => window.scrollTo(0, 0));
  await screenshot(page, shot('keys', 1280), SHOT_WIDE);
  await page.setViewportSize(WIDE);
  log(`keys page: created ${prefixOf(created)} (shown once), revoked it, its next request got 401`);
  await operationsChecks(page, t, shot);
  await signOut(page, t);
}

// --- The Operations page (admin): live charts from Prometheus through the gateway, dead letters.

/** The first line colour of the charts (`SERIES_COLORS[0]` in src/lib/opsChart.ts) as RGB. */
const FIRST_SERIES_RGB = [0x19, 0x71, 0xc2];
/** How long the charts may take to show a series (Prometheus scrapes every 5 s; a fresh stack needs two). */
const chartsTimeoutMs = Number(process.env.UI_E2E_CHARTS_TIMEOUT_S || 120) * 1000;
/** A dead-lettered document the test stack holds (tests/e2e/test_ui_e2e.py makes one), by filename. */
const deadLetterFile = process.env.LEGCO_E2E_DEADLETTER_FILENAME || '';

/**
 * As the admin: the Operations link (admins only) opens the page; every panel the gateway lists
 * has a chart; no chart says Prometheus is unavailable; within `chartsTimeoutMs` at least one
 * chart draws a series (its canvas holds pixels of the first series' colour) and the targets-up
 * chart names the gateway's job; the range picker asks the gateway for 15 min every 5 s; the
 * dead-letter list shows the document `deadLetterFile` and its Retry sends it back to its stage
 * (the answer shown in the row). axe on the page, 390 px, screenshots at 1280 and 390 px.
 */
async function operationsChecks(page, t, shot) {
  const lang = t.lang;
  await mainNav(page, t).getByRole('link', { name: t('nav.operations.label'), exact: true }).click();
  await page.waitForURL(`${base}/operations`);
  await page.getByRole('heading', { name: t('ops.title'), exact: true, level: 1 }).waitFor();
  await checkHtmlLang(page, t, 'Operations');
  const listed = await page.request.get(`${base}/api/v1/operations/panels`, { headers: { Authorization: `Bearer ${adminKey}` } });
  check(listed.ok(), `GET /api/v1/operations/panels answered HTTP ${listed.status()}`);
  const panels = (await listed.json()).panels;
  const charts = page.getByTestId('ops-chart');
  await charts.nth(panels.length - 1).waitFor();
  check((await charts.count()) === panels.length, `${await charts.count()} charts for ${panels.length} panels`);

  // Wait for figures; "Refresh" rather than the 15-s interval, at most every 5 s.
  const deadline = Date.now() + chartsTimeoutMs;
  let states = {};
  for (;;) {
    states = await page.evaluate(() => Object.fromEntries([...document.querySelectorAll('[data-testid="ops-chart"]')]
      .map((f) => [f.dataset.panel, f.dataset.state])));
    const down = page.getByTestId('ops-prometheus-down');
    if (await down.count()) {
      const why = await down.innerText();
      throw new CheckFailed(`the Operations page says Prometheus is unavailable (the stack must run Prometheus and give the ` +
        `gateway PROMETHEUS_URL): ${why.replace(/\s+/g, ' ')}`);
    }
    if (Object.values(states).includes('data') && states['targets-up'] === 'data') break;
    check(Date.now() < deadline, `no chart drew a series within ${chartsTimeoutMs / 1000}s: ${JSON.stringify(states)}`);
    await page.waitForTimeout(5000);
    await page.getByRole('button', { name: t('ops.refresh'), exact: true }).click();
  }
  const withData = Object.entries(states).filter(([, s]) => s === 'data').map(([id]) => id);
  const empty = Object.entries(states).filter(([, s]) => s === 'empty').map(([id]) => id);
  check(!Object.values(states).includes('error'), `charts in error: ${JSON.stringify(states)}`);
  // The targets-up chart: a canvas with the first series drawn in its colour, and the gateway's job in the legend.
  const up = page.locator('[data-testid="ops-chart"][data-panel="targets-up"]');
  const legend = await up.getByTestId('ops-legend-item').allInnerTexts();
  check(legend.some((l) => l.includes('gateway')), `the targets-up legend has no gateway job: ${legend.join(' | ')}`);
  const summary = await up.getByTestId('ops-plot').getAttribute('aria-label');
  check(summary?.startsWith(t('ops.panels.targets-up.title')), `the chart's accessible summary is "${summary}"`);

  // The range picker: 15 minutes, a point every 5 s.
  const picker = page.getByRole('radiogroup', { name: t('ops.range.label'), exact: true });
  await Promise.all([
    page.waitForResponse((r) => r.url().includes('/series?range_s=900&step_s=5') && r.ok()),
    picker.getByText(t('ops.range.15m'), { exact: true }).click(),
  ]);
  await page.waitForURL(/[?&]range=15m/);
  await up.getByTestId('ops-plot').waitFor();
  // A series drawn: pixels of the first series' colour on the targets-up canvas (axes and grid are
  // grey). A Prometheus started with the stack has a minute or two of samples: at 15 min the line
  // is long enough; "Refresh" until it is, within the same wait.
  const drawnPixels = () => up.locator('canvas').evaluate((canvas, rgb) => {
    const ctx = canvas.getContext('2d');
    const { data } = ctx.getImageData(0, 0, canvas.width, canvas.height);
    let n = 0;
    for (let i = 0; i < data.length; i += 4) {
      if (Math.abs(data[i] - rgb[0]) < 12 && Math.abs(data[i + 1] - rgb[1]) < 12 && Math.abs(data[i + 2] - rgb[2]) < 12) n++;
    }
    return { n, width: canvas.width, height: canvas.height };
  }, FIRST_SERIES_RGB);
  let drawn = await drawnPixels();
  while (drawn.n < 20) {
    check(Date.now() < deadline, `the targets-up canvas (${drawn.width}×${drawn.height}) holds ${drawn.n} pixels of the ` +
      `first series' colour after ${chartsTimeoutMs / 1000}s`);
    await page.waitForTimeout(5000);
    await page.getByRole('button', { name: t('ops.refresh'), exact: true }).click();
    await page.waitForTimeout(1000);
    drawn = await drawnPixels();
  }
  log(`operations: ${panels.length} charts; with data: ${withData.join(', ')}; no data yet: ${empty.join(', ') || 'none'}; ` +
    `targets-up drew ${drawn.n} px of its first series; legend: ${legend.join(' | ').replace(/\s+/g, ' ')}`);

  // The dead letters: the stack's dead-lettered document, and Retry.
  const table = page.getByRole('table', { name: t('ops.deadLetters.title'), exact: true });
  if (deadLetterFile) {
    await table.waitFor();
    const row = table.getByRole('row').filter({ hasText: deadLetterFile }).first();
    await row.waitFor();
    await Promise.all([
      page.waitForResponse((r) => r.url().endsWith('/api/v1/deadletters/replay') && r.request().method() === 'POST'),
      row.getByRole('button', { name: t('ops.deadLetters.retryLabel', { name: deadLetterFile }), exact: true }).click(),
    ]);
    const result = row.getByTestId('ops-replay-result');
    await result.filter({ hasText: /\S/ }).waitFor();
    const said = (await result.innerText()).trim();
    check(t.rx('ops.deadLetters.replayed', { count: 1 }).test(said), `Retry of ${deadLetterFile} said "${said}"`);
    log(`operations: dead letter ${deadLetterFile} retried: "${said}"`);
  } else {
    await page.getByRole('heading', { name: t('ops.deadLetters.title'), exact: true }).waitFor();
    log('operations: LEGCO_E2E_DEADLETTER_FILENAME not set: the dead-letter list is not retried');
  }
  // While "Refresh" runs (a loader beside its text) it must keep its name: axe with it spinning too.
  await page.getByRole('button', { name: t('ops.refresh'), exact: true }).click();
  await axeCheck(page, lang, 'Operations');
  await page.evaluate(() => window.scrollTo(0, 0));
  await screenshot(page, shot('operations', 1280), SHOT_WIDE);
  // The whole page (every chart), and the dead-letter section with its retried row.
  const full = path.join(outDir, shot('operations-full', 1280));
  await page.screenshot({ path: full, fullPage: true });
  log(`screenshot ${full}`);
  const section = path.join(outDir, shot('operations-deadletters', 1280));
  await page.locator('#dead-letters').screenshot({ path: section });
  log(`screenshot ${section}`);
  await page.evaluate(() => window.scrollTo(0, 0));
  await checkPhone(page, shot('operations'));
  // At a phone's width the charts are redrawn to fit.
  await page.waitForFunction(() => {
    const c = document.querySelector('[data-panel="targets-up"] canvas');
    return c && c.getBoundingClientRect().right <= window.innerWidth;
  }, null, { timeout: 10_000 }).catch(() => {});
  const phoneCanvas = await up.locator('canvas').evaluate((c) => c.getBoundingClientRect().right);
  check(phoneCanvas <= PHONE.width, `the targets-up chart reaches ${phoneCanvas}px at ${PHONE.width}px`);
  const chart390 = path.join(outDir, shot('operations-chart', 390));
  await up.screenshot({ path: chart390 });
  log(`screenshot ${chart390}`);
  await page.setViewportSize(WIDE);
}

/**
 * Pick `t`'s language with the header's switcher (signed in): the interface, `<html lang>` and the
 * stored choice follow, and a reload keeps it although the browser prefers another language.
 */
async function switchLanguage(page, from, t) {
  const switcher = page.getByTestId('language-switcher');
  check((await switcher.getAttribute('aria-label')) === from('language.label'), `the switcher is not named "${from('language.label')}"`);
  await switcher.selectOption(t.lang);
  await mainNav(page, t).waitFor();
  await checkHtmlLang(page, t, 'after the switch');
  check((await switcher.getAttribute('aria-label')) === t('language.label'), `the switcher's name did not follow to ${t.lang}`);
  const stored = await page.evaluate(() => localStorage.getItem('legco.language'));
  check(stored === t.lang, `the choice is stored as ${stored}, expected ${t.lang}`);
  await page.reload();
  await mainNav(page, t).waitFor();
  await checkHtmlLang(page, t, 'after a reload');
  check((await switcher.inputValue()) === t.lang, `after a reload the switcher shows ${await switcher.inputValue()}`);
  const browser = await page.evaluate(() => navigator.languages.join(','));
  log(`language switched from ${from.lang} to ${t.lang} with the switcher; remembered over a reload (browser prefers ${browser})`);
  await signOut(page, t);
}

// --- Keyboard alone (issue 13): Tab / Shift+Tab / Enter / Escape / typing only — no click, no fill.

/** A plain-text fixture the keyboard run uploads (and deletes): not FILENAME, so nothing is replaced. */
const KEYBOARD_FILENAME = 'E_基礎設施.txt';
const keyboardPath = path.join(corpus, 'fixtures', KEYBOARD_FILENAME);

/**
 * The focused element (`document.activeElement`): a short description, whether it is `target`
 * (an element handle, or null), and its focus indicator — a computed outline (style not none, width
 * above 0 px) or box-shadow (not none) — on a box of some size.
 */
const focusState = (page, target) => page.evaluate((el) => {
  const a = document.activeElement;
  if (!a || a === document.body || a === document.documentElement) return { body: true, hit: false };
  const s = getComputedStyle(a);
  const box = a.getBoundingClientRect();
  const outline = s.outlineStyle !== 'none' && parseFloat(s.outlineWidth) > 0;
  const shadow = Boolean(s.boxShadow) && s.boxShadow !== 'none';
  const name = (a.getAttribute('aria-label') || a.textContent || a.getAttribute('name') || '').replace(/\s+/g, ' ').trim().slice(0, 40);
  return {
    body: false,
    hit: a === el,
    ring: (outline || shadow) && box.width > 0 && box.height > 0,
    style: outline ? `outline ${s.outlineWidth} ${s.outlineStyle} ${s.outlineColor}` : shadow ? `box-shadow ${s.boxShadow}` : 'none',
    desc: `<${a.tagName.toLowerCase()}${a.getAttribute('role') ? ` role=${a.getAttribute('role')}` : ''}> "${name}"`,
  };
}, target);

/** The focused element shows a focus indicator (`where`: for the message); returns its state. */
async function checkFocusRing(page, target, where) {
  const at = await focusState(page, target);
  check(!at.body, `keyboard: ${where}: nothing is focused`);
  check(at.ring, `keyboard: ${where}: the focused ${at.desc} has no visible focus indicator (outline and box-shadow none)`);
  return at;
}

/**
 * Press Tab (Shift+Tab with `back`) until `target` (a locator) has the focus, checking at every
 * stop that the focused element shows a focus indicator; returns the number of presses.
 */
async function tabTo(page, target, what, { back = false, max = 80 } = {}) {
  await target.waitFor();
  const handle = await target.elementHandle();
  const key = back ? 'Shift+Tab' : 'Tab';
  const stops = [];
  for (let n = 1; n <= max; n++) {
    await page.keyboard.press(key);
    const at = await focusState(page, handle);
    if (!at.body) {
      check(at.ring, `keyboard: ${at.desc} (${key} ${n} on the way to ${what}) has no visible focus indicator ` +
        '(outline and box-shadow none)');
      stops.push(at.desc);
    }
    if (at.hit) {
      log(`keyboard: ${what} focused after ${n} ${key} (${at.style})`);
      return n;
    }
  }
  throw new CheckFailed(`keyboard: ${what} not reached with ${max} ${key}; the stops: ${stops.slice(-12).join(' → ')}`);
}

/**
 * How long the keyboard part waits for what a key press starts (the file chooser, the list of
 * files, an API answer): 90 s, longer when the machine is loaded (the 1-minute load average per
 * core above 1 scales it). On 2 shared cores a CI run's file chooser once took more than 30 s.
 */
function keyboardWaitMs() {
  const perCore = loadavg()[0] / Math.max(1, cpus().length);
  return Math.round(90_000 * Math.max(1, Math.min(perCore, 3)));
}

/** `target` (a locator) has the focus within `timeout` ms (Playwright's toBeFocused), or the run fails. */
async function expectFocused(page, target, what, timeout = 10_000) {
  const handle = await target.elementHandle();
  try {
    await page.waitForFunction((el) => el === document.activeElement, handle, { timeout });
  } catch (err) {
    if (!(err instanceof playwrightErrors.TimeoutError)) throw err;
    const at = await focusState(page, handle);
    throw new CheckFailed(`keyboard: ${what} does not have the focus (${at.body ? 'the page has it' : at.desc})`);
  }
}

/**
 * Collect the page's file choosers from now on (`stop()` ends it). Playwright intercepts them once
 * a listener exists; the listener is set before any key press (the interception is switched on
 * asynchronously), so a chooser, even a late one, is never lost to the browser's own dialog.
 */
function collectChoosers(page) {
  const choosers = [];
  const keep = (chooser) => choosers.push(chooser);
  page.on('filechooser', keep);
  return { choosers, stop: () => page.off('filechooser', keep) };
}

/**
 * Open the file chooser with Enter on `button` ("Choose files…", a native button), the focus checked
 * on it first; returns the chooser (from `collected`, see collectChoosers) and the Enter presses it
 * took. If none came within a third of the wait, Enter is pressed once more (the focus checked
 * again) and the full wait follows: if the keyboard cannot open the chooser, the run fails.
 */
async function chooserByKeyboard(page, collected, button, what) {
  const { choosers } = collected;
  const full = keyboardWaitMs();
  const waits = [Math.round(full / 3), full];
  for (const [i, wait] of waits.entries()) {
    await expectFocused(page, button, what);
    const seen = choosers.length;
    await page.keyboard.press('Enter');
    for (const end = Date.now() + wait; choosers.length === seen && Date.now() < end;) await page.waitForTimeout(200);
    if (choosers.length > seen) return { chooser: choosers[seen], presses: i + 1 };
    log(`keyboard: no file chooser ${(wait / 1000).toFixed(0)} s after Enter ${i + 1} on ${what} ` +
      `(load ${loadavg()[0].toFixed(1)} on ${cpus().length} cores)${i + 1 < waits.length ? '; Enter once more' : ''}`);
  }
  throw new CheckFailed(`keyboard: Enter on ${what} opened no file chooser (${waits.length} presses, ` +
    `${waits.reduce((a, b) => a + b, 0) / 1000} s)`);
}

/**
 * After a change of page (or signing in) the focus is on the page's name, out of view before the
 * skip link (`title`: the page's h1); the next Tab is "Skip to main content" (the page's first Tab
 * stop, in view once focused), Enter puts the focus on <main>, the URL unchanged. Returns the Tab
 * presses (1).
 */
async function skipToMain(page, t, title) {
  const announcer = page.getByTestId('page-announcer');
  await expectFocused(page, announcer, `the page's name "${title}" (after the change of page)`);
  const said = (await announcer.textContent())?.trim();
  check(said === title, `the focus is on the page's name "${said}", not "${title}"`);
  const url = page.url();
  const skip = page.getByRole('link', { name: t('app.skipToMain'), exact: true });
  const tabs = await tabTo(page, skip, `"${t('app.skipToMain')}"`, { max: 1 });
  const firstStop = await page.evaluate(() => {
    const tabbable = [...document.querySelectorAll('a[href], button, input, select, textarea, [tabindex]')]
      .filter((e) => e.tabIndex >= 0 && !e.disabled && e.getClientRects().length > 0);
    return { text: tabbable[0]?.textContent?.trim() ?? null };
  });
  check(firstStop.text === t('app.skipToMain'), `the page's first Tab stop is "${firstStop.text}", not "${t('app.skipToMain')}"`);
  const skipBox = await skip.boundingBox();
  check(skipBox && skipBox.y >= 0 && skipBox.x >= 0 && skipBox.width > 0,
    `"${t('app.skipToMain')}" is out of view while focused: ${JSON.stringify(skipBox)}`);
  await page.keyboard.press('Enter');
  await expectFocused(page, page.getByRole('main'), 'the main region (after "Skip to main content")');
  check(page.url() === url, `"${t('app.skipToMain')}" changed the URL to ${page.url()}`);
  return tabs;
}

/**
 * Sign in as the member, upload KEYBOARD_FILENAME, ask a question, open a source's viewer and
 * delete the upload again with the keyboard alone (in the language of `t`), counting the Tab presses.
 */
async function keyboardOnly(page, t) {
  check(existsSync(keyboardPath), `corpus fixture not found: ${keyboardPath}`);
  const tabs = {};
  const nav = (key) => mainNav(page, t).getByRole('link', { name: t(`nav.${key}.label`), exact: true });

  // --- Sign in: the key field has the focus from the start.
  await page.goto(`${base}/`);
  await page.getByRole('heading', { name: t('signIn.title'), exact: true }).waitFor();
  const keyField = page.getByLabel(t.starts('signIn.keyLabel'));
  await keyField.waitFor();
  tabs.signIn = (await keyField.evaluate((e) => e === document.activeElement)) ? 0 : await tabTo(page, keyField, 'the key field');
  await checkFocusRing(page, null, 'the key field');
  await page.keyboard.type(memberKey);
  await page.keyboard.press('Enter');
  await mainNav(page, t).waitFor();
  await page.getByRole('heading', { name: t('ltt.title'), exact: true }).waitFor();
  // The focus on the page's name, before the skip link: the first Tab is "Skip to main content".
  const announcer = page.getByTestId('page-announcer');
  await expectFocused(page, announcer, `the page's name (after signing in)`);
  const skip = page.getByRole('link', { name: t('app.skipToMain'), exact: true });
  tabs.upload = await tabTo(page, skip, `"${t('app.skipToMain')}" (after signing in)`, { max: 1 });

  // --- 1. Upload: the nav link, past the dropzone (its name checked) to "Choose files…" (a native
  // button: Enter opens the file chooser), then "Upload".
  const wait = keyboardWaitMs();
  const collected = collectChoosers(page);
  tabs.upload += await tabTo(page, nav('ragDatabase'), `"${t('nav.ragDatabase.label')}"`);
  await page.keyboard.press('Enter');
  await page.waitForURL(`${base}/rag-database`, { timeout: wait });
  await page.getByRole('heading', { name: t('database.title'), level: 1, exact: true }).waitFor({ timeout: wait });
  tabs.upload += await skipToMain(page, t, t('database.title'));
  const dropzone = page.locator('.mantine-Dropzone-root');
  tabs.upload += await tabTo(page, dropzone, 'the dropzone');
  const dropName = await dropzone.getAttribute('aria-label');
  check(t.rx('upload.dropTypes').test(dropName ?? '') || dropName === t('upload.drop'), `the dropzone is named "${dropName}"`);
  const chooseButton = page.getByRole('button', { name: t('upload.choose'), exact: true });
  tabs.upload += await tabTo(page, chooseButton, `"${t('upload.choose')}"`);
  const { chooser, presses } = await chooserByKeyboard(page, collected, chooseButton, `"${t('upload.choose')}"`)
    .finally(collected.stop);
  await chooser.setFiles(keyboardPath);
  await page.getByRole('list', { name: t('upload.ready'), exact: true }).getByText(KEYBOARD_FILENAME, { exact: true })
    .waitFor({ timeout: wait });
  const uploadButton = page.getByRole('button', { name: t('upload.upload'), exact: true });
  tabs.upload += await tabTo(page, uploadButton, `"${t('upload.upload')}"`);
  await expectFocused(page, uploadButton, `"${t('upload.upload')}"`);
  const [ingest] = await Promise.all([
    page.waitForResponse((r) => r.url().includes('/api/v1/ingest') && r.request().method() === 'POST', { timeout: wait }),
    page.keyboard.press('Enter'),
  ]);
  check(ingest.status() === 202, `keyboard upload returned HTTP ${ingest.status()}: ${await ingest.text()}`);
  const { document_id: documentId } = await ingest.json();
  const row = documentRow(page, documentId);
  const status = row.getByTestId('status-badge');
  const ended = new RegExp(`^(${escapeRx(t('documents.status.indexed'))}|${escapeRx(t('documents.status.failed'))})$`);
  await status.filter({ hasText: ended }).waitFor({ timeout: indexTimeoutMs });
  check((await status.textContent())?.trim() === t('documents.status.indexed'),
    `${KEYBOARD_FILENAME} ended as ${(await status.textContent())?.trim()}`);
  // "Upload" was disabled while it worked: the focus must not be lost to the page, but be on "Choose files…".
  const choose = await page.getByRole('button', { name: t('upload.choose'), exact: true }).elementHandle();
  const afterUpload = await focusState(page, choose);
  check(afterUpload.hit, `after the upload the focus is on ${afterUpload.body ? 'the page (lost)' : afterUpload.desc}, ` +
    `not on "${t('upload.choose')}"`);
  log(`keyboard: uploaded ${KEYBOARD_FILENAME} as ${documentId}, indexed; the file chooser opened with ` +
    `${presses === 1 ? 'one Enter' : `${presses} Enter presses`}; the focus on "${t('upload.choose')}"; ${tabs.upload} Tab presses`);

  // --- 2. Ask: back to the LTT link (Shift+Tab), then the question box; type, Enter.
  tabs.ask = await tabTo(page, nav('ltt'), `"${t('nav.ltt.label')}"`, { back: true });
  await page.keyboard.press('Enter');
  await page.waitForURL(`${base}/`);
  await page.getByRole('heading', { name: t('ltt.title'), level: 1, exact: true }).waitFor();
  tabs.ask += await skipToMain(page, t, t('ltt.title'));
  const box = page.getByRole('textbox', { name: t('ask.question'), exact: true });
  tabs.ask += await tabTo(page, box, 'the question box');
  // E's first truth query (Chinese, as the paper: an English one may not be covered), typed.
  const query = truth.queries[0];
  await page.keyboard.type(query.query);
  check((await box.inputValue()) === query.query, `the question box holds "${await box.inputValue()}"`);
  const [answer] = await Promise.all([
    page.waitForResponse((r) => r.url().endsWith('/api/v1/query/stream') && r.request().method() === 'POST', { timeout: 60_000 }),
    page.keyboard.press('Enter'),
  ]);
  check(answer.status() === 200, `keyboard query returned HTTP ${answer.status()}`);
  check((await finalAnswer(answer)).covered !== false, `"${query.query}" came back not covered`);
  await page.getByRole('heading', { name: `${t('answer.questionPrefix')}${query.query}`, exact: true }).waitFor();
  const sourcesRegion = page.getByRole('region', { name: t.rx('sources.heading', { title: t('sources.title') }) });
  const firstSource = sourcesRegion.getByRole('listitem').first();
  await firstSource.waitFor();
  log(`keyboard: asked "${query.query}" with Enter; answered with ${await sourcesRegion.getByRole('listitem').count()} sources; ` +
    `${tabs.ask} Tab presses`);

  // --- 3. Open a source: Tab to the first source's "View", Enter; the viewer with its highlight;
  // Escape closes it and the focus is back on "View".
  const view = firstSource.getByRole('button', { name: t.rx('sources.view') });
  tabs.view = await tabTo(page, view, 'the first source\'s "View"');
  const viewHandle = await view.elementHandle();
  await page.keyboard.press('Enter');
  const viewer = page.getByRole('dialog');
  await viewer.waitFor();
  const mark = viewer.locator('[data-testid="highlight"], [data-testid="cited-passage"]').first();
  await mark.waitFor({ timeout: 30_000 });
  const kind = await mark.getAttribute('data-testid');
  const inDialog = await checkFocusRing(page, null, 'the focus inside the viewer');
  check(await viewer.evaluate((d) => d.contains(document.activeElement)), `the viewer opened with the focus outside it, on ${inDialog.desc}`);
  await page.keyboard.press('Escape');
  await viewer.waitFor({ state: 'detached' });
  const back = await focusState(page, viewHandle);
  check(back.hit, `after Escape the focus is on ${back.body ? 'the page' : back.desc}, not on the "View" that opened the viewer`);
  check(back.ring, `after Escape "View" has the focus but no visible focus indicator`);
  log(`keyboard: the viewer opened with Enter (${kind === 'highlight' ? 'PDF page, highlighted lines' : 'text, the passage marked'}; ` +
    `focus on ${inDialog.desc}), closed with Escape, the focus back on "View" (${back.style}); ${tabs.view} Tab presses`);

  // --- 4. Delete: back to the RAG Database link (Shift+Tab), Tab to the upload's delete button,
  // Enter; in the confirmation the focus is on Cancel, Tab to Delete, Enter.
  tabs.delete = await tabTo(page, nav('ragDatabase'), `"${t('nav.ragDatabase.label')}"`, { back: true });
  await page.keyboard.press('Enter');
  await page.waitForURL(`${base}/rag-database`);
  // Past the header with "Skip to main content", the next Tab from the page's name.
  await page.getByRole('heading', { name: t('database.title'), level: 1, exact: true }).waitFor();
  tabs.delete += await skipToMain(page, t, t('database.title'));
  const remove = row.getByRole('button', { name: t('documents.deleteLabel', { name: KEYBOARD_FILENAME }), exact: true });
  tabs.delete += await tabTo(page, remove, `"${t('documents.deleteLabel', { name: KEYBOARD_FILENAME })}"`);
  await page.keyboard.press('Enter');
  const confirm = page.getByRole('dialog', { name: t('documents.deleteTitle'), exact: true });
  await confirm.waitFor();
  const cancel = confirm.getByRole('button', { name: t('common.cancel'), exact: true });
  await page.waitForFunction((b) => b === document.activeElement, await cancel.elementHandle());
  await checkFocusRing(page, null, `"${t('common.cancel')}" in the confirmation`);
  tabs.delete += await tabTo(page, confirm.getByRole('button', { name: t('common.delete'), exact: true }), `"${t('common.delete')}"`, { max: 10 });
  const [deleted] = await Promise.all([
    page.waitForResponse((r) => r.url().includes(`/api/v1/documents/${documentId}`) && r.request().method() === 'DELETE'),
    page.keyboard.press('Enter'),
  ]);
  check(deleted.ok(), `keyboard delete returned HTTP ${deleted.status()}`);
  await confirm.waitFor({ state: 'detached' });
  await row.waitFor({ state: 'detached' });
  log(`keyboard: ${KEYBOARD_FILENAME} deleted (HTTP ${deleted.status()}), its row gone; ${tabs.delete} Tab presses`);
  log(`keyboard only [${t.lang}]: Tab presses — sign-in ${tabs.signIn}, upload ${tabs.upload}, ask ${tabs.ask}, ` +
    `open a source ${tabs.view}, delete ${tabs.delete}; every stop showed a focus indicator`);
  await signOut(page, t);
}

async function main() {
  check(existsSync(executablePath), `Chromium not found at ${executablePath} (run scripts/deps.sh browser)`);
  check(existsSync(pdfPath), `corpus fixture not found: ${pdfPath}`);
  check(memberKey.startsWith('lgk_') && readerKey.startsWith('lgk_'),
    'LEGCO_E2E_MEMBER_KEY and LEGCO_E2E_READER_KEY must hold API keys (lgk_…)');
  check(LANGUAGES.length > 0, 'UI_E2E_LANGUAGES names no language');
  mkdirSync(outDir, { recursive: true });
  const translators = LANGUAGES.map(translator);
  // The keyboard-only part runs once, in English when it is one of the languages (else the last).
  const keyboardLang = LANGUAGES.includes('en') ? 'en' : LANGUAGES[LANGUAGES.length - 1];

  const profile = mkdtempSync(path.join(tmpdir(), 'legco-ui-e2e-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath,
    headless: true,
    viewport: WIDE,
    // The browser prefers the first language: the app must pick it without a stored choice.
    locale: LANGUAGES[0] === 'en' ? 'en-HK' : LANGUAGES[0],
    timezoneId: 'Asia/Hong_Kong',
    acceptDownloads: true,
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

  const state = { documentId: null };
  const took = {};
  try {
    for (const [i, t] of translators.entries()) {
      const started = Date.now();
      log(`=== interface language ${t.lang}${i === 0 ? ' (the browser\'s; uploads the fixture)' : ''}`);
      if (i > 0) {
        // Signed in again (the reader's key: any key will do) to reach the header's switcher.
        const from = translators[i - 1];
        await page.goto(`${base}/`);
        await signIn(page, from, readerKey);
        await switchLanguage(page, from, t);
      }
      await run(page, t, state, i === 0);
      if (t.lang === keyboardLang) await keyboardOnly(page, t);
      took[t.lang] = (Date.now() - started) / 1000;
      log(`=== ${t.lang}: every check passed in ${took[t.lang].toFixed(0)}s`);
    }
    check(pageErrors.length === 0, `uncaught errors in the page:\n${pageErrors.join('\n')}`);
    for (const [lang, totals] of Object.entries(axeTotals)) {
      log(`axe-core [${lang}]: ${totals.checks} pages and dialogs checked, ` +
        `${axeFindings.filter((v) => v.where.startsWith(`${lang} `)).length} critical/serious violation types on ` +
        `${totals.violations} elements; minor: ${[...totals.minor].join(', ') || 'none'}`);
    }
    check(axeFindings.length === 0, `axe-core found critical or serious violations:\n${axeFindings
      .map((v) => `  [${v.where}] ${v.impact} ${v.id} ×${v.count}: ${v.help}\n${v.nodes.map((n) => `      ${n}`).join('\n')}`)
      .join('\n')}`);
    log(`languages: ${Object.entries(took).map(([lang, s]) => `${lang} ${s.toFixed(0)}s`).join(', ')}`);
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
