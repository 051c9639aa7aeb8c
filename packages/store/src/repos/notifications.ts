import type { Knex } from 'knex';
import { type NotificationFilter, type NotificationRecord, type Repos } from '@tt/domain';
import { columnMap } from '../columns.js';
import { newId, numOrNull, pageNewestFirst } from '../util.js';

type Row = Record<string, any>;

const NOTIFICATION = columnMap<NotificationRecord>('notifications', {
  id: 'id', workspaceId: 'workspace_id', userId: 'user_id', kind: 'kind', taskId: 'task_id', commentId: { column: 'comment_id', read: (v) => v ?? null },
  actorId: 'actor_id', eventKey: 'event_key', createdAt: { column: 'created_at', read: Number }, readAt: { column: 'read_at', read: numOrNull },
});

/**
 * The recipients who may hear of the event, chosen where the rows are: live users of the task's workspace who can
 * see its board, each looked up by primary key. One statement, so a notification job is one round trip. Planned at
 * each run, not prepared: a plan cached while the tables were small would keep scanning them as they grow.
 */
const DELIVER = `insert into notifications (id, workspace_id, user_id, kind, task_id, comment_id, actor_id, event_key, created_at)
  select r.id, t.workspace_id, r.user_id, r.kind, t.id, ?, ?, ?, ?
  from (select id, workspace_id, board_id from tasks where id = ? and workspace_id = ?) t
  cross join unnest(?::text[], ?::text[], ?::text[]) as r(id, user_id, kind)
  where exists (select 1 from users u where u.id = r.user_id and u.workspace_id = t.workspace_id and u.deleted_at is null)
    and exists (select 1 from boards b where b.id = t.board_id and (b.member_ids is null or r.user_id = any(b.member_ids)))
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
      const { rows } = await db.raw(DELIVER, [
        e.commentId, e.actorId, e.eventKey, e.createdAt, e.taskId, e.workspaceId,
        recipients.map(() => newId('ntf')), recipients.map((r) => r.userId), recipients.map((r) => r.kind),
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
