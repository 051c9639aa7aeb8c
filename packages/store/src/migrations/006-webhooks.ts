import type { Knex } from 'knex';

/** Webhook subscriptions, the events recorded with the changes that caused them, and one delivery per (event, subscription). */
export async function up(knex: Knex): Promise<void> {
  const id = (t: Knex.CreateTableBuilder, name = 'id') => t.specificType(name, 'text collate "C"');
  const ts = (t: Knex.CreateTableBuilder, name: string) => t.bigInteger(name);

  await knex.schema.createTable('webhooks', (t) => {
    id(t).primary();
    id(t, 'workspace_id').notNullable().references('workspaces.id').onDelete('CASCADE');
    t.text('url').notNullable();
    t.specificType('events', 'text[]').notNullable();
    // null = every project (and the events of no project, such as documents)
    t.specificType('project_ids', 'text[]');
    t.boolean('active').notNullable();
    // Kept readable: every delivery is signed with it. Shown to the operator only at create and rotate.
    t.text('secret').notNullable();
    t.text('previous_secret');
    ts(t, 'previous_secret_expires_at');
    ts(t, 'failing_since');
    ts(t, 'disabled_at');
    t.text('disabled_reason');
    ts(t, 'created_at').notNullable();
    ts(t, 'updated_at').notNullable();
  });
  // Every task, comment, time and doc write looks up the workspace's active subscriptions: a tiny partial index.
  await knex.raw('CREATE INDEX webhooks_active ON webhooks (workspace_id) WHERE active');
  await knex.raw('CREATE INDEX webhooks_workspace ON webhooks (workspace_id, id)');

  await knex.schema.createTable('webhook_events', (t) => {
    id(t).primary();
    id(t, 'workspace_id').notNullable().references('workspaces.id').onDelete('CASCADE');
    // No foreign key: a task.deleted event outlives its task, and events never join to projects.
    id(t, 'project_id');
    t.text('type').notNullable();
    t.jsonb('data').notNullable();
    ts(t, 'created_at').notNullable();
    t.index(['created_at']);
  });

  await knex.schema.createTable('webhook_deliveries', (t) => {
    id(t).primary();
    id(t, 'webhook_id').notNullable().references('webhooks.id').onDelete('CASCADE');
    id(t, 'event_id').notNullable().references('webhook_events.id').onDelete('CASCADE');
    t.text('status').notNullable();
    t.integer('attempts').notNullable().defaultTo(0);
    t.integer('last_status_code');
    t.text('last_error');
    t.integer('duration_ms');
    ts(t, 'created_at').notNullable();
    ts(t, 'last_attempt_at');
    ts(t, 'next_attempt_at');
    ts(t, 'succeeded_at');
    id(t, 'redelivery_of');
    t.index(['event_id']);
  });
  // The delivery log: a subscription's deliveries newest first.
  await knex.raw('CREATE INDEX webhook_deliveries_log ON webhook_deliveries (webhook_id, created_at DESC, id DESC)');
}

export async function down(knex: Knex): Promise<void> {
  for (const t of ['webhook_deliveries', 'webhook_events', 'webhooks']) await knex.schema.dropTableIfExists(t);
}
