import type { Knex } from 'knex';
import type { TaskChange, TaskFullView } from '@tt/domain';
import { statementFamily } from '../../compiled.js';
import { activityJson } from '../activity.js';
import { details, detailColumns, TASK, TASK_SELECT } from './columns.js';

type Row = Record<string, any>;

// One text per set of changed columns and of activity columns: prepared like the single change's.
const CHANGES = statementFamily(32);

/**
 * Many tasks' changes in one statement (a bulk call's): each row changed only if its version is still the one its
 * plan read, with its new labels, its outbox jobs and its activity entries going in only with it, and every changed
 * task read back as `updateView` reads one (its column, its board's members, its details). The patches travel as one
 * JSON document, each a row of `tasks` with only its own columns (jsonb_populate_record types them; a column a patch
 * does not name keeps its value). Answers per change, in order: the task as changed, or undefined when its guard did
 * not hold (nothing of it written). A changed task's `details.position` counts the tasks above its new place as
 * they were before the statement (the statement's snapshot), as `updateView`'s does.
 */
export async function updateTaskViews(
  db: Knex, changes: readonly TaskChange[], viewerId: string | null, o: { workspaceId: string },
): Promise<Array<TaskFullView | undefined>> {
  if (!changes.length) return [];
  const input = changes.map((c) => {
    const patch = TASK.write(c.patch);
    // TASK.write gives the checklist as JSON text (a jsonb parameter); in a JSON document it is the JSON itself.
    if (c.patch.checklist !== undefined) patch.checklist = c.patch.checklist;
    return { id: c.id, version: c.version, patch };
  });
  const columns = [...new Set(input.flatMap((i) => Object.keys(i.patch)))].sort();
  const jobs = changes.flatMap((c) => c.jobs.map((j) => ({ task_id: c.id, name: j.name, payload: j.payload }))).map((j, ord) => ({ ord, ...j }));
  const entries = changes.flatMap((c) => c.activity.map(activityJson));
  const entryColumns = [...new Set(entries.flatMap((e) => Object.keys(e)))].sort();
  const labels = changes.some((c) => (c.patch.labels?.length ?? 0) > 0);

  // A key a patch names is a JSON value (null included) where an absent one is SQL null.
  const set = columns.map((c) => `"${c}" = case when i.patch -> '${c}' is not null then r."${c}" else t."${c}" end`);
  const q = db
    .with('input', db.raw('select * from jsonb_to_recordset(?::jsonb) as i(ord int, id text, version int, patch jsonb)', [JSON.stringify(input.map((i, ord) => ({ ord, ...i })))]))
    .with('changed', db.raw(
      `update tasks t set ${[...set, 'version = t.version + 1'].join(', ')}
       from input i cross join lateral jsonb_populate_record(null::tasks, i.patch) r
       where t.id = i.id and t.version = i.version
       returning t.*`,
    ));
  if (labels) {
    q.with('labels_added', db.raw(
      `insert into labels (workspace_id, name)
       select distinct ?::text, l.name from input i join changed c on c.id = i.id cross join jsonb_array_elements_text(i.patch -> 'labels') as l(name)
       on conflict (workspace_id, name) do nothing`,
      [o.workspaceId],
    ));
  }
  if (jobs.length) {
    // In the order of the changes, as each change's own statement would have queued them.
    q.with('jobs_added', db.raw(
      `insert into outbox (name, payload, created_at)
       select j.name, j.payload, ? from jsonb_to_recordset(?::jsonb) as j(ord int, task_id text, name text, payload jsonb)
       join changed c on c.id = j.task_id order by j.ord`,
      [Date.now(), JSON.stringify(jobs)],
    ));
  }
  if (entries.length) {
    const cols = entryColumns.map((c) => `"${c}"`).join(', ');
    q.with('activity_added', db.raw(
      `insert into activity (${cols})
       select ${entryColumns.map((c) => `a."${c}"`).join(', ')} from jsonb_populate_recordset(null::activity, ?::jsonb) a join changed c on c.id = a.task_id`,
      [JSON.stringify(entries)],
    ));
  }
  q.from({ tasks: 'changed' })
    .join('statuses', 'statuses.id', 'tasks.status_id')
    .join('boards', 'boards.id', 'tasks.board_id')
    .select([...TASK_SELECT, 'boards.member_ids as board_member_ids'])
    .select(detailColumns(db, viewerId, true));
  const { sql, bindings } = q.toSQL();
  const rows = await CHANGES(db, sql, bindings, true);
  const byId = new Map<string, Row>(rows.map((r) => [r.id as string, r]));
  return changes.map((c) => {
    const row = byId.get(c.id);
    if (!row) return undefined;
    const task = TASK.read(row);
    return { task, boardMemberIds: row.board_member_ids ?? null, details: details(row, task) };
  });
}

/**
 * The rank of the first active task of each column, leaving out the tasks `besides` (one probe of the rank index per
 * column, past at most those): null for a column with no other task.
 */
export async function columnTops(db: Knex, statusIds: string[], besides: string[]): Promise<Map<string, number | null>> {
  if (!statusIds.length) return new Map();
  const { rows } = (await db.raw(
    `select s.id, (select t.rank from tasks t where t.status_id = s.id and t.archived_at is null and not (t.id = any(?::text[]))
                   order by t.rank, t.id limit 1) as rank
     from unnest(?::text[]) as s(id)`,
    [besides, [...new Set(statusIds)]],
  )) as { rows: Row[] };
  return new Map(rows.map((r) => [r.id as string, r.rank === null ? null : Number(r.rank)]));
}
