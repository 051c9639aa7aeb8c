import {
  type Actor, AttachmentInput, comments, CreateCommentInput, CreateDocInput, CreateDocSpaceInput, CreateMeetingFolderInput, CreateMeetingInput, CreateTaskInput,
  type Deps, docs, keys, LogTimeInput, meetings, MoveTaskInput, people, projects, type Scope, SCOPES, tasks, TaskFromAgreementInput, time,
  UpdateDocInput, UpdateTaskInput,
} from '@tt/domain';

/*
 * A workspace where every activity action names objects some readers may not read, and those readers: the matrix of
 * the activity log's one visibility rule (issue 51). REST and MCP tests read the same log through their own surface.
 *
 * Objects: projects WEB and OPS; WEB's open board and its closed board Secret; an open doc space and a closed one;
 * an open meeting folder and one of the team Core; a personal meeting of the admin; a meeting of OPS whose agreement
 * made a WEB task. Readers: `admin` reads everything; the others each lack one right or stand outside one object.
 */

export interface ScenarioReader {
  token: string;
  /** Ids and titles this reader may not read: none may appear anywhere in what it is shown. */
  forbidden: string[];
}

export type ReaderName = 'admin' | 'noDocs' | 'noMeetings' | 'restricted' | 'outsideBoard' | 'outsideSpace' | 'outsideFolder';

export interface ActivityScenario {
  workspaceId: string;
  /** Keys of the tasks every reader may read (WEB, open board). */
  tasks: { web: { id: string; key: string }; moved: { id: string; key: string }; child: { id: string; key: string }; fromMeeting: Record<string, { id: string; key: string }> };
  ids: {
    ops: string; secret: string; secretBoard: string; webBoard: string; openPage: string; closedPage: string;
    meetings: { open: string; team: string; personal: string; ops: string };
  };
  readers: Record<ReaderName, ScenarioReader>;
}

