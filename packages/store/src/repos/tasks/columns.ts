import type { Knex } from 'knex';
import { RANK_STEP } from '@tt/domain';
import type { ActivityRecord, AttachmentRecord, CommentRecord, OutboxJob, TaskDetails, TaskRecord, TaskSummaryRecord, TimeLogRecord } from '@tt/domain';
import { columnMap } from '../../columns.js';
import { bind, compiled, marker, type Slot, slotsOf, statementFamily } from '../../compiled.js';
import { dayOrNull, num, numOrNull } from '../../util.js';
import { activityRow } from '../activity.js';
import { outboxInsert, outboxValues } from '../outbox.js';
import { labelsInsert } from '../people.js';
import { placementStamp } from '../projects.js';
import { boardMembersHeld } from './kept.js';

type Row = Record<string, any>;

const orNull = (v: unknown) => v ?? null;
const text = (v: unknown) => (v ?? '') as string;

/** The tasks table; status name and category come from the joined column (statuses). */
export const TASK = columnMap<TaskRecord>('tasks', {
  id: 'id', workspaceId: 'workspace_id', projectId: 'project_id', boardId: 'board_id', statusId: 'status_id',
  statusName: { column: 'status_name', readOnly: true }, statusCategory: { column: 'status_category', readOnly: true },
  number: 'number', key: 'key', title: 'title', type: 'type', priority: 'priority',
  assigneeId: { column: 'assignee_id', read: orNull }, assigneeIds: 'assignee_ids', reporterId: 'reporter_id', labels: 'labels',
  dueDate: { column: 'due_date', read: dayOrNull }, parentId: { column: 'parent_id', read: orNull },
  timeEstimateSeconds: { column: 'time_estimate_seconds', read: num }, timeSpentSeconds: { column: 'time_spent_seconds', read: num },
  descriptionHtml: { column: 'description_html', read: text }, descriptionText: { column: 'description_text', read: text },
  checklist: { column: 'checklist', read: (v) => v ?? [], write: (v) => JSON.stringify(v) },
  rank: { column: 'rank', read: Number }, archivedAt: { column: 'archived_at', read: numOrNull }, doneAt: { column: 'done_at', read: numOrNull },
  createdAt: { column: 'created_at', read: Number }, updatedAt: { column: 'updated_at', read: Number },
  version: { column: 'version', read: Number },
});

/**
 * List rows hold what a summary shows (and `rank`, a position's key): not the description and checklist, which lists
 * never show, nor the workspace (the filter's own), the number (in the key) or the version. Every column a page does
 * not read is one less value to decode on each of its rows.
 */
const SUMMARY_LEFT_OUT = new Set<keyof TaskRecord>(['workspaceId', 'number', 'version', 'descriptionHtml', 'descriptionText', 'checklist']);
const SUMMARY_FIELDS = TASK.fields.filter((f): f is keyof TaskSummaryRecord => !SUMMARY_LEFT_OUT.has(f));
const STATUS = ['statuses.name as status_name', 'statuses.category as status_category'];
export const TASK_SELECT = [...TASK.select(), ...STATUS];
export const SUMMARY_SELECT = [...TASK.select(SUMMARY_FIELDS), ...STATUS];
/** A list row's record (status name and category from the joined column). */
export const readSummary: (row: Row) => TaskSummaryRecord = TASK.readerOf(SUMMARY_FIELDS);

export const COMMENT = columnMap<CommentRecord>('comments', {
  id: 'id', workspaceId: 'workspace_id', taskId: 'task_id', authorId: 'author_id', text: 'text', replyTo: { column: 'reply_to', read: orNull },
  mentionIds: 'mention_ids', createdAt: { column: 'created_at', read: Number },
});

export const ATTACHMENT = columnMap<AttachmentRecord>('attachments', {
  id: 'id', taskId: 'task_id', name: 'name', size: { column: 'size', read: Number }, type: 'type',
});

/**
 * The details of the full form as columns of the task's own row: subtasks, attachments, time logs, linked pages the
 * viewer may read (null viewer = every page), subtasks on boards the viewer may see and, with `position`, the position
 * in the column (a count of the tasks above it, the costliest of them: about 1 ms at 9 000 tasks a column), each a
 * correlated subquery on its index. Without `position` the column is null.
 */
