import type { Knex } from 'knex';
import { invalid, type NotificationFilter, type NotificationRecord, type Repos } from '@tt/domain';
import { concurrently, newId, num, numOrNull } from '../util.js';

type Row = Record<string, any>;

const notification = (r: Row): NotificationRecord => ({
  id: r.id, workspaceId: r.workspace_id, userId: r.user_id, kind: r.kind, taskId: r.task_id, commentId: r.comment_id ?? null,
  actorId: r.actor_id, eventKey: r.event_key, createdAt: Number(r.created_at), readAt: numOrNull(r.read_at),
});

/** The user's notifications matching the filter; with `visibleTo`, only those about tasks the reading key can see. */
function inbox(db: Knex, f: NotificationFilter): Knex.QueryBuilder {
  const q = db('notifications').where('notifications.user_id', f.userId);
  if (f.unread === true) q.whereNull('notifications.read_at');
  if (f.unread === false) q.whereNotNull('notifications.read_at');
  const visible = f.visibleTo;
  if (visible) {
    q.whereExists((sub) => {
      sub
        .select(db.raw('1'))
        .from('tasks')
        .join('boards', 'boards.id', 'tasks.board_id')
        .whereRaw('tasks.id = notifications.task_id')
        .where((w) => w.whereNull('boards.member_ids').orWhereRaw('? = any(boards.member_ids)', [f.userId]));
      if (visible.projectIds) sub.whereIn('tasks.project_id', visible.projectIds);
    });
  }
  return q;
}

/** Position of a row in newest-first order: "createdAt|id". */
function parseAfter(after: string): [number, string] {
  const cut = after.indexOf('|');
  const at = Number(after.slice(0, cut));
  const id = after.slice(cut + 1);
  if (cut < 1 || !Number.isSafeInteger(at) || !id) throw invalid('cursor', 'malformed cursor; pass nextCursor from the previous page');
  return [at, id];
}

export function notificationRepo(db: Knex): Repos['notifications'] {
  return {
    async insertMany(rows) {
      if (!rows.length) return 0;
      const inserted = await db('notifications')
        .insert(
          rows.map((n) => ({
            id: newId('ntf'), workspace_id: n.workspaceId, user_id: n.userId, kind: n.kind, task_id: n.taskId, comment_id: n.commentId,
            actor_id: n.actorId, event_key: n.eventKey, created_at: n.createdAt, read_at: null,
          })),
        )
        .onConflict(['user_id', 'event_key'])
        .ignore()
        .returning('id');
      return inserted.length;
    },
    async list(f, page) {
      const rowsQ = inbox(db, f).select('notifications.*');
      if (page.after !== undefined) {
        const [at, id] = parseAfter(page.after);
        rowsQ.whereRaw('(notifications.created_at, notifications.id) < (?, ?)', [at, id]);
      }
      const [rows, count] = await concurrently<[Row[], Row | undefined]>(db, [
        () => rowsQ.orderBy([{ column: 'notifications.created_at', order: 'desc' }, { column: 'notifications.id', order: 'desc' }]).limit(page.limit + 1),
        () => inbox(db, f).count({ n: '*' }).first(),
      ]);
      const more = rows.length > page.limit;
      const kept = more ? rows.slice(0, page.limit) : rows;
      const last = kept[kept.length - 1];
      return { rows: kept.map(notification), next: more && last ? `${Number(last.created_at)}|${last.id}` : null, total: num(count?.n) };
    },
    async markRead(f, ids, at) {
      if (ids !== 'all' && !ids.length) return 0;
      const q = inbox(db, { ...f, unread: true });
      if (ids !== 'all') q.whereIn('notifications.id', ids);
      return Number(await q.update({ read_at: at }));
    },
  };
}
