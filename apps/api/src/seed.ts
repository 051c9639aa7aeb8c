import { type Deps, keys, people, projects, SCOPES, tasks } from '@tt/domain';

export interface DemoSeed {
  workspaceId: string;
  token: string;
}

/** Creates the demo workspace on first start: an admin, two colleagues, a team, a project and a few tasks. */
export async function seedDemo(deps: Deps): Promise<DemoSeed> {
  const ws = await people.createWorkspace({ name: 'Demo Company', plan: 'business', timezone: 'Europe/Moscow' }, deps);
  const alice = await people.createUser(ws.id, { name: 'Alice Admin', login: 'alice', role: 'Engineering manager', isAdmin: true }, deps);
  const bob = await people.createUser(ws.id, { name: 'Bob Builder', login: 'bob', role: 'Backend engineer', isAdmin: false }, deps);
  const cara = await people.createUser(ws.id, { name: 'Cara Designer', login: 'cara', role: 'Product designer', isAdmin: false }, deps);
  await people.createTeam(ws.id, { name: 'Core', description: 'Core product team', leadId: alice.id, memberIds: [alice.id, bob.id, cara.id] }, deps);
  const key = await keys.issueKey(alice.id, { scopes: [...SCOPES], projectIds: null, expiresAt: null, allowedIps: [] }, deps);
  const actor = {
    workspace: { id: ws.id, name: ws.name, plan: ws.plan, timezone: ws.timezone, memberKeysEnabled: true },
    user: { ...alice, workspaceId: ws.id, deletedAt: null },
    key: { id: key.id, scopes: key.scopes, projectIds: null },
  };
  const project = await projects.createProject(actor, { name: 'Website', key: 'WEB', description: 'Public website', template: 'scrum' }, deps);
  const boardId = project.boards[0]!.id;
  await tasks.createTask(actor, { title: 'Set up the landing page', boardId, assigneeIds: [bob.id], labels: ['frontend'], priority: 'high', descriptionText: 'Hero, pricing and sign-up.' }, deps);
  await tasks.createTask(actor, { title: 'Fix broken sign-up link', boardId, type: 'bug', assigneeIds: [cara.id], labels: ['bug'] }, deps);
  await tasks.createTask(actor, { title: 'Write the API guide', boardId, checklist: [{ text: 'Auth', done: true }, { text: 'Paging', done: false }] }, deps);
  return { workspaceId: ws.id, token: key.token };
}
