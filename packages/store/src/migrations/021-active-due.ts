import type { Knex } from 'knex';

/**
 * A due date alone (`dueBefore`) pages by walking the active tasks in id order until it has a page of matches, when
 * many match (`taskListQueries`). Without the due date in `tasks_active`, that walk read every task it passed from
 * the table (4 054 of them for a page at 1 000 000 tasks, 2.4 ms); with it, the walk reads the index alone (1.2 ms).
 * Every change of a due date already touches `tasks_due`, so no write that was a heap-only update becomes one that
 * touches the indexes.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX IF EXISTS tasks_active');
  await knex.raw('CREATE INDEX tasks_active ON tasks (workspace_id, id) INCLUDE (board_id, status_id, labels, updated_at, due_date) WHERE archived_at IS NULL');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX IF EXISTS tasks_active');
  await knex.raw('CREATE INDEX tasks_active ON tasks (workspace_id, id) INCLUDE (board_id, status_id, labels, updated_at) WHERE archived_at IS NULL');
}
