import type { Knex } from 'knex';
import { type NotificationFilter, type NotificationRecord, type Repos } from '@tt/domain';
import { columnMap } from '../columns.js';
import { named } from '../compiled.js';
import { newId, numOrNull, pageNewestFirst } from '../util.js';

type Row = Record<string, any>;

const NOTIFICATION = columnMap<NotificationRecord>('notifications', {
  id: 'id', workspaceId: 'workspace_id', userId: 'user_id', kind: 'kind', taskId: 'task_id', commentId: { column: 'comment_id', read: (v) => v ?? null },
  actorId: 'actor_id', eventKey: 'event_key', createdAt: { column: 'created_at', read: Number }, readAt: { column: 'read_at', read: numOrNull },
});

/**
 * The recipients who may hear of the event, chosen where the rows are: live users of the task's workspace who can
 * see its board (`notify_allowed`, migration 012, by primary key). One statement, so a notification job is one round
 * trip, and a prepared one: its own plan (an insert from arrays) does not depend on the tables' sizes.
 */
const DELIVER = `insert into notifications (id, workspace_id, user_id, kind, task_id, comment_id, actor_id, event_key, created_at)
  select r.id, ?, r.user_id, r.kind, ?, ?, ?, ?, ?
  from unnest(?::text[], ?::text[], ?::text[]) as r(id, user_id, kind)
  where notify_allowed(?, ?, r.user_id)
  on conflict (user_id, event_key) do nothing
  returning id`;

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
    async deliver(e, recipients) {
      if (!recipients.length) return 0;
      const rows = await named(db, DELIVER, [
        e.workspaceId, e.taskId, e.commentId, e.actorId, e.eventKey, e.createdAt,
        recipients.map(() => newId('ntf')), recipients.map((r) => r.userId), recipients.map((r) => r.kind), e.taskId, e.workspaceId,
      ]);
      return rows.length;
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
