import {
  type CutPage, cutPage, dayBounds, dayOf, decodeCursor, type Deps, encodeCursor, invalid, notFound, type Page, type Repos, uncut,
} from '../shared/index.js';
import { type Actor, canSeeProject, requireScope } from '../keys/index.js';
import { taskRef, visibleTasksById } from '../tasks/index.js';
import type { MeetingFilter, MeetingFolderRecord, MeetingRecord } from './ports.js';
import type {
  CreateMeetingFolderInput, CreateMeetingInput, ListMeetingsQuery, Meeting, MeetingFolder, MeetingWithSummary,
  Transcript,
} from './schema.js';

const presentFolder = (f: MeetingFolderRecord): MeetingFolder => ({ id: f.id, name: f.name, parentId: f.parentId, teamIds: f.teamIds });
const presentMeeting = (m: MeetingRecord): Meeting => ({
  id: m.id, title: m.title, url: m.url, folderId: m.folderId, projectId: m.projectId, createdBy: m.createdBy, startedAt: m.startedAt,
  endedAt: m.endedAt, status: m.status, participants: m.participants, transcriptReady: m.transcriptReady, hasSummary: m.summary !== null,
});

const visibility = (actor: Actor): Pick<MeetingFilter, 'workspaceId' | 'userId' | 'teamIds' | 'visibleProjectIds'> => ({
  workspaceId: actor.workspace.id, userId: actor.user.id, teamIds: actor.user.teamIds, visibleProjectIds: actor.key.projectIds,
});

/** A folder is open when it names no teams, else visible to members of its teams. */
const folderVisible = (actor: Actor, f: MeetingFolderRecord): boolean =>
  f.teamIds.length === 0 || f.teamIds.some((t) => actor.user.teamIds.includes(t));

/** A meeting in a folder the user may see, or their own personal one, and not of a project hidden from the key; else 404. */
export async function visibleMeeting(actor: Actor, id: string, repos: Repos): Promise<MeetingRecord> {
  const m = await repos.meetings.get(actor.workspace.id, id);
  if (!m) throw notFound('Meeting');
  if (m.projectId !== null && !canSeeProject(actor, m.projectId)) throw notFound('Meeting');
  if (m.folderId === null) {
    if (m.createdBy !== actor.user.id) throw notFound('Meeting');
  } else {
    const folder = await repos.meetingFolders.get(actor.workspace.id, m.folderId);
    if (!folder || !folderVisible(actor, folder)) throw notFound('Meeting');
  }
  return m;
}

export async function listFolders(actor: Actor, deps: Deps): Promise<Page<MeetingFolder>> {
  requireScope(actor, 'meetings:read');
  const folders = await deps.store.meetingFolders.listVisible(actor.workspace.id, actor.user.teamIds);
  return { data: folders.map(presentFolder), nextCursor: null, total: folders.length };
}

/** Meetings newest first; days are counted in the workspace's time zone. */
export async function listMeetings(actor: Actor, query: ListMeetingsQuery, deps: Deps): Promise<Page<Meeting>> {
  return uncut(await listMeetingPage(actor, query, deps));
}

/** listMeetings with the cursor after any of its first meetings (see CutPage). */
export async function listMeetingPage(actor: Actor, query: ListMeetingsQuery, deps: Deps): Promise<CutPage<Page<Meeting>>> {
  requireScope(actor, 'meetings:read');
  if (query.from && query.to && query.from > query.to) throw invalid('query.from', `must not be after to (${query.to})`);
  const bounds = dayBounds(query.from, query.to, actor.workspace.timezone);
  const page = await deps.store.meetings.list(
    {
      ...visibility(actor), folderId: query.folderId, projectId: query.projectId, status: query.status,
      startedFrom: bounds.start, startedBefore: bounds.end, q: query.q,
    },
    { limit: query.limit, after: decodeCursor(query.cursor) },
  );
  return cutPage({ data: page.rows.map(presentMeeting), nextCursor: encodeCursor(page.next), total: page.total }, page);
}

export async function getMeeting(actor: Actor, id: string, deps: Deps): Promise<MeetingWithSummary> {
  requireScope(actor, 'meetings:read');
  const m = await visibleMeeting(actor, id, deps.store);
  if (!m.summary) return { ...presentMeeting(m), summary: null };
  // An agreement may name a task the key must not see: the agreement stays, the reference goes.
  const visible = await visibleTasksById(actor, m.summary.actionItems.flatMap((a) => (a.taskId ? [a.taskId] : [])), deps.store);
  const actionItems = m.summary.actionItems.map((a) => ({ ...a, taskId: a.taskId && visible.has(a.taskId) ? a.taskId : null }));
  return { ...presentMeeting(m), summary: { ...m.summary, actionItems } };
}

