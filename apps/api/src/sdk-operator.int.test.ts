import { ApiError, OperatorClient, TaskTrackerClient } from '@tt/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from './test/harness.js';

// The SDK's operator client against the real operator API: a workspace built from nothing, then the REST client on its keys.
let h: Harness;
let op: OperatorClient;

const codeOf = (p: Promise<unknown>) => p.then(() => 'ok', (e: unknown) => (e instanceof ApiError ? e.code : String(e)));

beforeAll(async () => {
  h = await startHarness();
  op = new OperatorClient({ baseUrl: `${h.base}/admin/v1`, adminToken: h.api.adminToken });
});
afterAll(() => h.close());

describe('OperatorClient', () => {
  it('refuses a wrong operator token with unauthorized', async () => {
    expect(await codeOf(new OperatorClient({ baseUrl: h.base, adminToken: 'wrong' }).workspaces.create({ name: 'x' }))).toBe('unauthorized');
  });

  it('sets up a workspace, people and keys, and the REST client works on them', async () => {
    const ws = await op.workspaces.create({ name: 'Acme' });
    expect(ws).toMatchObject({ name: 'Acme', plan: 'business', timezone: 'Europe/Moscow', memberKeysEnabled: true });
    const admin = await op.users.create(ws.id, { name: 'Ada Admin', login: 'Ada', isAdmin: true });
    const member = await op.users.create(ws.id, { name: 'Max Member', login: 'max', role: 'Designer' });
    expect(admin.login).toBe('ada');
    const team = await op.teams.create(ws.id, { name: 'Core', leadId: admin.id, memberIds: [admin.id, member.id] });
    expect(team.memberIds.sort()).toEqual([admin.id, member.id].sort());

    const adminKey = await op.keys.issue(admin.id, { scopes: ['projects:write', 'tasks:read', 'tasks:write', 'docs:read', 'meetings:read'] });
    const rest = new TaskTrackerClient({ baseUrl: h.base, apiKey: adminKey.token });
    expect((await rest.me()).user.id).toBe(admin.id);
    expect((await rest.teams.list()).data.map((t) => t.id)).toEqual([team.id]);

    const memberKey = await op.keys.issue(member.id, { scopes: ['tasks:read'] });
    const memberRest = new TaskTrackerClient({ baseUrl: h.base, apiKey: memberKey.token });
    expect((await memberRest.me()).key.scopes).toEqual(['tasks:read']);
    await op.workspaces.update(ws.id, { memberKeysEnabled: false });
    expect(await codeOf(memberRest.me())).toBe('api_disabled');
    await op.workspaces.update(ws.id, { memberKeysEnabled: true });
    expect(await op.keys.update(memberKey.id, { expiresAt: Date.now() - 1000 })).toMatchObject({ id: memberKey.id });
    expect(await codeOf(memberRest.me())).toBe('key_expired');

    const spare = await op.keys.issue(member.id);
    const spareRest = new TaskTrackerClient({ baseUrl: h.base, apiKey: spare.token });
    expect(await codeOf(spareRest.me())).toBe('ok');
    await op.keys.revoke(spare.id);
    expect(await codeOf(spareRest.me())).toBe('invalid_key');

    const other = await op.keys.issue(member.id);
    await op.users.delete(member.id);
    expect(await codeOf(new TaskTrackerClient({ baseUrl: h.base, apiKey: other.token }).me())).toBe('invalid_key');
  });

  it('closes boards, archives tasks, adds attachments and automations, and records docs and meetings', async () => {
    const ws = await op.workspaces.create({ name: 'Fixtures' });
    const boss = await op.users.create(ws.id, { name: 'Boss', login: 'boss', isAdmin: true });
    const worker = await op.users.create(ws.id, { name: 'Worker', login: 'worker' });
    const rest = new TaskTrackerClient({ baseUrl: h.base, apiKey: (await op.keys.issue(boss.id, { scopes: ['projects:write', 'tasks:read', 'tasks:write', 'docs:read', 'meetings:read'] })).token });
    const workerRest = new TaskTrackerClient({ baseUrl: h.base, apiKey: (await op.keys.issue(worker.id, { scopes: ['tasks:read'] })).token });
    const project = await rest.projects.create({ name: 'Ops', key: 'OPS' });
    const board = project.boards[0]!;

    expect(await op.boards.setAccess(board.id, { memberIds: [boss.id] })).toMatchObject({ id: board.id, memberIds: [boss.id] });
    expect(await codeOf(workerRest.boards.get(board.id))).toBe('not_found');
    await op.boards.setAccess(board.id, { memberIds: null });
    expect((await workerRest.boards.get(board.id)).id).toBe(board.id);

    const rule = await op.boards.addAutomation(board.id, { trigger: 'task_created', actions: [{ type: 'add_labels', labels: ['triage'] }] });
    expect((await op.boards.automations(board.id)).map((a) => a.id)).toEqual([rule.id]);
    const task = await rest.tasks.create({ boardId: board.id, title: 'Automated', assigneeIds: [worker.id] });
    await h.runtime.jobs.drain();
    expect((await rest.tasks.get(task.key)).labels).toEqual(['triage']);
    await op.boards.deleteAutomation(rule.id);
    expect(await op.boards.automations(board.id)).toEqual([]);
    expect((await op.users.notifications(worker.id, { unread: true })).map((n) => [n.kind, n.taskId])).toEqual([['assigned', task.id]]);

    expect(await op.tasks.addAttachment(task.id, { name: 'spec.pdf', size: 1024, type: 'application/pdf' })).toMatchObject({ name: 'spec.pdf', size: 1024 });
    expect((await op.tasks.archive(task.id)).archived).toBe(true);
    expect(await codeOf(rest.tasks.update(task.key, { title: 'x' }))).toBe('archived');
    expect((await op.tasks.restore(task.id)).archived).toBe(false);
    expect((await rest.tasks.update(task.key, { title: 'Back' })).title).toBe('Back');

    const space = await op.docSpaces.create(ws.id, { name: 'Runbooks' });
    expect((await rest.docs.spaces()).data.map((s) => s.id)).toEqual([space.id]);
    const folder = await op.meetingFolders.create(ws.id, { name: 'Ops syncs' });
    const meeting = await op.meetings.create(ws.id, {
      title: 'Incident review', folderId: folder.id, createdBy: boss.id, startedAt: Date.UTC(2026, 4, 4, 10),
      summary: { overview: 'Root cause found', actionItems: [{ text: 'Add alerting', taskId: task.key }] },
    });
    expect((await rest.meetings.get(meeting.id)).summary?.actionItems).toEqual([{ text: 'Add alerting', owner: '', due: null, taskId: task.id }]);
    expect(await codeOf(op.tasks.archive('missing'))).toBe('not_found');
  });
});
