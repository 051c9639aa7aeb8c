import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness, type TestWorkspace } from '../../test/harness.js';

let h: Harness;
let ws: TestWorkspace;

beforeAll(async () => {
  h = await startHarness();
  ws = await h.workspace();
});
afterAll(() => h.close());

describe('projects and boards', () => {
  it('creates a project with a simple board by default, key upper-cased', async () => {
    const r = await h.call(ws.token, 'POST', '/projects', { name: 'Web', key: 'web' });
    expect(r.status).toBe(201);
    expect(r.body.data).toMatchObject({ key: 'WEB', name: 'Web', description: '', createdAt: expect.any(Number) });
    expect(r.body.data.boards).toHaveLength(1);
    expect(r.body.data.boards[0].statuses.map((s: any) => s.category)).toEqual(['todo', 'progress', 'done']);
  });

  it('templates scrum, bugs and null', async () => {
    const scrum = await h.call(ws.token, 'POST', '/projects', { name: 'S', key: 'SCR', template: 'scrum' });
    expect(scrum.body.data.boards[0].statuses).toHaveLength(5);
    const bugs = await h.call(ws.token, 'POST', '/projects', { name: 'B', key: 'BUG', template: 'bugs' });
    expect(bugs.body.data.boards[0].statuses.at(-1).category).toBe('done');
    const none = await h.call(ws.token, 'POST', '/projects', { name: 'N', key: 'NOB', template: null });
    expect(none.body.data.boards).toEqual([]);
    const t = await h.call(ws.token, 'POST', '/tasks', { title: 'x', projectId: none.body.data.id });
    expect(t.status).toBe(422);
  });

  it('project key rules: up to 10 characters, unique', async () => {
    const long = await h.call(ws.token, 'POST', '/projects', { name: 'L', key: 'ABCDEFGHIJK' });
    expect(long.status).toBe(400);
    expect(long.body.error.message).toContain('body.key');
    const dup = await h.call(ws.token, 'POST', '/projects', { name: 'Again', key: 'Web' });
    expect(dup.status).toBe(422);
    expect(dup.body.error.code).toBe('rejected');
  });

  it('schema failures name every field; unknown fields and malformed JSON are 400', async () => {
    const r = await h.call(ws.token, 'POST', '/projects', { name: 5, key: '', extra: 1 });
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe('invalid_request');
    expect(r.body.error.message).toContain('body.name');
    expect(r.body.error.message).toContain('body.key');
    expect(r.body.error.message).toContain('body.extra: unknown field');
    const bad = await h.call(ws.token, 'POST', '/projects', '{"name": ');
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toMatch(/malformed JSON/);
    const q = await h.call(ws.token, 'GET', '/users?limit=501');
    expect(q.status).toBe(400);
    expect(q.body.error.message).toContain('query.limit');
  });

  it('404 for unknown routes and objects', async () => {
    expect((await h.call(ws.token, 'GET', '/nope')).body.error.code).toBe('not_found');
    expect((await h.call(ws.token, 'GET', '/projects/prj_missing')).status).toBe(404);
  });

  it('PATCH /projects/{id} and GET with boards', async () => {
    const p = await h.call(ws.token, 'POST', '/projects', { name: 'Old', key: 'PAT' });
    const r = await h.call(ws.token, 'PATCH', `/projects/${p.body.data.id}`, { name: 'New', description: 'd' });
    expect(r.body.data).toMatchObject({ name: 'New', description: 'd', key: 'PAT' });
    expect(r.body.data.boards).toBeUndefined();
    const g = await h.call(ws.token, 'GET', `/projects/${p.body.data.id}`);
    expect(g.body.data.boards).toHaveLength(1);
  });

  it('boards: create, list by project, add a column last', async () => {
    const p = await h.call(ws.token, 'POST', '/projects', { name: 'Boards', key: 'BRD' });
    const b = await h.call(ws.token, 'POST', '/boards', { projectId: p.body.data.id, name: 'Second', template: 'bugs' });
    expect(b.status).toBe(201);
    const list = await h.call(ws.token, 'GET', `/boards?projectId=${p.body.data.id}`);
    expect(list.body.total).toBe(2);
    expect(list.body.nextCursor).toBeNull();
    const s = await h.call(ws.token, 'POST', `/boards/${b.body.data.id}/statuses`, { name: 'Review' });
    expect(s.status).toBe(201);
    expect(s.body.data.statuses.at(-1)).toMatchObject({ name: 'Review', category: 'progress' });
    expect((await h.call(ws.token, 'POST', `/boards/${b.body.data.id}/statuses`, {})).status).toBe(400);
  });

  it('plan limits: the team plan caps projects with 422 rejected', async () => {
    const team = await h.workspace({ plan: 'team' });
    for (let i = 0; i < 20; i++) expect((await h.call(team.token, 'POST', '/projects', { name: `P${i}`, key: `P${i}`, template: null })).status).toBe(201);
    const r = await h.call(team.token, 'POST', '/projects', { name: 'one too many', key: 'MANY' });
    expect(r.status).toBe(422);
    expect(r.body.error.message).toMatch(/at most 20 projects/);
  });

  it('project-restricted keys see only their projects and cannot create projects', async () => {
    const a = await h.call(ws.token, 'POST', '/projects', { name: 'A', key: 'RA' });
    const b = await h.call(ws.token, 'POST', '/projects', { name: 'B', key: 'RB' });
    const k = await ws.key(ws.adminUser.id, { projectIds: [a.body.data.id] });
    const list = await h.call(k.token, 'GET', '/projects?limit=500');
    expect(list.body.data.map((p: any) => p.id)).toEqual([a.body.data.id]);
    expect(list.body.total).toBe(1);
    expect((await h.call(k.token, 'GET', `/projects/${b.body.data.id}`)).status).toBe(404);
    expect((await h.call(k.token, 'GET', `/boards/${b.body.data.boards[0].id}`)).status).toBe(404);
    expect((await h.call(k.token, 'POST', '/projects', { name: 'C', key: 'RC' })).status).toBe(403);
  });

  it('closed boards are invisible to non-members', async () => {
    const p = await h.call(ws.token, 'POST', '/projects', { name: 'Closed', key: 'CLO' });
    const boardId = p.body.data.boards[0].id;
    const member = await ws.user();
    const outsider = await ws.user();
    expect((await h.op('PUT', `/boards/${boardId}/access`, { memberIds: [member.id] })).status).toBe(200);
    const mk = await ws.key(member.id);
    const ok = await ws.key(outsider.id);
    expect((await h.call(mk.token, 'GET', `/boards/${boardId}`)).status).toBe(200);
    expect((await h.call(ok.token, 'GET', `/boards/${boardId}`)).status).toBe(404);
    const list = await h.call(ok.token, 'GET', `/boards?projectId=${p.body.data.id}`);
    expect(list.body.total).toBe(0);
  });

  it('workspaces are tenants: another workspace never sees or changes objects', async () => {
    const other = await h.workspace();
    const p = await h.call(ws.token, 'POST', '/projects', { name: 'Mine', key: 'MINE' });
    expect((await h.call(other.token, 'GET', `/projects/${p.body.data.id}`)).status).toBe(404);
    expect((await h.call(other.token, 'PATCH', `/projects/${p.body.data.id}`, { name: 'x' })).status).toBe(404);
    expect((await h.call(other.token, 'GET', `/boards/${p.body.data.boards[0].id}`)).status).toBe(404);
    expect((await h.call(other.token, 'POST', '/tasks', { title: 't', boardId: p.body.data.boards[0].id })).status).toBe(404);
    const users = await h.call(other.token, 'GET', '/users');
    expect(users.body.data.every((u: any) => u.id !== ws.adminUser.id)).toBe(true);
  });
});

