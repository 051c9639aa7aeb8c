import type { Knex } from 'knex';
import { type MeetingFilter, type MeetingFolderRecord, type MeetingRecord, type Repos } from '@tt/domain';
import { dayOrNull, newId, numOrNull, pageNewestFirst } from '../util.js';

type Row = Record<string, any>;

const folder = (r: Row): MeetingFolderRecord => ({
  id: r.id, workspaceId: r.workspace_id, name: r.name, parentId: r.parent_id ?? null, teamIds: r.team_ids ?? [],
});
const meeting = (r: Row): MeetingRecord => ({
  id: r.id, workspaceId: r.workspace_id, title: r.title, url: r.url, folderId: r.folder_id ?? null, projectId: r.project_id ?? null,
  createdBy: r.created_by, startedAt: Number(r.started_at), endedAt: numOrNull(r.ended_at), status: r.status,
  participants: r.participants ?? [], transcriptReady: Boolean(r.transcript_ready),
  summary: r.summary === undefined ? (r.has_summary ? ({} as MeetingRecord['summary']) : null) : (r.summary ?? null),
});

const LIST_COLUMNS = [
  'meetings.id', 'meetings.workspace_id', 'meetings.title', 'meetings.url', 'meetings.folder_id', 'meetings.project_id', 'meetings.created_by',
  'meetings.started_at', 'meetings.ended_at', 'meetings.status', 'meetings.participants', 'meetings.transcript_ready',
];

/** Folders open to the workspace (no teams) or shared with one of the user's teams. */
const openFolders = (db: Knex, workspaceId: string, teamIds: string[]) =>
  db('meeting_folders')
    .select('id')
    .where('workspace_id', workspaceId)
    .where((w) => w.whereRaw("team_ids = '{}'").orWhereRaw('team_ids && ?::text[]', [teamIds]));

/** Meetings the user may see: in a visible folder, or their own personal ones; none of a project hidden from the key. */
function visible(db: Knex, f: Pick<MeetingFilter, 'workspaceId' | 'userId' | 'teamIds' | 'visibleProjectIds'>): Knex.QueryBuilder {
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
        .insert({ id: newId('mfold'), workspace_id: input.workspaceId, name: input.name, parent_id: input.parentId, team_ids: input.teamIds, created_at: Date.now() })
        .returning('*');
      return folder(row);
    },
    async get(workspaceId, id) {
      const row = await db('meeting_folders').where({ workspace_id: workspaceId, id }).first();
      return row ? folder(row) : undefined;
    },
    async listVisible(workspaceId, teamIds) {
      const rows = await db('meeting_folders').whereIn('id', openFolders(db, workspaceId, teamIds)).orderBy('id');
      return rows.map(folder);
    },
  };
}

export function meetingRepo(db: Knex): Repos['meetings'] {
  return {
    async insert(m, transcript, summaryText) {
      const id = newId('meet');
      await db('meetings').insert({
        id, workspace_id: m.workspaceId, title: m.title, url: m.url, folder_id: m.folderId, project_id: m.projectId, created_by: m.createdBy,
        started_at: m.startedAt, ended_at: m.endedAt, status: m.status, participants: m.participants, transcript_ready: m.transcriptReady,
        summary: m.summary === null ? null : JSON.stringify(m.summary), summary_text: summaryText,
      });
      if (transcript !== null) await db('meeting_transcripts').insert({ meeting_id: id, replicas: JSON.stringify(transcript) });
      const items = (m.summary?.actionItems ?? [])
        .map((a, position) => ({ meeting_id: id, position, task_id: a.taskId, text: a.text, owner: a.owner, due: a.due }))
        .filter((a) => a.task_id !== null);
      if (items.length) await db('meeting_action_items').insert(items);
      return meeting(await db('meetings').where({ id }).first());
    },
    async get(workspaceId, id) {
      const row = await db('meetings').where({ workspace_id: workspaceId, id }).first();
      return row ? meeting(row) : undefined;
    },
    async list(f, page) {
      const base = visible(db, f);
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
      return pageNewestFirst<Row, MeetingRecord>(base, { column: 'meetings.started_at', id: 'meetings.id', value: 'epoch' }, page, meeting, (q) =>
        q.select([...LIST_COLUMNS, db.raw('meetings.summary is not null as has_summary')]),
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
      await db('meetings').where({ id }).update({ summary: JSON.stringify(summary) });
      if (!item?.taskId) return;
      await db('meeting_action_items')
        .insert({ meeting_id: id, position: index, task_id: item.taskId, text: item.text, owner: item.owner, due: item.due })
        .onConflict(['meeting_id', 'position'])
        .merge(['task_id']);
    },
    async agreementsForTask(taskId, f) {
      const rows = await visible(db, f)
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