export function detailColumns(db: Knex, viewerId: string | null | Knex.Raw, position: boolean): Knex.Raw[] {
  return [
    // Subtasks share the project but may lie on a board closed to the viewer: those are left out.
    db.raw(
      `coalesce((select array_agg(s.id order by s.id) from tasks s join boards sb on sb.id = s.board_id
                 where s.parent_id = tasks.id and (?::text is null or sb.member_ids is null or ?::text = any(sb.member_ids))), '{}') as subtask_ids`,
      [viewerId, viewerId],
    ),
    db.raw(
      `coalesce((select json_agg(json_build_object('id', a.id, 'taskId', a.task_id, 'name', a.name, 'size', a.size, 'type', a.type) order by a.id)
                 from attachments a where a.task_id = tasks.id), '[]') as attachment_list`,
    ),
    db.raw(
      `coalesce((select json_agg(json_build_object('id', l.id, 'workspaceId', l.workspace_id, 'taskId', l.task_id, 'projectId', l.project_id,
                   'userId', l.user_id, 'seconds', l.seconds, 'date', l.date, 'note', l.note, 'createdAt', l.created_at) order by l.date, l.id)
                 from time_logs l where l.task_id = tasks.id), '[]') as time_log_list`,
    ),
    db.raw(
      `coalesce((select array_agg(d.id order by d.path) from doc_tasks dt join docs d on d.id = dt.doc_id join doc_spaces sp on sp.id = d.space_id
                 where dt.task_id = tasks.id and (?::text is null or sp.member_ids is null or ?::text = any(sp.member_ids))), '{}') as doc_ids`,
      [viewerId, viewerId],
    ),
    position
      ? db.raw(
        // The task itself is left out by id: in the statement that changes it (updateView) this subquery sees the row as
        // it was before the change, which may lie above its new place.
        `case when tasks.archived_at is null then (select count(*) from tasks p where p.status_id = tasks.status_id and p.archived_at is null
           and (p.rank, p.id) < (tasks.rank, tasks.id) and p.id <> tasks.id) end as column_position`,
      )
      : db.raw('null::bigint as column_position'),
  ];
}

const parsed = <T>(v: unknown): T => (typeof v === 'string' ? JSON.parse(v) : v) as T;

export function details(r: Row, task: TaskRecord): TaskDetails {
  return {
    subtaskIds: r.subtask_ids ?? [],
    attachments: parsed<AttachmentRecord[]>(r.attachment_list),
    timeLogs: parsed<Array<Omit<TimeLogRecord, 'taskKey'>>>(r.time_log_list).map((l) => ({ ...l, taskKey: task.key, date: dayOrNull(l.date)! })),
    docIds: r.doc_ids ?? [],
    position: numOrNull(r.column_position),
  };
}

export interface TaskRef {
  id?: string;
  key?: string;
}

/**
 * One query for a task by id or key: its row, its column's name and category, its board's members (for
 * visibility) and, when `viewerId` is given (null = the operator), its details (the column position only with
 * `position`). workspaceId null = any workspace.
 */
export async function viewTask(
  db: Knex,
  workspaceId: string | null,
  ref: TaskRef,
  withDetails: { viewerId: string | null; position: boolean } | null,
): Promise<{ task: TaskRecord; boardMemberIds: string[] | null; details: TaskDetails | null } | undefined> {
  const byId = ref.id !== undefined;
  if (!byId && workspaceId === null) return undefined;
  const params: unknown[] = [];
  if (workspaceId !== null) params.push(workspaceId);
  params.push(byId ? ref.id : (ref.key ?? ''));
  if (withDetails) params.push(withDetails.viewerId);
  const [row] = await viewStatement(workspaceId !== null, byId, withDetails === null ? null : withDetails.position)(db, ...params);
  if (!row) return undefined;
  const task = TASK.read(row);
  return { task, boardMemberIds: row.board_member_ids ?? null, details: withDetails ? details(row, task) : null };
}

/**
 * The select of a task in the workspace `workspaceId` (a bound value, or a column of the statement around it) by id
 * or key (`ref`), with its column's name and category, its board's members and, with `viewer` (null = the operator),
 * its details.
 */
function taskView(
  db: Knex, workspaceId: Knex.Value | Knex.Raw | null, byId: boolean, ref: Knex.Value, viewer?: { id: string | null | Knex.Raw; position: boolean },
): Knex.QueryBuilder {
  const q = db('tasks')
    .join('statuses', 'statuses.id', 'tasks.status_id')
    .join('boards', 'boards.id', 'tasks.board_id')
    .select([...TASK_SELECT, 'boards.member_ids as board_member_ids']);
  if (workspaceId !== null) q.where('tasks.workspace_id', workspaceId);
  q.where(byId ? 'tasks.id' : 'tasks.key', ref);
  if (viewer) q.select(detailColumns(db, viewer.id, viewer.position));
  return q;
}

