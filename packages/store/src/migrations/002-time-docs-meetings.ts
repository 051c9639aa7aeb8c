import type { Knex } from 'knex';

/** Time logs, documentation spaces and pages (with task links, versions and a change log), meeting folders and meetings. */
export async function up(knex: Knex): Promise<void> {
  const id = (t: Knex.CreateTableBuilder, name = 'id') => t.specificType(name, 'text collate "C"');
  const ts = (t: Knex.CreateTableBuilder, name: string) => t.bigInteger(name);

  await knex.schema.createTable('time_logs', (t) => {
    id(t).primary();
    id(t, 'workspace_id').notNullable().references('workspaces.id').onDelete('CASCADE');
    // Deleting a task deletes its time for good; archiving keeps it.
    id(t, 'task_id').notNullable().references('tasks.id').onDelete('CASCADE');
    id(t, 'project_id').notNullable().references('projects.id').onDelete('CASCADE');
    id(t, 'user_id').notNullable().references('users.id');
    t.integer('seconds').notNullable();
    t.date('date').notNullable();
    t.text('note').notNullable().defaultTo('');
    ts(t, 'created_at').notNullable();
  });
  // Entries newest first and reports over a period: (workspace, date) carries the grouping columns so a report
  // over a period is an index-only range scan; task, project and user filters have their own ranges.
  await knex.raw('CREATE INDEX time_logs_ws_date ON time_logs (workspace_id, date, id) INCLUDE (user_id, project_id, task_id, seconds)');
  await knex.raw('CREATE INDEX time_logs_task ON time_logs (task_id, date, id)');
  await knex.raw('CREATE INDEX time_logs_project ON time_logs (project_id, date, id)');
  await knex.raw('CREATE INDEX time_logs_user ON time_logs (user_id, date, id)');

  await knex.schema.createTable('doc_spaces', (t) => {
    id(t).primary();
    id(t, 'workspace_id').notNullable().references('workspaces.id').onDelete('CASCADE');
    t.text('name').notNullable();
    t.text('description').notNullable().defaultTo('');
    t.specificType('member_ids', 'text[]');
    ts(t, 'created_at').notNullable();
    t.index(['workspace_id', 'id']);
  });
  await knex.schema.createTable('docs', (t) => {
    id(t).primary();
    id(t, 'workspace_id').notNullable().references('workspaces.id').onDelete('CASCADE');
    id(t, 'space_id').notNullable().references('doc_spaces.id').onDelete('CASCADE');
    id(t, 'parent_id').references('docs.id').onDelete('CASCADE');
    // Materialized tree path "<space>/<root>/.../<id>": ids are time-ordered, so path order is depth-first tree order
    // with siblings by creation, and a keyset cursor over it stays stable while pages are added.
    t.specificType('path', 'text collate "C"').notNullable();
    t.text('title').notNullable();
    t.text('content_html').notNullable().defaultTo('');
    t.text('text').notNullable().defaultTo('');
    id(t, 'author_id').notNullable().references('users.id');
    ts(t, 'created_at').notNullable();
    ts(t, 'updated_at').notNullable();
  });
  await knex.raw(`
    ALTER TABLE docs ADD COLUMN search tsvector GENERATED ALWAYS AS (
      setweight(to_tsvector('simple', coalesce(title, '')), 'A') ||
      setweight(to_tsvector('english', coalesce(title, '')), 'A') ||
      setweight(to_tsvector('russian', coalesce(title, '')), 'A') ||
      setweight(to_tsvector('english', coalesce(text, '')), 'B') ||
      setweight(to_tsvector('russian', coalesce(text, '')), 'B')
    ) STORED`);
  await knex.raw('CREATE UNIQUE INDEX docs_ws_path ON docs (workspace_id, path)');
  await knex.raw('CREATE INDEX docs_space_path ON docs (space_id, path)');
  await knex.raw('CREATE INDEX docs_parent_path ON docs (parent_id, path)');
  await knex.raw('CREATE INDEX docs_top_path ON docs (workspace_id, path) WHERE parent_id IS NULL');
  await knex.raw('CREATE INDEX docs_updated ON docs (workspace_id, updated_at)');
  await knex.raw('CREATE INDEX docs_search ON docs USING gin (search)');

  await knex.schema.createTable('doc_tasks', (t) => {
    id(t, 'doc_id').notNullable().references('docs.id').onDelete('CASCADE');
    id(t, 'task_id').notNullable().references('tasks.id').onDelete('CASCADE');
    t.primary(['doc_id', 'task_id']);
    t.index(['task_id', 'doc_id']);
  });
  await knex.schema.createTable('doc_versions', (t) => {
    id(t).primary();
    id(t, 'doc_id').notNullable().references('docs.id').onDelete('CASCADE');
    t.text('title').notNullable();
    t.text('content_html').notNullable();
    t.text('text').notNullable();
    ts(t, 'created_at').notNullable();
    t.index(['doc_id', 'created_at']);
  });
  await knex.schema.createTable('doc_log', (t) => {
    id(t).primary();
    id(t, 'doc_id').notNullable().references('docs.id').onDelete('CASCADE');
    id(t, 'user_id').notNullable().references('users.id');
    t.text('action').notNullable();
    t.specificType('changes', 'text[]').notNullable();
    ts(t, 'created_at').notNullable();
    t.index(['doc_id', 'id']);
  });

  await knex.schema.createTable('meeting_folders', (t) => {
    id(t).primary();
    id(t, 'workspace_id').notNullable().references('workspaces.id').onDelete('CASCADE');
    t.text('name').notNullable();
    id(t, 'parent_id').references('meeting_folders.id').onDelete('CASCADE');
    t.specificType('team_ids', 'text[]').notNullable();
    ts(t, 'created_at').notNullable();
    t.index(['workspace_id', 'id']);
  });
  await knex.schema.createTable('meetings', (t) => {
    id(t).primary();
    id(t, 'workspace_id').notNullable().references('workspaces.id').onDelete('CASCADE');
    t.text('title').notNullable();
    t.text('url').notNullable().defaultTo('');
    id(t, 'folder_id').references('meeting_folders.id').onDelete('CASCADE');
    id(t, 'project_id').references('projects.id').onDelete('SET NULL');
    id(t, 'created_by').notNullable().references('users.id');
    ts(t, 'started_at').notNullable();
    ts(t, 'ended_at');
    t.text('status').notNullable();
    t.specificType('participants', 'text[]').notNullable();
    t.boolean('transcript_ready').notNullable().defaultTo(false);
    t.jsonb('summary');
    t.text('summary_text').notNullable().defaultTo('');
  });
  await knex.raw(`
    ALTER TABLE meetings ADD COLUMN search tsvector GENERATED ALWAYS AS (
      setweight(to_tsvector('simple', coalesce(title, '')), 'A') ||
      setweight(to_tsvector('english', coalesce(title, '')), 'A') ||
      setweight(to_tsvector('russian', coalesce(title, '')), 'A') ||
      setweight(to_tsvector('english', coalesce(summary_text, '')), 'B') ||
      setweight(to_tsvector('russian', coalesce(summary_text, '')), 'B')
    ) STORED`);
  // Newest first: (started_at desc, id desc) under each filter.
  await knex.raw('CREATE INDEX meetings_ws_started ON meetings (workspace_id, started_at DESC, id DESC)');
  await knex.raw('CREATE INDEX meetings_folder_started ON meetings (folder_id, started_at DESC, id DESC)');
  await knex.raw('CREATE INDEX meetings_personal ON meetings (created_by, started_at DESC, id DESC) WHERE folder_id IS NULL');
  await knex.raw('CREATE INDEX meetings_project_started ON meetings (project_id, started_at DESC, id DESC)');
  await knex.raw('CREATE INDEX meetings_search ON meetings USING gin (search)');
  await knex.schema.createTable('meeting_transcripts', (t) => {
    id(t, 'meeting_id').primary().references('meetings.id').onDelete('CASCADE');
    t.jsonb('replicas').notNullable();
  });
  // Action items that name a task, so a task's context finds its agreements by index.
  await knex.schema.createTable('meeting_action_items', (t) => {
    id(t, 'meeting_id').notNullable().references('meetings.id').onDelete('CASCADE');
    t.integer('position').notNullable();
    id(t, 'task_id').notNullable().references('tasks.id').onDelete('CASCADE');
    t.text('text').notNullable();
    t.text('owner').notNullable();
    t.date('due');
    t.primary(['meeting_id', 'position']);
    t.index(['task_id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  for (const t of [
    'meeting_action_items', 'meeting_transcripts', 'meetings', 'meeting_folders', 'doc_log', 'doc_versions', 'doc_tasks', 'docs',
    'doc_spaces', 'time_logs',
  ]) {
    await knex.schema.dropTableIfExists(t);
  }
}