export async function activityScenario(deps: Deps): Promise<ActivityScenario> {
  const ws = await people.createWorkspace({ name: 'Visibility', plan: 'business', timezone: 'UTC' }, deps);
  const user = (login: string, isAdmin = false) => people.createUser(ws.id, { name: login, login, role: '', isAdmin }, deps);
  const admin = await user('boss', true);
  const [notOnBoard, notInSpace, notInTeam] = [await user('nob'), await user('nos'), await user('not')];
  const issue = (userId: string, scopes: readonly Scope[], projectIds: string[] | null = null) =>
    keys.issueKey(userId, { scopes: [...scopes], projectIds, expiresAt: null, allowedIps: [] }, deps);
  const adminKey = await issue(admin.id, SCOPES);
  const actor: Actor = {
    workspace: { id: ws.id, name: ws.name, plan: ws.plan, timezone: ws.timezone, memberKeysEnabled: true } as Actor['workspace'],
    user: { ...admin, workspaceId: ws.id, deletedAt: null, teamIds: [] } as Actor['user'],
    key: { id: adminKey.id, scopes: [...SCOPES], projectIds: null },
  };
  const team = await people.createTeam(ws.id, { name: 'Core', description: '', memberIds: [admin.id, notOnBoard.id, notInSpace.id] }, deps);
  actor.user = { ...actor.user, teamIds: [team.id] };

  const web = await projects.createProject(actor, { name: 'Website', key: 'WEB', description: '', template: 'simple' }, deps);
  const ops = await projects.createProject(actor, { name: 'Operations', key: 'OPS', description: '', template: 'simple' }, deps);
  const webBoard = web.boards[0]!;
  const secretBoard = await projects.createBoard(actor, { projectId: web.id, name: 'Secret' }, deps);
  await projects.setBoardAccess(secretBoard.id, { memberIds: [admin.id, notInSpace.id, notInTeam.id] }, deps);

  const task = (input: Record<string, unknown>) => tasks.createTask(actor, CreateTaskInput.parse(input), deps);
  const webTask = await task({ title: 'Visible web task', projectId: web.id });
  const opsTask = await task({ title: 'Ops only task', projectId: ops.id });
  const secretTask = await task({ title: 'Secret board task', boardId: secretBoard.id });
  const moved = await task({ title: 'Moved out of the secret board', boardId: secretBoard.id });
  await tasks.moveTask(actor, moved.key, MoveTaskInput.parse({ boardId: webBoard.id, statusId: webBoard.statuses[0]!.id }), deps);
  const child = await task({ title: 'Child of the secret task', projectId: web.id, parentId: secretTask.id });
  await tasks.updateTask(actor, child.key, UpdateTaskInput.parse({ parentId: null, priority: 'high' }), deps);
  await comments.addComment(actor, webTask.key, CreateCommentInput.parse({ text: 'A comment' }), deps);
  await time.logTime(actor, webTask.key, LogTimeInput.parse({ minutes: 5 }), deps);
  // The operator's actions and a deletion, on the closed board: none of them for its non-members.
  await tasks.addAttachment(secretTask.id, AttachmentInput.parse({ name: 'secret-plan.pdf', size: 10, type: 'application/pdf' }), deps);
  await tasks.archiveTask(secretTask.id, true, deps);
  await tasks.archiveTask(secretTask.id, false, deps);
  const doomed = await task({ title: 'Deleted secret task', boardId: secretBoard.id });
  await tasks.deleteTask(actor, doomed.key, deps);

  const openSpace = await docs.createSpace(ws.id, CreateDocSpaceInput.parse({ name: 'Specs', memberIds: null }), deps);
  const closedSpace = await docs.createSpace(ws.id, CreateDocSpaceInput.parse({ name: 'Board room', memberIds: [admin.id, notOnBoard.id, notInTeam.id] }), deps);
  const openPage = await docs.createDoc(actor, CreateDocInput.parse({
    spaceId: openSpace.id, title: 'Open spec page', text: 'x', taskIds: [webTask.id, opsTask.id, secretTask.id],
  }), deps);
  await docs.updateDoc(actor, openPage.id, UpdateDocInput.parse({ taskIds: [webTask.id] }), deps);
  const closedPage = await docs.createDoc(actor, CreateDocInput.parse({ spaceId: closedSpace.id, title: 'Salaries page', text: 'y', taskIds: [webTask.id] }), deps);
  await docs.updateDoc(actor, closedPage.id, UpdateDocInput.parse({ title: 'Salaries page, 2027' }), deps);

  const openFolder = await meetings.createFolder(ws.id, CreateMeetingFolderInput.parse({ name: 'All hands' }), deps);
  const teamFolder = await meetings.createFolder(ws.id, CreateMeetingFolderInput.parse({ name: 'Core syncs', teamIds: [team.id] }), deps);
  const meeting = async (title: string, folderId: string | null, projectId: string) => {
    const m = await meetings.createMeeting(ws.id, CreateMeetingInput.parse({
      title, folderId, projectId, createdBy: admin.id, startedAt: Date.UTC(2026, 10, 2, 9), summary: { actionItems: [{ text: 'Agreed follow-up' }] },
    }), deps);
    const made = await meetings.createTaskFromAgreement(actor, m.id, 0, TaskFromAgreementInput.parse({ projectId: web.id }), deps);
    return { id: m.id, task: { id: made.task.id, key: made.task.key } };
  };
  const mOpen = await meeting('Open meeting title', openFolder.id, web.id);
  const mTeam = await meeting('Team meeting title', teamFolder.id, web.id);
  const mPersonal = await meeting('Personal meeting title', null, web.id);
  const mOps = await meeting('Ops meeting title', openFolder.id, ops.id);

  const secretColumns = secretBoard.statuses.map((s) => s.id);
  const personal = [mPersonal.id, 'Personal meeting title'];
  const readers: Record<ReaderName, ScenarioReader> = {
    admin: { token: adminKey.token, forbidden: [] },
    noDocs: { token: (await issue(admin.id, SCOPES.filter((s) => s !== 'docs:read'))).token, forbidden: [openPage.id, closedPage.id, 'Open spec page', 'Salaries page'] },
    noMeetings: {
      token: (await issue(admin.id, SCOPES.filter((s) => s !== 'meetings:read'))).token,
      forbidden: [mOpen.id, mTeam.id, mPersonal.id, mOps.id, 'Open meeting title', 'Team meeting title', 'Personal meeting title', 'Ops meeting title'],
    },
    restricted: { token: (await issue(admin.id, SCOPES, [web.id])).token, forbidden: [opsTask.id, opsTask.key, 'Ops only task', mOps.id, 'Ops meeting title'] },
    outsideBoard: {
      token: (await issue(notOnBoard.id, SCOPES)).token,
      forbidden: [secretTask.id, secretTask.key, 'Secret board task', 'secret-plan.pdf', doomed.id, 'Deleted secret task', secretBoard.id, ...secretColumns, ...personal],
    },
    outsideSpace: { token: (await issue(notInSpace.id, SCOPES)).token, forbidden: [closedPage.id, 'Salaries page', ...personal] },
    outsideFolder: { token: (await issue(notInTeam.id, SCOPES)).token, forbidden: [mTeam.id, 'Team meeting title', ...personal] },
  };
  return {
    workspaceId: ws.id,
    tasks: {
      web: { id: webTask.id, key: webTask.key }, moved: { id: moved.id, key: moved.key }, child: { id: child.id, key: child.key },
      fromMeeting: { open: mOpen.task, team: mTeam.task, personal: mPersonal.task, ops: mOps.task },
    },
    ids: {
      ops: opsTask.id, secret: secretTask.id, secretBoard: secretBoard.id, webBoard: webBoard.id, openPage: openPage.id, closedPage: closedPage.id,
      meetings: { open: mOpen.id, team: mTeam.id, personal: mPersonal.id, ops: mOps.id },
    },
    readers,
  };
}

/** The first forbidden id or title that `shown` (anything a reader was shown) names, or undefined. */
export const namesForbidden = (reader: ScenarioReader, shown: unknown): string | undefined => {
  const text = JSON.stringify(shown);
  return reader.forbidden.find((f) => text.includes(f));
};
