import type { Knex } from 'knex';
import { RANK_STEP, type Repos, type TaskView } from '@tt/domain';
import { named } from '../../compiled.js';
import { labelsInsert } from '../people.js';
import { activityInsertFromIns, activityWithInsert } from '../activity.js';
import { outboxInsert, outboxValues } from '../outbox.js';
import { firstOpenBoard, placementStamp } from '../projects.js';
import { newId } from '../../util.js';
import { ATTACHMENT, TASK, TASK_SELECT, updateTaskView, viewTask } from './columns.js';
import { boardMembersHeld, keepTask, keptTask, keptVersionMoved } from './kept.js';
import { listTasks } from './list.js';
import { keyWithTask } from '../keys.js';
import { columnTops, updateTaskViews } from './bulk.js';

export { taskListQueries } from './list.js';

type Row = Record<string, any>;

function selectTasks(db: Knex): Knex.QueryBuilder {
  return db('tasks').join('statuses', 'statuses.id', 'tasks.status_id').select(TASK_SELECT);
}

/**
 * A kept placement's check, the first CTE of a create planned on one: the board (?) in the workspace (?) still gives
 * the stamp (?), and every one of the assignees (?, ?) is a live person of the workspace; with `first`, it is still the
 * first board of the project (?) open to the user (?), as a create by project took it.
 */
const held = (first: boolean) => `held as (select 1 from boards b join projects p on p.id = b.project_id
                where b.id = ? and b.workspace_id = ? and ${placementStamp('b', 'p')} = ?
                  and (select count(*) from users u where u.workspace_id = b.workspace_id and u.id = any(?::text[]) and u.deleted_at is null)
                      = cardinality(?::text[])
                  ${first ? `and b.id = ${firstOpenBoard('?', '?', 'b.workspace_id')}` : ''}),`;

/** The statement of `append`, by its shape: built once per shape rather than on every create (see `appendStatement`). */
const APPENDS = new Map<string, string>();

/**
 * The create's one statement for a shape: the task's and the entry's columns, a kept placement's check (`first`: by
 * project; undefined: no check), a parent whose version moves (`members`: with its board's members as the plan read
 * them). Its text is the same for every create of that shape, so it is kept rather than written out again per request.
 */
function appendStatement(columns: string[], entryColumns: string[], first: boolean | undefined, parent: boolean, members: boolean): string {
  const shape = `${columns.join(',')}|${entryColumns.join(',')}|${first}|${parent}|${members}`;
  let sql = APPENDS.get(shape);
  if (sql !== undefined) return sql;
  const check = first !== undefined;
  const gate = parent ? 'parent_bumped' : check ? 'held' : undefined;
  sql = `with ${check ? held(first) : ''}
              ${parent ? `parent_bumped as (update tasks set version = version + 1 where id = ? and version = ?
                            ${members ? `and ${boardMembersHeld('tasks')}` : ''}
                            ${check ? 'and exists (select from held)' : ''} returning id),` : ''}
              labels_added as (${labelsInsert(gate)}),
              jobs_added as (${outboxInsert(gate)}),
              seq as (update projects set task_seq = task_seq + 1 where id = ?${gate ? ` and exists (select from ${gate})` : ''} returning task_seq),
              col as (select (select coalesce(sum(c.n), 0) from task_counts c where c.status_id = ? and not c.archived) as n,
                             (select rank from tasks where status_id = ? and archived_at is null order by rank desc, id desc limit 1) as top),
              ins as (insert into tasks (${columns.map((c) => `"${c}"`).join(', ')}, number, key, rank)
                      select ${columns.map(() => '?').join(', ')}, seq.task_seq, ? || '-' || seq.task_seq, coalesce((select top from col) + ?, 0)
                      from seq
                      returning *),
              activity_added as (${activityInsertFromIns(entryColumns)})
         select ins.*, statuses.name as status_name, statuses.category as status_category, col.n as column_position
         from ins join statuses on statuses.id = ins.status_id cross join col`;
  if (APPENDS.size < 64) APPENDS.set(shape, sql);
  return sql;
}