/**
 * The full view (no position) of the task `ref` in the key's workspace as the key's user sees it, in the columns of
 * the key statement's row `k` (see keyStatement): a by-key read's two lookups in one.
 */
export const taskOfKey = (db: Knex, byId: boolean, ref: Knex.Value): Knex.QueryBuilder =>
  taskView(db, db.raw('k.k_workspace_id'), byId, ref, { id: db.raw('k.k_user_id'), position: false }).limit(1);

/** A row of viewTask's statement (or one with its columns, such as taskOfKey's) as the task's full view. */
export function fullViewOf(row: Row): { task: TaskRecord; boardMemberIds: string[] | null; details: TaskDetails } {
  const task = TASK.read(row);
  return { task, boardMemberIds: row.board_member_ids ?? null, details: details(row, task) };
}

// One compiled statement per shape (in a workspace or not, by id or key, without details (null) or with them, with the
// column position or not).
const VIEWS = new Map<string, ReturnType<typeof compiled<unknown[]>>>();

function viewStatement(inWorkspace: boolean, byId: boolean, withDetails: boolean | null): ReturnType<typeof compiled<unknown[]>> {
  const shape = `${inWorkspace}:${byId}:${withDetails}`;
  let statement = VIEWS.get(shape);
  if (!statement) {
    statement = compiled<unknown[]>((db, ...params) => {
      const next = () => params.shift() as Knex.Value;
      const workspaceId = inWorkspace ? next() : null;
      const ref = next();
      return taskView(db, workspaceId, byId, ref, withDetails === null ? undefined : { id: next() as string | null, position: withDetails }).first();
    });
    VIEWS.set(shape, statement);
  }
  return statement;
}

// One prepared statement per shape of change (which columns; with a version guard, labels, jobs, an activity entry).
const UPDATES = statementFamily(64);
const UPDATE_SHAPES = new Map<string, { sql: string; slots: Slot[] }>();

/** What goes in with a task's change, in its statement. */
export interface TaskChangeAlso {
  /** Change the task only if its version is still this one (else no row, nothing written). */
  version?: number | undefined;
  /** Change the task only if its board's members are still these (null: an open board), as a plan on a kept task read them. */
  boardMemberIds?: string[] | null | undefined;
  /** Change the task only if its board still gives this placement stamp (see placementStamp), as a plan on a kept board read it. */
  placementStamp?: string | undefined;
  /** The task goes to the top of the column `data.status_id` names: its rank is found in the statement (the rank index's first). */
  toTop?: boolean | undefined;
  /**
   * When the guard does not hold, the same statement reads the task as it is now (with its board's members, without
   * details) and hands it here: a change planned on what this process had is planned again on it without another read.
   */
  current?: ((view: { task: TaskRecord; boardMemberIds: string[] | null }) => void) | undefined;
  /** Labels of the workspace the change names (added when new). */
  labels?: { workspaceId: string; names: string[] } | undefined;
  jobs?: OutboxJob[] | undefined;
  /** Activity entries, in order (a change's task.updated, then its task.moved). */
  activity?: ActivityRecord[] | undefined;
  /** Read the task's position in its column too (default true; false: `details.position` is null). */
  position?: boolean | undefined;
}

/**
 * Changes a task's columns (`data`, as TASK.write gives them; the version moves with them) and reads the task as the
 * change left it, with its column, its board's members and the details `viewerId` may see, in one statement: the
 * change is a data-modifying CTE whose returned row stands in for the task in the read. The read's subqueries see the
 * other rows as the statement's snapshot has them, which the change does not touch but for the task's own row. What
 * `also` names goes in with it, in the same statement, and only when the guarded change happened.
 */
