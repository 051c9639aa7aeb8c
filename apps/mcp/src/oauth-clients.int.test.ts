import { execFile } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2, UnauthorizedError as UnauthorizedErrorV2 } from '@modelcontextprotocol/client';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabaseUrl, dropTestDatabase } from '../../../packages/store/src/testing.js';
import { CHROMIUM_ARGS, ensureChromium } from '../../../scripts/browser/ensure-chromium.mjs';
import {
  consent, type DocumentServer, type EmbeddedService, MemoryOAuthProvider, type RedirectReceiver, selfSignedCert,
  startDocumentServer, startEmbedded, startRedirectReceiver,
} from './test/oauth-clients.js';

/*
 * MCP sign-in (OAuth 2.1, MCP authorization spec 2025-11-25) with real clients against the embedded service (what
 * `npm start` runs) in a child process: the official MCP SDK client discovers the authorization server from the
 * gateway's 401, registers (dynamic registration, or a client-id metadata document served over HTTPS from a
 * loopback address with a self-signed certificate the service trusts through NODE_EXTRA_CA_CERTS), and sends the
 * user to the consent page, which headless Chromium fills in with an API key. Then the negatives: deny, a wrong
 * key, a reused refresh token, the access token on the REST API, a read-only key, a revoked key, RFC 7009
 * revocation, the read-only endpoint's token on /mcp, bad metadata documents, and markup in client names and state;
 * and a client in a web page of another origin (CORS). The tests run in order and share the first sign-ins.
 * On PGlite by default; with TEST_DATABASE_URL the service gets a PostgreSQL database cloned for this file.
 */

const browserInfo = ensureChromium({ log: (line) => console.log(line) });
if (browserInfo.skip) console.warn(`OAuth browser test skipped: ${browserInfo.skip}`);

interface AsMetadata {
  issuer: string;
  authorization_endpoint: string;
  token_endpoint: string;
  registration_endpoint: string;
  revocation_endpoint: string;
  code_challenge_methods_supported: string[];
  client_id_metadata_document_supported?: boolean;
}

