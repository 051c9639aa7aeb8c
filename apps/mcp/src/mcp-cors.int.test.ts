import http, { type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keys, people, SCOPES } from '@tt/domain';
import { createLogger } from '@tt/http';
import { CHROMIUM_ARGS, ensureChromium } from '../../../scripts/browser/ensure-chromium.mjs';
import { loadConfig } from './config.js';
import { allowedOrigins } from './edge/cors.js';
import { createMcpApp } from './index.js';
import { mcpFixture, type McpFixture } from './test/fixture.js';

/*
 * Browser-based MCP clients: the origins of MCP_ALLOWED_ORIGINS call /mcp cross-origin with CORS; others get no CORS
 * headers (and the host guard's 403 when their host is not allowed either). The last test runs a page of another
 * origin in Chromium, the way a web client would call the gateway.
 */

// PGlite is one connection: the tests of this file run one after another on one runtime.
let fx: McpFixture;
let token: string;
const servers: Server[] = [];
const WEB_APP = 'https://agent.example.com';

async function gateway(origins: string | undefined): Promise<string> {
  const app = createMcpApp({
    runtime: fx.runtime, logger: createLogger('silent', 'test'), trustProxy: false, allowedHosts: ['127.0.0.1', 'localhost'],
    allowedOrigins: allowedOrigins(origins), metrics: false,
  });
  const server = app.listen(0, '127.0.0.1');
  servers.push(server);
  await new Promise((r) => server.once('listening', r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const list = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
const call = (base: string, headers: Record<string, string>, method = 'POST') =>
  fetch(`${base}/mcp`, { method, headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers }, body: method === 'POST' ? list : undefined });

beforeAll(async () => {
  fx = await mcpFixture();
  const ws = await people.createWorkspace({ name: 'Acme', plan: 'business', timezone: 'UTC' }, fx.runtime.deps);
  const alice = await people.createUser(ws.id, { name: 'Alice', login: 'alice', role: '', isAdmin: true }, fx.runtime.deps);
  token = (await keys.issueKey(alice.id, { scopes: [...SCOPES], projectIds: null, expiresAt: null, allowedIps: [] }, fx.runtime.deps)).token;
}, 60_000);

afterAll(async () => {
  for (const s of servers) await new Promise((r) => s.close(r));
  await fx?.close();
});

describe('MCP_ALLOWED_ORIGINS', () => {
  it('is validated at start-up: origins (scheme, host, port) or *, nothing else', () => {
    expect(loadConfig({ MCP_ALLOWED_ORIGINS: 'https://a.example, http://localhost:6274' }).MCP_ALLOWED_ORIGINS).toBeDefined();
    expect(loadConfig({ MCP_ALLOWED_ORIGINS: '*' }).MCP_ALLOWED_ORIGINS).toBe('*');
    for (const bad of ['a.example', 'https://a.example/app', 'ftp://a.example', 'https://a.example?x=1']) {
      expect(() => loadConfig({ MCP_ALLOWED_ORIGINS: bad }), bad).toThrow(/MCP_ALLOWED_ORIGINS/);
    }
    expect(allowedOrigins('https://A.example:443, http://localhost:6274/')).toEqual(new Set(['https://a.example', 'http://localhost:6274']));
  });

  it('answers an allowed origin\'s preflight and request with CORS headers it can read the challenge and limits through', async () => {
    const base = await gateway(`${WEB_APP}, http://localhost:6274`);
    const preflight = await fetch(`${base}/mcp`, {
      method: 'OPTIONS',
      headers: { origin: WEB_APP, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization, content-type, mcp-protocol-version' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe(WEB_APP);
    expect(preflight.headers.get('access-control-allow-headers')).toMatch(/authorization.*content-type.*mcp-protocol-version/);
    expect(preflight.headers.get('access-control-allow-methods')).toMatch(/POST/);
    expect(preflight.headers.get('vary')).toMatch(/Origin/);

    const ok = await call(base, { origin: WEB_APP, authorization: `Bearer ${token}` });
    expect(ok.status).toBe(200);
    expect(ok.headers.get('access-control-allow-origin')).toBe(WEB_APP);
    expect(ok.headers.get('access-control-expose-headers')).toMatch(/www-authenticate.*retry-after.*x-ratelimit-remaining/);
    // The sign-in challenge reaches a browser client too: it starts OAuth from WWW-Authenticate.
    const anonymous = await call(base, { origin: WEB_APP });
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('access-control-allow-origin')).toBe(WEB_APP);
    expect(anonymous.headers.get('www-authenticate')).toMatch(/resource_metadata=/);
    // /mcp/readonly is the same endpoint.
    expect((await fetch(`${base}/mcp/readonly`, { method: 'OPTIONS', headers: { origin: WEB_APP, 'access-control-request-method': 'POST' } })).status).toBe(204);
  });

  it('gives another origin no CORS headers, and refuses it when its host is not allowed either (DNS rebinding)', async () => {
    const base = await gateway(WEB_APP);
    const other = await call(base, { origin: 'https://evil.example', authorization: `Bearer ${token}` });
    expect(other.status).toBe(403);
    expect(other.headers.get('access-control-allow-origin')).toBeNull();
    expect(((await other.json()) as { error: { message: string } }).error.message).toMatch(/MCP_ALLOWED_ORIGINS/);
    // A page on a local host name passes the host guard as before, but without CORS the browser cannot read the answer.
    const local = await call(base, { origin: 'http://localhost:5173', authorization: `Bearer ${token}` });
    expect(local.status).toBe(200);
    expect(local.headers.get('access-control-allow-origin')).toBeNull();
    // Unset: no origin gets CORS.
    const none = await gateway(undefined);
    expect((await call(none, { origin: WEB_APP, authorization: `Bearer ${token}` })).status).toBe(403);
  });

  it('with *, any origin may call, still only with a token', async () => {
    const base = await gateway('*');
    const res = await call(base, { origin: 'https://anything.example', authorization: `Bearer ${token}` });
    expect([res.status, res.headers.get('access-control-allow-origin')]).toEqual([200, 'https://anything.example']);
    expect((await call(base, { origin: 'https://anything.example' })).status).toBe(401);
  });
});

const browserInfo = ensureChromium({ log: (line) => console.log(line) });
if (browserInfo.skip) console.warn(`CORS browser test skipped: ${browserInfo.skip}`);

describe.skipIf(!browserInfo.path)('a web page of another origin in Chromium', () => {
  let browser: Browser;
  let page: string;
  beforeAll(async () => {
    browser = await chromium.launch({ executablePath: browserInfo.path, headless: true, args: CHROMIUM_ARGS });
    // The web client's own origin: http://localhost:<port>, another origin than the gateway's http://127.0.0.1:<port>.
    const server = http.createServer((_req, res) => void res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>web client</title>'));
    servers.push(server);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    page = `http://localhost:${(server.address() as AddressInfo).port}`;
  }, 60_000);
  afterAll(() => browser?.close());

  /** fetch() from the page: the status and tool count, the challenge header as the page can read it, or the error. */
  const fromPage = async (base: string, withToken: boolean) => {
    const tab = await browser.newPage();
    try {
      await tab.goto(`${page}/`);
      return await tab.evaluate(async ({ url, auth, body }) => {
        try {
          const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...auth }, body });
          const json = await res.json();
          return { status: res.status, tools: json.result?.tools?.length ?? null, challenge: res.headers.get('www-authenticate') };
        } catch (e) {
          return { error: String(e) };
        }
      }, { url: `${base}/mcp`, auth: withToken ? { authorization: `Bearer ${token}` } : ({} as Record<string, string>), body: list });
    } finally {
      await tab.close();
    }
  };

  it('lists the tools when its origin is allowed, reads the sign-in challenge without a token, and is blocked otherwise', async () => {
    const allowed = await gateway(page);
    const listed = await fromPage(allowed, true);
    expect(listed).toMatchObject({ status: 200 });
    expect((listed as { tools: number }).tools).toBeGreaterThan(10);
    expect(await fromPage(allowed, false)).toMatchObject({ status: 401, challenge: expect.stringMatching(/^Bearer .*resource_metadata=/) });
    // The same page against a gateway that does not allow its origin: the browser refuses to give it the answer.
    expect(await fromPage(await gateway(undefined), true)).toEqual({ error: expect.stringMatching(/Failed to fetch/) });
  });
});
