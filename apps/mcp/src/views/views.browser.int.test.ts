import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/server';
import { type Browser, chromium, type Frame, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { comments, tasks } from '@tt/domain';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../../../../scripts/browser/ensure-chromium.mjs';
import { mcpFixture, type McpFixture } from '../test/fixture.js';
import { bundleScript } from './bundle.js';
import { BOARD_VIEW_URI, TASK_VIEW_URI } from './index.js';
import { HOSTILE_TITLE, seedBoard } from './test/seed.js';

/*
 * The views rendered in headless Chromium, hosted by ext-apps's AppBridge (test/host.ts) in a page, wired to a real
 * MCP gateway on a seeded database: the handshake, what the views show, that person-written text stays text, that a
 * view makes no request of its own, and that its actions reach the database and come back into the view.
 * UPDATE_SCREENSHOTS=1 writes the screenshots docs/mcp.md shows; VIEW_FIGURES=1 prints sizes and render times.
 */

const HOST_URL = 'http://views-host.test/';
const hasBrowser = existsSync(CHROMIUM_PATH);
if (!hasBrowser) {
  console.warn(`views browser test skipped: no Chromium at ${CHROMIUM_PATH} (set CHROMIUM_PATH, or run node scripts/browser/ensure-chromium.mjs to install Debian's package)`);
}

let fx: McpFixture;
let seed: Awaited<ReturnType<typeof seedBoard>>;
let client: Client;
let browser: Browser;
let hostPage: string;

interface Opened {
  page: Page;
  frame: Frame;
  /** Requests any document of the page made, the host page's own load aside. */
  requests: string[];
  errors: string[];
}

/** A fresh page hosting the view of `uri`, opened with the answer of `tool` called with `args`, as a host would. */
async function open(uri: string, tool: string, args: Record<string, unknown>, theme: 'light' | 'dark' = 'light', as = client): Promise<Opened> {
  const page = await browser.newPage({ viewport: { width: 360, height: 800 }, deviceScaleFactor: 1 });
  const opened: Opened = { page, frame: page.mainFrame(), requests: [], errors: [] };
  page.on('request', (r) => {
    if (r.url() !== HOST_URL) opened.requests.push(r.url());
  });
  page.on('pageerror', (e) => opened.errors.push(e.message));
  page.on('console', (m) => {
    if (m.type() === 'error') opened.errors.push(m.text());
  });
  // The host page is served from a made-up origin: a relative URL the view asked for would show up as a request.
  await page.route(HOST_URL, (r) => r.fulfill({ contentType: 'text/html', body: hostPage }));
  await page.exposeFunction('hostCallTool', async (p: { name: string; arguments?: Record<string, unknown> }) => as.callTool({ name: p.name, arguments: p.arguments ?? {} }));
  await page.goto(HOST_URL);
  const html = ((await as.readResource({ uri })).contents[0] as { text: string }).text;
  const result = (await as.callTool({ name: tool, arguments: args })) as CallToolResult;
  await page.evaluate(([h, a, r, t]) => window.openView(h, a, r, t), [html, args, result, theme] as const);
  opened.frame = page.frames().find((f) => f !== page.mainFrame())!;
  return opened;
}

/** Milliseconds from the view's document start to its first render (the view marks it). */
const renderedAt = (f: Frame) => f.evaluate(() => performance.getEntriesByName('view-rendered')[0]?.startTime ?? -1);

const screenshot = async (o: Opened, name: string) => {
  if (process.env.UPDATE_SCREENSHOTS) await o.page.locator('iframe').screenshot({ path: fileURLToPath(new URL(`../../../../docs/img/${name}.png`, import.meta.url)) });
};

describe.skipIf(!hasBrowser)('views in Chromium', () => {
  beforeAll(async () => {
    fx = await mcpFixture();
    seed = await seedBoard(fx.runtime.deps);
    await fx.start();
    client = await fx.connect(seed.token);
    const host = (await bundleScript(fileURLToPath(new URL('./test/host.ts', import.meta.url)))).replace(/<\/(script)/gi, '<\\/$1');
    hostPage = `<!doctype html><html><head><meta charset="utf-8"></head><body style="margin:0"><script>${host}</script></body></html>`;
    browser = await chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args: CHROMIUM_ARGS });
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await fx?.close();
  });

  it('board: the handshake, every card with its key, title, assignees, due date and labels; a title stays text', async () => {
    const o = await open(BOARD_VIEW_URI, 'show_board', { project: 'WEB' });
    try {
      await o.frame.locator('article.card').first().waitFor();
      expect(await o.page.evaluate(() => window.viewInitialized)).toBe(true);
      // The view took the host's context from the handshake: its theme is on the document.
      expect(await o.frame.evaluate(() => document.documentElement.dataset.theme)).toBe('light');
      const cards = await o.frame.locator('article.card').evaluateAll((els) => els.map((e) => ({
        key: e.querySelector('.key')?.textContent, title: e.querySelector('.title')?.textContent, text: e.textContent,
        column: e.closest<HTMLElement>('section.column')?.dataset.column,
      })));
      expect(cards.map((c) => c.key).sort()).toEqual(seed.cards.map((t) => t.key).sort());
      for (const t of seed.cards) expect(cards.find((c) => c.key === t.key)?.column, t.key).toBe(t.statusId);
      const fix = cards.find((c) => c.key === 'WEB-1')!;
      for (const part of ['Fix the login page', '@alice, @bob', 'due 2026-12-01', 'bug', 'web']) expect(fix.text).toContain(part);
      // The markup title is shown as its characters, and ran nothing: no image element, no flag set.
      expect(cards.find((c) => c.key === 'WEB-2')?.title).toBe(HOSTILE_TITLE);
      expect(await o.frame.locator('img').count()).toBe(0);
      expect(await o.frame.evaluate(() => (window as { __pwned?: unknown }).__pwned)).toBeUndefined();
      expect(o.requests).toEqual([]);
      expect(o.errors).toEqual([]);
      await screenshot(o, 'view-board');
      if (process.env.VIEW_FIGURES) console.log(`board view: first render ${Math.round(await renderedAt(o.frame))} ms`);
    } finally {
      await o.page.close();
    }
  });

  it('board: follows the host theme, dark and then light, and its colours', async () => {
    const o = await open(BOARD_VIEW_URI, 'show_board', { project: 'WEB' }, 'dark');
    try {
      await o.frame.locator('article.card').first().waitFor();
      const background = () => o.frame.evaluate(() => getComputedStyle(document.body).backgroundColor);
      const dark = await background();
      await o.page.evaluate(() => window.setHostContext({ theme: 'light' }));
      await o.frame.waitForFunction(() => document.documentElement.dataset.theme === 'light');
      const light = await background();
      const lum = (rgb: string) => rgb.match(/\d+/g)!.slice(0, 3).map(Number).reduce((a, b) => a + b, 0);
      expect(lum(dark)).toBeLessThan(200);
      expect(lum(light)).toBeGreaterThan(600);
      // The host's own colours, when it sends them, win over the view's defaults.
      await o.page.evaluate(() => window.setHostContext({ styles: { variables: { '--color-background-primary': 'rgb(1, 2, 3)' } as never } }));
      await o.frame.waitForFunction(() => getComputedStyle(document.body).backgroundColor === 'rgb(1, 2, 3)');
      // Narrow column: nothing wider than the 360 px frame.
      expect(await o.frame.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
    } finally {
      await o.page.close();
    }
  });

  it('board: a card moved in the view reaches the database and comes back into the view', async () => {
    const o = await open(BOARD_VIEW_URI, 'show_board', { project: 'WEB' });
    try {
      const done = seed.columns.done.id;
      await o.frame.locator('article[data-key="WEB-1"] select').selectOption(done);
      await o.frame.locator(`section[data-column="${done}"] article[data-key="WEB-1"]`).waitFor();
      expect(await o.frame.locator('.status').textContent()).toBe('Moved WEB-1.');
      expect((await tasks.getTask(seed.actor, 'WEB-1', fx.runtime.deps)).statusId).toBe(done);
      expect(o.requests).toEqual([]);
      expect(o.errors).toEqual([]);
    } finally {
      await o.page.close();
    }
  });

  it('board: a move the key may not make shows the tool\'s message and leaves the card where it was', async () => {
    const o = await open(BOARD_VIEW_URI, 'show_board', { project: 'WEB' }, 'light', await fx.connect(seed.readOnlyToken));
    try {
      const progress = seed.columns.progress.id;
      await o.frame.locator('article[data-key="WEB-2"] select').selectOption(progress);
      await o.frame.locator('.status.error').waitFor();
      expect(await o.frame.locator('.status').textContent()).toMatch(/^insufficient_scope: move_task needs the right tasks:write/);
      expect(await o.frame.locator(`section[data-column="${seed.columns.todo.id}"] article[data-key="WEB-2"]`).count()).toBe(1);
      expect((await tasks.getTask(seed.actor, 'WEB-2', fx.runtime.deps)).statusId).toBe(seed.columns.todo.id);
      expect(o.errors).toEqual([]);
    } finally {
      await o.page.close();
    }
  });

  it('task: title, properties, checklist and latest comments; a tick and a comment reach the database and come back', async () => {
    const o = await open(TASK_VIEW_URI, 'get_task', { task: seed.notes.key });
    try {
      await o.frame.locator('ul.checklist').waitFor();
      expect(await o.frame.locator('h1').textContent()).toBe('Write the release notes');
      const props = await o.frame.locator('dl').textContent();
      for (const part of ['ColumnIn Progress', 'Assignees@bob', 'Due2026-12-15', 'ProjectWEB · Website']) expect(props).toContain(part);
      const items = o.frame.locator('ul.checklist input');
      expect(await items.evaluateAll((els) => els.map((e) => (e as HTMLInputElement).checked))).toEqual([true, false, false]);
      expect(await o.frame.locator('.comment .text').allTextContents()).toEqual([`Looks good; ${HOSTILE_TITLE}`, 'First draft is in the doc.']);
      expect(await o.frame.locator('img').count()).toBe(0);
      await screenshot(o, 'view-task');
      if (process.env.VIEW_FIGURES) console.log(`task view: first render ${Math.round(await renderedAt(o.frame))} ms`);

      await items.nth(1).check();
      await o.frame.locator('.status', { hasText: 'Saved.' }).waitFor();
      const saved = await tasks.getTask(seed.actor, seed.notes.key, fx.runtime.deps);
      expect(saved.checklist.map((i) => [i.text, i.done])).toEqual([['Draft', true], ['Review', true], ['Publish', false]]);
      expect(await o.frame.locator('ul.checklist input').evaluateAll((els) => els.map((e) => (e as HTMLInputElement).checked))).toEqual([true, true, false]);

      await o.frame.locator('textarea').fill('Reviewed <b>in the view</b>');
      await o.frame.locator('form button').click();
      await o.frame.locator('.comment .text', { hasText: 'Reviewed <b>in the view</b>' }).waitFor();
      const page = await comments.listComments(seed.actor, seed.notes.key, { limit: 10 }, fx.runtime.deps);
      expect(page.data.map((c) => c.text)).toContain('Reviewed <b>in the view</b>');
      expect(await o.frame.evaluate(() => (window as { __pwned?: unknown }).__pwned)).toBeUndefined();
      expect(o.requests).toEqual([]);
      expect(o.errors).toEqual([]);
    } finally {
      await o.page.close();
    }
  });
});
