import type { Knex } from 'knex';

/**
 * A label filter's page walks the active tasks in id order until it has a page of matches: with the labels in
 * `tasks_active`, that walk reads the index alone (the ids first, then the page's rows by primary key) instead of
 * fetching every task it passes from the heap.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX IF EXISTS tasks_active');
  await knex.raw('CREATE INDEX tasks_active ON tasks (workspace_id, id) INCLUDE (board_id, status_id, labels) WHERE archived_at IS NULL');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX IF EXISTS tasks_active');
  await knex.raw('CREATE INDEX tasks_active ON tasks (workspace_id, id) INCLUDE (board_id, status_id) WHERE archived_at IS NULL');
}
