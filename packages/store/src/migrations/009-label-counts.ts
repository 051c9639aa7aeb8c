import type { Knex } from 'knex';

/**
 * Exact totals for label filters without counting rows: tasks per column, archived or not, and list of labels (as
 * the tasks hold them; tasks without labels are not kept). `label=a,b` asks for tasks holding every named label, so
 * its total is the sum over the lists that contain them (containment ignores order and repeats, so the lists need no
 * normalising): a few rows per column, however many tasks carry them. Statement triggers keep it in the same
 * transaction as the write, like task_counts.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE task_label_counts (
      status_id text COLLATE "C" NOT NULL,
      archived boolean NOT NULL,
      labels text[] NOT NULL,
      n bigint NOT NULL,
      PRIMARY KEY (status_id, archived, labels)
    )`);
  await knex.raw(`
    CREATE FUNCTION task_label_counts_apply() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP = 'INSERT' THEN
        INSERT INTO task_label_counts AS c (status_id, archived, labels, n)
          SELECT status_id, archived_at IS NOT NULL, labels, count(*) FROM new_rows
          WHERE labels <> '{}' GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
          ON CONFLICT (status_id, archived, labels) DO UPDATE SET n = c.n + excluded.n;
      ELSIF TG_OP = 'DELETE' THEN
        INSERT INTO task_label_counts AS c (status_id, archived, labels, n)
          SELECT status_id, archived_at IS NOT NULL, labels, -count(*) FROM old_rows
          WHERE labels <> '{}' GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
          ON CONFLICT (status_id, archived, labels) DO UPDATE SET n = c.n + excluded.n;
      ELSE
        -- Most updates change neither labels, column nor archiving: the difference is empty and nothing is written.
        INSERT INTO task_label_counts AS c (status_id, archived, labels, n)
          SELECT status_id, archived, labels, sum(d) FROM (
            SELECT status_id, archived_at IS NOT NULL AS archived, labels, 1 AS d FROM new_rows WHERE labels <> '{}'
            UNION ALL
            SELECT status_id, archived_at IS NOT NULL, labels, -1 FROM old_rows WHERE labels <> '{}'
          ) x GROUP BY 1, 2, 3 HAVING sum(d) <> 0 ORDER BY 1, 2, 3
          ON CONFLICT (status_id, archived, labels) DO UPDATE SET n = c.n + excluded.n;
      END IF;
      RETURN NULL;
    END $$`);
  await knex.raw(
    'CREATE TRIGGER task_label_counts_insert AFTER INSERT ON tasks REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION task_label_counts_apply()',
  );
  await knex.raw(
    'CREATE TRIGGER task_label_counts_update AFTER UPDATE ON tasks REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION task_label_counts_apply()',
  );
  await knex.raw(
    'CREATE TRIGGER task_label_counts_delete AFTER DELETE ON tasks REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION task_label_counts_apply()',
  );
  await knex.raw(`
    INSERT INTO task_label_counts (status_id, archived, labels, n)
    SELECT status_id, archived_at IS NOT NULL, labels, count(*) FROM tasks WHERE labels <> '{}' GROUP BY 1, 2, 3`);
}

export async function down(knex: Knex): Promise<void> {
  for (const t of ['task_label_counts_insert', 'task_label_counts_update', 'task_label_counts_delete']) await knex.raw(`DROP TRIGGER IF EXISTS ${t} ON tasks`);
  await knex.raw('DROP FUNCTION IF EXISTS task_label_counts_apply()');
  await knex.raw('DROP TABLE IF EXISTS task_label_counts');
}
