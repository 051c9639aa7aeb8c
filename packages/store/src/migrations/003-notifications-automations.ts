import type { Knex } from 'knex';

/** Inbox notifications, board automations and the record of which rule ran on which task. */
export async function up(knex: Knex): Promise<void> {
  const id = (t: Knex.CreateTableBuilder, name = 'id') => t.specificType(name, 'text collate "C"');
  const ts = (t: Knex.CreateTableBuilder, name: string) => t.bigInteger(name);

  await knex.schema.createTable('notifications', (t) => {
    id(t).primary();
    id(t, 'workspace_id').notNullable().references('workspaces.id').onDelete('CASCADE');
    id(t, 'user_id').notNullable().references('users.id').onDelete('CASCADE');
    t.text('kind').notNullable();
    id(t, 'task_id').notNullable().references('tasks.id').onDelete('CASCADE');
    id(t, 'comment_id').references('comments.id').onDelete('CASCADE');
    id(t, 'actor_id').notNullable().references('users.id');
    // One notification per person per event: handlers insert with ON CONFLICT DO NOTHING, so a retried or
    // redelivered job adds nothing.
    t.text('event_key').notNullable();
    ts(t, 'created_at').notNullable();
    ts(t, 'read_at');
    t.unique(['user_id', 'event_key']);
  });
  // The inbox is read newest first, all or unread only.
  await knex.raw('CREATE INDEX notifications_inbox ON notifications (user_id, created_at DESC, id DESC)');
  await knex.raw('CREATE INDEX notifications_unread ON notifications (user_id, created_at DESC, id DESC) WHERE read_at IS NULL');
  await knex.raw('CREATE INDEX notifications_task ON notifications (task_id)');
  await knex.raw('CREATE INDEX notifications_comment ON notifications (comment_id) WHERE comment_id IS NOT NULL');

  await knex.schema.createTable('automations', (t) => {
    id(t).primary();
    id(t, 'workspace_id').notNullable().references('workspaces.id').onDelete('CASCADE');
    id(t, 'board_id').notNullable().references('boards.id').onDelete('CASCADE');
    id(t, 'owner_id').notNullable().references('users.id');
    t.text('trigger').notNullable();
    id(t, 'status_id').references('statuses.id').onDelete('CASCADE');
    // json, not jsonb: the actions come back in the order and shape they were written.
    t.json('actions').notNullable();
    ts(t, 'created_at').notNullable();
    t.index(['board_id', 'trigger', 'id']);
  });
  await knex.schema.createTable('automation_runs', (t) => {
    id(t, 'automation_id').notNullable().references('automations.id').onDelete('CASCADE');
    id(t, 'task_id').notNullable().references('tasks.id').onDelete('CASCADE');
    ts(t, 'created_at').notNullable();
    t.primary(['automation_id', 'task_id']);
    t.index(['task_id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  for (const t of ['automation_runs', 'automations', 'notifications']) {
    await knex.schema.dropTableIfExists(t);
  }
}
