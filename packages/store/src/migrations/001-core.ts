import type { Knex } from 'knex';

/** Workspaces, people, keys, projects, boards, columns, labels, tasks, comments, attachments, outbox. */
export async function up(knex: Knex): Promise<void> {
  const id = (t: Knex.CreateTableBuilder, name = 'id') => t.specificType(name, 'text collate "C"');
  const ts = (t: Knex.CreateTableBuilder, name: string) => t.bigInteger(name);

  await knex.schema.createTable('workspaces', (t) => {
    id(t).primary();
    t.text('name').notNullable();
    t.text('plan').notNullable();
    t.text('timezone').notNullable();
    t.boolean('member_keys_enabled').notNullable().defaultTo(true);
    ts(t, 'created_at').notNullable();
  });
  await knex.schema.createTable('users', (t) => {
    id(t).primary();
    id(t, 'workspace_id').notNullable().references('workspaces.id').onDelete('CASCADE');
    t.text('name').notNullable();
    t.text('login').notNullable();
    t.text('role').notNullable().defaultTo('');
    t.boolean('is_admin').notNullable().defaultTo(false);
    ts(t, 'deleted_at');
    ts(t, 'created_at').notNullable();
    t.unique(['workspace_id', 'login']);
    t.index(['workspace_id', 'id']);
  });
  await knex.schema.createTable('teams', (t) => {
    id(t).primary();
    id(t, 'workspace_id').notNullable().references('workspaces.id').onDelete('CASCADE');
    t.text('name').notNullable();
    t.text('description').notNullable().defaultTo('');
    id(t, 'lead_id').references('users.id');
    t.index(['workspace_id', 'id']);
  });
  await knex.schema.createTable('team_members', (t) => {
    id(t, 'team_id').notNullable().references('teams.id').onDelete('CASCADE');
    id(t, 'user_id').notNullable().references('users.id').onDelete('CASCADE');
    t.primary(['team_id', 'user_id']);
    t.index(['user_id']);
  });
  await knex.schema.createTable('api_keys', (t) => {
    id(t).primary();
    id(t, 'workspace_id').notNullable().references('workspaces.id').onDelete('CASCADE');
    id(t, 'user_id').notNullable().references('users.id').onDelete('CASCADE');
    t.text('token_hash').notNullable().unique();
    t.specificType('scopes', 'text[]').notNullable();
    t.specificType('project_ids', 'text[]');
    ts(t, 'expires_at');
    t.specificType('allowed_ips', 'text[]').notNullable();
    ts(t, 'revoked_at');
    ts(t, 'created_at').notNullable();
  });
  await knex.schema.createTable('projects', (t) => {
    id(t).primary();
    id(t, 'workspace_id').notNullable().references('workspaces.id').onDelete('CASCADE');
    t.text('key').notNullable();
    t.text('name').notNullable();
    t.text('description').notNullable().defaultTo('');
    t.integer('task_seq').notNullable().defaultTo(0);
    ts(t, 'created_at').notNullable();
    t.unique(['workspace_id', 'key']);
    t.index(['workspace_id', 'id']);
  });
  await knex.schema.createTable('boards', (t) => {
    id(t).primary();
    id(t, 'workspace_id').notNullable().references('workspaces.id').onDelete('CASCADE');
    id(t, 'project_id').notNullable().references('projects.id').onDelete('CASCADE');
    t.text('name').notNullable();
    t.text('description').notNullable().defaultTo('');
    t.specificType('member_ids', 'text[]');
    t.index(['workspace_id', 'id']);
    t.index(['project_id', 'id']);
  });
  await knex.schema.createTable('statuses', (t) => {
    id(t).primary();
    id(t, 'board_id').notNullable().references('boards.id').onDelete('CASCADE');
    t.text('name').notNullable();
    t.text('category').notNullable();
    t.integer('position').notNullable();
    t.index(['board_id', 'position']);
  });
  await knex.schema.createTable('labels', (t) => {
    id(t, 'workspace_id').notNullable().references('workspaces.id').onDelete('CASCADE');
    t.text('name').notNullable();
    t.primary(['workspace_id', 'name']);
  });
  await knex.schema.createTable('tasks', (t) => {
    id(t).primary();
    id(t, 'workspace_id').notNullable().references('workspaces.id').onDelete('CASCADE');
    id(t, 'project_id').notNullable().references('projects.id').onDelete('CASCADE');
    id(t, 'board_id').notNullable().references('boards.id');
    id(t, 'status_id').notNullable().references('statuses.id');
    t.integer('number').notNullable();
    t.text('key').notNullable();
    t.text('title').notNullable();
    t.text('type').notNullable();
    t.text('priority').notNullable();
    id(t, 'assignee_id').references('users.id');
    t.specificType('assignee_ids', 'text[]').notNullable();
    id(t, 'reporter_id').notNullable().references('users.id');
    t.specificType('labels', 'text[]').notNullable();
    t.date('due_date');
    id(t, 'parent_id').references('tasks.id').onDelete('SET NULL');
    t.bigInteger('time_estimate_seconds').notNullable().defaultTo(0);
    t.bigInteger('time_spent_seconds').notNullable().defaultTo(0);
    t.text('description_html').notNullable().defaultTo('');
    t.text('description_text').notNullable().defaultTo('');
    t.jsonb('checklist').notNullable().defaultTo('[]');
    t.double('rank').notNullable();
    ts(t, 'archived_at');
    ts(t, 'done_at');
    ts(t, 'created_at').notNullable();
    ts(t, 'updated_at').notNullable();
    t.unique(['workspace_id', 'key']);
    t.unique(['project_id', 'number']);
  });
  await knex.raw(`
    ALTER TABLE tasks ADD COLUMN search tsvector GENERATED ALWAYS AS (
      setweight(to_tsvector('simple', coalesce(key, '') || ' ' || coalesce(title, '')), 'A') ||
      setweight(to_tsvector('english', coalesce(title, '')), 'A') ||
      setweight(to_tsvector('russian', coalesce(title, '')), 'A') ||
      setweight(to_tsvector('english', coalesce(description_text, '')), 'B') ||
      setweight(to_tsvector('russian', coalesce(description_text, '')), 'B')
    ) STORED`);
  // Lists go in creation order (ids are time-ordered), so every filter index ends in id.
  await knex.raw('CREATE INDEX tasks_ws_id ON tasks (workspace_id, id)');
  // Default lists (active tasks): rows in id order and the count as an index-only scan, visibility and column included.
  await knex.raw('CREATE INDEX tasks_active ON tasks (workspace_id, id) INCLUDE (board_id, status_id) WHERE archived_at IS NULL');
  await knex.raw('CREATE INDEX tasks_project_id ON tasks (project_id, id)');
  await knex.raw('CREATE INDEX tasks_board_id ON tasks (board_id, id)');
  await knex.raw('CREATE INDEX tasks_status_id ON tasks (status_id, id)');
  await knex.raw('CREATE INDEX tasks_status_rank ON tasks (status_id, rank, id) WHERE archived_at IS NULL');
  await knex.raw('CREATE INDEX tasks_reporter_id ON tasks (reporter_id, id)');
  await knex.raw('CREATE INDEX tasks_parent_id ON tasks (parent_id, id)');
  await knex.raw('CREATE INDEX tasks_unassigned ON tasks (workspace_id, id) WHERE assignee_ids = \'{}\'');
  // archived=true lists only the few archived tasks; the other lists skip them.
  await knex.raw('CREATE INDEX tasks_archived ON tasks (workspace_id, id) WHERE archived_at IS NOT NULL');
  await knex.raw('CREATE INDEX tasks_assignees ON tasks USING gin (assignee_ids)');
  await knex.raw('CREATE INDEX tasks_labels ON tasks USING gin (labels)');
  await knex.raw('CREATE INDEX tasks_due ON tasks (workspace_id, due_date)');
  await knex.raw('CREATE INDEX tasks_updated ON tasks (workspace_id, updated_at)');
  await knex.raw('CREATE INDEX tasks_search ON tasks USING gin (search)');

  await knex.schema.createTable('comments', (t) => {
    id(t).primary();
    id(t, 'workspace_id').notNullable().references('workspaces.id').onDelete('CASCADE');
    id(t, 'task_id').notNullable().references('tasks.id').onDelete('CASCADE');
    id(t, 'author_id').notNullable().references('users.id');
    t.text('text').notNullable();
    id(t, 'reply_to').references('comments.id').onDelete('SET NULL');
    t.specificType('mention_ids', 'text[]').notNullable();
    ts(t, 'created_at').notNullable();
    t.index(['task_id', 'id']);
  });
  await knex.schema.createTable('attachments', (t) => {
    id(t).primary();
    id(t, 'task_id').notNullable().references('tasks.id').onDelete('CASCADE');
    t.text('name').notNullable();
    t.bigInteger('size').notNullable();
    t.text('type').notNullable();
    t.index(['task_id', 'id']);
  });
  await knex.schema.createTable('outbox', (t) => {
    t.bigIncrements('id').primary();
    t.text('name').notNullable();
    t.jsonb('payload').notNullable();
    ts(t, 'created_at').notNullable();
    ts(t, 'relayed_at');
  });
  await knex.raw('CREATE INDEX outbox_pending ON outbox (id) WHERE relayed_at IS NULL');
}

export async function down(knex: Knex): Promise<void> {
  for (const t of ['outbox', 'attachments', 'comments', 'tasks', 'labels', 'statuses', 'boards', 'projects', 'api_keys', 'team_members', 'teams', 'users', 'workspaces']) {
    await knex.schema.dropTableIfExists(t);
  }
}
