import type { Knex } from 'knex';
import { type NotificationFilter, type NotificationRecord, type Repos } from '@tt/domain';
import { columnMap } from '../columns.js';
import { newId, numOrNull, pageNewestFirst } from '../util.js';

type Row = Record<string, any>;

const NOTIFICATION = columnMap<NotificationRecord>('notifications', {
  id: 'id', workspaceId: 'workspace_id', userId: 'user_id', kind: 'kind', taskId: 'task_id', commentId: { column: 'comment_id', read: (v) => v ?? null },
  actorId: 'actor_id', eventKey: 'event_key', createdAt: { column: 'created_at', read: Number }, readAt: { column: 'read_at', read: numOrNull },
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
        .insert(rows.map((n) => NOTIFICATION.write({ ...n, id: newId('ntf'), readAt: null })))
        .onConflict(['user_id', 'event_key'])
        .ignore()
        .returning('id');
      return inserted.length;
    },
    list(f, page) {
      return pageNewestFirst<Row, NotificationRecord>(
        inbox(db, f), { column: 'notifications.created_at', id: 'notifications.id', value: 'epoch' }, page, NOTIFICATION.read, (q) => q.select(NOTIFICATION.select()),
      );
    },
    async markRead(f, ids, at) {
      if (ids !== 'all' && !ids.length) return 0;
      const q = inbox(db, { ...f, unread: true });
      if (ids !== 'all') q.whereIn('notifications.id', ids);
      return Number(await q.update(NOTIFICATION.write({ readAt: at })));
    },
  };
}
