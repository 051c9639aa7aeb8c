import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeCursor, today } from '@tt/domain';
import { startHarness, type Harness, type TestWorkspace } from '../../test/harness.js';

let h: Harness;
let ws: TestWorkspace;
let project: any;
let other: any;
let task: any;

beforeAll(async () => {
  h = await startHarness();
  ws = await h.workspace();
  project = (await h.call(ws.token, 'POST', '/projects', { name: 'Timed', key: 'TIM' })).body.data;
  other = (await h.call(ws.token, 'POST', '/projects', { name: 'Other', key: 'OTR' })).body.data;
  task = (await h.call(ws.token, 'POST', '/tasks', { projectId: project.id, title: 'Build the thing' })).body.data;
  await h.call(ws.token, 'POST', '/tasks', { projectId: other.id, title: 'Elsewhere' });
});
afterAll(() => h.close());

const log = (ref: string, body: unknown, token = ws.token) => h.call(token, 'POST', `/tasks/${ref}/time`, body);

describe('POST /tasks/{ref}/time', () => {
  it('records minutes for the key user on today in Moscow time and sums into the task', async () => {
    const r = await log(task.key, { minutes: 90, note: 'pairing' });
    expect(r.status).toBe(201);
    expect(r.body.data).toMatchObject({
      taskId: task.id, taskKey: task.key, projectId: project.id, userId: ws.adminUser.id, seconds: 5400, note: 'pairing',
      date: today('Europe/Moscow', Date.now()),
    });
    await log(task.id, { seconds: 600, date: '2026-01-05' });
    const t = (await h.call(ws.token, 'GET', `/tasks/${task.key}`)).body.data;
    expect(t.timeSpentSeconds).toBe(6000);
    expect(t.timeLogs.map((l: any) => l.seconds).sort()).toEqual([5400, 600].sort());
    const summary = (await h.call(ws.token, 'GET', `/tasks?projectId=${project.id}`)).body.data[0];
    expect(summary.timeSpentSeconds).toBe(6000);
  });

  it('uses the workspace time zone for the default date', async () => {
    const tokyo = await h.workspace();
    await h.op('PATCH', `/workspaces/${tokyo.id}`, { timezone: 'Pacific/Kiritimati' });
    const p = (await h.call(tokyo.token, 'POST', '/projects', { name: 'Far', key: 'FAR' })).body.data;
    const t = (await h.call(tokyo.token, 'POST', '/tasks', { projectId: p.id, title: 't' })).body.data;
    const r = await log(t.key, { minutes: 5 }, tokyo.token);
    expect(r.body.data.date).toBe(today('Pacific/Kiritimati', Date.now()));
  });

  it('rejects bad amounts with a message naming the field', async () => {
    for (const [body, field] of [
      [{}, 'minutes'],
      [{ minutes: 0.5 }, 'minutes'],
      [{ seconds: 59 }, 'seconds'],
      [{ seconds: 7 * 86400 + 1 }, 'seconds'],
      [{ minutes: 10, seconds: 600 }, 'seconds'],
      [{ minutes: 10, date: '2026-02-30' }, 'date'],
      [{ minutes: 10, extra: 1 }, 'extra'],
    ] as const) {
      const r = await log(task.key, body);
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body.error.code).toBe('invalid_request');
      expect(r.body.error.message).toContain(field);
    }
    expect((await log(task.key, { minutes: 1 })).status).toBe(201);
    expect((await log(task.key, { seconds: 7 * 86400 })).status).toBe(201);
  });

  it('needs time:write, refuses archived tasks and unknown tasks', async () => {
    const reader = await ws.key(ws.adminUser.id, { scopes: ['tasks:read', 'time:read'] });
    const denied = await log(task.key, { minutes: 5 }, reader.token);
    expect(denied.status).toBe(403);
    expect(denied.body.error).toMatchObject({ code: 'insufficient_scope' });
    expect(denied.body.error.message).toContain('time:write');
    const t = (await h.call(ws.token, 'POST', '/tasks', { projectId: project.id, title: 'old' })).body.data;
    await h.op('POST', `/tasks/${t.id}/archive`);
    const archived = await log(t.key, { minutes: 5 });
    expect(archived.status).toBe(409);
    expect(archived.body.error.code).toBe('archived');
    expect((await log('TIM-9999', { minutes: 5 })).status).toBe(404);
  });
});

