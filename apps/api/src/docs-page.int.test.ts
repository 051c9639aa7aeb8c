import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type ConsoleMessage } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM_ARGS, ensureChromium } from '../../../scripts/browser/ensure-chromium.mjs';
import { DOCS_CSP, swaggerUiDir } from './docs-page.js';
import { startHarness, type Harness } from './test/harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

const get = (path: string, headers: Record<string, string> = {}) => fetch(h.base + path, { headers });

/** Every operation of the served OpenAPI document as `METHOD path`. */
async function operations(): Promise<string[]> {
  const doc = (await get('/v1/openapi.json').then((r) => r.json())) as { paths: Record<string, Record<string, unknown>> };
  return Object.entries(doc.paths).flatMap(([path, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${path}`));
}

describe('GET / and /docs over HTTP', () => {
  it('GET / points to the reference, the OpenAPI document and /health (JSON by default, HTML for browsers)', async () => {
    const json = await get('/');
    expect(json.status).toBe(200);
    expect(json.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await json.json()).toMatchObject({ links: { docs: '/docs', openapi: '/v1/openapi.json', health: '/health' } });

    const html = await get('/', { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' });
    expect(html.headers.get('content-type')).toMatch(/^text\/html/);
    const body = await html.text();
    for (const href of ['/docs', '/v1/openapi.json', '/health']) expect(body).toContain(`href="${href}"`);
  });

  it('GET /docs is an HTML page under a self-only CSP whose assets all come from this server', async () => {
    const page = await get('/docs');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(page.headers.get('content-security-policy')).toBe(DOCS_CSP);
    expect(DOCS_CSP).not.toMatch(/https?:|\*/);
    const html = await page.text();
    const refs = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
    expect(refs.length).toBeGreaterThanOrEqual(4);
    for (const ref of refs) {
      expect(ref.startsWith('/docs/'), ref).toBe(true);
      const asset = await get(ref);
      expect(asset.status, ref).toBe(200);
      expect((await asset.arrayBuffer()).byteLength, ref).toBeGreaterThan(0);
    }
    // The bundle is the installed package's file, byte for byte in size.
    const bundle = await get('/docs/swagger-ui-bundle.js');
    expect(Number(bundle.headers.get('content-length'))).toBe(statSync(join(swaggerUiDir(), 'swagger-ui-bundle.js')).size);
    expect(await get('/docs/init.js').then((r) => r.text())).toContain('validatorUrl: null');
  });

  it('serves no other file of the package', async () => {
    for (const path of ['/docs/package.json', '/docs/swagger-ui-bundle.js.map', '/docs/../package.json', '/docs/index.html']) {
      expect((await get(path)).status, path).toBe(404);
    }
  });
});

// The browser comes from the project's own setup: Debian's chromium, installed with apt-get when missing and allowed.
const browser = ensureChromium({ log: (line) => console.log(line) });
if (browser.skip) console.warn(`docs page browser test skipped: ${browser.skip}`);

describe.skipIf(!browser.path)('GET /docs in headless Chromium', () => {
  it('renders every operation, with no console error and no request leaving this host', { timeout: 120_000 }, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tt-docs-page-'));
    const context = await chromium.launchPersistentContext(join(dir, 'profile'), {
      executablePath: browser.path,
      headless: true,
      args: CHROMIUM_ARGS,
      viewport: { width: 1280, height: 1600 },
    });
    try {
      const page = context.pages()[0] ?? (await context.newPage());
      const requests: string[] = [];
      const errors: string[] = [];
      page.on('request', (r) => requests.push(r.url()));
      page.on('console', (m: ConsoleMessage) => {
        if (m.type() === 'error') errors.push(m.text());
      });
      page.on('pageerror', (e) => errors.push(e.message));

      const res = await page.goto(`${h.base}/docs`, { waitUntil: 'load' });
      expect(res?.status()).toBe(200);
      const expected = await operations();
      await page.locator('.opblock').first().waitFor({ timeout: 30_000 });
      await page.waitForFunction((n) => document.querySelectorAll('.opblock').length >= n, expected.length, { timeout: 30_000 });
      const rendered = await page.$$eval('.opblock', (blocks) =>
        blocks.map((b) => `${b.querySelector('.opblock-summary-method')?.textContent?.trim()} ${b.querySelector('.opblock-summary-path')?.getAttribute('data-path')}`),
      );
      expect(rendered.sort()).toEqual(expected.sort());
      expect(rendered).toContain('GET /v1/tasks');
      expect(rendered).toContain('GET /v1/tasks/{ref}');

      // Open one operation: its parameters and responses render too.
      const op = page.locator('.opblock-get').filter({ has: page.locator('[data-path="/v1/tasks/{ref}"]') }).first();
      await op.locator('.opblock-summary').click();
      await op.locator('.parameters').first().waitFor({ timeout: 10_000 });
      await op.locator('.responses-table').first().waitFor({ timeout: 10_000 });

      const screenshot = join(dir, 'docs-page.png');
      await page.screenshot({ path: screenshot, fullPage: false });
      console.log(`docs page screenshot: ${screenshot} (${rendered.length} operations rendered, ${requests.length} requests)`);

      expect(errors).toEqual([]);
      const outside = requests.filter((u) => {
        const url = new URL(u);
        if (url.protocol === 'data:' || url.protocol === 'blob:') return false;
        return !['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname);
      });
      expect(outside).toEqual([]);
      expect(requests).toContain(`${h.base}/v1/openapi.json`);
    } finally {
      await context.close();
      // Keep the screenshot; the browser profile is of no further use.
      rmSync(join(dir, 'profile'), { recursive: true, force: true });
    }
  });
});
