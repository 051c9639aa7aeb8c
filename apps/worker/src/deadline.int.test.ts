import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createBullQueue, createOutboxRelay, createProcessor, QUEUE_NAME, type JobQueue, type Log } from '@tt/jobs';
import { createStore, openDatabase, OutcomeUnknown, withDeadline } from '@tt/store';
import { startFaultProxy } from '../../../scripts/topology/fault-proxy.mjs';
import { createTestDatabaseUrl, dropTestDatabase } from '../../../packages/store/src/testing.js';
import { delivered, dropQueue, startStack, team, uniquePrefix } from './test/stack.js';

/*
 * Work outside requests under a silent database or Redis (issue 33): the outbox relay and the worker's handlers reach
 * PostgreSQL, and the queue Redis, through a TCP proxy that stops forwarding without a reset. Each pass and each try
 * must end by its deadline (DeadlineExceeded, rolled back) or, when a write or COMMIT of it was already sent, after a
 * short grace (OutcomeUnknown), not hang until the network returns, and the retry must
 * relay each row once and deliver each notification once; a queue command must fail after its timeout, and a
 * connection that stays silent must be given up for a new one. Real PostgreSQL and Redis only.
 */
const REDIS = process.env.TEST_REDIS_URL;
const PG = process.env.TEST_DATABASE_URL;
const silent: Log = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined, child: () => silent };

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!().catch(() => undefined);
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** What `p` settled with (its value or its error) within `ms`, or 'still waiting'. */
const within = (p: Promise<unknown>, ms: number): Promise<unknown> =>
  Promise.race([p.then((v) => v, (e: unknown) => e), new Promise((r) => setTimeout(() => r('still waiting'), ms))]);

/** A store on `databaseUrl` through a fault proxy the test switches. */
async function behindProxy(databaseUrl: string) {
  const target = new URL(databaseUrl);
  const proxy = await startFaultProxy({ port: Number(target.port || 5432), host: target.hostname });
  const url = new URL(databaseUrl);
  url.hostname = '127.0.0.1';
  url.port = String(proxy.port);
  // A COMMIT already sent is waited for past the deadline, here for 500 ms.
  const db = openDatabase({ databaseUrl: url.toString(), poolMax: 2, connectTimeoutMs: 1000, outcomeGraceMs: 500 });
  // Undone in reverse: the proxy closes first, so a statement it still holds fails and the pool can close.
  cleanups.push(() => db.destroy(), () => proxy.close());
  return { proxy, db, store: createStore(db) };
}

