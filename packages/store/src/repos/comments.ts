import type { Knex } from 'knex';
import type { Repos } from '@tt/domain';
import { newId, pageById } from '../util.js';
import { COMMENT } from './tasks/columns.js';

export function commentRepo(db: Knex): Repos['comments'] {
  return {
    async insert(c) {
      const [row] = await db('comments').insert(COMMENT.write({ ...c, id: newId('cmt') })).returning('*');
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
