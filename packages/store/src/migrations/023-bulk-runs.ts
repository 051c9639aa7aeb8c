import type { Knex } from 'knex';

/**
 * Long update_tasks calls run as MCP tasks (the tasks extension): their state lives here rather than in the process
 * that runs them, so any gateway replica answers tasks/get and tasks/cancel, and a run whose process died is seen as
 * such (its lease lapsed). `results` holds the entries of the items applied so far, in order; its length is how far
 * the run got, and a batch's items are written in the same transaction as their entries, so an item is never applied
 * twice. Ended runs are deleted once `expires_at` passes.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE bulk_runs (
      id text PRIMARY KEY,
      workspace_id text NOT NULL,
      key_id text NOT NULL,
      status text NOT NULL,
      items jsonb NOT NULL,
      results jsonb NOT NULL DEFAULT '[]',
      status_message text,
      created_at bigint NOT NULL,
      updated_at bigint NOT NULL,
      lease_until bigint,
      expires_at bigint
    )`);
  await knex.raw('CREATE INDEX bulk_runs_expiry ON bulk_runs (expires_at) WHERE expires_at IS NOT NULL');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP TABLE IF EXISTS bulk_runs');
}
