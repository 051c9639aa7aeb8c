import type { Knex } from 'knex';
import { invalid, RANK_STEP, type CommentRecord, type PageRequest, type PageResult, type Repos, type TaskFilter, type TaskRecord } from '@tt/domain';
import { concurrently, dayOrNull, newId, num, numOrNull, pageById } from '../util.js';
import { docRepo } from './docs.js';

type Row = Record<string, any>;

const COLUMNS = [
  'id', 'workspace_id', 'project_id', 'board_id', 'status_id', 'number', 'key', 'title', 'type', 'priority', 'assignee_id',
  'assignee_ids', 'reporter_id', 'labels', 'due_date', 'parent_id', 'time_estimate_seconds', 'time_spent_seconds',
  'description_html', 'description_text', 'checklist', 'rank', 'archived_at', 'done_at', 'created_at', 'updated_at', 'version',
].map((c) => `tasks.${c}`);
/** List rows leave out the description, which lists never show. */
const SUMMARY_COLUMNS = COLUMNS.filter((c) => !c.startsWith('tasks.description_') && c !== 'tasks.checklist');

export const task = (r: Row): TaskRecord => ({
  id: r.id, workspaceId: r.workspace_id, projectId: r.project_id, boardId: r.board_id, statusId: r.status_id,
  statusName: r.status_name, statusCategory: r.status_category, number: r.number, key: r.key, title: r.title, type: r.type,
  priority: r.priority, assigneeId: r.assignee_id ?? null, assigneeIds: r.assignee_ids, reporterId: r.reporter_id, labels: r.labels,
  dueDate: dayOrNull(r.due_date), parentId: r.parent_id ?? null, timeEstimateSeconds: num(r.time_estimate_seconds),
  timeSpentSeconds: num(r.time_spent_seconds), descriptionHtml: r.description_html ?? '', descriptionText: r.description_text ?? '',
  checklist: r.checklist ?? [], rank: Number(r.rank), archivedAt: numOrNull(r.archived_at), doneAt: numOrNull(r.done_at),
  createdAt: Number(r.created_at), updatedAt: Number(r.updated_at), version: Number(r.version),
});

const comment = (r: Row): CommentRecord => ({
  id: r.id, workspaceId: r.workspace_id, taskId: r.task_id, authorId: r.author_id, text: r.text, replyTo: r.reply_to ?? null,
  mentionIds: r.mention_ids, createdAt: Number(r.created_at),
});

const TASK_KEY = /^[A-Za-z][A-Za-z0-9]{0,9}-\d{1,9}$/;

function selectTasks(db: Knex, columns = COLUMNS): Knex.QueryBuilder {
  return db('tasks')
    .join('statuses', 'statuses.id', 'tasks.status_id')
    .select([...columns, 'statuses.name as status_name', 'statuses.category as status_category']);
}

/**
 * Every GET /tasks filter as SQL on the indexed columns of tasks, without joins: the count of a large
 * workspace then stays an index-only scan (tasks_active covers board_id and status_id).
 */
function filtered(db: Knex, f: TaskFilter): Knex.QueryBuilder {
  const hiddenBoards = db('boards as hb')
    .select('hb.id')
    .where('hb.workspace_id', f.workspaceId)
    .whereNotNull('hb.member_ids')
    .whereRaw('not (? = any(hb.member_ids))', [f.userId]);
  const q = db('tasks').where('tasks.workspace_id', f.workspaceId).whereNotIn('tasks.board_id', hiddenBoards);
  if (f.visibleProjectIds) q.whereIn('tasks.project_id', f.visibleProjectIds);
  if (f.projectId) q.where('tasks.project_id', f.projectId);
  if (f.boardId) q.where('tasks.board_id', f.boardId);
  if (f.statusId) q.where('tasks.status_id', f.statusId);
  if (f.category) {
    q.whereIn(
      'tasks.status_id',
      db('statuses as cs').join('boards as cb', 'cb.id', 'cs.board_id').select('cs.id').where({ 'cb.workspace_id': f.workspaceId, 'cs.category': f.category }),
    );
  }
  if (f.assigneeId === 'none') q.whereRaw("tasks.assignee_ids = '{}'");
  else if (f.assigneeId) q.whereRaw('tasks.assignee_ids @> array[?]::text[]', [f.assigneeId]);
  if (f.reporterId) q.where('tasks.reporter_id', f.reporterId);
  if (f.types?.length) q.whereIn('tasks.type', f.types);
  if (f.priorities?.length) q.whereIn('tasks.priority', f.priorities);
  if (f.labels?.length) q.whereRaw('tasks.labels @> ?::text[]', [f.labels]);
  if (f.parentId === 'none') q.whereNull('tasks.parent_id');
  else if (f.parentId && TASK_KEY.test(f.parentId)) {
    q.whereIn('tasks.parent_id', db('tasks as p').select('p.id').where({ 'p.workspace_id': f.workspaceId, 'p.key': f.parentId.toUpperCase() }));
  } else if (f.parentId) q.where('tasks.parent_id', f.parentId);
  if (f.dueBefore) q.where('tasks.due_date', '<=', f.dueBefore);
  if (f.updatedSince !== undefined) q.where('tasks.updated_at', '>', f.updatedSince);
  if (f.q) {
    const q2 = f.q;
    q.where((w) =>
      w
        .whereRaw(
          "tasks.search @@ (websearch_to_tsquery('simple', ?) || websearch_to_tsquery('english', ?) || websearch_to_tsquery('russian', ?))",
          [q2, q2, q2],
        )
        .orWhere('tasks.key', q2.toUpperCase()),
    );
  }
  if (f.archived === 'false') q.whereNull('tasks.archived_at');
  else if (f.archived === 'true') q.whereNotNull('tasks.archived_at');
  return q;
}

