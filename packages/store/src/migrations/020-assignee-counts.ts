import type { Knex } from 'knex';

/**
 * Exact totals for a person's tasks without counting rows: tasks per assignee, column and archived or not (a task with
 * three assignees counts once for each). A person's list (`assigneeId`, "my open tasks", MCP `search_tasks`) counted
 * its matches through the GIN index, a row of the table each: 4 000 rows for the busiest member at 100 000 tasks, most
 * of the page's time. The total is now a sum over the person's columns. Statement triggers keep it in the same
 * transaction as the write, like task_counts and task_label_counts; an update that changes neither assignees, column
 * nor archiving writes nothing.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE task_assignee_counts (
      assignee_id text COLLATE "C" NOT NULL,
      status_id text COLLATE "C" NOT NULL,
      archived boolean NOT NULL,
      n bigint NOT NULL,
      PRIMARY KEY (assignee_id, status_id, archived)
    )`);
  await knex.raw(`
    CREATE FUNCTION task_assignee_counts_apply() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP = 'INSERT' THEN
        INSERT INTO task_assignee_counts AS c (assignee_id, status_id, archived, n)
          SELECT a, status_id, archived_at IS NOT NULL, count(*) FROM new_rows, unnest(assignee_ids) a
          GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
          ON CONFLICT (assignee_id, status_id, archived) DO UPDATE SET n = c.n + excluded.n;
      ELSIF TG_OP = 'DELETE' THEN
        INSERT INTO task_assignee_counts AS c (assignee_id, status_id, archived, n)
          SELECT a, status_id, archived_at IS NOT NULL, -count(*) FROM old_rows, unnest(assignee_ids) a
          GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
          ON CONFLICT (assignee_id, status_id, archived) DO UPDATE SET n = c.n + excluded.n;
      ELSE
        INSERT INTO task_assignee_counts AS c (assignee_id, status_id, archived, n)
          SELECT a, status_id, archived, sum(d) FROM (
            SELECT a, status_id, archived_at IS NOT NULL AS archived, 1 AS d FROM new_rows, unnest(assignee_ids) a
            UNION ALL
            SELECT a, status_id, archived_at IS NOT NULL, -1 FROM old_rows, unnest(assignee_ids) a
          ) x GROUP BY 1, 2, 3 HAVING sum(d) <> 0 ORDER BY 1, 2, 3
          ON CONFLICT (assignee_id, status_id, archived) DO UPDATE SET n = c.n + excluded.n;
      END IF;
      RETURN NULL;
    END $$`);
  await knex.raw(
    'CREATE TRIGGER task_assignee_counts_insert AFTER INSERT ON tasks REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION task_assignee_counts_apply()',
  );
  await knex.raw(
    'CREATE TRIGGER task_assignee_counts_update AFTER UPDATE ON tasks REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION task_assignee_counts_apply()',
  );
  await knex.raw(
    'CREATE TRIGGER task_assignee_counts_delete AFTER DELETE ON tasks REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION task_assignee_counts_apply()',
  );
  await knex.raw(`
    INSERT INTO task_assignee_counts (assignee_id, status_id, archived, n)
    SELECT a, status_id, archived_at IS NOT NULL, count(*) FROM tasks, unnest(assignee_ids) a GROUP BY 1, 2, 3`);
}

export async function down(knex: Knex): Promise<void> {
  for (const t of ['task_assignee_counts_insert', 'task_assignee_counts_update', 'task_assignee_counts_delete']) await knex.raw(`DROP TRIGGER IF EXISTS ${t} ON tasks`);
  await knex.raw('DROP FUNCTION IF EXISTS task_assignee_counts_apply()');
  await knex.raw('DROP TABLE IF EXISTS task_assignee_counts');
}
