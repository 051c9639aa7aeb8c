import type { Knex } from 'knex';

/**
 * The activity log (what changed on tasks and pages, by whom, through which channel, key and OAuth client) and the
 * operator's audit log (keys, grants, clients, users, settings, webhooks). No foreign keys: an entry outlives its
 * task, page, key or user, and writing one costs a plain insert in the transaction of the change.
 * Keyset reads newest first: a task's entries by task_id, the workspace's feed by (workspace_id, at), a person's by
 * (workspace_id, actor_id, at), a project's by (workspace_id, project_id, at).
 */
export async function up(knex: Knex): Promise<void> {
  const id = (t: Knex.CreateTableBuilder, name: string) => t.specificType(name, 'text collate "C"');
  await knex.schema.createTable('activity', (t) => {
    id(t, 'id').primary();
    id(t, 'workspace_id').notNullable();
    t.bigInteger('at').notNullable();
    id(t, 'actor_id');
    t.text('channel').notNullable();
    id(t, 'key_id');
    t.text('client_name');
    id(t, 'automation_id');
    id(t, 'project_id');
    id(t, 'board_id');
    id(t, 'space_id');
    id(t, 'task_id');
    t.text('task_key');
    id(t, 'doc_id');
    t.text('action').notNullable();
    t.jsonb('changes').notNullable();
  });
  await knex.raw('CREATE INDEX activity_feed ON activity (workspace_id, at DESC, id DESC)');
  await knex.raw('CREATE INDEX activity_task ON activity (task_id, at DESC, id DESC) WHERE task_id IS NOT NULL');
  await knex.raw('CREATE INDEX activity_actor ON activity (workspace_id, actor_id, at DESC, id DESC)');
  await knex.raw('CREATE INDEX activity_project ON activity (workspace_id, project_id, at DESC, id DESC) WHERE project_id IS NOT NULL');

  await knex.schema.createTable('audit_log', (t) => {
    id(t, 'id').primary();
    id(t, 'workspace_id');
    t.bigInteger('at').notNullable();
    t.text('actor_kind').notNullable();
    id(t, 'actor_id');
    t.text('channel').notNullable();
    id(t, 'key_id');
    t.text('client_name');
    t.text('action').notNullable();
    t.text('target_type').notNullable();
    id(t, 'target_id').notNullable();
    t.jsonb('details').notNullable();
  });
  await knex.raw('CREATE INDEX audit_log_at ON audit_log (at DESC, id DESC)');
  await knex.raw('CREATE INDEX audit_log_workspace ON audit_log (workspace_id, at DESC, id DESC)');
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('audit_log');
  await knex.schema.dropTableIfExists('activity');
}
