import { ApiError, TaskTrackerClient, type ProjectWithBoards } from '@tt/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness, type TestWorkspace } from './test/harness.js';

// The SDK's getWithEtag and ifMatch against the real API, through real HTTP.
let h: Harness;
let ws: TestWorkspace;
let client: TaskTrackerClient;
let project: ProjectWithBoards;

const preconditionFailed = async (p: Promise<unknown>): Promise<ApiError> => {
  const e = await p.then(
    () => {
      throw new Error('expected a 412');
    },
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(ApiError);
  expect(e).toMatchObject({ status: 412, code: 'precondition_failed' });
  return e as ApiError;
};

beforeAll(async () => {
  h = await startHarness();
  ws = await h.workspace();
  client = new TaskTrackerClient({ baseUrl: `${h.base}/v1`, apiKey: ws.token });
  project = await client.projects.create({ name: 'Web site', key: 'WEB' });
});
afterAll(() => h.close());

describe('SDK: ETag and ifMatch', () => {
  it('tasks: update, move and delete with ifMatch succeed on the current ETag and fail with 412 on a stale one', async () => {
    const created = await client.tasks.create({ projectId: project.id, title: 'Ship it' });
    const { data, etag } = await client.tasks.getWithEtag(created.key);
    expect(data.id).toBe(created.id);
    expect(etag).toMatch(/^"\d+"$/);

    const updated = await client.tasks.update(created.key, { title: 'Ship it today' }, { ifMatch: etag });
    expect(updated.title).toBe('Ship it today');
    const stale = await preconditionFailed(client.tasks.update(created.key, { title: 'Lost update' }, { ifMatch: etag }));
    expect(stale.message).toContain('version');
    await preconditionFailed(client.tasks.move(created.key, { statusId: created.statusId, position: 0 }, { ifMatch: etag }));
    await preconditionFailed(client.tasks.delete(created.key, { ifMatch: etag }));
    expect((await client.tasks.get(created.key)).title).toBe('Ship it today');

    const fresh = await client.tasks.getWithEtag(created.key);
    expect(fresh.etag).not.toBe(etag);
    const moved = await client.tasks.move(created.key, { statusId: created.statusId, position: 0 }, { ifMatch: fresh.etag });
    expect(moved.statusId).toBe(created.statusId);
    const last = await client.tasks.getWithEtag(created.key);
    await client.tasks.delete(created.key, { ifMatch: last.etag, headers: { 'x-extra': 'kept' } });
    await expect(client.tasks.get(created.key)).rejects.toMatchObject({ status: 404 });
  });

  it('without ifMatch the writes are unconditional, as before', async () => {
    const created = await client.tasks.create({ projectId: project.id, title: 'Plain' });
    const { etag } = await client.tasks.getWithEtag(created.id);
    await client.tasks.update(created.id, { title: 'Changed by someone else' });
    expect((await client.tasks.update(created.id, { title: 'Mine' })).title).toBe('Mine');
    expect((await client.tasks.getWithEtag(created.id)).etag).not.toBe(etag);
  });

  it('pages and projects: getWithEtag and update with ifMatch', async () => {
    const space = (await h.op('POST', `/workspaces/${ws.id}/doc-spaces`, { name: 'Engineering' })).body.data;
    const doc = await client.docs.create({ spaceId: space.id, title: 'Runbook', text: 'Step one' });
    const page = await client.docs.getWithEtag(doc.id);
    expect(page.data.title).toBe('Runbook');
    await client.docs.update(doc.id, { title: 'Runbook v2' }, { ifMatch: page.etag });
    await preconditionFailed(client.docs.update(doc.id, { title: 'Lost update' }, { ifMatch: page.etag }));
    expect((await client.docs.get(doc.id)).title).toBe('Runbook v2');

    const p = await client.projects.getWithEtag(project.id);
    expect(p.data.boards.length).toBeGreaterThan(0);
    await client.projects.update(project.id, { name: 'Web site 2' }, { ifMatch: p.etag });
    await preconditionFailed(client.projects.update(project.id, { name: 'Lost update' }, { ifMatch: p.etag }));
    expect((await client.projects.get(project.id)).name).toBe('Web site 2');
  });
});