const SUMMARY_SELECT = [...SUMMARY_COLUMNS, 'statuses.name as status_name', 'statuses.category as status_category'];

/**
 * The SQL behind GET /tasks, built but not run: one page of rows (limit + 1 to see if more follow) and the
 * filtered count. Exported so the plan of every filter can be checked against the indexes.
 */
export function taskListQueries(db: Knex, f: TaskFilter, page: PageRequest): { rows: Knex.QueryBuilder; count: Knex.QueryBuilder; offset: number } {
  const base = filtered(db, f);
  const rows = base.clone().join('statuses', 'statuses.id', 'tasks.status_id').select(SUMMARY_SELECT);
  let offset = 0;
  if (f.orderBy === 'position') {
    if (page.after !== undefined) {
      const [rank, id, index] = page.after.split('|');
      offset = Number(index);
      if (id === undefined || !Number.isFinite(Number(rank)) || !Number.isInteger(offset)) {
        throw invalid('cursor', 'malformed cursor; pass nextCursor from the previous page');
      }
      rows.whereRaw('(tasks.rank, tasks.id) > (?, ?)', [Number(rank), id]);
    }
    rows.orderBy([{ column: 'tasks.rank' }, { column: 'tasks.id' }]);
  } else {
    if (page.after !== undefined) rows.where('tasks.id', '>', page.after);
    rows.orderBy('tasks.id', 'asc');
  }
  return { rows: rows.limit(page.limit + 1), count: base.clone().count({ n: '*' }), offset };
}

async function listTasks(db: Knex, f: TaskFilter, page: PageRequest): Promise<PageResult<TaskRecord & { position?: number }>> {
  const q = taskListQueries(db, f, page);
  const [rows, countRows] = await concurrently<[Row[], Row[]]>(db, [() => q.rows as PromiseLike<Row[]>, () => q.count as PromiseLike<Row[]>]);
  const more = rows.length > page.limit;
  const kept = more ? rows.slice(0, page.limit) : rows;
  const last = kept[kept.length - 1];
  const total = num(countRows[0]?.n);
  if (f.orderBy === 'position') {
    return {
      rows: kept.map((r, i) => ({ ...task(r), position: q.offset + i })),
      next: more && last ? `${Number(last.rank)}|${last.id}|${q.offset + kept.length}` : null,
      total,
    };
  }
  return { rows: kept.map(task), next: more && last ? String(last.id) : null, total };
}