describe.skipIf(!browserInfo.path)('MCP sign-in (OAuth 2.1) with the MCP SDK client and Chromium', () => {
  let dir: string;
  let svc: EmbeddedService;
  let docs: DocumentServer;
  let receiver: RedirectReceiver;
  let browser: Browser;
  let as: AsMetadata;
  let resource: string;
  let certFile: string;
  let databaseUrl: string | undefined;
  /** The API keys typed into the consent page (none of them may reach the logs). */
  const typedKeys: string[] = [];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'tt-oauth-clients-'));
    const tls = selfSignedCert(dir);
    certFile = tls.certFile;
    docs = await startDocumentServer(tls);
    receiver = await startRedirectReceiver();
    // With TEST_DATABASE_URL the service runs on a PostgreSQL database of its own (the OAuth tables included).
    databaseUrl = await createTestDatabaseUrl();
    [svc, browser] = await Promise.all([
      startEmbedded({
        DATA_DIR: join(dir, 'data'), OAUTH_ALLOW_PRIVATE_CLIENT_IDS: 'true', NODE_EXTRA_CA_CERTS: tls.certFile,
        // Every log line the service writes, so the last test can look for the keys typed into the consent page.
        LOG_LEVEL: 'debug',
        ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
      }),
      chromium.launch({ executablePath: browserInfo.path, headless: true, args: CHROMIUM_ARGS }),
    ]);
    // What the tests below use; the discovery test checks how a client finds it.
    const prm = (await fetch(`${svc.mcpUrl}/.well-known/oauth-protected-resource/mcp`).then((r) => r.json())) as { resource: string };
    resource = prm.resource;
    as = (await fetch(`${svc.mcpUrl}/.well-known/oauth-authorization-server`).then((r) => r.json())) as AsMetadata;
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await svc?.stop();
    await docs?.close();
    await receiver?.close();
    await dropTestDatabase(databaseUrl);
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const mcpEndpoint = (path = '/mcp') => new URL(`${svc.mcpUrl}${path}`);

  /** A raw MCP initialize with a bearer token: the HTTP status (and the response for its headers). */
  const rawMcp = (token: string | undefined) =>
    fetch(mcpEndpoint(), {
      method: 'POST',
      headers: {
        'content-type': 'application/json', accept: 'application/json, text/event-stream',
        ...(token ? { authorization: `Bearer ${token}` } : {}),
      },
      body: JSON.stringify({
        jsonrpc: '2.0', id: 1, method: 'initialize',
        params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
      }),
    });

  const form = (url: string, params: Record<string, string>) =>
    fetch(url, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(params) });

  const callApi = async (token: string, method: string, path: string, body?: unknown) => {
    const res = await fetch(svc.apiUrl + path, {
      method, headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : undefined };
  };

  const text = (r: unknown) => {
    const first = (r as CallToolResult).content[0];
    return first?.type === 'text' ? first.text : '';
  };

  /**
   * The sign-in an MCP client app does: connect (401), auth with the provider (registration or a client-id metadata
   * document, then the consent page in Chromium), finishAuth with the code from the redirect URI, connect again.
   */
  async function signIn(o: { clientName: string; apiKey: string; clientMetadataUrl?: string; path?: string }) {
    const requests: string[] = [];
    const fetchFn = (url: string | URL, init?: RequestInit) => {
      requests.push(`${init?.method ?? 'GET'} ${new URL(String(url)).pathname}`);
      return fetch(url, init);
    };
    const landings: URLSearchParams[] = [];
    let interactive = true;
    const provider = new MemoryOAuthProvider({
      redirectUrl: receiver.url,
      clientName: o.clientName,
      clientMetadataUrl: o.clientMetadataUrl,
      onRedirect: async (url) => {
        if (!interactive) return;
        const { page } = await consent(browser, url, { apiKey: o.apiKey, decision: 'approve' });
        landings.push(await receiver.next());
        await page.close();
      },
    });
    const first = new Client({ name: 'oauth-test-client', version: '1.0.0' });
    await expect(first.connect(new StreamableHTTPClientTransport(mcpEndpoint(o.path), { authProvider: provider, fetch: fetchFn }))).rejects.toThrow(UnauthorizedError);
    expect(landings).toHaveLength(1);
    const landing = landings[0]!;
    expect(landing.get('error')).toBeNull();
    expect(landing.get('state')).toBe(provider.authorizationUrls[0]!.searchParams.get('state'));
    // RFC 9207: the redirect names the issuer.
    expect(landing.get('iss')).toBe(svc.mcpUrl);
    const code = landing.get('code');
    expect(code).toBeTruthy();

    const transport = new StreamableHTTPClientTransport(mcpEndpoint(o.path), { authProvider: provider, fetch: fetchFn });
    await transport.finishAuth(code!);
    const client = new Client({ name: 'oauth-test-client', version: '1.0.0' });
    await client.connect(transport);
    return { client, provider, requests, stopInteractive: () => void (interactive = false) };
  }

  it('harness: a Node.js process started with NODE_EXTRA_CA_CERTS trusts the HTTPS document server', async () => {
    const url = docs.set('/clients/probe.json', { client_id: 'probe' });
    // Not execFileSync: this process serves the document.
    const { stdout } = await promisify(execFile)(process.execPath, ['-e', `fetch(${JSON.stringify(url)}).then((r) => r.json()).then((j) => console.log(j.client_id))`], {
      env: { ...process.env, NODE_EXTRA_CA_CERTS: certFile }, encoding: 'utf8',
    });
    expect(stdout.trim()).toBe('probe');
  });

  it('discovery: the 401 names the resource metadata, which names this authorization server and its endpoints', async () => {
    const res = await rawMcp(undefined);
    expect(res.status).toBe(401);
    const challenge = res.headers.get('www-authenticate') ?? '';
    expect(challenge).toMatch(/^Bearer /);
    const prmUrl = /resource_metadata="([^"]+)"/.exec(challenge)?.[1];
    expect(prmUrl).toBe(`${svc.mcpUrl}/.well-known/oauth-protected-resource/mcp`);

    const prm = (await fetch(prmUrl!).then((r) => r.json())) as { resource: string; authorization_servers: string[] };
    expect(prm.resource).toBe(`${svc.mcpUrl}/mcp`);
    expect(prm.authorization_servers).toHaveLength(1);

    const asRes = await fetch(new URL('/.well-known/oauth-authorization-server', prm.authorization_servers[0]));
    expect(asRes.status).toBe(200);
    const metadata = (await asRes.json()) as AsMetadata;
    expect(metadata.issuer).toBe(prm.authorization_servers[0]);
    expect(metadata).toMatchObject({
      authorization_endpoint: `${svc.mcpUrl}/oauth/authorize`,
      token_endpoint: `${svc.mcpUrl}/oauth/token`,
      registration_endpoint: `${svc.mcpUrl}/oauth/register`,
      revocation_endpoint: `${svc.mcpUrl}/oauth/revoke`,
      code_challenge_methods_supported: ['S256'],
      client_id_metadata_document_supported: true,
    });
  });

  let dcr: Awaited<ReturnType<typeof signIn>>;
  let cimd: Awaited<ReturnType<typeof signIn>>;

  it('dynamic registration: the SDK registers, the user approves in Chromium, and the agent reads a real task', async () => {
    dcr = await signIn({ clientName: 'OAuth test agent (registered)', apiKey: svc.demoKey });
    expect(dcr.requests).toContain('POST /oauth/register');
    expect(dcr.requests).toContain('POST /oauth/token');
    const info = dcr.provider.clientInformation()!;
    expect(info.client_id).toBeTruthy();
    expect(info.client_id).not.toMatch(/^https:/);
    const tokens = dcr.provider.tokens()!;
    expect(tokens.token_type.toLowerCase()).toBe('bearer');
    expect(tokens.refresh_token).toBeTruthy();
    expect(tokens.access_token).not.toBe(svc.demoKey);

    const tools = (await dcr.client.listTools()).tools.map((t) => t.name);
    expect(tools).toEqual(expect.arrayContaining(['whoami', 'get_task', 'search_tasks']));
    const task = await dcr.client.callTool({ name: 'get_task', arguments: { task: 'WEB-1' } });
    expect(task.isError).toBeFalsy();
    expect(text(task)).toContain('WEB-1');
    expect(text(task)).toContain('Set up the landing page');
    const who = await dcr.client.callTool({ name: 'whoami', arguments: {} });
    expect(text(who)).toContain('alice');
  });

  it('the v2 client pinned to 2026-07-28 signs in the same way (registration, consent, code) and the agent reads a task', async () => {
    const landings: URLSearchParams[] = [];
    const provider = new MemoryOAuthProvider({
      redirectUrl: receiver.url,
      clientName: 'OAuth test agent (v2, 2026-07-28)',
      onRedirect: async (url) => {
        const { page } = await consent(browser, url, { apiKey: svc.demoKey, decision: 'approve' });
        landings.push(await receiver.next());
        await page.close();
      },
    });
    const options = { versionNegotiation: { mode: { pin: '2026-07-28' as const } } };
    const first = new ClientV2({ name: 'oauth-test-client-v2', version: '2.0.0' }, options);
    await expect(first.connect(new TransportV2(mcpEndpoint(), { authProvider: provider }))).rejects.toThrow(UnauthorizedErrorV2);
    expect(landings).toHaveLength(1);
    expect(landings[0]!.get('code')).toBeTruthy();
    const transport = new TransportV2(mcpEndpoint(), { authProvider: provider });
    // The whole callback: the v2 client checks its iss against the issuer it discovered (RFC 9207).
    await transport.finishAuth(landings[0]!);
    const client = new ClientV2({ name: 'oauth-test-client-v2', version: '2.0.0' }, options);
    await client.connect(transport);
    expect(client.getProtocolEra()).toBe('modern');
    const task = await client.callTool({ name: 'get_task', arguments: { task: 'WEB-1' } });
    expect(task.isError).toBeFalsy();
    expect(text(task as CallToolResult)).toContain('WEB-1');
    await client.close();
  });

  it('client-id metadata document over HTTPS: the URL is the client_id, no registration, and the agent reads a task', async () => {
    const path = `/clients/${randomBytes(4).toString('hex')}.json`;
    const clientId = `${docs.origin}${path}`;
    docs.set(path, {
      client_id: clientId,
      client_name: 'OAuth test agent (metadata document)',
      redirect_uris: [receiver.url],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    });
    cimd = await signIn({ clientName: 'OAuth test agent (metadata document)', apiKey: svc.demoKey, clientMetadataUrl: clientId });
    expect(cimd.requests).not.toContain('POST /oauth/register');
    expect(cimd.provider.clientInformation()?.client_id).toBe(clientId);
    expect(cimd.provider.authorizationUrls[0]!.searchParams.get('client_id')).toBe(clientId);
    expect(docs.fetches(path)).toBeGreaterThanOrEqual(1);

    const task = await cimd.client.callTool({ name: 'get_task', arguments: { task: 'WEB-2' } });
    expect(task.isError).toBeFalsy();
    expect(text(task)).toContain('Fix broken sign-up link');
  });

  it('RFC 7009: the client revokes its access token, which ends the grant: MCP answers 401, the refresh is invalid_grant', async () => {
    const tokens = cimd.provider.tokens()!;
    const clientId = cimd.provider.clientInformation()!.client_id;
    expect((await rawMcp(tokens.access_token)).status).toBe(200);
    expect((await form(as.revocation_endpoint, { token: tokens.access_token, token_type_hint: 'access_token', client_id: clientId })).status).toBe(200);
    expect((await rawMcp(tokens.access_token)).status).toBe(401);
    const refreshed = await form(as.token_endpoint, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token!, client_id: clientId });
    expect(refreshed.status).toBe(400);
    expect(await refreshed.json()).toMatchObject({ error: 'invalid_grant' });
    // An unknown token is answered 200 as well (RFC 7009 section 2.2).
    expect((await form(as.revocation_endpoint, { token: 'tto_not-a-token', client_id: clientId })).status).toBe(200);
  });

  it('a metadata document that does not name its own URL, or a redirect URI it does not list: an error page, no redirect', async () => {
    const path = `/clients/${randomBytes(4).toString('hex')}.json`;
    const clientId = docs.set(path, {
      client_id: `${docs.origin}/clients/someone-else.json`, client_name: 'Impostor', redirect_uris: [receiver.url],
      grant_types: ['authorization_code'], response_types: ['code'], token_endpoint_auth_method: 'none',
    });
    const goodPath = `/clients/${randomBytes(4).toString('hex')}.json`;
    const goodId = docs.set(goodPath, {
      client_id: `${docs.origin}${goodPath}`, client_name: 'Honest', redirect_uris: [receiver.url],
      grant_types: ['authorization_code'], response_types: ['code'], token_endpoint_auth_method: 'none',
    });
    const before = receiver.received.length;
    for (const [id, redirectUri] of [[clientId, receiver.url], [goodId, `${receiver.origin}/elsewhere`]] as const) {
      const url = new URL(as.authorization_endpoint);
      url.search = new URLSearchParams({
        response_type: 'code', client_id: id, redirect_uri: redirectUri, state: 's', code_challenge_method: 'S256',
        code_challenge: createHash('sha256').update('v'.repeat(43)).digest('base64url'), resource,
      }).toString();
      const page = await browser.newPage();
      try {
        const res = await page.goto(url.toString(), { waitUntil: 'load' });
        expect(res?.status(), id).toBe(400);
        expect(new URL(page.url()).origin).toBe(svc.mcpUrl);
        expect(await page.locator('input[name="api_key"]').count()).toBe(0);
      } finally {
        await page.close();
      }
    }
    expect(receiver.received.length).toBe(before);
    expect(docs.fetches(path)).toBeGreaterThanOrEqual(1);
  });

  it('deny: the client lands on its redirect URI with error=access_denied and its state, and no code', async () => {
    const landings: URLSearchParams[] = [];
    const provider = new MemoryOAuthProvider({
      redirectUrl: receiver.url,
      clientName: 'OAuth test agent (denied)',
      onRedirect: async (url) => {
        const { page } = await consent(browser, url, { apiKey: svc.demoKey, decision: 'deny' });
        landings.push(await receiver.next());
        await page.close();
      },
    });
    const client = new Client({ name: 'oauth-test-client', version: '1.0.0' });
    await expect(client.connect(new StreamableHTTPClientTransport(mcpEndpoint(), { authProvider: provider }))).rejects.toThrow(UnauthorizedError);
    expect(landings).toHaveLength(1);
    expect(landings[0]!.get('error')).toBe('access_denied');
    expect(landings[0]!.get('code')).toBeNull();
    expect(landings[0]!.get('state')).toBe(provider.authorizationUrls[0]!.searchParams.get('state'));
    expect(provider.tokens()).toBeUndefined();
  });

  it('a wrong key: the consent page shows an error and redirects nowhere; the right key then goes through', async () => {
    let authorizationUrl: URL | undefined;
    const provider = new MemoryOAuthProvider({
      redirectUrl: receiver.url,
      clientName: 'OAuth test agent (wrong key)',
      onRedirect: (url) => void (authorizationUrl = url),
    });
    const client = new Client({ name: 'oauth-test-client', version: '1.0.0' });
    await expect(client.connect(new StreamableHTTPClientTransport(mcpEndpoint(), { authProvider: provider }))).rejects.toThrow(UnauthorizedError);
    const before = receiver.received.length;

    typedKeys.push('tt_this-is-not-a-key');
    const { page, postStatus } = await consent(browser, authorizationUrl!, { apiKey: 'tt_this-is-not-a-key', decision: 'approve' });
    try {
      expect(postStatus).toBeGreaterThanOrEqual(400);
      expect(postStatus).toBeLessThan(500);
      expect(new URL(page.url()).origin).toBe(svc.mcpUrl);
      expect(await page.locator('body').innerText()).toMatch(/refused|not valid/i);
      // The form is there again, to try once more.
      await expect(page.locator('input[name="api_key"]').count()).resolves.toBe(1);
      await new Promise((r) => setTimeout(r, 500));
      expect(receiver.received.length).toBe(before);

      await page.locator('input[name="api_key"]').fill(svc.demoKey);
      await Promise.all([page.waitForNavigation({ waitUntil: 'load' }), page.locator('button[name="decision"][value="approve"]').click()]);
      const landing = await receiver.next();
      expect(landing.get('code')).toBeTruthy();
      expect(landing.get('state')).toBe(authorizationUrl!.searchParams.get('state'));
    } finally {
      await page.close();
    }
  });

  it('an access token is for MCP only: the REST API answers 401 invalid_key to it', async () => {
    const token = dcr.provider.tokens()!.access_token;
    // Alive at MCP, so the REST refusal is about where it is used.
    expect((await rawMcp(token)).status).toBe(200);
    expect((await callApi(svc.demoKey, 'GET', '/v1/me')).status).toBe(200);
    const r = await callApi(token, 'GET', '/v1/me');
    expect(r.status).toBe(401);
    expect(r.body.error.code).toBe('invalid_key');
    expect((await callApi(token, 'GET', '/v1/tasks/WEB-1')).status).toBe(401);
  });

  it('a refresh token works once: rotated on use; its reuse is invalid_grant and ends the grant', async () => {
    const tokens = dcr.provider.tokens()!;
    const clientId = dcr.provider.clientInformation()!.client_id;
    const refresh = (token: string) => form(as.token_endpoint, { grant_type: 'refresh_token', refresh_token: token, client_id: clientId, resource });

    const first = await refresh(tokens.refresh_token!);
    expect(first.status).toBe(200);
    const rotated = (await first.json()) as { access_token: string; refresh_token: string };
    expect(rotated.refresh_token).toBeTruthy();
    expect(rotated.refresh_token).not.toBe(tokens.refresh_token);
    expect((await rawMcp(rotated.access_token)).status).toBe(200);

    const reuse = await refresh(tokens.refresh_token!);
    expect(reuse.status).toBe(400);
    expect(await reuse.json()).toMatchObject({ error: 'invalid_grant' });
    // docs/mcp.md: a reuse revokes the grant with all its tokens, the rotated ones too.
    expect((await rawMcp(rotated.access_token)).status).toBe(401);
    expect((await refresh(rotated.refresh_token)).status).toBe(400);
  });

  it('a key with fewer rights: the grant has only those; revoking the key stops its access and refresh tokens at once', async () => {
    const me = await callApi(svc.demoKey, 'GET', '/v1/me');
    const issued = await callApi(svc.adminToken, 'POST', `/admin/v1/users/${me.body.data.user.id}/keys`, { scopes: ['tasks:read'] });
    expect(issued.status).toBe(201);
    const key = issued.body.data as { id: string; token: string };
    typedKeys.push(key.token);

    const s = await signIn({ clientName: 'OAuth test agent (revoked key)', apiKey: key.token });
    // The grant asked for every scope and got the key's one.
    expect(s.provider.tokens()!.scope).toBe('tasks:read');
    expect(text(await s.client.callTool({ name: 'get_task', arguments: { task: 'WEB-3' } }))).toContain('Write the API guide');
    // Never more than the key: a writing tool is refused and nothing is written. The key itself lacks tasks:write, so
    // signing in again cannot help: no 403 step-up, but the tool refusal an API key gets, naming the missing right.
    const title = `Written through a read-only sign-in ${randomBytes(3).toString('hex')}`;
    const refused = await s.client.callTool({ name: 'create_task', arguments: { project: 'WEB', title } });
    expect(refused.isError).toBe(true);
    expect(text(refused)).toMatch(/^insufficient_scope: create_task needs the right tasks:write/);
    expect((await callApi(svc.demoKey, 'GET', `/v1/tasks?q=${encodeURIComponent(title)}`)).body.data).toEqual([]);
    const tokens = s.provider.tokens()!;

    expect((await callApi(svc.adminToken, 'DELETE', `/admin/v1/keys/${key.id}`)).status).toBe(204);
    expect((await callApi(key.token, 'GET', '/v1/me')).status).toBe(401);
    const ended = await rawMcp(tokens.access_token);
    expect(ended.status).toBe(401);
    expect(ended.headers.get('www-authenticate')).toMatch(/^Bearer .*error="invalid_token".*resource_metadata="/);
    const refreshed = await form(as.token_endpoint, {
      grant_type: 'refresh_token', refresh_token: tokens.refresh_token!, client_id: s.provider.clientInformation()!.client_id, resource,
    });
    expect(refreshed.status).toBe(400);
    expect(await refreshed.json()).toMatchObject({ error: 'invalid_grant' });
    // The client app: its next call fails and it would have to send the user to sign in again.
    s.stopInteractive();
    await expect(s.client.callTool({ name: 'get_task', arguments: { task: 'WEB-3' } })).rejects.toThrow();
    await s.client.close().catch(() => undefined);
  });

  it('a client in a web page of another origin (as MCP Inspector does the sign-in in its page): discovery, registration and the code exchange pass CORS', async () => {
    const page = await browser.newPage();
    try {
      // The page of the client app: the redirect receiver's origin, another port than the gateway's.
      await page.goto(`${receiver.origin}/`, { waitUntil: 'load' });
      const verifier = randomBytes(32).toString('base64url');
      const started = await page.evaluate(async ({ mcp, redirectUri, challenge }) => {
        const prm = await (await fetch(`${mcp}/.well-known/oauth-protected-resource/mcp`)).json();
        const as = await (await fetch(new URL('/.well-known/oauth-authorization-server', prm.authorization_servers[0]))).json();
        const reg = await fetch(as.registration_endpoint, {
          method: 'POST', headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ client_name: 'Browser client', redirect_uris: [redirectUri], grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], token_endpoint_auth_method: 'none' }),
        });
        const client = await reg.json();
        const url = new URL(as.authorization_endpoint);
        url.search = new URLSearchParams({
          response_type: 'code', client_id: client.client_id, redirect_uri: redirectUri, state: 'browser', code_challenge: challenge,
          code_challenge_method: 'S256', resource: prm.resource,
        }).toString();
        return { resource: prm.resource, tokenEndpoint: as.token_endpoint, registered: reg.status, clientId: client.client_id, authorize: url.href };
      }, { mcp: svc.mcpUrl, redirectUri: receiver.url, challenge: createHash('sha256').update(verifier).digest('base64url') });
      expect(started.registered).toBe(201);

      const { page: consentTab } = await consent(browser, started.authorize, { apiKey: svc.demoKey, decision: 'approve' });
      const landing = await receiver.next();
      await consentTab.close();
      expect(landing.get('state')).toBe('browser');

      const exchanged = await page.evaluate(async ({ tokenEndpoint, code, verifier, clientId, redirectUri, resource }) => {
        const r = await fetch(tokenEndpoint, {
          method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({ grant_type: 'authorization_code', code, code_verifier: verifier, client_id: clientId, redirect_uri: redirectUri, resource }),
        });
        return { status: r.status, body: await r.json() };
      }, { tokenEndpoint: started.tokenEndpoint, code: landing.get('code')!, verifier, clientId: started.clientId, redirectUri: receiver.url, resource: started.resource });
      expect(exchanged.status).toBe(200);
      // The MCP traffic itself goes from the client's server: the gateway's /mcp sends no CORS headers.
      expect((await rawMcp(exchanged.body.access_token)).status).toBe(200);
    } finally {
      await page.close();
    }
  });

  it('a sign-in to the read-only endpoint: its tools only, and its token is refused on the full endpoint (RFC 8707 audience)', async () => {
    const s = await signIn({ clientName: 'OAuth test agent (read-only endpoint)', apiKey: svc.demoKey, path: '/mcp/readonly' });
    expect(s.provider.authorizationUrls[0]!.searchParams.get('resource')).toBe(`${svc.mcpUrl}/mcp/readonly`);
    const tools = (await s.client.listTools()).tools.map((t) => t.name);
    expect(tools).toContain('get_task');
    expect(tools).not.toContain('create_task');
    const token = s.provider.tokens()!.access_token;
    const title = `Written with a read-only endpoint's token ${randomBytes(3).toString('hex')}`;
    const res = await fetch(mcpEndpoint('/mcp'), {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${token}` },
      body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'create_task', arguments: { project: 'WEB', title } } }),
    });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toMatch(/error="invalid_token"/);
    expect((await callApi(svc.demoKey, 'GET', `/v1/tasks?q=${encodeURIComponent(title)}`)).body.data).toEqual([]);
    await s.client.close();
  });

  const MARKUP = '<img src=x onerror=alert(1)>';
  const MARKUP_STATE = '"><img src=x onerror=alert(2)><input name="api_key" value="';

  /** Opens the consent page of a client in Chromium, checks that nothing in it runs, approves, returns the landing. */
  async function consentWithMarkup(clientId: string) {
    const verifier = randomBytes(32).toString('base64url');
    const url = new URL(as.authorization_endpoint);
    url.search = new URLSearchParams({
      response_type: 'code', client_id: clientId, redirect_uri: receiver.url, state: MARKUP_STATE,
      code_challenge: createHash('sha256').update(verifier).digest('base64url'), code_challenge_method: 'S256', resource,
    }).toString();
    const page = await browser.newPage();
    const dialogs: string[] = [];
    const errors: string[] = [];
    page.on('dialog', (d) => {
      dialogs.push(d.message());
      void d.dismiss();
    });
    page.on('pageerror', (e) => errors.push(e.message));
    try {
      const res = await page.goto(url.toString(), { waitUntil: 'load' });
      expect(res?.status()).toBe(200);
      await new Promise((r) => setTimeout(r, 500));
      expect(dialogs).toEqual([]);
      expect(errors).toEqual([]);
      expect(await page.locator('img').count()).toBe(0);
      expect(await page.locator('input[name="api_key"]').count()).toBe(1);
      expect(await page.locator('h1').innerText()).toContain(MARKUP);
      // The state went through the form's hidden field untouched.
      await page.locator('input[name="api_key"]').fill(svc.demoKey);
      await Promise.all([page.waitForNavigation({ waitUntil: 'load' }), page.locator('button[name="decision"][value="approve"]').click()]);
      const landing = await receiver.next();
      expect(landing.get('state')).toBe(MARKUP_STATE);
      expect(landing.get('code')).toBeTruthy();
      expect(dialogs).toEqual([]);
      return { landing, verifier };
    } finally {
      await page.close();
    }
  }

  it('markup in a registered client name and in the state is shown as text on the consent page: nothing runs', async () => {
    const reg = await fetch(as.registration_endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        client_name: MARKUP, redirect_uris: [receiver.url], grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'], token_endpoint_auth_method: 'none',
      }),
    });
    expect(reg.status).toBe(201);
    const client = (await reg.json()) as { client_id: string; client_name: string };
    expect(client.client_name).toBe(MARKUP);
    await consentWithMarkup(client.client_id);
  });

  it('markup in the client name of a client-id metadata document is shown as text too', async () => {
    const path = `/clients/${randomBytes(4).toString('hex')}.json`;
    const clientId = docs.set(path, {
      client_id: `${docs.origin}${path}`, client_name: MARKUP, redirect_uris: [receiver.url],
      grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], token_endpoint_auth_method: 'none',
    });
    const { landing, verifier } = await consentWithMarkup(clientId);
    // The code of this sign-in is good for tokens, with the verifier.
    const tokens = await form(as.token_endpoint, {
      grant_type: 'authorization_code', code: landing.get('code')!, code_verifier: verifier, client_id: clientId, redirect_uri: receiver.url, resource,
    });
    expect(tokens.status).toBe(200);
    expect((await rawMcp(((await tokens.json()) as { access_token: string }).access_token)).status).toBe(200);
  });

  it('no API key typed into the consent page is in the service\'s logs, at the most verbose level', () => {
    const out = svc.output();
    // The logs are there (request lines of the consent form's POSTs), and no typed key in them.
    expect(out).toMatch(/"method":"POST","url":"\/oauth\/authorize"/);
    expect(typedKeys.length).toBeGreaterThanOrEqual(2);
    for (const key of typedKeys) expect(out.includes(key), key.slice(0, 6)).toBe(false);
  });

  afterAll(async () => {
    await dcr?.client.close().catch(() => undefined);
    await cimd?.client.close().catch(() => undefined);
  });
});