export function taskRepo(db: Knex): Repos['tasks'] {
  return {
    async append(t, projectKey, also) {
      // One statement, and the last of its transaction's writes: the project's row lock (the key's number) is held
      // only from here to the commit. The labels, outbox jobs and activity entry go in with it (one round trip). The new
      // task goes below the column's last (one step of the rank index); `position` is the count above it, from the
      // counters (task_counts), so it costs the same in a column of ten tasks or of a hundred thousand.
      //
      // With a kept placement's check, every write of the statement hangs on `held`: the board, its columns, its
      // project's key and its rules still give the stamp the plan was made on, and every assignee is still a live
      // person of the workspace. If not, nothing is written and the answer is undefined.
      //
      // With `parent`, the parent's version moves in the same statement (its subtaskIds change), guarded by the version
      // the plan read (and, for a parent from memory, its board's members); every other write hangs on that.
      const values = TASK.write(t);
      const columns = Object.keys(values);
      const entry = activityWithInsert(also.activity);
      const { check, parent } = also;
      const members = parent?.boardMemberIds !== undefined;
      const gate = parent ? 'parent_bumped' : check ? 'held' : undefined;

      const [row] = await named(
        db,
        appendStatement(columns, entry.columns, check === undefined ? undefined : check.first !== undefined, parent !== undefined, members),
        [
          ...(check ? [check.boardId, check.workspaceId, check.stamp, check.userIds, check.userIds] : []),
          ...(check?.first ? [check.first.projectId, check.first.userId] : []),
          ...(parent ? [parent.id, parent.version, ...(members ? [parent.boardMemberIds] : [])] : []),
          t.workspaceId, also.labels, ...outboxValues(also.jobs),
          t.projectId, t.statusId, t.statusId, ...Object.values(values), projectKey, RANK_STEP, ...entry.bindings,
        ],
      );
      if (row) {
        if (parent) keptVersionMoved(db, t.workspaceId, parent.id, parent.version);
        return { task: TASK.read(row), position: Number(row.column_position) };
      }
      if (gate) return undefined;
      throw new Error(`project ${t.projectId} is gone`);
    },
    async get(workspaceId, ref) {
      return (await viewTask(db, workspaceId, ref, null))?.task;
    },
    async getAny(id) {
      return (await viewTask(db, null, { id }, null))?.task;
    },
    async view(workspaceId, ref, kept = false) {
      const known = kept ? keptTask(db, workspaceId, ref) : undefined;
      if (known) return { ...known, kept: true };
      const v = await viewTask(db, workspaceId, ref, null);
      const view = v && { task: v.task, boardMemberIds: v.boardMemberIds };
      keepTask(db, view);
      return view;
    },
    async views(workspaceId, { ids, keys }) {
      if (!ids.length && !keys.length) return [];
      // Each list is one index probe (the primary key, the workspace's keys); an empty one matches nothing.
      const rows: Row[] = await db('tasks')
        .join('statuses', 'statuses.id', 'tasks.status_id')
        .join('boards', 'boards.id', 'tasks.board_id')
        .select([...TASK_SELECT, 'boards.member_ids as board_member_ids'])
        .where('tasks.workspace_id', workspaceId)
        .where((q) => q.whereIn('tasks.id', ids).orWhereIn('tasks.key', keys));
      return rows.map((r) => ({ task: TASK.read(r), boardMemberIds: r.board_member_ids ?? null }));
    },
    async fullView(workspaceId, ref, viewerId, o) {
      const v = await viewTask(db, workspaceId, ref, { viewerId, position: o?.position !== false });
      keepTask(db, v);
      return v && { task: v.task, boardMemberIds: v.boardMemberIds, details: v.details! };
    },
    fullViewWithKey(tokenHash, ref) {
      return keyWithTask(db, tokenHash, ref);
    },
    async byIds(workspaceId, ids) {
      if (!ids.length) return [];
      return (await selectTasks(db).where('tasks.workspace_id', workspaceId).whereIn('tasks.id', ids).orderBy('tasks.id')).map((r: Record<string, unknown>) => TASK.read(r));
    },
    async details(t, viewerId, o) {
      const v = await viewTask(db, t.workspaceId, { id: t.id }, { viewerId, position: o?.position !== false });
      return v?.details ?? { subtaskIds: [], timeLogs: [], attachments: [], docIds: [], position: null };
    },
    async update(id, p) {
      const data = TASK.write(p);
      // Every change moves the version (the ETag), in the same statement as the change.
      if (Object.keys(data).length) await db('tasks').where({ id }).update({ ...data, version: db.raw('version + 1') });
    },
    async updateView(id, p, viewerId, also) {
      // The task as it is now, when a guard did not hold, is kept too (it was read outside any transaction).
      const current = also?.current && ((now: TaskView) => {
        keepTask(db, now);
        also.current!(now);
      });
      const view = await updateTaskView(db, id, TASK.write(p), viewerId, { ...also, current });
      keepTask(db, view);
      return view;
    },
    updateViews(changes, viewerId, o) {
      return updateTaskViews(db, changes, viewerId, o);
    },
    columnTops(statusIds, besides) {
      return columnTops(db, statusIds, besides);
    },
    async delete(id) {
      await db('tasks').where({ id }).delete();
    },
    list(f, page) {
      return listTasks(db, f, page);
    },
    async rankAt(statusId, position, exceptId) {
      const col = () => {
        const q = db('tasks').where({ status_id: statusId }).whereNull('archived_at');
        if (exceptId) q.whereNot('id', exceptId);
        return q;
      };
      const last = async () => {
        const row = await col().orderBy([{ column: 'rank', order: 'desc' }, { column: 'id', order: 'desc' }]).first('rank');
        return { before: row ? Number(row.rank) : null, after: null };
      };
      // The bottom of a column is one read of the last rank, not an offset walk past the column.
      if (position >= Number.MAX_SAFE_INTEGER) return last();
      if (position <= 0) {
        const first = await col().orderBy([{ column: 'rank' }, { column: 'id' }]).first('rank');
        return { before: null, after: first ? Number(first.rank) : null };
      }
      const rows = await col().orderBy([{ column: 'rank' }, { column: 'id' }]).offset(Math.min(position - 1, 1e9)).limit(2).select('rank');
      if (!rows.length) return last();
      return { before: Number(rows[0].rank), after: rows[1] ? Number(rows[1].rank) : null };
    },
    async renumberColumn(statusId) {
      await db.raw(
        `update tasks set rank = sub.rn * ? from (
           select id, row_number() over (order by rank, id) as rn from tasks where status_id = ? and archived_at is null
         ) sub where tasks.id = sub.id`,
        [RANK_STEP, statusId],
      );
    },
    async ancestors(id) {
      const res = await db.raw(
        `with recursive chain(id, parent_id, depth) as (
           select id, parent_id, 0 from tasks where id = ?
           union all
           select t.id, t.parent_id, c.depth + 1 from tasks t join chain c on t.id = c.parent_id where c.depth < 1000
         ) select id from chain order by depth`,
        [id],
      );
      return (res.rows as Row[]).map((r) => r.id as string);
    },
  };
}

export function attachmentRepo(db: Knex): Repos['attachments'] {
  return {
    async insert(a) {
      const [row] = await db('attachments').insert(ATTACHMENT.write({ ...a, id: newId('att') })).returning('*');
      return ATTACHMENT.read(row);
    },
  };
}
