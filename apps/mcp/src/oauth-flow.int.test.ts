import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keys, oauth } from '@tt/domain';
import type { McpServerHandle } from './index.js';
import { authorizeUrl, consent, form, hiddenFields, pkce, register, rpc, seedWorkspace, signIn, token } from './oauth/test/flow.js';
import { mcpFixture, type McpFixture } from './test/fixture.js';

// This file's own tests; their setup and state stay inside this describe.
describe('oauth-flow', () => {
  // PGlite is one connection: the tests of this file run one after another on one runtime.
  let fx: McpFixture;
  let mcp: McpServerHandle;
  let base: string;
  let seed: Awaited<ReturnType<typeof seedWorkspace>>;
  let clientId: string;
  const redirectUri = 'http://127.0.0.1:33418/callback';

  beforeAll(async () => {
    fx = await mcpFixture();
    seed = await seedWorkspace(fx.runtime.deps);
    mcp = await fx.start();
    base = mcp.url;
  }, 60_000);
  afterAll(() => fx?.close());

  describe('OAuth discovery', () => {
    it('answers an unauthenticated MCP request 401 with the resource metadata URL and the scopes the endpoint can use', async () => {
      const scopes = {
        '/mcp': 'tasks:read tasks:write projects:write time:read time:write docs:read docs:write meetings:read',
        '/mcp/readonly': 'tasks:read time:read docs:read meetings:read',
      };
      for (const [path, scope] of Object.entries(scopes)) {
        const res = await rpc(base, undefined, { jsonrpc: '2.0', id: 1, method: 'tools/list' }, path);
        expect(res.status).toBe(401);
        expect(await res.json()).toMatchObject({ error: { code: 'unauthorized' } });
        expect(res.headers.get('www-authenticate')).toBe(`Bearer scope="${scope}", resource_metadata="${base}/.well-known/oauth-protected-resource${path}"`);
      }
      const bad = await rpc(base, 'tto_nope', { jsonrpc: '2.0', id: 1, method: 'tools/list' });
      expect(bad.status).toBe(401);
      expect(bad.headers.get('www-authenticate')).toMatch(/^Bearer error="invalid_token", error_description="[^"]+", resource_metadata="/);
    });

    it('serves protected resource and authorization server metadata with CORS', async () => {
      const prm = await fetch(`${base}/.well-known/oauth-protected-resource/mcp`, { headers: { origin: 'https://claude.ai' } });
      expect(prm.headers.get('access-control-allow-origin')).toBe('*');
      expect(await prm.json()).toMatchObject({ resource: `${base}/mcp`, authorization_servers: [base], scopes_supported: expect.arrayContaining(['tasks:read']) });
      expect(await (await fetch(`${base}/.well-known/oauth-protected-resource`)).json()).toMatchObject({ resource: `${base}/mcp` });
      expect(await (await fetch(`${base}/.well-known/oauth-protected-resource/mcp/readonly`)).json()).toEqual(expect.objectContaining({
        resource: `${base}/mcp/readonly`, scopes_supported: ['tasks:read', 'time:read', 'docs:read', 'meetings:read'],
      }));
      for (const path of ['/.well-known/oauth-authorization-server', '/.well-known/openid-configuration']) {
        const res = await fetch(`${base}${path}`, { headers: { origin: 'https://claude.ai' } });
        expect(res.headers.get('access-control-allow-origin')).toBe('*');
        expect(await res.json()).toMatchObject({
          issuer: base, authorization_endpoint: `${base}/oauth/authorize`, token_endpoint: `${base}/oauth/token`,
          registration_endpoint: `${base}/oauth/register`, revocation_endpoint: `${base}/oauth/revoke`, response_types_supported: ['code'],
          grant_types_supported: ['authorization_code', 'refresh_token'], code_challenge_methods_supported: ['S256'],
          token_endpoint_auth_methods_supported: expect.arrayContaining(['none']), client_id_metadata_document_supported: true,
        });
      }
      const preflight = await fetch(`${base}/oauth/token`, { method: 'OPTIONS', headers: { origin: 'https://claude.ai', 'access-control-request-method': 'POST' } });
      expect(preflight.status).toBe(204);
      expect(preflight.headers.get('access-control-allow-origin')).toBe('*');
    });
  });

  describe('OAuth sign-in', () => {
    it('registers a client (DCR) and refuses bad redirect URIs', async () => {
      const res = await register(base, { client_name: '<script>alert(1)</script>', redirect_uris: [redirectUri], token_endpoint_auth_method: 'none' });
      expect(res.status).toBe(201);
      expect(res.headers.get('access-control-allow-origin')).toBe('*');
      const client = (await res.json()) as { client_id: string; redirect_uris: string[] };
      expect(client.redirect_uris).toEqual([redirectUri]);
      clientId = client.client_id;
      for (const uri of ['javascript:alert(1)', 'data:text/html,x', 'https://a.example/cb#x', 'http://evil.example/cb']) {
        const bad = await register(base, { redirect_uris: [uri] });
        expect(bad.status, uri).toBe(400);
        expect(await bad.json()).toMatchObject({ error: 'invalid_redirect_uri' });
      }
    });

    it('shows the consent page with the client name escaped, security headers and the fixed form names', async () => {
      const res = await fetch(authorizeUrl(base, { clientId, redirectUri, challenge: pkce().challenge, scope: 'tasks:read' }));
      expect(res.status).toBe(200);
      const html = await res.text();
      expect(html).not.toContain('<script>');
      expect(html).toContain('&#60;script&#62;alert(1)&#60;/script&#62;');
      expect(html).toContain('127.0.0.1:33418');
      expect(html).toContain('<input id="api_key" name="api_key"');
      expect(html).toContain('<button type="submit" name="decision" value="approve">');
      expect(html).toContain('<button type="submit" name="decision" value="deny"');
      expect(res.headers.get('content-security-policy')).toMatch(/frame-ancestors 'none'/);
      expect(res.headers.get('content-security-policy')).toMatch(/default-src 'none'/);
      expect(res.headers.get('cache-control')).toBe('no-store');
      expect(res.headers.get('access-control-allow-origin')).toBeNull();
    });

    it('shows an error page, never a redirect, for an unknown client or an unregistered redirect URI', async () => {
      for (const [id, uri] of [['tc_unknown', redirectUri], [clientId, 'http://127.0.0.1:33418/other']] as const) {
        const res = await fetch(authorizeUrl(base, { clientId: id, redirectUri: uri, challenge: pkce().challenge }), { redirect: 'manual' });
        expect(res.status).toBe(400);
        expect(res.headers.get('location')).toBeNull();
        expect(res.headers.get('content-type')).toMatch(/html/);
      }
    });

    it('approves with a real key: code and state come back, the code buys tokens that work on /mcp', async () => {
      const { verifier, challenge } = pkce();
      const answer = await consent(base, { clientId, redirectUri, challenge, state: 'xyz', resource: `${base}/mcp` }, seed.full.token);
      expect(answer.status).toBe(302);
      const back = new URL(answer.headers.get('location')!);
      expect(back.origin + back.pathname).toBe(redirectUri);
      expect(back.searchParams.get('state')).toBe('xyz');
      expect(back.searchParams.get('iss')).toBe(base);
      const code = back.searchParams.get('code')!;
      const res = await token(base, { grant_type: 'authorization_code', code, code_verifier: verifier, client_id: clientId, redirect_uri: redirectUri, resource: `${base}/mcp` });
      expect(res.status).toBe(200);
      expect(res.headers.get('cache-control')).toBe('no-store');
      const tokens = (await res.json()) as { access_token: string; refresh_token: string; token_type: string; expires_in: number; scope: string };
      expect(tokens).toMatchObject({ token_type: 'Bearer', expires_in: 3600 });
      expect(tokens.access_token).toMatch(/^tto_/);
      expect(tokens.refresh_token).toMatch(/^ttr_/);
      const list = await rpc(base, tokens.access_token, { jsonrpc: '2.0', id: 1, method: 'tools/list' });
      expect(list.status).toBe(200);
      const names = ((await list.json()) as { result: { tools: Array<{ name: string }> } }).result.tools.map((t) => t.name);
      expect(names).toContain('get_task');
      expect(names).toContain('create_task');
      const call = await rpc(base, tokens.access_token, { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'get_task', arguments: { task: seed.task.key } } });
      const text = ((await call.json()) as { result: { content: Array<{ text: string }> } }).result.content[0]!.text;
      expect(text).toContain('Fix the login page');
      // The code is used up: a second exchange is invalid_grant.
      const again = await token(base, { grant_type: 'authorization_code', code, code_verifier: verifier, client_id: clientId });
      expect(again.status).toBe(400);
      expect(await again.json()).toMatchObject({ error: 'invalid_grant' });
      // ...and the grant made with it is revoked.
      expect((await rpc(base, tokens.access_token, { jsonrpc: '2.0', id: 3, method: 'tools/list' })).status).toBe(401);
    });

    it('refuses a wrong PKCE verifier, another redirect URI or another resource with invalid_grant', async () => {
      const cases: Array<(v: string) => Record<string, string>> = [
        () => ({ code_verifier: pkce().verifier }),
        (v) => ({ code_verifier: v, redirect_uri: 'http://127.0.0.1:33418/other' }),
        (v) => ({ code_verifier: v, resource: 'https://elsewhere.example/mcp' }),
      ];
      for (const fields of cases) {
        const { verifier, challenge } = pkce();
        const answer = await consent(base, { clientId, redirectUri, challenge, resource: `${base}/mcp` }, seed.full.token);
        const code = new URL(answer.headers.get('location')!).searchParams.get('code')!;
        const res = await token(base, { grant_type: 'authorization_code', code, client_id: clientId, ...fields(verifier) });
        expect(res.status).toBe(400);
        expect(await res.json()).toMatchObject({ error: 'invalid_grant' });
      }
    });

    it('redirects with access_denied and the state when the person denies', async () => {
      const answer = await consent(base, { clientId, redirectUri, challenge: pkce().challenge, state: 'd1' }, '', 'deny');
      expect(answer.status).toBe(302);
      const back = new URL(answer.headers.get('location')!);
      expect(back.searchParams.get('error')).toBe('access_denied');
      expect(back.searchParams.get('state')).toBe('d1');
      expect(back.searchParams.get('code')).toBeNull();
    });

    it('shows the page again with an error and issues nothing for a wrong key', async () => {
      const answer = await consent(base, { clientId, redirectUri, challenge: pkce().challenge }, 'tt_wrong-key-value');
      expect(answer.status).toBe(401);
      expect(answer.headers.get('location')).toBeNull();
      const html = await answer.text();
      expect(html).toMatch(/The API key was refused/);
      expect(html).not.toContain('tt_wrong-key-value');
    });

    it('refuses a form without or with a wrong CSRF token with a 400 page', async () => {
      for (const tamper of [(f: Record<string, string>) => delete f.csrf_token, (f: Record<string, string>) => (f.csrf_token = `${Date.now()}.${'A'.repeat(43)}`), (f: Record<string, string>) => (f.state = 'changed')]) {
        const answer = await consent(base, { clientId, redirectUri, challenge: pkce().challenge }, seed.full.token, 'approve', tamper);
        expect(answer.status).toBe(400);
        expect(answer.headers.get('location')).toBeNull();
        expect(await answer.text()).toMatch(/The form was refused/);
      }
    });

    it('keeps the hidden authorization parameters intact in the form', async () => {
      const { challenge } = pkce();
      const html = await (await fetch(authorizeUrl(base, { clientId, redirectUri, challenge, state: 'a"b<c', scope: 'tasks:read' }))).text();
      expect(hiddenFields(html)).toMatchObject({ client_id: clientId, redirect_uri: redirectUri, code_challenge: challenge, state: 'a"b<c', scope: 'tasks:read' });
    });

    it('signs in end to end with the helper', async () => {
      const tokens = await signIn(base, clientId, redirectUri, seed.full.token, 'tasks:read');
      expect(tokens.scope).toBe('tasks:read');
    });
  });
});

