import type { Knex } from 'knex';
import type { ActivityFilter, ActivityRecord, ActivityRow, AuditFilter, AuditRecord, Repos } from '@tt/domain';
import { columnMap } from '../columns.js';
import { pageNewestFirst } from '../util.js';
import { visibleMeetings } from './meetings.js';

type Row = Record<string, any>;

// pg returns jsonb parsed; PGlite too. A string (an old driver setting) is parsed once here.
const json = (v: unknown) => (typeof v === 'string' ? JSON.parse(v) : v);
const jsonOut = (v: unknown) => JSON.stringify(v);

const ACTIVITY = columnMap<ActivityRow>('activity', {
  id: 'id', workspaceId: 'workspace_id', at: { column: 'at', read: Number }, actorId: 'actor_id', channel: 'channel', keyId: 'key_id',
  clientName: 'client_name', automationId: 'automation_id', projectId: 'project_id', boardId: 'board_id', spaceId: 'space_id',
  taskId: 'task_id', taskKey: 'task_key', docId: 'doc_id', meetingId: 'meeting_id', action: 'action', changes: { column: 'changes', read: json, write: jsonOut },
  actorName: { column: 'actor_name', readOnly: true }, actorLogin: { column: 'actor_login', readOnly: true },
});
const ACTIVITY_SELECT = [...ACTIVITY.select(), 'users.name as actor_name', 'users.login as actor_login'];

const AUDIT = columnMap<AuditRecord>('audit_log', {
  id: 'id', workspaceId: 'workspace_id', at: { column: 'at', read: Number }, actorKind: 'actor_kind', actorId: 'actor_id', channel: 'channel',
  keyId: 'key_id', clientName: 'client_name', action: 'action', targetType: 'target_type', targetId: 'target_id',
  details: { column: 'details', read: json, write: jsonOut },
});

/**
 * The entries a reader may see (ActivityFilter says which): its workspace, its key's projects, none of a board or
 * space closed to the user, no page's without the right to read pages, no meeting's without the right to read
 * meetings or of a meeting the user may not open. A page's entries have no project; a task's have no space. The
 * filters name columns of one index each, or of the row the index finds: the page of entries is still one statement.
 */
function visible(db: Knex, f: ActivityFilter): Knex.QueryBuilder {
  const q = db('activity').where('activity.workspace_id', f.workspaceId);
  if (f.visibleProjectIds) {
    const ids = f.visibleProjectIds;
    q.where((w) => w.whereNull('activity.project_id').orWhereIn('activity.project_id', ids));
  }
  // Closed boards and spaces are few: a small anti-join list each, evaluated once per query.
  const closed = (table: string) =>
    db(table).select('id').where('workspace_id', f.workspaceId).whereNotNull('member_ids').whereRaw('not (? = any(member_ids))', [f.userId]);
  q.where((w) => w.whereNull('activity.board_id').orWhereNotIn('activity.board_id', closed('boards')));
  if (f.pages) q.where((w) => w.whereNull('activity.space_id').orWhereNotIn('activity.space_id', closed('doc_spaces')));
  else q.whereNull('activity.doc_id');
  if (f.meetings) {
    // A scalar subquery: probed by primary key for each entry that names a meeting (few), where EXISTS or IN would be
    // planned as a hash of every meeting of the workspace the user may see, built for each page.
    const open = visibleMeetings(db, f).whereRaw('meetings.id = activity.meeting_id').select(db.raw('true'));
    q.where((w) => w.whereNull('activity.meeting_id').orWhereRaw('coalesce((?), false)', [open]));
  } else q.whereNull('activity.meeting_id');
  if (f.taskId !== undefined) q.where('activity.task_id', f.taskId);
  if (f.projectId !== undefined) q.where('activity.project_id', f.projectId);
  if (f.actorId !== undefined) q.where('activity.actor_id', f.actorId);
  if (f.since !== undefined) q.where('activity.at', '>=', f.since);
  if (f.until !== undefined) q.where('activity.at', '<', f.until);
  return q;
}

/** An entry as its row's columns. */
export const activityRow = (entry: ActivityRecord): Row => ACTIVITY.write(entry);
/** An entry as its row's columns in a JSON document (for jsonb_populate_recordset): `changes` as JSON, not text. */
export const activityJson = (entry: ActivityRecord): Row => ({ ...ACTIVITY.write(entry), changes: entry.changes });

/**
 * A task's first entry, written by the statement that inserts the task (a CTE beside `ins`), so that it commits with the
 * task in the same statement (and not without it); its task key is the one the insert numbers.
 */
export function activityWithInsert(entry: ActivityRecord): { columns: string[]; bindings: unknown[] } {
  const row = ACTIVITY.write(entry);
  delete row.task_key;
  return { columns: Object.keys(row), bindings: Object.values(row) };
}

/** The insert of `activityWithInsert`'s entry, for its columns: their values, then the task's key from `ins`. */
export const activityInsertFromIns = (columns: string[]): string =>
  `insert into activity (${columns.map((c) => `"${c}"`).join(', ')}, task_key) select ${columns.map(() => '?').join(', ')}, ins.key from ins`;

export function activityRepo(db: Knex): Repos['activity'] {
  return {
    async add(entries: ActivityRecord[]) {
      if (entries.length) await db('activity').insert(entries.map((e) => ACTIVITY.write(e)));
    },
    list(f, page) {
      return pageNewestFirst<Row, ActivityRow>(visible(db, f), { column: 'activity.at', id: 'activity.id', value: 'epoch' }, page, ACTIVITY.read, (q) =>
        q.leftJoin('users', 'users.id', 'activity.actor_id').select(ACTIVITY_SELECT),
      );
    },
    async moveTask(taskId, boardId) {
      await db('activity').where({ task_id: taskId }).whereNot({ board_id: boardId }).update({ board_id: boardId });
    },
    async prune(before, batch) {
      // Workspace by workspace, so each batch is a range of the feed index (no index on `at` alone to keep writes lean).
      let n = 0;
      for (const w of (await db('workspaces').select('id')) as Array<{ id: string }>) {
        const ids = db('activity').select('id').where('workspace_id', w.id).where('at', '<', before).limit(batch);
        n += (await db('activity').whereIn('id', ids).delete().returning('id')).length;
      }
      return n;
    },
  };
}

export function auditRepo(db: Knex): Repos['audit'] {
  return {
    async add(entry) {
      await db('audit_log').insert(AUDIT.write(entry));
    },
    list(f: AuditFilter, page) {
      const q = db('audit_log');
      if (f.workspaceId !== undefined) q.where('audit_log.workspace_id', f.workspaceId);
      if (f.action !== undefined) q.where('audit_log.action', f.action);
      if (f.since !== undefined) q.where('audit_log.at', '>=', f.since);
      if (f.until !== undefined) q.where('audit_log.at', '<', f.until);
      return pageNewestFirst<Row, AuditRecord>(q, { column: 'audit_log.at', id: 'audit_log.id', value: 'epoch' }, page, AUDIT.read, (b) => b.select(AUDIT.select()));
    },
    async prune(before, batch) {
      const ids = db('audit_log').select('id').where('at', '<', before).limit(batch);
      return (await db('audit_log').whereIn('id', ids).delete().returning('id')).length;
    },
  };
}
