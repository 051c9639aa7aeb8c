import type { Knex } from 'knex';

/**
 * Every MCP task (the tasks extension) is a run in bulk_runs, not only update_tasks' long calls: `tool` names the tool
 * that answers it and `arguments` what it runs with. A run that ended with an answer of its own (rather than update_tasks'
 * per-item `results`) keeps it in `outcome` ({result} or {error}). A run waiting for the client's input (status
 * input_required) keeps the requests still open in `input_requests` and every answer received so far in
 * `input_responses`, so whichever replica receives the answers resumes it.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE bulk_runs
      ADD COLUMN tool text NOT NULL DEFAULT 'update_tasks',
      ADD COLUMN arguments jsonb,
      ADD COLUMN outcome jsonb,
      ADD COLUMN input_requests jsonb,
      ADD COLUMN input_responses jsonb`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE bulk_runs DROP COLUMN tool, DROP COLUMN arguments, DROP COLUMN outcome, DROP COLUMN input_requests, DROP COLUMN input_responses');
}
