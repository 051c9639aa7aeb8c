import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keys, oauth } from '@tt/domain';
import type { McpServerHandle } from './index.js';
import { form, register, rpc, seedWorkspace, signIn, token } from './oauth/test/flow.js';
import { mcpFixture, type McpFixture } from './test/fixture.js';

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