export async function getTranscript(actor: Actor, id: string, deps: Deps): Promise<Transcript> {
  requireScope(actor, 'meetings:read');
  const m = await visibleMeeting(actor, id, deps.store);
  return { meetingId: m.id, replicas: await deps.store.meetings.transcript(m.id) };
}

/** The transcript as text: one line per replica, `[hh:mm:ss] <speaker>: <utterance>`. */
export function transcriptText(t: Transcript): string {
  return t.replicas.map((r) => `[${r.start}] ${r.speaker}: ${r.text.replace(/\s*\n\s*/g, ' ')}`).join('\n') + (t.replicas.length ? '\n' : '');
}

/** Action items naming the task, from meetings the user may see, for the task's context. */
export async function agreementsForTask(actor: Actor, taskId: string, repos: Repos) {
  const rows = await repos.meetings.agreementsForTask(taskId, visibility(actor));
  return rows.map((a) => ({
    meetingId: a.meetingId, meetingTitle: a.meetingTitle, day: dayOf(a.startedAt, actor.workspace.timezone), text: a.text,
    owner: a.owner, due: a.due,
  }));
}

// Operator use cases: folders and meetings are made by the recording service, not through /v1.

export async function createFolder(workspaceId: string, input: CreateMeetingFolderInput, deps: Deps): Promise<MeetingFolder> {
  return deps.store.transaction(async (repos) => {
    if (!(await repos.workspaces.get(workspaceId))) throw notFound('Workspace');
    if (input.parentId && !(await repos.meetingFolders.get(workspaceId, input.parentId))) {
      throw invalid('body.parentId', `folder ${input.parentId} not found`);
    }
    const known = new Set(await repos.teams.existing(workspaceId, input.teamIds));
    const missing = input.teamIds.filter((t) => !known.has(t));
    if (missing.length) throw invalid('body.teamIds', `unknown team ${missing.join(', ')}`);
    return presentFolder(await repos.meetingFolders.create({ workspaceId, name: input.name, parentId: input.parentId, teamIds: [...new Set(input.teamIds)] }));
  });
}

/** Plain text of a summary for search. */
function summaryText(s: NonNullable<MeetingRecord['summary']>): string {
  return [
    s.overview,
    ...s.topics.flatMap((t) => [t.title, ...t.points]),
    ...s.decisions,
    ...s.actionItems.map((a) => a.text),
  ].join('\n');
}

export async function createMeeting(workspaceId: string, input: CreateMeetingInput, deps: Deps): Promise<MeetingWithSummary> {
  return deps.store.transaction(async (repos) => {
    if (!(await repos.workspaces.get(workspaceId))) throw notFound('Workspace');
    const creator = await repos.users.get(workspaceId, input.createdBy);
    if (!creator || creator.deletedAt !== null) throw invalid('body.createdBy', `user ${input.createdBy} not found`);
    if (input.folderId && !(await repos.meetingFolders.get(workspaceId, input.folderId))) {
      throw invalid('body.folderId', `folder ${input.folderId} not found`);
    }
    if (input.projectId && !(await repos.projects.get(workspaceId, input.projectId))) {
      throw invalid('body.projectId', `project ${input.projectId} not found`);
    }
    if (input.endedAt !== null && input.endedAt < input.startedAt) throw invalid('body.endedAt', 'must not be before startedAt');
    let summary: MeetingRecord['summary'] = null;
    if (input.summary) {
      const items = [];
      for (const [i, a] of input.summary.actionItems.entries()) {
        let taskId: string | null = null;
        if (a.taskId) {
          const task = await repos.tasks.get(workspaceId, taskRef(a.taskId));
          if (!task) throw invalid(`body.summary.actionItems.${i}.taskId`, `task ${a.taskId} not found`);
          taskId = task.id;
        }
        items.push({ text: a.text, owner: a.owner, due: a.due, taskId });
      }
      summary = {
        overview: input.summary.overview, topics: input.summary.topics, decisions: input.summary.decisions, actionItems: items,
        generatedAt: input.summary.generatedAt ?? deps.now(),
      };
    }
    const m = await repos.meetings.insert(
      {
        workspaceId, title: input.title, url: input.url, folderId: input.folderId, projectId: input.projectId, createdBy: creator.id,
        startedAt: input.startedAt, endedAt: input.endedAt, status: input.status, participants: input.participants,
        transcriptReady: input.transcript !== null && input.transcript.length > 0, summary,
      },
      input.transcript,
      summary ? summaryText(summary) : '',
    );
    return { ...presentMeeting(m), summary: m.summary };
  });
}
