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

  it('does not call a leftover failure of a serving database an outage (the request still gets its 503)', async () => {
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
});
