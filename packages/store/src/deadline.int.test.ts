import knexFactory, { type Knex } from 'knex';
import { afterEach, describe, expect, it } from 'vitest';
import { startFaultProxy, type FaultProxy } from '../../../scripts/topology/fault-proxy.mjs';
import { databaseUnavailable, watchDatabase } from './availability.js';
import { openDatabase } from './db.js';
import { canCommit, DatabaseBusy, DeadlineExceeded, OutcomeUnknown, withDeadline } from './deadline.js';
import { guardStatements } from './testing.js';

/*
 * The request deadline's mechanics on real PostgreSQL behind a TCP proxy the test controls (slow, or silent without a
 * reset), and on embedded PGlite. What is asserted is the outcome (which error, what was committed, which connection
 * survived), never a duration: speed is the benchmark's business.
 */
const PG = process.env.TEST_DATABASE_URL;

const cleanup: (() => Promise<unknown> | unknown)[] = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function throughProxy(o: { poolMax?: number; maxWaiting?: number; outcomeGraceMs?: number } = {}): Promise<{ proxy: FaultProxy; db: Knex; direct: Knex; table: string }> {
  const target = new URL(PG!);
  const proxy = await startFaultProxy({ port: Number(target.port || 5432), host: target.hostname });
  const url = new URL(PG!);
  url.hostname = '127.0.0.1';
  url.port = String(proxy.port);
  const db = openDatabase({ databaseUrl: url.toString(), poolMax: o.poolMax ?? 4, connectTimeoutMs: 1000, maxWaiting: o.maxWaiting, outcomeGraceMs: o.outcomeGraceMs });
  const direct = knexFactory({ client: 'pg', connection: PG, pool: { min: 0, max: 2 } });
  const table = `tt_deadline_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 6)}`;
  await direct.schema.createTable(table, (t) => {
    t.text('id').primary();
  });
  cleanup.push(
    () => direct.destroy(),
    () => direct.schema.dropTableIfExists(table),
    () => proxy.close(),
    () => db.destroy(),
  );
  return { proxy, db, direct, table };
}

