import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import type { Knex } from 'knex';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Store } from '@tt/domain';
import { createBullQueue, createMemoryQueue, createOutboxRelay, QUEUE_NAME, type Log } from '@tt/jobs';
import { createStore } from '@tt/store';
import { openTestDatabase } from '../../../packages/store/src/testing.js';
import { freePort } from './test/processes.js';
import { dropQueue, uniquePrefix } from './test/stack.js';

const REDIS = process.env.TEST_REDIS_URL;
const silent: Log = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined, child: () => silent };

let db: Knex;
let store: Store;
let closeDb: () => Promise<void>;

beforeAll(async () => {
  ({ db, close: closeDb } = await openTestDatabase());
  store = createStore(db);
});
afterAll(() => closeDb());
beforeEach(async () => {
  await db('outbox').delete();
});

const addRows = (n: number) =>
  store.outbox.add(Array.from({ length: n }, (_, i) => ({ name: 'notify.comment', payload: { workspaceId: 'ws', taskId: `t${i}`, commentId: `c${i}`, actorId: 'u' } })));

describe('the outbox relay', () => {
  it('leaves the rows in the outbox while the queue cannot be reached', async () => {
    await addRows(3);
    const queue = createBullQueue({ redisUrl: `redis://127.0.0.1:${await freePort()}`, log: silent });
    const relay = createOutboxRelay({ store, queue, log: silent, addTimeoutMs: 500 });
    await expect(relay.relayOnce()).rejects.toThrow();
    expect(await store.outbox.pending()).toBe(3);
    await queue.close().catch(() => undefined);
  });

  it('with the in-process queue, marks a row done only when its job has finished', async () => {
    await addRows(1);
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const queue = createMemoryQueue({
      log: silent,
      onSettled: async (job) => store.outbox.markRelayed([Number(job.id.slice('outbox-'.length))], Date.now()),
    });
    const ran: string[] = [];
    queue.consume(async (job) => {
      ran.push(job.id);
      await gate;
    }, { concurrency: 2 });
    const relay = createOutboxRelay({ store, queue, log: silent });
    expect(await relay.relayOnce()).toBe(1);
    // Held in this process: not handed over again, and still pending, so a crash now loses nothing.
    expect(await relay.relayOnce()).toBe(0);
    expect(await store.outbox.pending()).toBe(1);
    release();
    await queue.idle();
    expect(await store.outbox.pending()).toBe(0);
    expect(ran).toHaveLength(1);
  });

  it.runIf(REDIS)('relays running at once turn each row into exactly one job, even when a row is relayed again', async () => {
    await addRows(60);
    const prefix = uniquePrefix();
    const queues = [createBullQueue({ redisUrl: REDIS!, prefix, log: silent }), createBullQueue({ redisUrl: REDIS!, prefix, log: silent })];
    const relays = queues.map((queue) => createOutboxRelay({ store, queue, log: silent, batch: 7 }));
    try {
      while ((await store.outbox.pending()) > 0) await Promise.all(relays.map((r) => r.relayOnce()));
      // A crash between the add and the commit would leave rows unmarked: relayed again, BullMQ drops the known ids.
      await db('outbox').update({ relayed_at: null });
      while ((await store.outbox.pending()) > 0) await Promise.all(relays.map((r) => r.relayOnce()));

      const connection = new Redis(REDIS!, { maxRetriesPerRequest: null });
      const q = new Queue(QUEUE_NAME, { connection, prefix });
      const jobs = await q.getWaiting(0, 1000);
      await q.close();
      connection.disconnect();
      const rowIds = (await db('outbox').orderBy('id').pluck('id')).map((id: unknown) => `outbox-${id}`);
      expect(jobs.map((j) => j.id).sort()).toEqual([...rowIds].sort());
      expect(jobs.find((j) => j.id === rowIds[0])!.data).toEqual({ workspaceId: 'ws', taskId: 't0', commentId: 'c0', actorId: 'u' });
    } finally {
      await Promise.all(queues.map((q) => q.close()));
      await dropQueue(REDIS!, prefix);
    }
  });
});
