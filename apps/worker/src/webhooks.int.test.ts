import { afterEach, describe, expect, it, vi } from 'vitest';
import { verifyWebhook } from '@tt/sdk';
import { FAST, Receiver, startWebhookStack, team, type WebhookStack } from './test/webhook-stack.js';

// The in-process queue of embedded mode always; BullMQ too when TEST_REDIS_URL names a Redis.
const REDIS = process.env.TEST_REDIS_URL;
const MODES = [{ name: 'in-process queue', redisUrl: undefined }, ...(REDIS ? [{ name: 'BullMQ', redisUrl: REDIS }] : [])];
const DAY = 86_400_000;

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!().catch(() => undefined);
});
const waitFor = <T>(fn: () => Promise<T> | T) => vi.waitFor(fn, { timeout: 30_000, interval: 50 });

describe.each(MODES)('webhooks over the $name', ({ redisUrl }) => {
  async function setup(policy = FAST) {
    const receiver = new Receiver();
    await receiver.start();
    cleanups.push(() => receiver.stop());
    const stack = await startWebhookStack({ redisUrl, consume: true, allowPrivate: true, policy });
    cleanups.push(() => stack.close());
    const people = await team(stack as never);
    const hook = async (body: Record<string, unknown>) => {
      const r = await stack.op('POST', `/workspaces/${people.workspaceId}/webhooks`, { url: receiver.url, ...body });
      expect(r.status).toBe(201);
      return r.body.data as { id: string; secret: string };
    };
    return { receiver, stack, hook, ...people };
  }
  const events = (r: Receiver) => r.requests.map((q) => JSON.parse(q.body) as { id: string; type: string; data: any; workspaceId: string });
  const deliveries = async (s: WebhookStack, id: string) => (await s.op('GET', `/webhooks/${id}/deliveries?limit=500`)).body;

  it('delivers every event type, signed, with its data; a project-limited subscription hears only its project', async () => {
    const { receiver, stack, hook, alice, boardId, workspaceId } = await setup();
    const all = await hook({ events: ['task.created', 'task.updated', 'task.moved', 'task.archived', 'task.restored', 'task.deleted', 'comment.created', 'time.logged', 'doc.created', 'doc.updated'] });
    const other = await stack.call(alice.token, 'POST', '/projects', { name: 'Other', key: 'OTH' });
    const limitedReceiver = new Receiver();
    await limitedReceiver.start();
    cleanups.push(() => limitedReceiver.stop());
    const limited = await stack.op('POST', `/workspaces/${workspaceId}/webhooks`, { url: limitedReceiver.url, events: ['task.created', 'task.updated'], projectIds: [other.body.data.id] });
    expect(limited.status).toBe(201);

    const t = (await stack.call(alice.token, 'POST', '/tasks', { boardId, title: 'First' })).body.data;
    const board = (await stack.call(alice.token, 'GET', `/boards/${boardId}`)).body.data;
    expect((await stack.call(alice.token, 'PATCH', `/tasks/${t.id}`, { title: 'Renamed', priority: 'high' })).status).toBe(200);
    expect((await stack.call(alice.token, 'POST', `/tasks/${t.id}/move`, { statusId: board.statuses[1].id, position: 0 })).status).toBe(201);
    expect((await stack.call(alice.token, 'POST', `/tasks/${t.id}/comments`, { text: 'hello' })).status).toBe(201);
    expect((await stack.call(alice.token, 'POST', `/tasks/${t.id}/time`, { minutes: 30 })).status).toBe(201);
    expect((await stack.op('POST', `/tasks/${t.id}/archive`)).status).toBe(200);
    expect((await stack.op('POST', `/tasks/${t.id}/restore`)).status).toBe(200);
    expect((await stack.call(alice.token, 'DELETE', `/tasks/${t.id}`)).status).toBe(204);
    const space = await stack.op('POST', `/workspaces/${workspaceId}/doc-spaces`, { name: 'Docs', description: '', memberIds: null });
    const doc = (await stack.call(alice.token, 'POST', '/docs', { spaceId: space.body.data.id, title: 'Page', content: 'x' })).body.data;
    expect((await stack.call(alice.token, 'PATCH', `/docs/${doc.id}`, { title: 'Page 2' })).status).toBe(200);
    const o = (await stack.call(alice.token, 'POST', '/tasks', { projectId: other.body.data.id, title: 'Elsewhere' })).body.data;

    const expected = ['task.created', 'task.updated', 'task.moved', 'comment.created', 'time.logged', 'task.archived', 'task.restored', 'task.deleted', 'doc.created', 'doc.updated', 'task.created'];
    // Delivery is at least once: a try that outlives its timeout on a busy machine is sent again under the same event
    // id and delivery id, so the events are counted once each.
    const once = (r: Receiver) => [...new Map(events(r).map((e) => [e.id, e])).values()];
    await waitFor(() => expect(once(receiver)).toHaveLength(expected.length));
    expect(once(receiver).map((e) => e.type).sort()).toEqual([...expected].sort());
    for (const r of receiver.requests) {
      const e = await verifyWebhook({ payload: r.body, signature: r.headers['x-tracker-signature'] as string, secret: all.secret });
      expect(r.headers['x-tracker-event']).toBe(e.type);
      expect(r.headers['x-tracker-delivery']).toMatch(/^whd_/);
      expect(Object.keys(e).sort()).toEqual(['createdAt', 'data', 'id', 'type', 'workspaceId']);
      expect(e.workspaceId).toBe(workspaceId);
    }
    const byType = (type: string) => once(receiver).filter((e) => e.type === type);
    expect(byType('task.updated')[0]!.data).toMatchObject({ actorId: alice.id, changes: ['title', 'priority'], previous: { title: 'First', priority: 'medium' }, task: { title: 'Renamed' } });
    expect(byType('task.moved')[0]!.data).toMatchObject({ from: { statusId: board.statuses[0].id }, to: { statusId: board.statuses[1].id } });
    expect(byType('comment.created')[0]!.data).toMatchObject({ comment: { text: 'hello' }, task: { id: t.id, key: t.key } });
    expect(byType('time.logged')[0]!.data).toMatchObject({ timeLog: { seconds: 1800 }, task: { id: t.id } });
    expect(byType('task.deleted')[0]!.data.task).toMatchObject({ id: t.id, archived: false });
    expect(byType('doc.updated')[0]!.data).toMatchObject({ changes: ['title'], doc: { id: doc.id, title: 'Page 2' } });

    // The limited subscription heard only the task made in its project.
    await waitFor(() => expect(once(limitedReceiver)).toHaveLength(1));
    expect(once(limitedReceiver).map((e) => [e.type, e.data.task.id])).toEqual([['task.created', o.id]]);
    // One delivery per event, each succeeded.
    const log = await waitFor(async () => {
      const l = await deliveries(stack, all.id);
      expect(l.data.map((d: any) => d.status)).toEqual(expected.map(() => 'succeeded'));
      return l;
    });
    expect(log.total).toBe(expected.length);
    expect(log.data[0]).toMatchObject({ status: 'succeeded', lastStatusCode: 200, lastError: null, redeliveryOf: null });
    expect(log.data[0].durationMs).toBeGreaterThanOrEqual(0);
  });

  it('retries a failing receiver until it recovers: nothing lost, one delivery id per event', async () => {
    const { receiver, stack, hook, alice, boardId } = await setup();
    const w = await hook({ events: ['task.created'] });
    receiver.answer = (n) => (n <= 6 ? 503 : 200);
    const ids: string[] = [];
    for (let i = 0; i < 4; i++) ids.push((await stack.call(alice.token, 'POST', '/tasks', { boardId, title: `T${i}` })).body.data.id);
    await waitFor(async () => expect((await deliveries(stack, w.id)).data.map((d: any) => d.status)).toEqual(['succeeded', 'succeeded', 'succeeded', 'succeeded']));

    const ok = receiver.requests.filter((_r, i) => i >= 6);
    const okEvents = ok.map((r) => JSON.parse(r.body).data.task.id as string).sort();
    expect(okEvents).toEqual([...ids].sort());
    // Each event went out under one delivery id, the same in every retry; each delivery succeeded once.
    const idsByEvent = new Map<string, Set<string>>();
    for (const r of receiver.requests) {
      const e = JSON.parse(r.body);
      idsByEvent.set(e.id, (idsByEvent.get(e.id) ?? new Set()).add(String(r.headers['x-tracker-delivery'])));
    }
    expect([...idsByEvent.values()].map((s) => s.size)).toEqual([1, 1, 1, 1]);
    expect(new Set(ok.map((r) => r.headers['x-tracker-delivery'])).size).toBe(4);
    const log = (await deliveries(stack, w.id)).data;
    expect(log.reduce((n: number, d: any) => n + d.attempts, 0)).toBe(receiver.requests.length);
  });

  it('redelivers an event as a new delivery with the same event id', async () => {
    const { receiver, stack, hook, alice, boardId } = await setup();
    const w = await hook({ events: ['task.created'] });
    await stack.call(alice.token, 'POST', '/tasks', { boardId, title: 'Again' });
    await waitFor(() => expect(receiver.requests).toHaveLength(1));
    const [first] = (await deliveries(stack, w.id)).data;
    await waitFor(async () => expect((await deliveries(stack, w.id)).data[0].status).toBe('succeeded'));
    const again = await stack.op('POST', `/webhooks/${w.id}/deliveries/${first.id}/redeliver`);
    expect(again.status).toBe(201);
    expect(again.body.data).toMatchObject({ eventId: first.eventId, redeliveryOf: first.id, status: 'pending', attempts: 0 });
    await waitFor(() => expect(receiver.requests).toHaveLength(2));
    const [a, b] = receiver.requests.map((r) => ({ id: r.headers['x-tracker-delivery'], event: JSON.parse(r.body).id }));
    expect(b!.event).toBe(a!.event);
    expect(b!.id).toBe(again.body.data.id);
    expect((await stack.op('POST', `/webhooks/${w.id}/deliveries/whd_nope/redeliver`)).status).toBe(404);
  });

  it('signs with the old and the new secret for 24 hours after a rotation', async () => {
    const { receiver, stack, hook, alice, boardId } = await setup();
    const w = await hook({ events: ['task.created'] });
    const rotated = await stack.op('POST', `/webhooks/${w.id}/rotate-secret`);
    expect(rotated.status).toBe(200);
    expect(rotated.body.data.secret).not.toBe(w.secret);
    await stack.call(alice.token, 'POST', '/tasks', { boardId, title: 'Overlap' });
    await waitFor(() => expect(receiver.requests).toHaveLength(1));
    const first = receiver.requests[0]!;
    expect(String(first.headers['x-tracker-signature']).match(/v1=/g)).toHaveLength(2);
    for (const secret of [w.secret, rotated.body.data.secret]) {
      await expect(verifyWebhook({ payload: first.body, signature: first.headers['x-tracker-signature'] as string, secret })).resolves.toBeTruthy();
    }

    stack.clock.offset = DAY + 60_000;
    await stack.call(alice.token, 'POST', '/tasks', { boardId, title: 'After' });
    await waitFor(() => expect(receiver.requests).toHaveLength(2));
    const second = receiver.requests[1]!;
    const sig = second.headers['x-tracker-signature'] as string;
    expect(sig.match(/v1=/g)).toHaveLength(1);
    const now = Date.now() + stack.clock.offset;
    await expect(verifyWebhook({ payload: second.body, signature: sig, secret: rotated.body.data.secret, now })).resolves.toBeTruthy();
    await expect(verifyWebhook({ payload: second.body, signature: sig, secret: w.secret, now })).rejects.toThrow(/no signature matches/);
  });

  it('switches off a subscription whose every attempt failed for 3 days, and gives up on its delivery', async () => {
    // Retries every 20-200 ms; each attempt moves the clock a day, so the 3 days pass in four attempts.
    const { receiver, stack, hook, alice, boardId, workspaceId } = await setup({ ...FAST, retryForMs: 10 * DAY });
    const w = await hook({ events: ['task.created'] });
    receiver.answer = () => 500;
    receiver.onRequest = () => void (stack.clock.offset += DAY);
    await stack.call(alice.token, 'POST', '/tasks', { boardId, title: 'Doomed' });
    await waitFor(async () => expect((await deliveries(stack, w.id)).data[0].status).toBe('failed'));
    const [d] = (await deliveries(stack, w.id)).data;
    expect(d).toMatchObject({ attempts: 4, lastStatusCode: 500, nextAttemptAt: null });
    expect(receiver.requests).toHaveLength(4);
    const list = (await stack.op('GET', `/workspaces/${workspaceId}/webhooks`)).body.data;
    expect(list[0]).toMatchObject({ id: w.id, active: false, disabledReason: expect.stringContaining('every attempt failed for 3 days') });
    expect(list[0].failingSince).toBeLessThan(list[0].disabledAt);

    // Switched off: new events make no deliveries; switched on again, they do.
    await stack.call(alice.token, 'POST', '/tasks', { boardId, title: 'While off' });
    expect((await deliveries(stack, w.id)).total).toBe(1);
    receiver.answer = () => 200;
    receiver.onRequest = undefined;
    expect((await stack.op('PATCH', `/webhooks/${w.id}`, { active: true })).body.data).toMatchObject({ active: true, failingSince: null, disabledAt: null });
    await stack.call(alice.token, 'POST', '/tasks', { boardId, title: 'Back on' });
    await waitFor(() => expect(receiver.requests).toHaveLength(5));
  });

  it('gives up on a delivery at the end of its retry window', async () => {
    const { receiver, stack, hook, alice, boardId, workspaceId } = await setup({ ...FAST, retryForMs: 2 * DAY, disableAfterMs: 30 * DAY });
    const w = await hook({ events: ['task.created'] });
    receiver.answer = () => 502;
    receiver.onRequest = () => void (stack.clock.offset += DAY);
    await stack.call(alice.token, 'POST', '/tasks', { boardId, title: 'Window' });
    await waitFor(async () => expect((await deliveries(stack, w.id)).data[0].status).toBe('failed'));
    expect((await deliveries(stack, w.id)).data[0]).toMatchObject({ attempts: 2, lastStatusCode: 502, lastError: 'HTTP 502: receiver says 502' });
    // Still on: 3 days have not passed.
    expect((await stack.op('GET', `/workspaces/${workspaceId}/webhooks`)).body.data[0]).toMatchObject({ active: true, failingSince: expect.any(Number) });
  });
});