describe('GET /time/entries and /time/report', () => {
  let w: TestWorkspace;
  let p1: any;
  let p2: any;
  let t1: any;
  let t2: any;
  let t3: any;
  let bob: { id: string; login: string };
  let bobToken: string;

  beforeAll(async () => {
    w = await h.workspace();
    bob = await w.user({ login: 'bobtime', name: 'Bob Time' });
    bobToken = (await w.key(bob.id)).token;
    p1 = (await h.call(w.token, 'POST', '/projects', { name: 'Alpha', key: 'ALP' })).body.data;
    p2 = (await h.call(w.token, 'POST', '/projects', { name: 'Beta', key: 'BET' })).body.data;
    t1 = (await h.call(w.token, 'POST', '/tasks', { projectId: p1.id, title: 'one' })).body.data;
    t2 = (await h.call(w.token, 'POST', '/tasks', { projectId: p1.id, title: 'two' })).body.data;
    t3 = (await h.call(w.token, 'POST', '/tasks', { projectId: p2.id, title: 'three' })).body.data;
    const entries: Array<[string, string, number, string]> = [
      [w.token, t1.key, 3600, '2026-03-01'],
      [w.token, t1.key, 1800, '2026-03-01'],
      [w.token, t2.key, 600, '2026-03-02'],
      [bobToken, t1.key, 7200, '2026-03-02'],
      [bobToken, t3.key, 900, '2026-03-03'],
      [bobToken, t3.key, 300, '2026-04-10'],
    ];
    for (const [token, ref, seconds, date] of entries) {
      const r = await log(ref, { seconds, date }, token);
      expect(r.status).toBe(201);
    }
  });

  it('lists entries newest first, paged, with filters', async () => {
    const all = await h.call(w.token, 'GET', '/time/entries?from=2026-03-01&to=2026-04-30&limit=4');
    expect(all.status).toBe(200);
    expect(all.body.total).toBe(6);
    expect(all.body.data.map((e: any) => e.date)).toEqual(['2026-04-10', '2026-03-03', '2026-03-02', '2026-03-02']);
    const next = await h.call(w.token, 'GET', `/time/entries?from=2026-03-01&to=2026-04-30&limit=4&cursor=${all.body.nextCursor}`);
    expect(next.body.data.map((e: any) => e.date)).toEqual(['2026-03-01', '2026-03-01']);
    expect(next.body.nextCursor).toBeNull();
    // Correctly signed cursors over positions the store refuses (the structural check behind the signature).
    for (const forged of ['2026-02-30|time_x', '2026-03-01', 'x|y']) {
      const bad = await h.call(w.token, 'GET', `/time/entries?from=2026-03-01&to=2026-04-30&cursor=${encodeCursor(forged)}`);
      expect(bad.status, forged).toBe(400);
      expect(bad.body.error.message).toContain('cursor');
    }
    const byUser = await h.call(w.token, 'GET', `/time/entries?from=2026-03-01&to=2026-04-30&userId=${bob.id}`);
    expect(byUser.body.total).toBe(3);
    const byProjects = await h.call(w.token, 'GET', `/time/entries?from=2026-03-01&to=2026-04-30&projectId=${p2.id},${p1.id}`);
    expect(byProjects.body.total).toBe(6);
    const byTaskKey = await h.call(w.token, 'GET', `/time/entries?from=2026-03-01&to=2026-04-30&taskId=${t1.key},${t3.id}`);
    expect(byTaskKey.body.total).toBe(5);
    const march = await h.call(w.token, 'GET', '/time/entries?from=2026-03-02&to=2026-03-31');
    expect(march.body.total).toBe(3);
  });

  it('groups by up to three keys with group objects and totals', async () => {
    const r = await h.call(w.token, 'GET', '/time/report?from=2026-03-01&to=2026-03-31&groupBy=project,user,day');
    expect(r.status).toBe(200);
    const rep = r.body;
    expect(rep).toMatchObject({ from: '2026-03-01', to: '2026-03-31', groupBy: ['project', 'user', 'day'], totalSeconds: 14100, totalHours: 3.92 });
    expect(rep.data[0]).toEqual({
      project: { id: p1.id, key: 'ALP', name: 'Alpha' }, user: { id: w.adminUser.id, name: expect.any(String) },
      day: { date: '2026-03-01', weekday: 'Sun' }, seconds: 5400, entries: 2, hours: 1.5,
    });
    expect(rep.data.map((row: any) => row.day.date)).toEqual(['2026-03-01', '2026-03-02', '2026-03-02', '2026-03-03']);
    const byTask = (await h.call(w.token, 'GET', '/time/report?from=2026-03-01&to=2026-04-30&groupBy=task')).body;
    expect(byTask.data[0]).toEqual({ task: { id: t1.id, key: t1.key, title: 'one', projectId: p1.id }, seconds: 12600, entries: 3, hours: 3.5 });
    expect(byTask.totalSeconds).toBe(14400);
    const byUser = (await h.call(w.token, 'GET', `/time/report?from=2026-03-01&to=2026-04-30&userId=${bob.id}`)).body;
    expect(byUser.groupBy).toEqual(['user']);
    expect(byUser.data).toEqual([{ user: { id: bob.id, name: 'Bob Time' }, seconds: 8400, entries: 3, hours: 2.33 }]);
  });

  it('defaults to the 1st of this month to today, and checks groupBy and the period', async () => {
    const r = (await h.call(w.token, 'GET', '/time/report')).body;
    const now = today('Europe/Moscow', Date.now());
    expect(r).toMatchObject({ from: `${now.slice(0, 8)}01`, to: now, groupBy: ['user'] });
    for (const [q, field] of [
      ['groupBy=user,task,project,day', 'groupBy'],
      ['groupBy=team', 'groupBy'],
      ['from=2025-01-01&to=2026-01-01', 'to'],
      ['from=2026-03-05&to=2026-03-01', 'from'],
      ['from=2026-13-01', 'from'],
    ] as const) {
      const bad = await h.call(w.token, 'GET', `/time/report?${q}`);
      expect(bad.status, q).toBe(400);
      expect(bad.body.error.message).toContain(field);
    }
    expect((await h.call(w.token, 'GET', '/time/report?from=2025-01-01&to=2025-12-31')).status).toBe(200);
    expect((await h.call(w.token, 'GET', '/time/entries?from=2025-01-01&to=2026-01-01')).status).toBe(400);
  });

  it('counts archived tasks and forgets deleted tasks', async () => {
    const created = await h.call(w.token, 'POST', '/tasks', { projectId: p2.id, title: 'gone soon' });
    expect(created.status, created.text).toBe(201);
    const t = created.body.data;
    const l1 = await log(t.key, { seconds: 1000, date: '2026-05-01' }, w.token);
    expect(l1.status, l1.text).toBe(201);
    const a = (await h.call(w.token, 'POST', '/tasks', { projectId: p2.id, title: 'archived later' })).body.data;
    await log(a.key, { seconds: 2000, date: '2026-05-01' }, w.token);
    await h.op('POST', `/tasks/${a.id}/archive`);
    const before = (await h.call(w.token, 'GET', '/time/report?from=2026-05-01&to=2026-05-31')).body;
    expect(before.totalSeconds).toBe(3000);
    expect((await h.call(w.token, 'DELETE', `/tasks/${t.key}`)).status).toBe(204);
    const after = (await h.call(w.token, 'GET', '/time/report?from=2026-05-01&to=2026-05-31')).body;
    expect(after.totalSeconds).toBe(2000);
    expect((await h.call(w.token, 'GET', '/time/entries?from=2026-05-01&to=2026-05-31')).body.total).toBe(1);
  });

  it('shows a project-restricted key only its projects, and needs time:read', async () => {
    const restricted = await w.key(w.adminUser.id, { scopes: ['time:read'], projectIds: [p2.id] });
    const rep = (await h.call(restricted.token, 'GET', '/time/report?from=2026-03-01&to=2026-04-30&groupBy=project')).body;
    expect(rep.data.map((r: any) => r.project.key)).toEqual(['BET']);
    expect(rep.totalSeconds).toBe(1200);
    const entries = await h.call(restricted.token, 'GET', '/time/entries?from=2026-03-01&to=2026-04-30');
    expect(entries.body.total).toBe(2);
    const noRight = await w.key(w.adminUser.id, { scopes: ['tasks:read'] });
    const denied = await h.call(noRight.token, 'GET', '/time/report');
    expect(denied.status).toBe(403);
    expect(denied.body.error.message).toContain('time:read');
    // Another workspace sees none of it.
    const stranger = await h.workspace();
    expect((await h.call(stranger.token, 'GET', '/time/entries?from=2026-03-01&to=2026-04-30')).body.total).toBe(0);
  });

  it('hides the time of tasks on a closed board from non-members', async () => {
    const closed = (await h.call(w.token, 'POST', '/projects', { name: 'Secret', key: 'SEC' })).body.data;
    const t = (await h.call(w.token, 'POST', '/tasks', { projectId: closed.id, title: 'hidden' })).body.data;
    await log(t.key, { seconds: 4000, date: '2026-06-01' }, w.token);
    await h.op('PUT', `/boards/${closed.boards[0].id}/access`, { memberIds: [w.adminUser.id] });
    expect((await h.call(w.token, 'GET', '/time/report?from=2026-06-01&to=2026-06-30')).body.totalSeconds).toBe(4000);
    expect((await h.call(bobToken, 'GET', '/time/report?from=2026-06-01&to=2026-06-30')).body.totalSeconds).toBe(0);
  });
});