export async function updateTaskView(
  db: Knex, id: string, data: Row, viewerId: string | null, also: TaskChangeAlso = {},
): Promise<{ task: TaskRecord; boardMemberIds: string[] | null; details: TaskDetails } | undefined> {
  const columns = Object.keys(data).sort();
  const entries = (also.activity ?? []).map(activityRow);
  const entryColumns = entries.map((e) => Object.keys(e).sort());
  const guarded = also.version !== undefined;
  const members = also.boardMemberIds !== undefined;
  const stamped = also.placementStamp !== undefined;
  const toTop = also.toTop === true;
  if (toTop && (data.status_id === undefined || data.rank !== undefined)) throw new Error('updateTaskView: toTop needs a column and no rank');
  const labels = also.labels !== undefined && also.labels.names.length > 0;
  const jobs = (also.jobs?.length ?? 0) > 0;
  // The values in the order of the markers below.
  const values: unknown[] = [...columns.map((c) => data[c]), id, viewerId];
  if (guarded) values.push(also.version);
  if (members) values.push(also.boardMemberIds);
  if (stamped) values.push(also.placementStamp);
  if (labels) values.push(also.labels!.workspaceId, also.labels!.names);
  if (jobs) values.push(...outboxValues(also.jobs!));
  entries.forEach((e, i) => values.push(...entryColumns[i]!.map((c) => e[c])));
  const current = also.current !== undefined;
  const position = also.position !== false;
  const shapeKey = `${columns.join(',')}|${guarded}|${members}|${stamped}|${toTop}|${current}|${position}|${labels}|${jobs}|${entryColumns.map((c) => c.join(',')).join('|')}`;
  let shape = UPDATE_SHAPES.get(shapeKey);
  if (!shape) {
    let next = 0;
    const m = () => marker(next++);
    const set: Row = Object.fromEntries(columns.map((c) => [c, m()]));
    const where: Row = { id: m() };
    const viewer = m();
    if (guarded) where.version = m();
    const board = members ? m() : undefined;
    const stamp = stamped ? m() : undefined;
    // The top of the new column: one step above its first task (the task itself left out), 0 in an empty column, as
    // rankBetween(null, first) gives it. A rank above the first never runs out of room, so no renumbering is needed.
    if (toTop) {
      set.rank = db.raw(
        `coalesce((select f.rank - ? from tasks f where f.status_id = ? and f.archived_at is null and f.id <> ? order by f.rank, f.id limit 1), 0)`,
        [RANK_STEP, set.status_id, where.id],
      );
    }
    // Each write below runs only when the change did (the guard held): it reads the changed row.
    const q = db.with('changed', (w) => {
      w.from('tasks').where(where);
      // The board's members as the plan read them: who may see the task has not changed since (one primary-key probe).
      if (board !== undefined) w.whereRaw(boardMembersHeld('tasks'), [board]);
      // The board, its columns, its project and its rules as the plan read them.
      if (stamp !== undefined) {
        w.whereRaw(`(select ${placementStamp('b', 'p')} from boards b join projects p on p.id = b.project_id where b.id = tasks.board_id) = ?`, [stamp]);
      }
      w.update({ ...set, version: db.raw('version + 1') }).returning('*');
    });
    if (labels) {
      const [workspace, names] = [m(), m()];
      q.with('labels_added', db.raw(labelsInsert('changed'), [workspace, names]));
    }
    if (jobs) {
      const [at, names, payloads] = [m(), m(), m()];
      q.with('jobs_added', db.raw(outboxInsert('changed'), [at, names, payloads]));
    }
    for (const [i, names] of entryColumns.entries()) {
      const cols = names.map((c) => `"${c}"`).join(', ');
      const marks = names.map(() => m());
      q.with(`activity_added_${i}`, db.raw(`insert into activity (${cols}) select ${names.map(() => '?').join(', ')} from changed`, marks));
    }
    q.from({ tasks: 'changed' })
      .join('statuses', 'statuses.id', 'tasks.status_id')
      .join('boards', 'boards.id', 'tasks.board_id')
      .select([...TASK_SELECT, 'boards.member_ids as board_member_ids'])
      .select(detailColumns(db, viewer, position));
    if (current) {
      // Nothing changed: the task as it is now instead, its details left out (one more primary-key probe, only then).
      q.select(db.raw('true as applied')).unionAll((now) => {
        now.from('tasks')
          .join('statuses', 'statuses.id', 'tasks.status_id')
          .join('boards', 'boards.id', 'tasks.board_id')
          .select([...TASK_SELECT, 'boards.member_ids as board_member_ids'])
          .select(db.raw('null::text[] as subtask_ids, null::json as attachment_list, null::json as time_log_list, null::text[] as doc_ids'))
          .select(db.raw('null::bigint as column_position, false as applied'))
          .where('tasks.id', where.id)
          .whereNotExists((none) => none.select(db.raw('1')).from('changed'));
      }, true);
    }
    const { sql, bindings } = q.toSQL();
    const slots = slotsOf(bindings, next);
    if (!slots || next !== values.length) throw new Error('updateTaskView: a value is not a bound parameter');
    shape = { sql, slots };
    if (UPDATE_SHAPES.size < 256) UPDATE_SHAPES.set(shapeKey, shape);
  }
  const [row] = await UPDATES(db, shape.sql, bind(shape.slots, values), true);
  if (!row) return undefined;
  const task = TASK.read(row);
  if (row.applied === false) {
    also.current?.({ task, boardMemberIds: row.board_member_ids ?? null });
    return undefined;
  }
  return { task, boardMemberIds: row.board_member_ids ?? null, details: details(row, task) };
}
