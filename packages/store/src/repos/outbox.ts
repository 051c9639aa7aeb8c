import type { Knex } from 'knex';
import type { Repos } from '@tt/domain';
import { num } from '../util.js';

type Row = Record<string, any>;

/** The transactional outbox: jobs commit with the change that caused them; a relay moves them to the queue. */
export function outboxRepo(db: Knex): Repos['outbox'] {
  return {
    async add(jobs) {
      if (!jobs.length) return;
      const now = Date.now();
      await db('outbox').insert(jobs.map((j) => ({ name: j.name, payload: JSON.stringify(j.payload), created_at: now })));
    },
    async claim(limit, exceptIds = []) {
      const q = db('outbox').whereNull('relayed_at');
      if (exceptIds.length) q.whereNotIn('id', exceptIds);
      // Several relays (api, mcp, worker processes) may run at once: each takes rows no other holds.
      const rows: Row[] = await q.orderBy('id').limit(limit).forUpdate().skipLocked().select('id', 'name', 'payload', 'created_at');
      return rows.map((r) => ({
        id: Number(r.id), name: r.name, payload: typeof r.payload === 'string' ? JSON.parse(r.payload) : r.payload, createdAt: Number(r.created_at),
      }));
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
