import type { Knex } from 'knex';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isPglite } from './db.js';
import { startMaintenance } from './maintenance.js';
import { openTestDatabase } from './testing.js';

let db: Knex;
let close: () => Promise<void>;

beforeAll(async () => {
  ({ db, close } = await openTestDatabase());
});
afterAll(() => close());

const stats = async () =>
  (await db.raw("select coalesce(vacuum_count + autovacuum_count, 0) as vacuums, coalesce(analyze_count + autoanalyze_count, 0) as analyzes from pg_stat_user_tables where relname = 'outbox'")).rows[0];

describe('embedded database maintenance', () => {
  it('vacuums and analyzes on its own on PGlite (no autovacuum there), and leaves PostgreSQL to autovacuum', async () => {
    await db('outbox').insert(Array.from({ length: 50 }, (_, i) => ({ name: 'notify.comment', payload: JSON.stringify({ i }), created_at: Date.now() })));
    await db('outbox').update({ relayed_at: Date.now() });
    const before = await stats();
    const warnings: string[] = [];
    const m = startMaintenance(db, { warn: (_o, msg) => void warnings.push(msg) }, 50);
    try {
      await new Promise((r) => setTimeout(r, 600));
    } finally {
      m.stop();
    }
    const after = await stats();
    expect(warnings).toEqual([]);
    if (isPglite(db)) {
      expect(Number(after.vacuums)).toBeGreaterThan(Number(before.vacuums));
      expect(Number(after.analyzes)).toBeGreaterThan(Number(before.analyzes));
    } else {
      // Autovacuum may run meanwhile; this process added no vacuum of its own.
      expect(Number(after.vacuums) - Number(before.vacuums)).toBeLessThanOrEqual(1);
    }
  });
});
