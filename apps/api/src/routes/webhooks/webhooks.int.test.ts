import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { Receiver } from '../../../../worker/src/test/webhook-stack.js';
import { startHarness, type Harness, type TestWorkspace } from '../../test/harness.js';

// The harness keeps the default rule: public receivers only (WEBHOOK_ALLOW_PRIVATE unset).
let h: Harness;
let ws: TestWorkspace;
let projectId: string;
beforeAll(async () => {
  h = await startHarness();
  ws = await h.workspace();
  projectId = (await h.call(ws.token, 'POST', '/projects', { name: 'Hooks', key: 'HKS' })).body.data.id;
});
afterAll(async () => {
  await h.close();
});

const PUBLIC = 'http://93.184.216.34/hook';

describe('webhook subscriptions (operator API)', () => {
  it('creates, lists, changes and deletes a subscription; the secret is shown only at create and rotate', async () => {
    const created = await h.op('POST', `/workspaces/${ws.id}/webhooks`, { url: PUBLIC, events: ['task.created', 'task.created', 'comment.created'] });
    expect(created.status).toBe(201);
    const w = created.body.data;
    expect(w).toMatchObject({ url: PUBLIC, events: ['task.created', 'comment.created'], projectIds: null, active: true, failingSince: null });
    expect(w.secret).toMatch(/^whsec_[\w-]{43}$/);
    const list = await h.op('GET', `/workspaces/${ws.id}/webhooks`);
    expect(list.body.data).toHaveLength(1);
    expect(list.body.data[0].secret).toBeUndefined();
    expect(JSON.stringify(list.body)).not.toContain(w.secret);

    const patched = await h.op('PATCH', `/webhooks/${w.id}`, { events: ['task.moved'], projectIds: [projectId], active: false });
    expect(patched.body.data).toMatchObject({ events: ['task.moved'], projectIds: [projectId], active: false, disabledReason: 'switched off by the operator' });
    const rotated = await h.op('POST', `/webhooks/${w.id}/rotate-secret`);
    expect(rotated.body.data.secret).toMatch(/^whsec_/);
    expect(rotated.body.data.secret).not.toBe(w.secret);
    expect(rotated.body.data.previousSecretExpiresAt).toBeGreaterThan(Date.now() + 23 * 3_600_000);
    expect(await h.op('GET', `/webhooks/${w.id}/deliveries`)).toMatchObject({ status: 200, body: { data: [], nextCursor: null, total: 0 } });
    expect((await h.op('DELETE', `/webhooks/${w.id}`)).status).toBe(204);
    expect((await h.op('DELETE', `/webhooks/${w.id}`)).status).toBe(404);
    expect((await h.op('GET', `/webhooks/${w.id}/deliveries`)).status).toBe(404);
  });

  it.each([
    [{ url: PUBLIC, events: [] }, 'body.events: must name at least one event'],
    [{ url: PUBLIC, events: ['task.exploded'] }, 'body.events.0'],
    [{ url: 'ftp://x.example', events: ['task.created'] }, 'url: must use http or https'],
    [{ url: PUBLIC, events: ['task.created'], projectIds: ['prj_missing'] }, 'projectIds: unknown project prj_missing'],
    [{ url: PUBLIC, events: ['task.created'], extra: 1 }, 'body.extra: unknown field'],
  ])('refuses bad input with a 400 naming the field: %j', async (body, message) => {
    const r = await h.op('POST', `/workspaces/${ws.id}/webhooks`, body);
    expect(r.status).toBe(400);
    expect(r.body.error.message).toContain(message);
  });

  it('refuses document events on a project-limited subscription (documents belong to no project)', async () => {
    const r = await h.op('POST', `/workspaces/${ws.id}/webhooks`, { url: PUBLIC, events: ['task.created', 'doc.updated'], projectIds: [projectId] });
    expect(r.status).toBe(400);
    expect(r.body.error.message).toMatch(/^events: doc.updated belong to no project/);
    expect((await h.op('POST', '/workspaces/ws_nope/webhooks', { url: PUBLIC, events: ['task.created'] })).status).toBe(404);
  });

  it.each([
    ['http://127.0.0.1:8080/x', 'a loopback address'], ['http://localhost/x', 'a loopback address'], ['http://[::1]/x', 'a loopback address'],
    ['http://10.0.0.7/x', 'a private address'], ['http://192.168.1.2/x', 'a private address'], ['http://[fd00::1]/x', 'a private address'],
    ['http://169.254.1.1/x', 'a link-local address'], ['http://169.254.169.254/latest/meta-data', 'a metadata address'],
    ['http://0x7f.1/x', 'a loopback address'], ['http://0.0.0.0/x', 'an unspecified address'],
  ])('refuses %s (%s) on create and on change', async (url, kind) => {
    const r = await h.op('POST', `/workspaces/${ws.id}/webhooks`, { url, events: ['task.created'] });
    expect(r.status).toBe(400);
    expect(r.body.error.message).toMatch(/^url: /);
    expect(r.body.error.message).toContain(kind);
    const w = (await h.op('POST', `/workspaces/${ws.id}/webhooks`, { url: PUBLIC, events: ['task.created'] })).body.data;
    const p = await h.op('PATCH', `/webhooks/${w.id}`, { url });
    expect(p.status).toBe(400);
    expect(p.body.error.message).toContain(kind);
    await h.op('DELETE', `/webhooks/${w.id}`);
  });

  it('checks the address again at send time: a name that now resolves to loopback gets nothing', async () => {
    const receiver = new Receiver();
    await receiver.start();
    const ports = h.runtime.deps.webhooks!;
    const realResolve = ports.resolve;
    // DNS rebinding: public when the subscription is made, loopback (where the receiver listens) when sending.
    let answer = ['93.184.216.34'];
    ports.resolve = async (host) => (host === 'hooks.rebind.test' ? answer : realResolve(host));
    try {
      const w = (await h.op('POST', `/workspaces/${ws.id}/webhooks`, { url: `http://hooks.rebind.test:${receiver.port}/hook`, events: ['task.created'] })).body.data;
      answer = ['127.0.0.1'];
      const board = (await h.call(ws.token, 'GET', `/boards?projectId=${projectId}`)).body.data[0];
      await h.call(ws.token, 'POST', '/tasks', { boardId: board.id, title: 'Rebound' });
      await vi.waitFor(async () => {
        const [d] = (await h.op('GET', `/webhooks/${w.id}/deliveries`)).body.data;
        expect(d).toMatchObject({ status: 'retrying', lastStatusCode: null, lastError: expect.stringContaining('resolves to 127.0.0.1, a loopback address') });
      }, { timeout: 20_000, interval: 50 });
      expect(receiver.requests).toHaveLength(0);
      await h.op('DELETE', `/webhooks/${w.id}`);
    } finally {
      ports.resolve = realResolve;
      await receiver.stop();
    }
  });
});
