import type { Knex } from 'knex';

/**
 * Indexes for the task orders added for agents (priority, due day, last update): each is a keyset over the same
 * expression as the query (repos/tasks/query.ts), on active tasks of a workspace, so ordered pages stay index scans.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(
    "CREATE INDEX tasks_order_priority ON tasks (workspace_id, (case priority when 'highest' then 1 when 'high' then 2 when 'medium' then 3 when 'low' then 4 else 5 end), id) WHERE archived_at IS NULL",
  );
  await knex.raw("CREATE INDEX tasks_order_due ON tasks (workspace_id, coalesce(due_date, '9999-12-31'::date), id) WHERE archived_at IS NULL");
  await knex.raw('CREATE INDEX tasks_order_updated ON tasks (workspace_id, updated_at DESC, id DESC) WHERE archived_at IS NULL');
}

export async function down(knex: Knex): Promise<void> {
  for (const name of ['tasks_order_priority', 'tasks_order_due', 'tasks_order_updated']) await knex.raw(`DROP INDEX IF EXISTS ${name}`);
}
