import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness, type TestWorkspace } from '../../test/harness.js';

let h: Harness;
let ws: TestWorkspace;

beforeAll(async () => {
  h = await startHarness();
  ws = await h.workspace();
});
afterAll(() => h.close());

describe('authentication', () => {
  it('401 unauthorized without a key', async () => {
    const r = await h.call(null, 'GET', '/me');
    expect(r.status).toBe(401);
    expect(r.body).toEqual({ error: { code: 'unauthorized', message: expect.any(String) } });
  });

  it('401 invalid_key for a wrong key and a non-bearer header', async () => {
    expect((await h.call('tt_nope', 'GET', '/me')).body.error.code).toBe('invalid_key');
    const r = await fetch(`${h.base}/v1/me`, { headers: { authorization: 'Basic abc' } });
    expect(r.status).toBe(401);
    expect(((await r.json()) as any).error.code).toBe('invalid_key');
  });

  it('GET /me describes key, user and workspace', async () => {
    const r = await h.call(ws.token, 'GET', '/me');
    expect(r.status).toBe(200);
    expect(r.body.data.user.id).toBe(ws.adminUser.id);
    expect(r.body.data.workspace).toEqual({ id: ws.id, name: expect.any(String) });
    expect(r.body.data.key).toEqual({ id: ws.keyId, scopes: expect.arrayContaining(['tasks:read']), projectIds: null });
    expect(r.body.data.rateLimitPerMinute).toBe(100000);
  });

  it('a revoked key stops at once', async () => {
    const u = await ws.user();
    const k = await ws.key(u.id);
    expect((await h.call(k.token, 'GET', '/me')).status).toBe(200);
    expect((await h.op('DELETE', `/keys/${k.id}`)).status).toBe(204);
    const r = await h.call(k.token, 'GET', '/me');
    expect(r.status).toBe(401);
    expect(r.body.error.code).toBe('invalid_key');
  });

  it("a deleted user's keys are invalid", async () => {
    const u = await ws.user();
    const k = await ws.key(u.id);
    expect((await h.op('DELETE', `/users/${u.id}`)).status).toBe(204);
    expect((await h.call(k.token, 'GET', '/me')).body.error.code).toBe('invalid_key');
  });

  it('key_expired once the lifetime ends (operator shortens it)', async () => {
    const u = await ws.user();
    const k = await ws.key(u.id, { expiresAt: Date.now() + 40 * 86_400_000 });
    expect((await h.call(k.token, 'GET', '/me')).status).toBe(200);
    const p = await h.op('PATCH', `/keys/${k.id}`, { expiresAt: Date.now() - 1000 });
    expect(p.status).toBe(200);
    expect(p.body.data.token).toBeUndefined();
    const r = await h.call(k.token, 'GET', '/me');
    expect(r.status).toBe(401);
    expect(r.body.error.code).toBe('key_expired');
  });

  it('key lifetime on issue must be 30 days to a year', async () => {
    const u = await ws.user();
    const short = await h.op('POST', `/users/${u.id}/keys`, { scopes: [], expiresAt: Date.now() + 86_400_000 });
    expect(short.status).toBe(400);
    expect(short.body.error.message).toMatch(/expiresAt/);
    const long = await h.op('POST', `/users/${u.id}/keys`, { scopes: [], expiresAt: Date.now() + 400 * 86_400_000 });
    expect(long.status).toBe(400);
    const ok = await h.op('POST', `/users/${u.id}/keys`, { scopes: ['tasks:read'], expiresAt: Date.now() + 90 * 86_400_000 });
    expect(ok.status).toBe(201);
    expect(ok.body.data.token).toMatch(/^tt_/);
  });

  it('insufficient_scope names the right', async () => {
    const u = await ws.user();
    const k = await ws.key(u.id, { scopes: ['tasks:read'] });
    const r = await h.call(k.token, 'POST', '/projects', { name: 'X', key: 'X' });
    expect(r.status).toBe(403);
    expect(r.body.error.code).toBe('insufficient_scope');
    expect(r.body.error.message).toContain('projects:write');
    const t = await h.call((await ws.key(u.id, { scopes: [] })).token, 'GET', '/tasks');
    expect(t.body.error).toEqual({ code: 'insufficient_scope', message: expect.stringContaining('tasks:read') });
  });

  it('ip_not_allowed for addresses outside the list; IPv4, IPv6 and CIDR accepted', async () => {
    const u = await ws.user();
    const denied = await ws.key(u.id, { allowedIps: ['10.0.0.0/8', '2001:db8::/32'] });
    const r = await h.call(denied.token, 'GET', '/me');
    expect(r.status).toBe(403);
    expect(r.body.error.code).toBe('ip_not_allowed');
    const v4 = await ws.key(u.id, { allowedIps: ['127.0.0.0/8'] });
    expect((await h.call(v4.token, 'GET', '/me')).status).toBe(200);
    const single = await ws.key(u.id, { allowedIps: ['127.0.0.1'] });
    expect((await h.call(single.token, 'GET', '/me')).status).toBe(200);
    const bad = await h.op('POST', `/users/${u.id}/keys`, { allowedIps: ['300.1.1.1'] });
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toContain('allowedIps.0');
  });

  it('X-Forwarded-For is ignored without TRUST_PROXY', async () => {
    const u = await ws.user();
    const k = await ws.key(u.id, { allowedIps: ['203.0.113.7'] });
    const r = await h.call(k.token, 'GET', '/me', undefined, { 'x-forwarded-for': '203.0.113.7' });
    expect(r.body.error.code).toBe('ip_not_allowed');
  });

  it('api_disabled for members when the admin turns member keys off; admins still pass', async () => {
    const other = await h.workspace();
    const member = await other.user();
    const mk = await other.key(member.id);
    expect((await h.op('PATCH', `/workspaces/${other.id}`, { memberKeysEnabled: false })).status).toBe(200);
    const r = await h.call(mk.token, 'GET', '/me');
    expect(r.status).toBe(403);
    expect(r.body.error.code).toBe('api_disabled');
    expect((await h.call(other.token, 'GET', '/me')).status).toBe(200);
  });

  it('plan_required on the free plan', async () => {
    const free = await h.workspace({ plan: 'free' });
    const r = await h.call(free.token, 'GET', '/me');
    expect(r.status).toBe(403);
    expect(r.body.error.code).toBe('plan_required');
    const team = await h.workspace({ plan: 'team' });
    expect((await h.call(team.token, 'GET', '/me')).status).toBe(200);
  });

  it('GET /tasks/{key}, whose task is read in the key\'s own statement, refuses exactly as any request does', async () => {
    const project = (await h.call(ws.token, 'POST', '/projects', { name: 'Read with the key', key: 'RWK', template: 'scrum' })).body.data;
    const t = (await h.call(ws.token, 'POST', '/tasks', { title: 'read with its key', projectId: project.id })).body.data;
    const u = await ws.user();
    const read = (token: string, ref: string = t.key) => h.call(token, 'GET', `/tasks/${ref}`);
    const code = async (token: string, ref?: string) => (await read(token, ref)).body.error?.code as string | undefined;

    const revoked = await ws.key(u.id);
    expect((await read(revoked.token)).body.data).toMatchObject({ id: t.id, key: t.key });
    expect((await read(revoked.token, t.id)).body.data).toMatchObject({ id: t.id, key: t.key });
    expect((await h.op('DELETE', `/keys/${revoked.id}`)).status).toBe(204);
    expect(await code(revoked.token)).toBe('invalid_key');
    expect(await code(revoked.token, t.id)).toBe('invalid_key');

    const expired = await ws.key(u.id, { expiresAt: Date.now() + 40 * 86_400_000 });
    expect((await h.op('PATCH', `/keys/${expired.id}`, { expiresAt: Date.now() - 1000 })).status).toBe(200);
    expect(await code(expired.token)).toBe('key_expired');
    expect(await code((await ws.key(u.id, { allowedIps: ['10.0.0.0/8'] })).token)).toBe('ip_not_allowed');
    expect(await code((await ws.key(u.id, { scopes: [] })).token)).toBe('insufficient_scope');

    // A key limited to other projects, a closed board and another workspace see no such task, by key or by id.
    const elsewhere = (await h.call(ws.token, 'POST', '/projects', { name: 'Elsewhere', key: 'RWE', template: 'scrum' })).body.data;
    const restricted = await ws.key(u.id, { projectIds: [elsewhere.id] });
    expect(await code(restricted.token)).toBe('not_found');
    expect(await code(restricted.token, t.id)).toBe('not_found');
    const member = await ws.key(u.id);
    expect((await h.op('PUT', `/boards/${t.boardId}/access`, { memberIds: [ws.adminUser.id] })).status).toBe(200);
    expect(await code(member.token)).toBe('not_found');
    expect(await code(member.token, t.id)).toBe('not_found');
    expect((await read(ws.token)).status).toBe(200);
    expect((await h.op('PUT', `/boards/${t.boardId}/access`, { memberIds: null })).status).toBe(200);
    expect((await read(member.token)).status).toBe(200);
    const stranger = await h.workspace();
    expect(await code(stranger.token)).toBe('not_found');
    expect(await code(stranger.token, t.id)).toBe('not_found');

    const deleted = await ws.user();
    const theirs = await ws.key(deleted.id);
    expect((await read(theirs.token)).status).toBe(200);
    expect((await h.op('DELETE', `/users/${deleted.id}`)).status).toBe(204);
    expect(await code(theirs.token)).toBe('invalid_key');
  });

  it('operator API needs ADMIN_TOKEN', async () => {
    const r = await fetch(`${h.base}/admin/v1/workspaces`, { method: 'POST', headers: { authorization: 'Bearer wrong' } });
    expect(r.status).toBe(401);
    expect(((await r.json()) as any).error.code).toBe('unauthorized');
  });
});

describe('trusted proxy', () => {
  it('X-Forwarded-For counts when TRUST_PROXY is set', async () => {
    const hp = await startHarness({ TRUST_PROXY: 'loopback' });
    try {
      const w = await hp.workspace();
      const k = await w.key(w.adminUser.id, { allowedIps: ['203.0.113.0/24'] });
      expect((await hp.call(k.token, 'GET', '/me', undefined, { 'x-forwarded-for': '203.0.113.7' })).status).toBe(200);
      expect((await hp.call(k.token, 'GET', '/me', undefined, { 'x-forwarded-for': '198.51.100.1' })).body.error.code).toBe('ip_not_allowed');
    } finally {
      await hp.close();
    }
  });
});