// The tests of apps/mcp/src/oauth-tokens.int.test.ts, folded in here (one test process and one module load for them all); their setup and state stay inside this describe.
describe('oauth-tokens', () => {
  // PGlite is one connection: the tests of this file run one after another on one runtime.
  let fx: McpFixture;
  let mcp: McpServerHandle;
  let base: string;
  let seed: Awaited<ReturnType<typeof seedWorkspace>>;
  let clientId: string;
  const redirectUri = 'https://client.example/callback';
  const list = { jsonrpc: '2.0', id: 1, method: 'tools/list' };

  beforeAll(async () => {
    fx = await mcpFixture();
    seed = await seedWorkspace(fx.runtime.deps);
    mcp = await fx.start();
    base = mcp.url;
    clientId = ((await (await register(base, { client_name: 'Tokens', redirect_uris: [redirectUri] })).json()) as { client_id: string }).client_id;
  }, 60_000);
  afterAll(() => fx?.close());

  const refresh = (refreshToken: string) => token(base, { grant_type: 'refresh_token', refresh_token: refreshToken, client_id: clientId });

  describe('OAuth tokens', () => {
    it('rotates the refresh token on every use; reusing an old one is invalid_grant and revokes the grant', async () => {
      const first = await signIn(base, clientId, redirectUri, seed.full.token);
      const r1 = await refresh(first.refresh_token);
      expect(r1.status).toBe(200);
      const second = (await r1.json()) as { access_token: string; refresh_token: string };
      expect(second.refresh_token).not.toBe(first.refresh_token);
      expect((await rpc(base, second.access_token, list)).status).toBe(200);
      const reuse = await refresh(first.refresh_token);
      expect(reuse.status).toBe(400);
      expect(await reuse.json()).toMatchObject({ error: 'invalid_grant' });
      // The whole family is gone: the newest access and refresh tokens too.
      expect((await rpc(base, second.access_token, list)).status).toBe(401);
      expect(await (await refresh(second.refresh_token)).json()).toMatchObject({ error: 'invalid_grant' });
    });

    it('grants only the scopes the key has; a tool the key lacks gets the key\'s refusal, not a step-up', async () => {
      const t = await signIn(base, clientId, redirectUri, seed.readOnly.token, 'tasks:read tasks:write');
      expect(t.scope).toBe('tasks:read');
      const names = ((await (await rpc(base, t.access_token, list)).json()) as { result: { tools: Array<{ name: string }> } }).result.tools.map((x) => x.name);
      expect(names).toContain('get_task');
      expect(names).not.toContain('create_task');
      // Signing in again with the same key cannot give tasks:write: the answer is the one an API key gets.
      const call = { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'create_task', arguments: { title: 'x', project: 'WEB' } } };
      const res = await rpc(base, t.access_token, call);
      const byKey = await rpc(base, seed.readOnly.token, call);
      expect([res.status, byKey.status]).toEqual([200, 200]);
      expect(res.headers.get('www-authenticate')).toBeNull();
      expect(await res.text()).toBe(await byKey.text());
    });

    it('steps up with 403 insufficient_scope naming the scope when the key has it and the grant does not', async () => {
      const t = await signIn(base, clientId, redirectUri, seed.full.token, 'tasks:read');
      expect(t.scope).toBe('tasks:read');
      const res = await rpc(base, t.access_token, { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'create_task', arguments: { title: 'x', project: 'WEB' } } });
      expect(res.status).toBe(403);
      expect(res.headers.get('www-authenticate')).toMatch(/^Bearer error="insufficient_scope", scope="tasks:write", error_description="[^"]*", resource_metadata="http:\/\/127\.0\.0\.1:\d+\/\.well-known\/oauth-protected-resource\/mcp"$/);
      expect(((await res.json()) as { error: { message: string } }).error.message).toMatch(/tasks:write/);
    });

    it('revokes a grant through RFC 7009 (access or refresh token) at once', async () => {
      const t = await signIn(base, clientId, redirectUri, seed.full.token);
      const res = await fetch(`${base}/oauth/revoke`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: form({ token: t.refresh_token, client_id: clientId }) });
      expect(res.status).toBe(200);
      expect((await rpc(base, t.access_token, list)).status).toBe(401);
    });

    it('ends the tokens at once when the operator revokes the grant or the key', async () => {
      const t = await signIn(base, clientId, redirectUri, seed.full.token);
      const [grant] = await oauth.listGrants(seed.alice.id, fx.runtime.deps);
      expect(grant).toMatchObject({ clientId, clientName: 'Tokens', keyId: seed.full.id });
      await oauth.revokeGrant(grant!.id, fx.runtime.deps);
      expect((await rpc(base, t.access_token, list)).status).toBe(401);

      const key = await keys.issueKey(seed.alice.id, { scopes: ['tasks:read'], projectIds: null, expiresAt: null, allowedIps: [] }, fx.runtime.deps);
      const u = await signIn(base, clientId, redirectUri, key.token);
      expect((await rpc(base, u.access_token, list)).status).toBe(200);
      await keys.revokeKey(key.id, fx.runtime.deps);
      const after = await rpc(base, u.access_token, list);
      expect(after.status).toBe(401);
      expect(after.headers.get('www-authenticate')).toMatch(/error="invalid_token"/);
      expect(await (await refresh(u.refresh_token)).json()).toMatchObject({ error: 'invalid_grant' });
    });

    it('applies the key\'s address allowlist to its tokens', async () => {
      const key = await keys.issueKey(seed.alice.id, { scopes: ['tasks:read'], projectIds: null, expiresAt: null, allowedIps: ['203.0.113.0/24'] }, fx.runtime.deps);
      const { consent, pkce } = await import('./oauth/test/flow.js');
      const answer = await consent(base, { clientId, redirectUri, challenge: pkce().challenge }, key.token);
      expect(answer.status).toBe(403);
      expect(await answer.text()).toMatch(/not allowed/);
    });

    it('prunes what can no longer be used, and nothing that still can', async () => {
      const t = await signIn(base, clientId, redirectUri, seed.full.token);
      // A registration nobody signs in with (anyone may register: abandoned ones must not pile up).
      const unused = ((await (await register(base, { client_name: 'Abandoned', redirect_uris: [redirectUri] })).json()) as { client_id: string }).client_id;
      // Now: the live tokens stay (expired access tokens of earlier tests may go), and the fresh registration.
      await oauth.pruneGrants(fx.runtime.deps);
      expect((await rpc(base, t.access_token, list)).status).toBe(200);
      expect(await fx.runtime.deps.store.oauth.getClient(unused)).toBeDefined();
      // Thirty-one days on, every token has expired and every revoked grant is past its keeping: all of it goes.
      const later = { ...fx.runtime.deps, now: () => Date.now() + 31 * 86_400_000 };
      expect(await oauth.listGrants(seed.alice.id, fx.runtime.deps)).not.toEqual([]);
      expect(await oauth.pruneGrants(later)).toBeGreaterThan(0);
      expect(await oauth.pruneGrants(later)).toBe(0);
      // Grants that can no longer be used are gone from the operator's list too.
      expect(await oauth.listGrants(seed.alice.id, fx.runtime.deps)).toEqual([]);
      expect((await rpc(base, t.access_token, list)).status).toBe(401);
      expect(await (await refresh(t.refresh_token)).json()).toMatchObject({ error: 'invalid_grant', error_description: 'unknown refresh token' });
      // The unused registration is gone after a week; the client people signed in with stays, to sign in again.
      expect(await fx.runtime.deps.store.oauth.getClient(unused)).toBeUndefined();
      expect(await fx.runtime.deps.store.oauth.getClient(clientId)).toBeDefined();
      const again = await fetch(`${base}/oauth/authorize?${form({ response_type: 'code', client_id: unused, redirect_uri: redirectUri, code_challenge: 'x'.repeat(43), code_challenge_method: 'S256' })}`);
      expect([again.status, await again.text()]).toEqual([400, expect.stringMatching(/Unknown client/)]);
      expect((await signIn(base, clientId, redirectUri, seed.full.token)).access_token).toMatch(/^tto_/);
    });
  });

  describe('OAuth registration limit', () => {
    it('limits registrations per client address with the shared limiter', async () => {
      const { createRateLimiter, createLogger } = await import('@tt/http');
      const { createMcpApp } = await import('./index.js');
      const app = createMcpApp({
        runtime: { ...fx.runtime, limiter: createRateLimiter(2) }, logger: createLogger('silent', 'test'), trustProxy: false,
        allowedHosts: ['127.0.0.1'], metrics: false,
      });
      const server = app.listen(0, '127.0.0.1');
      await new Promise((r) => server.once('listening', r));
      const url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
      try {
        const statuses = [];
        for (let i = 0; i < 3; i++) statuses.push((await register(url, { redirect_uris: [redirectUri] })).status);
        expect(statuses).toEqual([201, 201, 429]);
      } finally {
        server.close();
      }
    });
  });
});
