import type { Knex } from 'knex';
import type { BulkRunRecord, BulkRunRepo } from '@tt/domain';
import { num, numOrNull } from '../util.js';

type Row = Record<string, any>;

const TABLE = 'bulk_runs';

const json = (v: unknown) => (typeof v === 'string' ? JSON.parse(v) : v);
const jsonOrNull = (v: unknown) => (v === null || v === undefined ? null : json(v));
const stored = (v: unknown) => (v === null || v === undefined ? null : JSON.stringify(v));

function toRecord(r: Row): BulkRunRecord {
  return {
    id: r.id, workspaceId: r.workspace_id, keyId: r.key_id, status: r.status, items: json(r.items), results: json(r.results),
    statusMessage: r.status_message ?? null, createdAt: num(r.created_at), updatedAt: num(r.updated_at),
    leaseUntil: numOrNull(r.lease_until), expiresAt: numOrNull(r.expires_at), tool: r.tool, arguments: jsonOrNull(r.arguments),
    outcome: jsonOrNull(r.outcome), inputRequests: jsonOrNull(r.input_requests), inputResponses: jsonOrNull(r.input_responses),
  };
}

const state = (run: BulkRunRecord) => ({
  status: run.status, results: JSON.stringify(run.results), status_message: run.statusMessage, updated_at: run.updatedAt,
  lease_until: run.leaseUntil, expires_at: run.expiresAt, outcome: stored(run.outcome), input_requests: stored(run.inputRequests),
  input_responses: stored(run.inputResponses),
});

/** Runs (MCP tasks: update_tasks' long calls and every other tool's), one row each, read by primary key. */
export function bulkRunRepo(db: Knex): BulkRunRepo {
  return {
    async insert(run) {
      await db(TABLE).insert({ id: run.id, workspace_id: run.workspaceId, key_id: run.keyId, items: JSON.stringify(run.items), tool: run.tool, arguments: stored(run.arguments), created_at: run.createdAt, ...state(run) });
    },
    async get(id) {
      const row: Row | undefined = await db(TABLE).where({ id }).first();
      return row && toRecord(row);
    },
    async lock(id) {
      const row: Row | undefined = await db(TABLE).where({ id }).forUpdate().first();
      return row && toRecord(row);
    },
    async save(run) {
      await db(TABLE).where({ id: run.id }).update(state(run));
    },
    async prune(now) {
      // Counted by RETURNING: PGlite does not report the affected row count the way pg does.
      return (await db(TABLE).where('expires_at', '<=', now).delete().returning('id')).length;
    },
  };
}
