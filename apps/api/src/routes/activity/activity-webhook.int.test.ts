import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness, type TestWorkspace } from '../../test/harness.js';

let h: Harness;
let ws: TestWorkspace;

beforeAll(async () => {
  h = await startHarness();
  ws = await h.workspace();
});
afterAll(() => h.close());

describe('webhook task.updated', () => {
  it('carries the activity entry: the same id, via and changes list as GET /tasks/{ref}/activity', async () => {
    const project = (await h.call(ws.token, 'POST', '/projects', { name: 'Web', key: 'WEB' })).body.data;
    const hook = await h.op('POST', `/workspaces/${ws.id}/webhooks`, { url: 'http://93.184.216.34/hook', events: ['task.updated'] });
    expect(hook.status, hook.text).toBe(201);
    const t = (await h.call(ws.token, 'POST', '/tasks', { projectId: project.id, title: 'Hooked' })).body.data;
    expect((await h.call(ws.token, 'PATCH', `/tasks/${t.key}`, { title: 'Hooked twice', labels: ['x'] })).status).toBe(200);
    const [entry] = (await h.call(ws.token, 'GET', `/tasks/${t.key}/activity`)).body.data;
    // The stored event is exactly the body every delivery sends.
    const rows = await h.runtime.db('webhook_events').where({ workspace_id: ws.id, type: 'task.updated' }).select('data');
    expect(rows).toHaveLength(1);
    const data = typeof rows[0].data === 'string' ? JSON.parse(rows[0].data) : rows[0].data;
    expect(data.activity).toEqual({ id: entry.id, via: { channel: 'rest', keyId: ws.keyId, clientName: null }, changes: entry.changes });
    expect(data.activity.changes).toEqual([{ field: 'title', from: 'Hooked', to: 'Hooked twice' }, { field: 'labels', from: [], to: ['x'] }]);
    expect(data.changes).toEqual(['title', 'labels']);
  });
});
