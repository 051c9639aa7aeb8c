import type { Knex } from 'knex';

/**
 * `dueBefore` counts its matches for the exact total: with the id, the board and whether the task is archived in the
 * index, that count is an index-only scan over the dated tasks up to the bound (closed-board visibility needs the
 * board), instead of a heap fetch per match. Tasks without a due date never match a bound, so they are left out of
 * the index (and their writes do not touch it).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX IF EXISTS tasks_due');
  await knex.raw('CREATE INDEX tasks_due ON tasks (workspace_id, due_date) INCLUDE (id, board_id, archived_at) WHERE due_date IS NOT NULL');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX IF EXISTS tasks_due');
  await knex.raw('CREATE INDEX tasks_due ON tasks (workspace_id, due_date)');
}
