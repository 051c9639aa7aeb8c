import type { Knex } from 'knex';
import { type NotificationFilter, type NotificationRecord, type Repos } from '@tt/domain';
import { columnMap } from '../columns.js';
import { named } from '../compiled.js';
import { groupCommit, type GroupCommit } from '../group-commit.js';
import { newId, numOrNull, pageNewestFirst } from '../util.js';

type Row = Record<string, any>;

const NOTIFICATION = columnMap<NotificationRecord>('notifications', {
  id: 'id', workspaceId: 'workspace_id', userId: 'user_id', kind: 'kind', taskId: 'task_id', commentId: { column: 'comment_id', read: (v) => v ?? null },
  actorId: 'actor_id', eventKey: 'event_key', createdAt: { column: 'created_at', read: Number }, readAt: { column: 'read_at', read: numOrNull },
});

/**
 * The recipients who may hear of the event, chosen where the rows are: live users of the task's workspace who can
 * see its board (`notify_allowed`, migration 012, by primary key). One statement for any number of rows, of any
 * number of events (see `deliveries`), and a prepared one: its own plan (an insert from arrays) does not depend on the
 * tables' sizes. Returns the ids of the rows written.
 */
const DELIVER = `insert into notifications (id, workspace_id, user_id, kind, task_id, comment_id, actor_id, event_key, created_at)
  select r.id, r.workspace_id, r.user_id, r.kind, r.task_id, r.comment_id, r.actor_id, r.event_key, r.created_at
  from unnest(?::text[], ?::text[], ?::text[], ?::text[], ?::text[], ?::text[], ?::text[], ?::text[], ?::bigint[])
    as r(id, workspace_id, user_id, kind, task_id, comment_id, actor_id, event_key, created_at)
  where notify_allowed(r.task_id, r.workspace_id, r.user_id)
  on conflict (user_id, event_key) do nothing
  returning id`;

type Delivery = Omit<NotificationRecord, 'readAt'>;

/** Writes the rows in one statement; per row, whether it was new. */
async function insertDeliveries(db: Knex, rows: Delivery[]): Promise<boolean[]> {
  const column = <K extends keyof Delivery>(k: K) => rows.map((r) => r[k]);
  const written = await named(db, DELIVER, [
    column('id'), column('workspaceId'), column('userId'), column('kind'), column('taskId'), column('commentId'),
    column('actorId'), column('eventKey'), column('createdAt'),
  ]);
  const ids = new Set(written.map((r) => r.id as string));
  return rows.map((r) => ids.has(r.id));
}

/**
 * Deliveries on a pool (not inside a transaction) that arrive together are written together: the worker runs many
 * notification jobs at once, and one statement is one commit instead of one per job (see group-commit.ts).
 */
const deliveries = new WeakMap<Knex, GroupCommit<Delivery>>();
function deliveriesOf(db: Knex): GroupCommit<Delivery> {
  let group = deliveries.get(db);
  if (!group) deliveries.set(db, (group = groupCommit((rows) => insertDeliveries(db, rows))));
  return group;
}

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
      const rows: Delivery[] = recipients.map((r) => ({
        id: newId('ntf'), workspaceId: e.workspaceId, userId: r.userId, kind: r.kind, taskId: e.taskId, commentId: e.commentId,
        actorId: e.actorId, eventKey: e.eventKey, createdAt: e.createdAt,
      }));
      if (!rows.length) return 0;
      if (db.isTransaction) return (await insertDeliveries(db, rows)).filter(Boolean).length;
      return deliveriesOf(db).write(rows);
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
