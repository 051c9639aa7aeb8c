import type { Knex } from 'knex';
import { type NotificationFilter, type NotificationRecord, type Repos } from '@tt/domain';
import { newId, numOrNull, pageNewestFirst } from '../util.js';

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
    list(f, page) {
      return pageNewestFirst<Row, NotificationRecord>(
        inbox(db, f), { column: 'notifications.created_at', id: 'notifications.id', value: 'epoch' }, page, notification, (q) => q.select('notifications.*'),
      );
    },
    async markRead(f, ids, at) {
      if (ids !== 'all' && !ids.length) return 0;
      const q = inbox(db, { ...f, unread: true });
      if (ids !== 'all') q.whereIn('notifications.id', ids);
      return Number(await q.update({ read_at: at }));
    },
  };
}
