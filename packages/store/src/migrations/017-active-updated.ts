import type { Knex } from 'knex';

/**
 * `updatedSince` over the workspace's active tasks walks them in id order for a bounded number of steps before it
 * falls back to the top-N of its match set (`taskListQueries`). With the time of the last change in `tasks_active`,
 * that walk reads the index alone. Every change of a task sets `updated_at`, which `tasks_order_updated` already
 * indexes, so no write that was a heap-only update becomes one that touches the indexes.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX IF EXISTS tasks_active');
  await knex.raw('CREATE INDEX tasks_active ON tasks (workspace_id, id) INCLUDE (board_id, status_id, labels, updated_at) WHERE archived_at IS NULL');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX IF EXISTS tasks_active');
  await knex.raw('CREATE INDEX tasks_active ON tasks (workspace_id, id) INCLUDE (board_id, status_id, labels) WHERE archived_at IS NULL');
}