export function taskRepo(db: Knex): Repos['tasks'] {
  return {
    async insert(t, number, key, rank) {
      const id = newId('task');
      await db('tasks').insert({
        id, workspace_id: t.workspaceId, project_id: t.projectId, board_id: t.boardId, status_id: t.statusId, number, key,
        title: t.title, type: t.type, priority: t.priority, assignee_id: t.assigneeId, assignee_ids: t.assigneeIds,
        reporter_id: t.reporterId, labels: t.labels, due_date: t.dueDate, parent_id: t.parentId,
        time_estimate_seconds: t.timeEstimateSeconds, description_html: t.descriptionHtml, description_text: t.descriptionText,
        checklist: JSON.stringify(t.checklist), rank, archived_at: t.archivedAt, done_at: t.doneAt, created_at: t.createdAt, updated_at: t.updatedAt,
      });
      return task(await selectTasks(db).where('tasks.id', id).first());
    },
    async get(workspaceId, ref) {
      const q = selectTasks(db).where('tasks.workspace_id', workspaceId);
      if (ref.id !== undefined) q.where('tasks.id', ref.id);
      else q.where('tasks.key', ref.key ?? '');
      const row = await q.first();
      return row ? task(row) : undefined;
    },
    async getAny(id) {
      const row = await selectTasks(db).where('tasks.id', id).first();
      return row ? task(row) : undefined;
    },
    async byIds(workspaceId, ids) {
      if (!ids.length) return [];
      return (await selectTasks(db).where('tasks.workspace_id', workspaceId).whereIn('tasks.id', ids).orderBy('tasks.id')).map(task);
    },
    async details(t, viewerId) {
      const [subtasks, attachments, position, logs, docIds] = await concurrently<[string[], Row[], Row | undefined, Row[], string[]]>(db, [
        () => db('tasks').where({ parent_id: t.id }).orderBy('id').pluck('id'),
        () => db('attachments').where({ task_id: t.id }).orderBy('id'),
        () =>
          t.archivedAt === null
            ? db('tasks')
                .where({ status_id: t.statusId })
                .whereNull('archived_at')
                .whereRaw('(rank, id) < (?, ?)', [t.rank, t.id])
                .count({ n: '*' })
                .first()
            : Promise.resolve(undefined),
        () => db('time_logs').where({ task_id: t.id }).orderBy([{ column: 'date' }, { column: 'id' }]),
        () => docRepo(db).linkedToTask(t.id, viewerId),
      ]);
      return {
        subtaskIds: subtasks as string[],
        timeLogs: logs.map((l: Row) => ({
          id: l.id, workspaceId: l.workspace_id, taskId: l.task_id, taskKey: t.key, projectId: l.project_id, userId: l.user_id,
          seconds: Number(l.seconds), date: dayOrNull(l.date)!, note: l.note, createdAt: Number(l.created_at),
        })),
        attachments: attachments.map((a: Row) => ({ id: a.id, taskId: a.task_id, name: a.name, size: Number(a.size), type: a.type })),
        docIds,
        position: position === undefined ? null : num(position.n),
      };
    },
    async update(id, p) {
      const data: Row = {};
      const map: Record<string, string> = {
        title: 'title', type: 'type', priority: 'priority', assigneeId: 'assignee_id', assigneeIds: 'assignee_ids', labels: 'labels',
        dueDate: 'due_date', parentId: 'parent_id', timeEstimateSeconds: 'time_estimate_seconds', descriptionHtml: 'description_html',
        descriptionText: 'description_text', boardId: 'board_id', statusId: 'status_id', rank: 'rank', doneAt: 'done_at',
        archivedAt: 'archived_at', updatedAt: 'updated_at',
      };
      for (const [k, col] of Object.entries(map)) {
        const v = (p as Row)[k];
        if (v !== undefined) data[col] = v;
      }
      if (p.checklist !== undefined) data.checklist = JSON.stringify(p.checklist);
      // Every change moves the version (the ETag), in the same statement as the change.
      if (Object.keys(data).length) await db('tasks').where({ id }).update({ ...data, version: db.raw('version + 1') });
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
      if (position <= 0) {
        const first = await col().orderBy([{ column: 'rank' }, { column: 'id' }]).first('rank');
        return { before: null, after: first ? Number(first.rank) : null };
      }
      const rows = await col().orderBy([{ column: 'rank' }, { column: 'id' }]).offset(Math.min(position - 1, 1e9)).limit(2).select('rank');
      if (!rows.length) {
        const last = await col().orderBy([{ column: 'rank', order: 'desc' }, { column: 'id', order: 'desc' }]).first('rank');
        return { before: last ? Number(last.rank) : null, after: null };
      }
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

export function commentRepo(db: Knex): Repos['comments'] {
  return {
    async insert(c) {
      const [row] = await db('comments')
        .insert({
          id: newId('cmt'), workspace_id: c.workspaceId, task_id: c.taskId, author_id: c.authorId, text: c.text, reply_to: c.replyTo,
          mention_ids: c.mentionIds, created_at: c.createdAt,
        })
        .returning('*');
      return comment(row);
    },
    async get(taskId, id) {
      const row = await db('comments').where({ task_id: taskId, id }).first();
      return row ? comment(row) : undefined;
    },
    list(taskId, page) {
      return pageById<Row, CommentRecord>(db('comments').where({ task_id: taskId }), 'comments.id', page, comment);
    },
    async latest(taskId, n) {
      const rows = await db('comments').where({ task_id: taskId }).orderBy('id', 'desc').limit(n);
      return rows.reverse().map(comment);
    },
  };
}

export function attachmentRepo(db: Knex): Repos['attachments'] {
  return {
    async insert(a) {
      const [row] = await db('attachments').insert({ id: newId('att'), task_id: a.taskId, name: a.name, size: a.size, type: a.type }).returning('*');
      return { id: row.id, taskId: row.task_id, name: row.name, size: Number(row.size), type: row.type };
    },
  };
}
