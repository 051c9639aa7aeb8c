import net from 'node:net';
import knexFactory from 'knex';
import { afterEach, describe, expect, it } from 'vitest';
import { watchDatabase, type DatabaseWatch } from './availability.js';
import { openDatabase } from './db.js';

interface Line {
  level: 'error' | 'info';
  obj: object;
  msg: string;
}

function recorder() {
  const lines: Line[] = [];
  return {
    lines,
    log: {
      error: (obj: object, msg: string) => void lines.push({ level: 'error', obj, msg }),
      info: (obj: object, msg: string) => void lines.push({ level: 'info', obj, msg }),
    },
  };
}

const until = async (cond: () => boolean, ms = 5_000) => {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 20));
  }
};

const cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

/** A TCP proxy to the test PostgreSQL that can be stopped (every connection cut, new ones refused) and started again. */
async function pgProxy(target: URL) {
  const sockets = new Set<net.Socket>();
  let server: net.Server | undefined;
  let port = 0;
  const start = () =>
    new Promise<void>((resolve) => {
      server = net.createServer((client) => {
        const upstream = net.connect(Number(target.port || 5432), target.hostname);
        for (const s of [client, upstream]) {
          sockets.add(s);
          s.on('close', () => sockets.delete(s));
          s.on('error', () => undefined);
        }
        client.pipe(upstream).pipe(client);
      });
      server.listen(port, '127.0.0.1', () => {
        port = (server!.address() as net.AddressInfo).port;
        resolve();
      });
    });
  const stop = () =>
    new Promise<void>((resolve) => {
      for (const s of sockets) s.destroy();
      server!.close(() => resolve());
    });
  await start();
  const url = new URL(target);
  url.port = String(port);
  url.hostname = '127.0.0.1';
  return { url: url.toString(), start, stop };
}

const terminated = Object.assign(new Error('Connection terminated unexpectedly'), {});

describe('watchDatabase', () => {
  it('logs an outage once, however many requests fail, and only after a probe of its own fails too', async () => {
    // Nothing listens on port 1: every connection is refused at once.
    const db = knexFactory({ client: 'pg', connection: { connectionString: 'postgres://postgres@127.0.0.1:1/none', connectionTimeoutMillis: 500 }, pool: { min: 0, max: 2 } });
    const { lines, log } = recorder();
    const watch: DatabaseWatch = watchDatabase(db, log, 100);
    cleanup.push(() => db.destroy(), () => watch.stop());
    for (let i = 0; i < 20; i++) expect(watch.report(terminated)).toBe(true);
    await until(() => watch.down);
    for (let i = 0; i < 20; i++) await db.raw('select 1').catch((e: unknown) => watch.report(e));
    await new Promise((r) => setTimeout(r, 300));
    expect(lines.filter((l) => l.level === 'error')).toHaveLength(1);
    expect(lines[0]!.msg).toMatch(/database unavailable/);
    expect(JSON.stringify(lines[0]!.obj)).toMatch(/ECONNREFUSED|connect/);
  });

  // The watch serves PostgreSQL only (the embedded database cannot be out of reach).
  it.skipIf(!process.env.TEST_DATABASE_URL)('does not call a leftover failure of a serving database an outage (the request still gets its 503)', async () => {
    const db = openDatabase({ databaseUrl: process.env.TEST_DATABASE_URL });
    const { lines, log } = recorder();
    const watch = watchDatabase(db, log, 100);
    cleanup.push(() => db.destroy(), () => watch.stop());
    // What a pooled connection closed by the last server, or a connection attempt started during the outage, throws.
    expect(watch.report(terminated)).toBe(true);
    expect(watch.report(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }))).toBe(true);
    await db.raw('select 1');
    await new Promise((r) => setTimeout(r, 300));
    expect(watch.down).toBe(false);
    expect(lines).toEqual([]);
    // A fault of the request is not the database's.
    expect(watch.report(Object.assign(new Error('duplicate key'), { code: '23505' }))).toBe(false);
  });

  it.skipIf(!process.env.TEST_DATABASE_URL)('logs each outage under load exactly once, and its end once, however the pool fails meanwhile', async () => {
    const proxy = await pgProxy(new URL(process.env.TEST_DATABASE_URL!));
    const db = openDatabase({ databaseUrl: proxy.url, connectTimeoutMs: 500, acquireTimeoutMs: 500 });
    const { lines, log } = recorder();
    const watch = watchDatabase(db, log, 100);
    cleanup.push(() => db.destroy(), () => watch.stop(), () => proxy.stop().catch(() => undefined));
    let running = true;
    let failures = 0;
    const load = Array.from({ length: 8 }, async () => {
      while (running) {
        await db.raw('select pg_sleep(0.01)').catch(() => void failures++);
        await new Promise((r) => setTimeout(r, 5));
      }
    });
    for (let cycle = 1; cycle <= 3; cycle++) {
      await new Promise((r) => setTimeout(r, 400));
      await proxy.stop();
      await until(() => watch.down);
      // A statement answered while the database is out of reach (an old server answering as it shuts down) does not
      // end the outage: only the watch's own probe does.
      db.emit('query-response', { rows: [] }, { sql: 'select 1' });
      await new Promise((r) => setTimeout(r, 300));
      expect(watch.down).toBe(true);
      await proxy.start();
      await until(() => !watch.down);
      expect(lines.map((l) => l.level)).toEqual(Array.from({ length: cycle }, () => ['error', 'info']).flat());
    }
    running = false;
    await Promise.all(load);
    await new Promise((r) => setTimeout(r, 300));
    expect(failures).toBeGreaterThan(0);
    expect(lines).toHaveLength(6);
  });

  it.skipIf(!process.env.TEST_DATABASE_URL)('does not call a busy pool an outage', async () => {
    const db = openDatabase({ databaseUrl: process.env.TEST_DATABASE_URL, poolMax: 1, acquireTimeoutMs: 200 });
    const { lines, log } = recorder();
    const watch = watchDatabase(db, log, 100);
    cleanup.push(() => db.destroy(), () => watch.stop());
    // The only connection is held by a transaction: another statement times out waiting for it (a 503 for its request).
    await db.transaction(async (trx) => {
      await trx.raw('select 1');
      const err = await db.raw('select 1').then(() => undefined, (e: unknown) => e);
      expect(String(err)).toMatch(/Timeout acquiring a connection/);
      // The request's answer is a 503 (what the error handler reports), but the database itself answers at once.
      expect(watch.report(err)).toBe(true);
      await new Promise((r) => setTimeout(r, 1000));
    });
    expect(watch.down).toBe(false);
    expect(lines).toEqual([]);
  });
});
