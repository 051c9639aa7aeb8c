import type { Knex } from 'knex';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Store } from '@tt/domain';
import { createMemoryQueue, createOutboxRelay, outboxRowId, type Log } from '@tt/jobs';
import { createStore } from '@tt/store';
import { openTestDatabase } from '../../../packages/store/src/testing.js';

/*
 * Embedded mode at scale: the in-process queue falls far behind the writes. Each outbox pass must stay one cheap
 * indexed statement (no list of the ids the queue holds), and the queue must hold a bounded number of jobs, the
 * rest waiting in the outbox, so memory does not grow with the backlog.
 */
const onPg = Boolean(process.env.TEST_DATABASE_URL);
const silent: Log = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined, child: () => silent };
const ROWS = 6000;
const MAX_BACKLOG = 500;

let db: Knex;
let store: Store;
let closeDb: () => Promise<void>;

beforeAll(async () => {
  ({ db, close: closeDb } = await openTestDatabase());
  store = createStore(db);
  await db.raw(
    `insert into outbox (name, payload, created_at)
     select 'notify.comment', json_build_object('workspaceId', 'ws', 'taskId', 't' || g, 'commentId', 'c' || g, 'actorId', 'u'), g
     from generate_series(1, ?) g`,
    [ROWS],
  );
});
afterAll(() => closeDb());

/** The statements sent while `fn` runs, with their bindings. */
async function statements(fn: () => Promise<unknown>): Promise<Array<{ sql: string; bindings: unknown[] }>> {
  const seen: Array<{ sql: string; bindings: unknown[] }> = [];
  const listener = (q: { sql: string; bindings?: unknown[] }) => seen.push({ sql: q.sql, bindings: q.bindings ?? [] });
  db.on('query', listener);
  try {
    await fn();
  } finally {
    db.off('query', listener);
  }
  return seen;
}

const settle = (rowStore: Store) => async (job: { id: string }) => rowStore.outbox.markRelayed([outboxRowId(job.id)!], Date.now());

describe('the outbox relay with an in-process queue far behind', () => {
  it('claims with one statement of constant size, holds at most its backlog bound, and drains everything', async () => {
    let open!: () => void;
    const gate = new Promise<void>((r) => (open = r));
    const queue = createMemoryQueue({ log: silent, onSettled: settle(store) });
    let handled = 0;
    queue.consume(async () => {
      await gate;
      handled++;
    }, { concurrency: 4 });
    const relay = createOutboxRelay({ store, queue, log: silent, batch: 100, maxBacklog: MAX_BACKLOG });

    // Passes until the queue is full: each claim is the same single statement, whatever the queue already holds.
    const claims: Array<{ sql: string; bindings: unknown[] }> = [];
    for (let pass = 0; pass < 20; pass++) {
      const sent = await statements(() => relay.relayOnce());
      claims.push(...sent.filter((s) => /skip locked/i.test(s.sql)));
    }
    expect(queue.backlog()).toBe(MAX_BACKLOG);
    expect(claims.length).toBe(MAX_BACKLOG / 100);
    for (const c of claims) {
      expect(c.sql).not.toMatch(/not in/i);
      // The holder and the batch size: nothing that grows with the held jobs.
      expect(c.bindings.length).toBeLessThanOrEqual(3);
    }
    // Full: a pass sends no claim at all.
    const idle = await statements(() => relay.relayOnce());
    expect(idle.filter((s) => /\boutbox\b/.test(s.sql))).toEqual([]);
    expect(Number((await db('outbox').whereNotNull('claimed_by').whereNull('relayed_at').count({ n: '*' }))[0]!.n)).toBe(MAX_BACKLOG);

    if (onPg) {
      // With thousands of rows relayed or held, the next claim reads the partial index of unclaimed rows.
      await db('outbox').where('id', '<=', 2000).whereNull('claimed_by').update({ relayed_at: 1 });
      await db.raw('analyze outbox');
      const claim = claims[0]!;
      const plan = await db.raw(`explain ${claim.sql.replace(/\$\d+/g, '?')}`, claim.bindings as Knex.RawBinding[]);
      const text = (plan.rows as Array<{ 'QUERY PLAN': string }>).map((r) => r['QUERY PLAN']).join('\n');
      expect(text).toMatch(/outbox_unclaimed/);
      expect(text).not.toMatch(/Seq Scan on outbox/);
      await db('outbox').where('id', '<=', 2000).where('relayed_at', 1).update({ relayed_at: null });
    }

    open();
    for (let i = 0; i < 1000 && (await store.outbox.pending()) > 0; i++) {
      await relay.relayOnce();
      await queue.idle();
      expect(queue.backlog()).toBeLessThanOrEqual(MAX_BACKLOG);
    }
    expect(await store.outbox.pending()).toBe(0);
    expect(handled).toBe(ROWS);
    await queue.close();
  }, 120_000);

  it("hands a previous run's claimed rows to the next run's queue", async () => {
    await db('outbox').delete();
    await store.outbox.add([{ name: 'notify.comment', payload: { workspaceId: 'ws', taskId: 'tx', commentId: 'cx', actorId: 'u' } }]);
    const first = createMemoryQueue({ log: silent });
    first.consume(() => new Promise(() => undefined), { concurrency: 1 });
    expect(await createOutboxRelay({ store, queue: first, log: silent }).relayOnce()).toBe(1);
    // The first process is gone with its queue; its row stays claimed and pending.
    await first.close();
    expect(await store.outbox.pending()).toBe(1);
    const second = createMemoryQueue({ log: silent, onSettled: settle(store) });
    second.consume(async () => undefined, { concurrency: 1 });
    expect(await createOutboxRelay({ store, queue: second, log: silent }).relayOnce()).toBe(1);
    await second.idle();
    expect(await store.outbox.pending()).toBe(0);
    await second.close();
  });
});