describe('users, teams, labels and paging', () => {
  it('users search and stable cursor paging while rows are added', async () => {
    const w = await h.workspace();
    for (let i = 0; i < 5; i++) await w.user({ name: `Pager ${i}`, login: `pager${i}${Date.now() % 1000}` });
    const first = await h.call(w.token, 'GET', '/users?limit=2');
    expect(first.body.data).toHaveLength(2);
    expect(first.body.total).toBe(6);
    await w.user({ name: 'Late comer', login: `late${Date.now() % 1000}` });
    const seen = [...first.body.data.map((u: any) => u.id)];
    let cursor = first.body.nextCursor;
    while (cursor) {
      const page = await h.call(w.token, 'GET', `/users?limit=2&cursor=${cursor}`);
      seen.push(...page.body.data.map((u: any) => u.id));
      cursor = page.body.nextCursor;
    }
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen).toHaveLength(7);
    const q = await h.call(w.token, 'GET', '/users?q=pager%203');
    expect(q.body.data).toHaveLength(1);
    expect((await h.call(w.token, 'GET', '/users?cursor=garbage')).status).toBe(400);
  });

  it('teams and labels', async () => {
    const w = await h.workspace();
    const u = await w.user();
    const t = await h.op('POST', `/workspaces/${w.id}/teams`, { name: 'Core', leadId: u.id, memberIds: [u.id] });
    expect(t.status).toBe(201);
    const teams = await h.call(w.token, 'GET', '/teams');
    expect(teams.body).toMatchObject({ total: 1, nextCursor: null });
    expect(teams.body.data[0]).toMatchObject({ name: 'Core', memberIds: [u.id], leadId: u.id });
    const users = await h.call(w.token, 'GET', `/users?q=${u.login}`);
    expect(users.body.data[0].teamIds).toEqual([t.body.data.id]);
    const p = await h.call(w.token, 'POST', '/projects', { name: 'L', key: 'LAB' });
    await h.call(w.token, 'POST', '/tasks', { title: 't', projectId: p.body.data.id, labels: ['zeta', 'alpha'] });
    expect((await h.call(w.token, 'GET', '/labels')).body).toEqual({ data: ['alpha', 'zeta'] });
  });
});

describe('openapi and health', () => {
  it('serves OpenAPI 3.1.0 version 1.0.0 with the bearer scheme', async () => {
    const r = await fetch(`${h.base}/v1/openapi.json`);
    const doc = (await r.json()) as any;
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info.version).toBe('1.0.0');
    expect(doc.components.securitySchemes.bearerAuth).toMatchObject({ type: 'http', scheme: 'bearer' });
    for (const p of ['/me', '/users', '/teams', '/labels', '/projects', '/projects/{id}', '/boards', '/boards/{id}', '/boards/{id}/statuses', '/tasks', '/tasks/{ref}', '/tasks/{ref}/move', '/tasks/{ref}/comments', '/tasks/{ref}/context']) {
      expect(doc.paths['/v1' + p], p).toBeDefined();
    }
  });

  it('health and ready', async () => {
    expect((await fetch(`${h.base}/health`)).status).toBe(200);
    const ready = await fetch(`${h.base}/ready`);
    expect(ready.status).toBe(200);
    expect(((await ready.json()) as any).checks.database).toBe(true);
  });
});
