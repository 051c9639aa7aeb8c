import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness, type TestWorkspace } from '../../test/harness.js';

let h: Harness;
let ws: TestWorkspace;

beforeAll(async () => {
  h = await startHarness();
  ws = await h.workspace();
});
afterAll(() => h.close());

const keys = async (query: string) => {
  const r = await h.call(ws.token, 'GET', `/tasks?${query}`);
  expect(r.status, r.text).toBe(200);
  return (r.body.data as any[]).map((t) => t.key);
};

describe('GET /tasks createdSince and createdBefore', () => {
  it('bound the creation time, read without an offset in the workspace time zone, with the other filters', async () => {
    const project = (await h.call(ws.token, 'POST', '/projects', { name: 'Web', key: 'WEB' })).body.data;
    const a = (await h.call(ws.token, 'POST', '/tasks', { projectId: project.id, title: 'Older' })).body.data;
    await new Promise((r) => setTimeout(r, 20));
    const between = Date.now();
    await new Promise((r) => setTimeout(r, 20));
    const b = (await h.call(ws.token, 'POST', '/tasks', { projectId: project.id, title: 'Newer', priority: 'high' })).body.data;
    const p = `projectId=${project.id}`;
    expect(await keys(`${p}&createdSince=${between}`)).toEqual([b.key]);
    expect(await keys(`${p}&createdBefore=${between}`)).toEqual([a.key]);
    expect(await keys(`${p}&createdSince=${between}&priority=medium`)).toEqual([]);
    expect((await h.call(ws.token, 'GET', `/tasks?${p}&createdSince=${between}`)).body.total).toBe(1);
    // Moscow wall-clock time, no offset: a minute before creation includes both; read as UTC it would be 3 h ahead.
    const moscow = (ms: number) => new Date(ms + 3 * 3_600_000).toISOString().slice(0, 19);
    expect(await keys(`${p}&createdSince=${moscow(a.createdAt - 60_000)}`)).toEqual([a.key, b.key]);
    expect(await keys(`${p}&createdBefore=${moscow(a.createdAt - 60_000)}`)).toEqual([]);
    const bad = await h.call(ws.token, 'GET', `/tasks?${p}&createdSince=last-week`);
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toContain('createdSince');
  });
});
