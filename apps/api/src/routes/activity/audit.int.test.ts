import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness, type TestWorkspace } from '../../test/harness.js';

let h: Harness;
let ws: TestWorkspace;

beforeAll(async () => {
  h = await startHarness();
  ws = await h.workspace();
});
afterAll(() => h.close());

const audit = async (query: string) => {
  const r = await h.op('GET', `/audit?workspaceId=${ws.id}&limit=500${query}`);
  expect(r.status, r.text).toBe(200);
  return r.body.data as any[];
};

describe('GET /admin/v1/audit', () => {
  it('lists keys issued, changed and revoked, users added and removed, settings and webhooks, by the operator, with no secret', async () => {
    const u = (await h.op('POST', `/workspaces/${ws.id}/users`, { name: 'Ann Audit', login: 'ann', role: 'QA', isAdmin: false })).body.data;
    const issued = (await h.op('POST', `/users/${u.id}/keys`, { scopes: ['tasks:read'], projectIds: null, expiresAt: null, allowedIps: [] })).body.data;
    expect(issued.token).toMatch(/^tt_/);
    const until = Date.now() + 40 * 86_400_000;
    expect((await h.op('PATCH', `/keys/${issued.id}`, { expiresAt: until })).status).toBe(200);
    expect((await h.op('DELETE', `/keys/${issued.id}`)).status).toBe(204);
    expect((await h.op('PATCH', `/workspaces/${ws.id}`, { memberKeysEnabled: false })).status).toBe(200);
    const hook = (await h.op('POST', `/workspaces/${ws.id}/webhooks`, { url: 'http://93.184.216.34/hook/s3cr3t-path?token=abc', events: ['task.created'] })).body.data;
    expect(hook.secret).toBeTruthy();
    expect((await h.op('PATCH', `/webhooks/${hook.id}`, { events: ['task.created', 'task.updated'] })).status).toBe(200);
    expect((await h.op('DELETE', `/webhooks/${hook.id}`)).status).toBe(204);
    expect((await h.op('DELETE', `/users/${u.id}`)).status).toBe(204);

    const entries = await audit('');
    const actions = entries.map((e) => e.action);
    for (const a of ['user.added', 'key.issued', 'key.changed', 'key.revoked', 'workspace.changed', 'webhook.created', 'webhook.changed', 'webhook.deleted', 'user.removed']) {
      expect(actions, a).toContain(a);
    }
    // Newest first.
    expect(actions.indexOf('user.removed')).toBeLessThan(actions.indexOf('user.added'));
    const byAction = (a: string) => entries.find((e) => e.action === a);
    expect(byAction('key.issued')).toMatchObject({
      actor: { kind: 'operator', id: null }, via: { channel: 'operator', keyId: null }, target: { type: 'key', id: issued.id },
      details: { userId: u.id, scopes: ['tasks:read'] },
    });
    expect(byAction('key.changed').details.expiresAt).toEqual({ from: null, to: until });
    expect(byAction('workspace.changed').details.changes).toEqual([{ field: 'memberKeysEnabled', from: true, to: false }]);
    expect(byAction('user.added').details).toMatchObject({ login: 'ann' });
    expect(byAction('webhook.created').details).toMatchObject({ origin: 'http://93.184.216.34', events: ['task.created'] });
    expect(byAction('webhook.changed').details.to.events).toEqual(['task.created', 'task.updated']);

    const text = JSON.stringify(entries);
    for (const secret of [issued.token, hook.secret, 's3cr3t-path', 'token=abc']) expect(text).not.toContain(secret);

    // Filters: action, period; a bad moment is 400 naming the field.
    expect((await audit('&action=key.revoked')).map((e) => e.target.id)).toEqual([issued.id]);
    expect(await audit(`&until=${entries[entries.length - 1].at}`)).toEqual([]);
    const bad = await h.op('GET', '/audit?since=soon');
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toContain('since');
  });

  it('needs the operator token and pages with a cursor', async () => {
    expect((await h.call(ws.token, 'GET', '/../admin/v1/audit')).status).not.toBe(200);
    expect((await fetch(`${h.base}/admin/v1/audit`)).status).toBe(401);
    const first = await h.op('GET', `/audit?workspaceId=${ws.id}&limit=2`);
    expect(first.body.data).toHaveLength(2);
    const next = await h.op('GET', `/audit?workspaceId=${ws.id}&limit=2&cursor=${first.body.nextCursor}`);
    expect(next.body.data[0].id).not.toBe(first.body.data[1].id);
    expect(next.body.data[0].at).toBeLessThanOrEqual(first.body.data[1].at);
  });
});