describe.skipIf(!PG)('request deadline on PostgreSQL through a faulty network', () => {
  it('abandons a statement the network holds, discards its connection, and the pool serves the next request', async () => {
    const { proxy, db } = await throughProxy();
    await db.raw('select 1');
    proxy.set('hold');
    const err = await withDeadline(300, () => db.raw('select 1')).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DeadlineExceeded);
    expect(databaseUnavailable(err)).toMatch(/deadline/);
    proxy.set('pass');
    // The held connection was reset, not returned: the proxy saw it go, and the next statement gets a working one.
    await sleep(50);
    expect(proxy.connections).toBe(0);
    expect((await db.raw('select 2 as n')).rows[0].n).toBe(2);
  });

  it('says a COMMIT the network holds past the deadline and its grace has an unknown outcome, never that the database is unavailable', async () => {
    const { proxy, db, direct, table } = await throughProxy({ outcomeGraceMs: 300 });
    const err = await withDeadline(500, () =>
      db.transaction(async (trx) => {
        await trx(table).insert({ id: 'held' });
        proxy.set('hold');
      }),
    ).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OutcomeUnknown);
    expect(databaseUnavailable(err)).toBeUndefined();
    // Here the client's reset reached the proxy before the network came back, so nothing was delivered: the outcome
    // was "not committed", which the client could not know.
    // The network comes back after the client gave up (here: after the proxy, in this process, saw the reset).
    await sleep(100);
    proxy.set('pass');
    await sleep(300);
    expect(await direct(table).where({ id: 'held' })).toEqual([]);
  });

  it('does not send a COMMIT whose answer cannot come back in time (a brownout), and commits nothing', async () => {
    const { proxy, db, direct, table } = await throughProxy();
    await db.raw('select 1');
    // Each round trip takes about 400 ms: begin and insert leave less time than a round trip for the COMMIT.
    proxy.set({ delayMs: 200 });
    const err = await withDeadline(1000, () =>
      db.transaction(async (trx) => {
        await trx(table).insert({ id: 'late' });
      }),
    ).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DeadlineExceeded);
    proxy.set('pass');
    await sleep(600);
    expect(await direct(table).where({ id: 'late' })).toEqual([]);
  });

  it('waits past the deadline for the answer of a write sent in time, and answers what happened (no ghost write)', async () => {
    const { proxy, db, direct, table } = await throughProxy();
    await db.raw('select 1');
    // The statement reaches the server at once and commits; its answer comes 800 ms later, after the 300 ms deadline.
    proxy.set({ delayMs: 800, replies: true });
    const rows = await withDeadline(300, () => db(table).insert({ id: 'late-answer' }).returning('id'));
    expect(rows).toEqual([{ id: 'late-answer' }]);
    expect(await direct(table).where({ id: 'late-answer' })).toHaveLength(1);
    // A COMMIT too: sent in time, answered late, its outcome is the answer.
    proxy.set('pass');
    const committed = await withDeadline(600, async (d) =>
      db.transaction(async (trx) => {
        await trx(table).insert({ id: 'late-commit' });
        proxy.set({ delayMs: 800, replies: true });
        expect(d.committing).toBe(false);
      }),
    ).then(() => 'committed', (e: unknown) => e);
    expect(committed).toBe('committed');
    expect(await direct(table).where({ id: 'late-commit' })).toHaveLength(1);
  });

  it('does not send a write outside a transaction whose answer cannot come back in time, and writes nothing', async () => {
    const { proxy, db, direct, table } = await throughProxy();
    await db.raw('select 1');
    // Each round trip takes about 500 ms: after one read, 300 ms are left of the deadline, less than a round trip.
    proxy.set({ delayMs: 500, replies: true });
    const err = await withDeadline(800, async () => {
      await db.raw('select 1');
      await db(table).insert({ id: 'not-sent' });
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DeadlineExceeded);
    proxy.set('pass');
    await sleep(700);
    expect(await direct(table).where({ id: 'not-sent' })).toEqual([]);
  });

  it('says a write whose answer does not come within the grace has an unknown outcome (it committed here)', async () => {
    const { proxy, db, direct, table } = await throughProxy({ outcomeGraceMs: 200 });
    await db.raw('select 1');
    proxy.set({ delayMs: 1500, replies: true });
    const err = await withDeadline(300, () => db(table).insert({ id: 'unknown' })).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OutcomeUnknown);
    expect(databaseUnavailable(err)).toBeUndefined();
    expect(await direct(table).where({ id: 'unknown' })).toHaveLength(1);
  });

  it('guardStatements names a write that bypasses the rule (a connection queried directly), not one that goes through it', async () => {
    const { db, table } = await throughProxy();
    const guard = guardStatements();
    cleanup.push(() => guard.stop());
    const bypass = `insert into ${table} values ('bypass')`;
    await withDeadline(3000, async () => {
      await db(table).insert({ id: 'through' });
      await db.transaction(async (trx) => void (await trx(table).insert({ id: 'through-trx' })));
      const client = db.client as { acquireConnection(): Promise<{ query(sql: string): Promise<unknown> }>; releaseConnection(c: unknown): Promise<void> };
      const connection = await client.acquireConnection();
      try {
        await connection.query(bypass);
      } finally {
        await client.releaseConnection(connection);
      }
    });
    expect(guard.seen()).toBeGreaterThan(4);
    expect(guard.bypassed).toEqual([bypass]);
  });

  it('serves a brownout whose statements finish inside the deadline (slow is not down)', async () => {
    const { proxy, db, direct, table } = await throughProxy();
    await db.raw('select 1');
    proxy.set({ delayMs: 30 });
    await withDeadline(3000, () => db.transaction(async (trx) => void (await trx(table).insert({ id: 'slow-but-fine' }))));
    const rows = await withDeadline(3000, () => db(table).where({ id: 'slow-but-fine' }));
    expect(rows).toHaveLength(1);
    expect(await direct(table).where({ id: 'slow-but-fine' })).toHaveLength(1);
  });

  it('refuses at once the requests past the waiting limit instead of queueing them', async () => {
    const { proxy, db } = await throughProxy({ poolMax: 1, maxWaiting: 2 });
    await db.raw('select 1');
    proxy.set('hold');
    const held = withDeadline(800, () => db.raw('select 1')).catch((e: unknown) => e);
    await sleep(20);
    const waiting = [1, 2].map(() => withDeadline(800, () => db.raw('select 1')).catch((e: unknown) => e));
    await sleep(20);
    const refused = await withDeadline(800, () => db.raw('select 1')).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(DatabaseBusy);
    expect(databaseUnavailable(refused)).toBeDefined();
    // The others end at their deadline, waiting for the connection or on it.
    for (const e of [await held, ...(await Promise.all(waiting))]) expect(e).toBeInstanceOf(DeadlineExceeded);
    proxy.set('pass');
    expect((await db.raw('select 3 as n')).rows[0].n).toBe(3);
  });

  it('leaves work outside any deadline alone (migrations; the worker and the relay set deadlines of their own)', async () => {
    const { proxy, db } = await throughProxy();
    await db.raw('select 1');
    proxy.set({ delayMs: 300 });
    const r = await db.raw('select 4 as n');
    expect(r.rows[0].n).toBe(4);
  });

  it('logs a brownout once and its end once, without calling it an outage', async () => {
    const { proxy, db } = await throughProxy();
    const lines: Array<{ level: string; msg: string }> = [];
    const log = {
      error: (_o: object, msg: string) => void lines.push({ level: 'error', msg }),
      warn: (_o: object, msg: string) => void lines.push({ level: 'warn', msg }),
      info: (_o: object, msg: string) => void lines.push({ level: 'info', msg }),
    };
    const watch = watchDatabase(db, log, 100);
    cleanup.push(() => watch.stop());
    await db.raw('select 1');
    proxy.set({ delayMs: 200 });
    // Statements under load: each slow one would start a probe; the brownout is logged once.
    for (let i = 0; i < 5; i++) await Promise.all([1, 2, 3].map(() => withDeadline(3000, () => db.raw('select 1'))));
    expect(watch.slow).toBe(true);
    expect(watch.down).toBe(false);
    proxy.set('pass');
    for (let i = 0; i < 100 && watch.slow; i++) await sleep(50);
    expect(watch.slow).toBe(false);
    expect(lines.map((l) => `${l.level} ${l.msg.split(':')[0]}`)).toEqual(['warn database slow', 'info database no longer slow']);
  });
});

describe('canCommit', () => {
  it('takes a COMMIT, and outside a transaction anything but a plain read, for a statement that can commit', () => {
    expect(canCommit('COMMIT;', true)).toBe(true);
    expect(canCommit('insert into t values (1)', true)).toBe(false);
    expect(canCommit('select * from t for update', true)).toBe(false);
    for (const sql of ['insert into t values (1)', 'update t set a = 1', 'delete from t', 'with x as (insert into t values (1) returning *) select * from x', 'select f() from (delete from t returning *) d', 'merge into t using s on true when matched then do nothing', 'truncate t', 'create table t (a int)', 'copy t from stdin']) {
      expect(canCommit(sql, false), sql).toBe(true);
    }
    for (const sql of ['select 1', ' SELECT updated_at, deleted_at from t', 'with x as (select 1) select * from x', 'show server_version']) {
      expect(canCommit(sql, false), sql).toBe(false);
    }
  });
});
