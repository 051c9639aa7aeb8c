import type { Knex } from 'knex';

/**
 * Speed: exact task totals without counting rows, a daily time rollup for reports, and an outbox claim that marks
 * rows instead of listing the ids a process holds.
 */
export async function up(knex: Knex): Promise<void> {
  // Tasks per column, archived or not, type and priority: at most a few thousand rows per workspace. The total of
  // GET /tasks for any filter over those fields (project, board, column, category, type, priority, archived,
  // closed boards) is a sum over them. Statement triggers keep them in the same transaction as the write, so the
  // total is exact; a bulk INSERT ... SELECT costs one aggregate, not one update per row.
  await knex.raw(`
    CREATE TABLE task_counts (
      status_id text COLLATE "C" NOT NULL,
      archived boolean NOT NULL,
      type text NOT NULL,
      priority text NOT NULL,
      n bigint NOT NULL,
      PRIMARY KEY (status_id, archived, type, priority)
    )`);
  await knex.raw(`
    CREATE FUNCTION task_counts_apply() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP = 'INSERT' THEN
        INSERT INTO task_counts AS c (status_id, archived, type, priority, n)
          SELECT status_id, archived_at IS NOT NULL, type, priority, count(*) FROM new_rows GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4
          ON CONFLICT (status_id, archived, type, priority) DO UPDATE SET n = c.n + excluded.n;
      ELSIF TG_OP = 'DELETE' THEN
        INSERT INTO task_counts AS c (status_id, archived, type, priority, n)
          SELECT status_id, archived_at IS NOT NULL, type, priority, -count(*) FROM old_rows GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4
          ON CONFLICT (status_id, archived, type, priority) DO UPDATE SET n = c.n + excluded.n;
      ELSE
        -- Most updates (title, assignees, ...) change no counted field: the difference is empty and nothing is written.
        INSERT INTO task_counts AS c (status_id, archived, type, priority, n)
          SELECT status_id, archived, type, priority, sum(d) FROM (
            SELECT status_id, archived_at IS NOT NULL AS archived, type, priority, 1 AS d FROM new_rows
            UNION ALL
            SELECT status_id, archived_at IS NOT NULL, type, priority, -1 FROM old_rows
          ) x GROUP BY 1, 2, 3, 4 HAVING sum(d) <> 0 ORDER BY 1, 2, 3, 4
          ON CONFLICT (status_id, archived, type, priority) DO UPDATE SET n = c.n + excluded.n;
      END IF;
      RETURN NULL;
    END $$`);
  await knex.raw('CREATE TRIGGER task_counts_insert AFTER INSERT ON tasks REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION task_counts_apply()');
  await knex.raw(
    'CREATE TRIGGER task_counts_update AFTER UPDATE ON tasks REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION task_counts_apply()',
  );
  await knex.raw('CREATE TRIGGER task_counts_delete AFTER DELETE ON tasks REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION task_counts_apply()');
  await knex.raw(`
    INSERT INTO task_counts (status_id, archived, type, priority, n)
    SELECT status_id, archived_at IS NOT NULL, type, priority, count(*) FROM tasks GROUP BY 1, 2, 3, 4`);
  // The sum joins columns to boards by board; statuses (board_id, position) already serves that.

  // Seconds and entries per workspace, day, person and task: a report reads these sums instead of every log.
  await knex.raw(`
    CREATE TABLE time_daily (
      workspace_id text COLLATE "C" NOT NULL,
      date date NOT NULL,
      user_id text COLLATE "C" NOT NULL,
      task_id text COLLATE "C" NOT NULL,
      project_id text COLLATE "C" NOT NULL,
      seconds bigint NOT NULL,
      entries bigint NOT NULL,
      PRIMARY KEY (workspace_id, date, user_id, task_id)
    )`);
  await knex.raw('CREATE INDEX time_daily_task ON time_daily (task_id, date)');
  await knex.raw('CREATE INDEX time_daily_user ON time_daily (user_id, date)');
  await knex.raw('CREATE INDEX time_daily_project ON time_daily (project_id, date)');
  await knex.raw(`
    CREATE FUNCTION time_daily_apply() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP IN ('UPDATE', 'DELETE') THEN
        INSERT INTO time_daily AS d (workspace_id, date, user_id, task_id, project_id, seconds, entries)
          SELECT workspace_id, date, user_id, task_id, min(project_id), -sum(seconds), -count(*) FROM old_rows GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4
          ON CONFLICT (workspace_id, date, user_id, task_id) DO UPDATE SET seconds = d.seconds + excluded.seconds, entries = d.entries + excluded.entries;
      END IF;
      IF TG_OP IN ('UPDATE', 'INSERT') THEN
        INSERT INTO time_daily AS d (workspace_id, date, user_id, task_id, project_id, seconds, entries)
          SELECT workspace_id, date, user_id, task_id, min(project_id), sum(seconds), count(*) FROM new_rows GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4
          ON CONFLICT (workspace_id, date, user_id, task_id) DO UPDATE SET seconds = d.seconds + excluded.seconds, entries = d.entries + excluded.entries;
      END IF;
      -- Groups whose last log went away leave no empty row behind (a report would show them with 0 entries).
      IF TG_OP IN ('UPDATE', 'DELETE') THEN
        DELETE FROM time_daily d USING (SELECT DISTINCT workspace_id, date, user_id, task_id FROM old_rows) o
          WHERE d.workspace_id = o.workspace_id AND d.date = o.date AND d.user_id = o.user_id AND d.task_id = o.task_id AND d.entries = 0;
      END IF;
      RETURN NULL;
    END $$`);
  await knex.raw('CREATE TRIGGER time_daily_insert AFTER INSERT ON time_logs REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION time_daily_apply()');
  await knex.raw(
    'CREATE TRIGGER time_daily_update AFTER UPDATE ON time_logs REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION time_daily_apply()',
  );
  await knex.raw('CREATE TRIGGER time_daily_delete AFTER DELETE ON time_logs REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION time_daily_apply()');
  await knex.raw(`
    INSERT INTO time_daily (workspace_id, date, user_id, task_id, project_id, seconds, entries)
    SELECT workspace_id, date, user_id, task_id, min(project_id), sum(seconds), count(*) FROM time_logs GROUP BY 1, 2, 3, 4`);

  // An in-process queue's relay marks the rows it has taken (claimed_by = its process) rather than sending the ids
  // of every job it holds: the next claim is one range read of this partial index, however many jobs are held.
  await knex.raw('ALTER TABLE outbox ADD COLUMN claimed_by text');
  await knex.raw('CREATE INDEX outbox_unclaimed ON outbox (id) WHERE relayed_at IS NULL AND claimed_by IS NULL');
  await knex.raw('CREATE INDEX outbox_claimed ON outbox (id) WHERE relayed_at IS NULL AND claimed_by IS NOT NULL');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX IF EXISTS outbox_claimed');
  await knex.raw('DROP INDEX IF EXISTS outbox_unclaimed');
  await knex.raw('ALTER TABLE outbox DROP COLUMN IF EXISTS claimed_by');
  for (const t of ['time_daily_insert', 'time_daily_update', 'time_daily_delete']) await knex.raw(`DROP TRIGGER IF EXISTS ${t} ON time_logs`);
  await knex.raw('DROP FUNCTION IF EXISTS time_daily_apply()');
  await knex.raw('DROP TABLE IF EXISTS time_daily');
  for (const t of ['task_counts_insert', 'task_counts_update', 'task_counts_delete']) await knex.raw(`DROP TRIGGER IF EXISTS ${t} ON tasks`);
  await knex.raw('DROP FUNCTION IF EXISTS task_counts_apply()');
  await knex.raw('DROP TABLE IF EXISTS task_counts');
}
