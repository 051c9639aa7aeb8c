import type { Knex } from 'knex';
import type { Repos } from '@tt/domain';
import { named } from '../compiled.js';
import { newId, pageById } from '../util.js';
import { activityRow } from './activity.js';
import { outboxInsert, outboxValues } from './outbox.js';
import { COMMENT } from './tasks/columns.js';
import { boardMembersHeld, keptVersionMoved } from './tasks/kept.js';

type Row = Record<string, any>;

/** The statement of `append`, by its shape (the columns of the comment and of the entry; with a members guard or not). */
const APPENDS = new Map<string, string>();

function appendStatement(commentColumns: string[], entryColumns: string[], members: boolean): string {
  const shape = `${commentColumns.join(',')}|${entryColumns.join(',')}|${members}`;
  let sql = APPENDS.get(shape);
  if (!sql) {
    const list = (cols: string[]) => cols.map((c) => `"${c}"`).join(', ');
    const marks = (cols: string[]) => cols.map(() => '?').join(', ');
    // Every write hangs on `changed`: the task at the version the comment was planned on (and its board's members).
    sql = `with changed as (update tasks set updated_at = ?, version = version + 1 where id = ? and version = ?
                            ${members ? `and ${boardMembersHeld('tasks')}` : ''}
                            returning id),
                 comment_added as (insert into comments (${list(commentColumns)}) select ${marks(commentColumns)} from changed returning *),
                 jobs_added as (${outboxInsert('changed')}),
                 activity_added as (insert into activity (${list(entryColumns)}) select ${marks(entryColumns)} from changed)
            select * from comment_added`;
    if (APPENDS.size < 16) APPENDS.set(shape, sql);
  }
  return sql;
}

export function commentRepo(db: Knex): Repos['comments'] {
  return {
    async insert(c) {
      const [row] = await db('comments').insert(COMMENT.write({ id: newId('cmt'), ...c })).returning('*');
      return COMMENT.read(row);
    },
    async append(c, { task, jobs, activity }) {
      const comment: Row = COMMENT.write(c);
      const entry: Row = activityRow(activity);
      const [commentColumns, entryColumns] = [Object.keys(comment), Object.keys(entry)];
      const members = task.boardMemberIds !== undefined;
      const [row] = await named(db, appendStatement(commentColumns, entryColumns, members), [
        c.createdAt, task.id, task.version, ...(members ? [task.boardMemberIds] : []),
        ...commentColumns.map((k) => comment[k]), ...outboxValues(jobs), ...entryColumns.map((k) => entry[k]),
      ]);
      if (!row) return undefined;
      // The task this process keeps moved on with the comment: the next comment or change on it plans on what is true.
      keptVersionMoved(db, c.workspaceId, task.id, task.version, { updatedAt: c.createdAt });
      return COMMENT.read(row);
    },
    async get(taskId, id) {
      const row = await db('comments').where({ task_id: taskId, id }).first();
      return row ? COMMENT.read(row) : undefined;
    },
    async find(workspaceId, id) {
      const row = await db('comments').where({ workspace_id: workspaceId, id }).first();
      return row ? COMMENT.read(row) : undefined;
    },
    list(taskId, page) {
      return pageById(db('comments').where({ task_id: taskId }), 'comments.id', page, COMMENT.read);
    },
    async newest(taskId, page) {
      const base = db('comments').where({ task_id: taskId });
      const rowsQ = base.clone().select('*').orderBy('id', 'desc').limit(page.limit + 1);
      if (page.after !== undefined) rowsQ.where('id', '<', page.after);
      const rows = (await rowsQ) as Array<Record<string, unknown>>;
      const countRow = (await base.clone().count({ n: '*' }).first()) as { n: unknown } | undefined;
      const kept = rows.slice(0, page.limit);
      const last = kept[kept.length - 1];
      return { rows: kept.map(COMMENT.read), next: rows.length > page.limit && last ? String(last.id) : null, total: Number(countRow?.n ?? 0) };
    },
    async latest(taskId, n) {
      const rows = await db('comments').where({ task_id: taskId }).orderBy('id', 'desc').limit(n);
      return rows.reverse().map(COMMENT.read);
    },
  };
}
