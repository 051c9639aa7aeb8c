import type { Knex } from 'knex';
import { type MeetingFilter, type MeetingFolderRecord, type MeetingRecord, type Repos } from '@tt/domain';
import { columnMap } from '../columns.js';
import { dayOrNull, newId, numOrNull, pageNewestFirst } from '../util.js';

type Row = Record<string, any>;

const orNull = (v: unknown) => v ?? null;

const FOLDER = columnMap<MeetingFolderRecord>('meeting_folders', {
  id: 'id', workspaceId: 'workspace_id', name: 'name', parentId: { column: 'parent_id', read: orNull }, teamIds: { column: 'team_ids', read: (v) => v ?? [] },
});
const MEETING = columnMap<MeetingRecord>('meetings', {
  id: 'id', workspaceId: 'workspace_id', title: 'title', url: 'url', folderId: { column: 'folder_id', read: orNull },
  projectId: { column: 'project_id', read: orNull }, createdBy: 'created_by', startedAt: { column: 'started_at', read: Number },
  endedAt: { column: 'ended_at', read: numOrNull }, status: 'status', participants: { column: 'participants', read: (v) => v ?? [] },
  transcriptReady: { column: 'transcript_ready', read: Boolean },
  summary: { column: 'summary', read: orNull, write: (v) => (v === null ? null : JSON.stringify(v)) },
});

/** Lists only tell whether there is a summary (an empty one stands for it), so they leave the summaries unread. */
const LIST_COLUMNS = MEETING.select(MEETING.fields.filter((f) => f !== 'summary'));
const HAS_SUMMARY = "case when meetings.summary is null then null else '{}'::jsonb end as summary";

/** Folders open to the workspace (no teams) or shared with one of the user's teams. */
const openFolders = (db: Knex, workspaceId: string, teamIds: string[]) =>
  db('meeting_folders')
    .select('id')
    .where('workspace_id', workspaceId)
    .where((w) => w.whereRaw("team_ids = '{}'").orWhereRaw('team_ids && ?::text[]', [teamIds]));

/**
 * Meetings the user may see: in a visible folder, or their own personal ones; none of a project hidden from the key.
 * The activity feed leaves out the entries of other meetings with it.
 */
export function visibleMeetings(db: Knex, f: Pick<MeetingFilter, 'workspaceId' | 'userId' | 'teamIds' | 'visibleProjectIds'>): Knex.QueryBuilder {
  const q = db('meetings')
    .where('meetings.workspace_id', f.workspaceId)
    .where((w) =>
      w
        .where((p) => p.whereNull('meetings.folder_id').where('meetings.created_by', f.userId))
        .orWhereIn('meetings.folder_id', openFolders(db, f.workspaceId, f.teamIds)),
    );
  if (f.visibleProjectIds) {
    const ids = f.visibleProjectIds;
    q.where((w) => w.whereNull('meetings.project_id').orWhereIn('meetings.project_id', ids));
  }
  return q;
}

export function meetingFolderRepo(db: Knex): Repos['meetingFolders'] {
  return {
    async create(input) {
      const [row] = await db('meeting_folders')
        .insert({ ...FOLDER.write({ ...input, id: newId('mfold') }), created_at: Date.now() })
        .returning('*');
      return FOLDER.read(row);
    },
    async get(workspaceId, id) {
      const row = await db('meeting_folders').where({ workspace_id: workspaceId, id }).first();
      return row ? FOLDER.read(row) : undefined;
    },
    async listVisible(workspaceId, teamIds) {
      const rows = await db('meeting_folders').whereIn('id', openFolders(db, workspaceId, teamIds)).orderBy('id');
      return rows.map(FOLDER.read);
    },
  };
}

export function meetingRepo(db: Knex): Repos['meetings'] {
  return {
    async insert(m, transcript, summaryText) {
      const id = newId('meet');
      await db('meetings').insert({ ...MEETING.write({ ...m, id }), summary_text: summaryText });
      if (transcript !== null) await db('meeting_transcripts').insert({ meeting_id: id, replicas: JSON.stringify(transcript) });
      const items = (m.summary?.actionItems ?? [])
        .map((a, position) => ({ meeting_id: id, position, task_id: a.taskId, text: a.text, owner: a.owner, due: a.due }))
        .filter((a) => a.task_id !== null);
      if (items.length) await db('meeting_action_items').insert(items);
      return MEETING.read(await db('meetings').where({ id }).first());
    },
    async get(workspaceId, id) {
      const row = await db('meetings').where({ workspace_id: workspaceId, id }).first();
      return row ? MEETING.read(row) : undefined;
    },
    async list(f, page) {
      const base = visibleMeetings(db, f);
      if (f.folderId === 'personal') base.whereNull('meetings.folder_id').where('meetings.created_by', f.userId);
      else if (f.folderId) base.where('meetings.folder_id', f.folderId);
      if (f.projectId) base.where('meetings.project_id', f.projectId);
      if (f.status) base.where('meetings.status', f.status);
      if (f.startedFrom !== undefined) base.where('meetings.started_at', '>=', f.startedFrom);
      if (f.startedBefore !== undefined) base.where('meetings.started_at', '<', f.startedBefore);
      if (f.q) {
        base.whereRaw(
          "meetings.search @@ (websearch_to_tsquery('simple', ?) || websearch_to_tsquery('english', ?) || websearch_to_tsquery('russian', ?))",
          [f.q, f.q, f.q],
        );
      }
      return pageNewestFirst<Row, MeetingRecord>(base, { column: 'meetings.started_at', id: 'meetings.id', value: 'epoch' }, page, MEETING.read, (q) =>
        q.select([...LIST_COLUMNS, db.raw(HAS_SUMMARY)]),
      );
    },
    async transcript(id) {
      const row = await db('meeting_transcripts').where({ meeting_id: id }).first();
      return row ? (typeof row.replicas === 'string' ? JSON.parse(row.replicas) : row.replicas) : [];
    },
    async lockSummary(id) {
      const row = await db('meetings').where({ id }).forUpdate().first('summary');
      if (!row?.summary) return null;
      return typeof row.summary === 'string' ? JSON.parse(row.summary) : row.summary;
    },
    async recordAgreementTask(id, index, summary) {
      const item = summary.actionItems[index];
      await db('meetings').where({ id }).update(MEETING.write({ summary }));
      if (!item?.taskId) return;
      await db('meeting_action_items')
        .insert({ meeting_id: id, position: index, task_id: item.taskId, text: item.text, owner: item.owner, due: item.due })
        .onConflict(['meeting_id', 'position'])
        .merge(['task_id']);
    },
    async agreementsForTask(taskId, f) {
      const rows = await visibleMeetings(db, f)
        .join('meeting_action_items as ai', 'ai.meeting_id', 'meetings.id')
        .where('ai.task_id', taskId)
        .orderBy([{ column: 'meetings.started_at', order: 'desc' }, { column: 'ai.position' }])
        .select('meetings.id', 'meetings.title', 'meetings.started_at', 'ai.text', 'ai.owner', 'ai.due');
      return rows.map((r: Row) => ({
        meetingId: r.id, meetingTitle: r.title, startedAt: Number(r.started_at), text: r.text, owner: r.owner, due: dayOrNull(r.due),
      }));
    },
  };
}