describe.runIf(PG && REDIS)('work outside requests on a silent database', () => {
  it('the outbox relay: a pass whose COMMIT the network holds fails after its deadline and grace (outcome unknown), here rolled back; the next relays each row once', async () => {
    const databaseUrl = (await createTestDatabaseUrl())!;
    cleanups.push(() => dropTestDatabase(databaseUrl));
    const { proxy, store } = await behindProxy(databaseUrl);
    await store.outbox.add([1, 2, 3].map((i) => ({ name: 'notify.comment', payload: { workspaceId: 'ws', taskId: `t${i}`, commentId: `c${i}`, actorId: 'u' } })));
    const prefix = uniquePrefix();
    const queue = createBullQueue({ redisUrl: REDIS!, prefix, log: silent });
    cleanups.push(() => dropQueue(REDIS!, prefix), () => queue.close());
    // The network goes silent right after the jobs reached Redis: the pass's COMMIT is held.
    const silentAfterAdd: JobQueue = { ...queue, add: async (jobs) => {
      await queue.add(jobs);
      proxy.set('hold');
    } };
    const held = createOutboxRelay({ store, queue: silentAfterAdd, log: silent, deadline: withDeadline, deadlineMs: 500 });
    expect(await within(held.relayOnce(), 3000)).toBeInstanceOf(OutcomeUnknown);

    // The network comes back after the relay gave up (here: after the proxy, in this process, saw the reset, so the
    // COMMIT it held is dropped).
    await sleep(100);
    proxy.set('pass');
    // Rolled back: the rows are pending again, and relaying them again adds no second job (the ids are known).
    expect(await store.outbox.pending()).toBe(3);
    const relay = createOutboxRelay({ store, queue, log: silent, deadline: withDeadline, deadlineMs: 500 });
    expect(await relay.relayOnce()).toBe(3);
    expect(await store.outbox.pending()).toBe(0);
    const connection = new Redis(REDIS!, { maxRetriesPerRequest: null });
    const q = new Queue(QUEUE_NAME, { connection, prefix });
    try {
      expect(await q.getWaitingCount()).toBe(3);
    } finally {
      await q.close();
      connection.disconnect();
    }
  });

  it('the worker: a try whose database goes silent fails at its deadline (its write already sent: after the grace, outcome unknown); the retry delivers the notification once', async () => {
    const stack = await startStack({ redisUrl: REDIS!, consume: false });
    cleanups.push(() => dropQueue(REDIS!, stack.prefix), () => stack.close());
    const { alice, bob, boardId, workspaceId } = await team(stack);
    const task = await stack.call(alice.token, 'POST', '/tasks', { boardId, title: 'Assigned in silence', assigneeIds: [bob.id] });
    expect(task.status).toBe(201);
    const row = await stack.runtime.db('outbox').where({ name: 'notify.assigned' }).orderBy('id', 'desc').first();
    const job = {
      id: `outbox-${row.id}`, name: row.name as string, payload: typeof row.payload === 'string' ? JSON.parse(row.payload) : row.payload,
      timestamp: Number(row.created_at), attempt: 1,
    };
    // The worker's handlers on a store behind the proxy; the same processor BullMQ runs.
    const { proxy, store } = await behindProxy(stack.databaseUrl!);
    const run = createProcessor({ ...stack.runtime.deps, store }, silent, { deadline: withDeadline, deadlineMs: 500 });
    await store.outbox.pending();
    proxy.set('hold');
    // The handler's first statement is its insert: sent before the deadline, held, so its outcome is unknown.
    expect(await within(run(job), 3000)).toBeInstanceOf(OutcomeUnknown);

    await sleep(100);
    proxy.set('pass');
    await run({ ...job, attempt: 2 });
    // A redelivery (a stalled job run again) changes nothing.
    await run({ ...job, attempt: 3 });
    expect(await delivered(stack, workspaceId)).toEqual([`bob assigned assigned:${task.body.data.id}`]);
  });
});

describe.runIf(REDIS)('the queue on a silent Redis', () => {
  it('fails a command after its timeout, gives up a connection that stays silent, and adds again once Redis answers', async () => {
    const target = new URL(REDIS!);
    const proxy = await startFaultProxy({ port: Number(target.port || 6379), host: target.hostname });
    const url = new URL(REDIS!);
    url.hostname = '127.0.0.1';
    url.port = String(proxy.port);
    const prefix = uniquePrefix();
    const queue = createBullQueue({ redisUrl: url.toString(), prefix, log: silent, commandTimeoutMs: 300, socketTimeoutMs: 1000 });
    cleanups.push(() => proxy.close(), () => dropQueue(REDIS!, prefix), () => queue.close());
    const job = (i: number) => ({ id: `outbox-${i}`, name: 'notify.comment', payload: { workspaceId: 'ws', taskId: `t${i}`, commentId: `c${i}`, actorId: 'u' }, timestamp: Date.now() });
    await queue.add([job(1)]);
    const opened = proxy.accepted;

    proxy.set('hold');
    expect(await within(queue.add([job(2)]), 3000)).toBeInstanceOf(Error);
    // Not kept until TCP gives up: the silent connection is closed and another one opened (silent too, for now).
    await vi.waitFor(() => expect(proxy.accepted).toBeGreaterThan(opened), { timeout: 5000, interval: 50 });

    proxy.set('pass');
    await vi.waitFor(() => queue.add([job(2)]), { timeout: 10_000, interval: 200 });
    const connection = new Redis(REDIS!, { maxRetriesPerRequest: null });
    const q = new Queue(QUEUE_NAME, { connection, prefix });
    try {
      expect((await q.getWaiting(0, 10)).map((j) => j.id).sort()).toEqual(['outbox-1', 'outbox-2']);
    } finally {
      await q.close();
      connection.disconnect();
    }
  });
});
