import type { Knex } from 'knex';
import type { OutboxJob, Repos } from '@tt/domain';
import { named } from '../compiled.js';
import { num } from '../util.js';

type Row = Record<string, any>;

/**
 * Jobs into the outbox, one prepared text for any number of them (rows from arrays, in order); bound by outboxValues.
 * With `onlyWith` (a CTE's name), as part of a larger statement: the jobs go in only when that CTE has a row.
 */
export const outboxInsert = (onlyWith?: string): string =>
  `insert into outbox (name, payload, created_at) select n, p::jsonb, ? from ${onlyWith ? `${onlyWith}, ` : ''}unnest(?::text[], ?::text[]) with ordinality as j(n, p, i) order by i`;
export const OUTBOX_INSERT = outboxInsert();
export const outboxValues = (jobs: OutboxJob[]): unknown[] => [Date.now(), jobs.map((j) => j.name), jobs.map((j) => JSON.stringify(j.payload))];

/** The transactional outbox: jobs commit with the change that caused them; a relay moves them to the queue. */
export function outboxRepo(db: Knex): Repos['outbox'] {
  return {
    async add(jobs) {
      if (!jobs.length) return;
      await named(db, OUTBOX_INSERT, outboxValues(jobs));
    },
    async claim(limit, mark) {
      // Several relays (api, mcp, worker processes) may run at once: each takes rows no other holds. The partial
      // index outbox_unclaimed serves the scan, so its cost does not grow with the rows held or already relayed.
      const next = db('outbox').whereNull('relayed_at').whereNull('claimed_by').orderBy('id').limit(limit).forUpdate().skipLocked();
      const rows: Row[] = await db('outbox')
        // = any(array(...)): the chosen ids are looked up by primary key, never a scan of the table to join them.
        .whereRaw('id = any(array(?))', [next.select('id') as unknown as Knex.Value])
        .update('relayedAt' in mark ? { relayed_at: mark.relayedAt } : { claimed_by: mark.holder })
        .returning(['id', 'name', 'payload', 'created_at']);
      return rows
        .map((r) => ({
          id: Number(r.id), name: r.name, payload: typeof r.payload === 'string' ? JSON.parse(r.payload) : r.payload, createdAt: Number(r.created_at),
        }))
        .sort((a, b) => a.id - b.id);
    },
    async release(holder) {
      return db('outbox').whereNull('relayed_at').whereNotNull('claimed_by').whereNot('claimed_by', holder).update({ claimed_by: null });
    },
    async markRelayed(ids, at) {
      if (!ids.length) return;
      await db('outbox').whereIn('id', ids).whereNull('relayed_at').update({ relayed_at: at });
    },
    async prune(at) {
      return (await db('outbox').where('relayed_at', '<', at).delete().returning('id')).length;
    },
    async pending() {
      const row = await db('outbox').whereNull('relayed_at').count({ n: '*' }).first();
      return num(row?.n);
    },
  };
}
