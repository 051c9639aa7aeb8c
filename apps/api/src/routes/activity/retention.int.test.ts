import { activity, type Deps } from '@tt/domain';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness, type TestWorkspace } from '../../test/harness.js';

let h: Harness;
let ws: TestWorkspace;

beforeAll(async () => {
  h = await startHarness();
  ws = await h.workspace();
});
afterAll(() => h.close());

const DAY = 86_400_000;

describe('activity retention (ACTIVITY_RETENTION_DAYS)', () => {
  it('deletes entries older than the retention and keeps the rest and the audit log', async () => {
    const project = (await h.call(ws.token, 'POST', '/projects', { name: 'Kept', key: 'KEP' })).body.data;
    const real = h.runtime.deps;
    // Entries written "40 days ago" and today, through the same use cases.
    const past: Deps = { ...real, now: () => Date.now() - 40 * DAY };
    const { tasks } = await import('@tt/domain');
    const me = await import('@tt/domain').then((d) => d.keys.authenticate({ authorization: `Bearer ${ws.token}`, ip: '127.0.0.1', surface: 'api' }, real));
    const old = await tasks.createTask(me, { projectId: project.id, title: 'Old news' }, past);
    await tasks.updateTask(me, old.key, { priority: 'high' }, past);
    const fresh = await tasks.createTask(me, { projectId: project.id, title: 'Fresh' }, real);
    const count = async (key: string) => (await h.call(ws.token, 'GET', `/tasks/${key}/activity`)).body.total as number;
    expect(await count(old.key)).toBe(2);
    const auditBefore = (await h.op('GET', `/audit?workspaceId=${ws.id}`)).body.total;

    expect(await activity.pruneActivity(30, real)).toBe(2);
    expect(await count(old.key)).toBe(0);
    expect(await count(fresh.key)).toBe(1);
    expect((await h.op('GET', `/audit?workspaceId=${ws.id}`)).body.total).toBe(auditBefore);
    // Nothing older left: a second pass deletes nothing.
    expect(await activity.pruneActivity(30, real)).toBe(0);
  });
});
