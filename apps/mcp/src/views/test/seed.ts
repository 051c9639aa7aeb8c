import { comments, type Deps, keys, people, projects, SCOPES, tasks } from '@tt/domain';

/** A title that would run script if a view wrote it as HTML. */
export const HOSTILE_TITLE = '<img src=x onerror=window.__pwned=1>';

/**
 * A workspace for the views' tests: project WEB (simple template: To Do, In Progress, Done) with cards in every column,
 * assignees, due dates, labels, a checklist and comments, one card titled with markup; a full key and a read-only one.
 */
export async function seedBoard(deps: Deps) {
  const ws = await people.createWorkspace({ name: 'Views', plan: 'business', timezone: 'UTC' }, deps);
  const alice = await people.createUser(ws.id, { name: 'Alice', login: 'alice', role: 'Lead', isAdmin: true }, deps);
  const bob = await people.createUser(ws.id, { name: 'Bob', login: 'bob', role: '', isAdmin: false }, deps);
  const full = await keys.issueKey(alice.id, { scopes: [...SCOPES], projectIds: null, expiresAt: null, allowedIps: [] }, deps);
  const readOnly = await keys.issueKey(alice.id, { scopes: ['tasks:read'], projectIds: null, expiresAt: null, allowedIps: [] }, deps);
  const actor = await keys.authenticate({ authorization: `Bearer ${full.token}`, ip: '127.0.0.1', surface: 'api' }, deps);
  const project = await projects.createProject(actor, { name: 'Website', key: 'WEB', description: '', template: 'simple' }, deps);
  const board = project.boards[0]!;
  const [todo, progress, done] = board.statuses;
  const make = (title: string, statusId: string, extra: Record<string, unknown> = {}) =>
    tasks.createTask(actor, { title, projectId: project.id, boardId: board.id, statusId, ...extra } as Parameters<typeof tasks.createTask>[1], deps);
  const cards = [
    await make('Fix the login page', todo!.id, { assigneeIds: [alice.id, bob.id], labels: ['bug', 'web'], dueDate: '2026-12-01' }),
    await make(HOSTILE_TITLE, todo!.id, { labels: ['security'] }),
    await make('Write the release notes', progress!.id, {
      assigneeIds: [bob.id], dueDate: '2026-12-15',
      checklist: [{ text: 'Draft', done: true }, { text: 'Review', done: false }, { text: 'Publish', done: false }],
    }),
    await make('Ship 2.0', done!.id, { assigneeIds: [alice.id] }),
  ];
  const notes = cards[2]!;
  await comments.addComment(actor, notes.id, { text: 'First draft is in the doc.' }, deps);
  await comments.addComment(actor, notes.id, { text: `Looks good; ${HOSTILE_TITLE}` }, deps);
  return { token: full.token, readOnlyToken: readOnly.token, project, board, columns: { todo: todo!, progress: progress!, done: done! }, cards, notes, actor };
}
