import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness, type TestResponse, type TestWorkspace } from '../test/harness.js';

/** ETag / If-Match / If-None-Match on tasks, pages and projects. */

let h: Harness;
let ws: TestWorkspace;
let project: any;
let space: any;

beforeAll(async () => {
  h = await startHarness();
  ws = await h.workspace();
  project = (await h.call(ws.token, 'POST', '/projects', { name: 'Web', key: 'WEB' })).body.data;
  space = (await h.op('POST', `/workspaces/${ws.id}/doc-spaces`, { name: 'Engineering' })).body.data;
});
afterAll(() => h.close());

const call = (method: string, path: string, body?: unknown, headers?: Record<string, string>) => h.call(ws.token, method, path, body, headers);
const etag = (r: TestResponse): string => {
  const tag = r.headers.get('etag');
  expect(tag, `${r.status} ${r.text}`).toMatch(/^"\d+"$/);
  return tag!;
};
const newTask = async (title = 'Fix the login page', extra: Record<string, unknown> = {}) => {
  const r = await call('POST', '/tasks', { projectId: project.id, title, ...extra });
  expect(r.status).toBe(201);
  return { task: r.body.data, etag: etag(r) };
};
const taskTag = async (ref: string) => etag(await call('GET', `/tasks/${ref}`));
const expect412 = (r: TestResponse, current: string) => {
  expect(r.status, r.text).toBe(412);
  expect(r.body.error.code).toBe('precondition_failed');
  expect(r.body.error.message).toContain(`version ${current.replaceAll('"', '')}`);
  expect(r.headers.get('etag')).toBe(current);
};

describe('tasks', () => {
  it('GET, create, PATCH and move answer a strong ETag that every write changes', async () => {
    const { task, etag: created } = await newTask();
    expect(await taskTag(task.key)).toBe(created);
    expect(await taskTag(task.id)).toBe(created);

    const seen = new Set([created]);
    /** A write must change the ETag; `answersTask` writes carry the new one. */
    const changed = async (write: () => Promise<TestResponse>, expectedStatus: number, answersTask = false) => {
      const r = await write();
      expect(r.status, r.text).toBe(expectedStatus);
      const now = await taskTag(task.id);
      expect(seen.has(now), `the ETag after ${r.text.slice(0, 80)}`).toBe(false);
      seen.add(now);
      if (answersTask) expect(r.headers.get('etag')).toBe(now);
    };
    const statuses = (await call('GET', `/projects/${project.id}`)).body.data.boards[0].statuses;
    await changed(() => call('PATCH', `/tasks/${task.id}`, { title: 'Fix the login page on Safari' }), 200, true);
    await changed(() => call('POST', `/tasks/${task.id}/move`, { statusId: statuses[1].id, position: 0 }), 201, true);
    await changed(() => call('POST', `/tasks/${task.id}/comments`, { text: 'On it' }), 201);
    await changed(() => call('POST', `/tasks/${task.id}/time`, { minutes: 30 }), 201);
    await changed(() => call('POST', '/tasks', { projectId: project.id, title: 'A subtask', parentId: task.id }), 201);
    await changed(() => call('POST', '/docs', { spaceId: space.id, title: 'Runbook', taskIds: [task.id] }), 201);
    await changed(() => h.op('POST', `/tasks/${task.id}/attachments`, { name: 'a.png', size: 10, type: 'image/png' }), 201);
    await changed(() => h.op('POST', `/tasks/${task.id}/archive`), 200);
    await changed(() => h.op('POST', `/tasks/${task.id}/restore`), 200);
  });

  it('If-None-Match with the current ETag (plain, weak, in a list, or *) answers 304 without a body', async () => {
    const { task, etag: tag } = await newTask();
    for (const header of [tag, `W/${tag}`, `"999999", ${tag}`, '*']) {
      const r = await call('GET', `/tasks/${task.key}`, undefined, { 'if-none-match': header });
      expect(r.status, header).toBe(304);
      expect(r.text).toBe('');
      expect(r.headers.get('etag')).toBe(tag);
    }
    const stale = await call('GET', `/tasks/${task.key}`, undefined, { 'if-none-match': '"999999"' });
    expect(stale.status).toBe(200);
    expect(stale.body.data.id).toBe(task.id);
    expect((await call('GET', '/tasks/WEB-99999', undefined, { 'if-none-match': '*' })).status).toBe(404);
  });

  it('PATCH, move and DELETE with a stale If-Match are 412 with the current ETag, and change nothing', async () => {
    const { task, etag: old } = await newTask('Original title');
    const patched = await call('PATCH', `/tasks/${task.id}`, { priority: 'high' }, { 'if-match': old });
    expect(patched.status).toBe(200);
    const current = etag(patched);

    expect412(await call('PATCH', `/tasks/${task.id}`, { title: 'Lost update' }, { 'if-match': old }), current);
    expect412(await call('POST', `/tasks/${task.id}/move`, { statusId: task.statusId, position: 0 }, { 'if-match': old }), current);
    expect412(await call('DELETE', `/tasks/${task.id}`, undefined, { 'if-match': old }), current);
    // A weak tag never matches a write, even the current version's (strong comparison); nor does a tag never sent.
    expect412(await call('PATCH', `/tasks/${task.id}`, { title: 'Lost update' }, { 'if-match': `W/${current}` }), current);
    expect412(await call('PATCH', `/tasks/${task.id}`, { title: 'Lost update' }, { 'if-match': '"abc"' }), current);

    const after = await call('GET', `/tasks/${task.id}`);
    expect(after.body.data).toMatchObject({ title: 'Original title', priority: 'high' });
    expect(etag(after)).toBe(current);
  });

  it('succeeds with the current ETag, a list naming it, or *; without If-Match as before', async () => {
    const { task, etag: first } = await newTask();
    const a = await call('PATCH', `/tasks/${task.id}`, { title: 'One' }, { 'if-match': first });
    expect(a.status).toBe(200);
    const b = await call('POST', `/tasks/${task.key}/move`, { statusId: task.statusId, position: 0 }, { 'if-match': `"1000", ${etag(a)}` });
    expect(b.status).toBe(201);
    const c = await call('PATCH', `/tasks/${task.id}`, { title: 'Two' }, { 'if-match': '*' });
    expect(c.status).toBe(200);
    const d = await call('PATCH', `/tasks/${task.id}`, { title: 'Three' });
    expect(d.status).toBe(200);
    expect(d.body.data.title).toBe('Three');
    const gone = await call('DELETE', `/tasks/${task.id}`, undefined, { 'if-match': etag(d) });
    expect(gone.status).toBe(204);
    expect((await call('GET', `/tasks/${task.id}`)).status).toBe(404);
    // A missing object stays a 404 whatever If-Match says.
    expect((await call('PATCH', `/tasks/${task.id}`, { title: 'x' }, { 'if-match': etag(d) })).status).toBe(404);
  });

  it('two concurrent PATCHes with the same If-Match: exactly one wins, the other is 412', async () => {
    for (let round = 0; round < 5; round++) {
      const { task, etag: tag } = await newTask();
      const results = await Promise.all(
        ['Alice', 'Bob'].map((who) => call('PATCH', `/tasks/${task.id}`, { title: `${who} was here` }, { 'if-match': tag })),
      );
      const statuses = results.map((r) => r.status).sort();
      expect(statuses, results.map((r) => r.text).join(' | ')).toEqual([200, 412]);
      const winner = results.find((r) => r.status === 200)!;
      const loser = results.find((r) => r.status === 412)!;
      expect(loser.headers.get('etag')).toBe(etag(winner));
      expect((await call('GET', `/tasks/${task.id}`)).body.data.title).toBe(winner.body.data.title);
    }
  });

  it('lists carry no ETag: only versioned objects have one (no hash of a whole page that If-Match could never match)', async () => {
    await newTask('Listed');
    const r = await call('GET', '/tasks');
    expect(r.status).toBe(200);
    expect(r.headers.get('etag')).toBeNull();
    expect((await call('GET', '/projects')).headers.get('etag')).toBeNull();
  });

  it('deleting a task changes the ETag of its parent and of its linked pages', async () => {
    const { task: parent } = await newTask('Parent');
    const { task: child } = await newTask('Child', { parentId: parent.id });
    const page = await call('POST', '/docs', { spaceId: space.id, title: 'Notes', taskIds: [child.id] });
    const parentBefore = await taskTag(parent.id);
    const pageBefore = etag(await call('GET', `/docs/${page.body.data.id}`));
    expect((await call('DELETE', `/tasks/${child.id}`)).status).toBe(204);
    expect(await taskTag(parent.id)).not.toBe(parentBefore);
    expect(etag(await call('GET', `/docs/${page.body.data.id}`))).not.toBe(pageBefore);
  });
});

describe('pages', () => {
  it('ETag on create, GET (JSON and Markdown) and PATCH; 304; 412 on a stale If-Match', async () => {
    const created = await call('POST', '/docs', { spaceId: space.id, title: 'Deploy', text: 'Run make' });
    expect(created.status).toBe(201);
    const id = created.body.data.id;
    const first = etag(created);
    expect(etag(await call('GET', `/docs/${id}`))).toBe(first);
    const md = await call('GET', `/docs/${id}?format=markdown`);
    expect(md.text).toContain('# Deploy');
    expect(etag(md)).toBe(first);
    expect((await call('GET', `/docs/${id}`, undefined, { 'if-none-match': first })).status).toBe(304);

    const patched = await call('PATCH', `/docs/${id}`, { title: 'Deploy to production' }, { 'if-match': first });
    expect(patched.status).toBe(200);
    const second = etag(patched);
    expect(second).not.toBe(first);
    expect412(await call('PATCH', `/docs/${id}`, { text: 'Lost update' }, { 'if-match': first }), second);
    const after = await call('GET', `/docs/${id}`);
    expect(after.body.data).toMatchObject({ title: 'Deploy to production', text: 'Run make' });
    expect(etag(after)).toBe(second);
    expect((await call('PATCH', `/docs/${id}`, { text: 'No precondition' })).status).toBe(200);
  });
});

describe('projects', () => {
  it('ETag on create, GET and PATCH; boards and columns change it; 304; 412 on a stale If-Match', async () => {
    const created = await call('POST', '/projects', { name: 'Mobile', key: 'MOB' });
    expect(created.status).toBe(201);
    const id = created.body.data.id;
    const first = etag(created);
    expect(etag(await call('GET', `/projects/${id}`))).toBe(first);
    expect((await call('GET', `/projects/${id}`, undefined, { 'if-none-match': first })).status).toBe(304);

    const board = await call('POST', '/boards', { projectId: id, name: 'Bugs', template: 'bugs' });
    expect(board.status).toBe(201);
    const second = etag(await call('GET', `/projects/${id}`));
    expect(second).not.toBe(first);
    expect((await call('POST', `/boards/${board.body.data.id}/statuses`, { name: 'Review' })).status).toBe(201);
    const third = etag(await call('GET', `/projects/${id}`));
    expect(third).not.toBe(second);

    expect412(await call('PATCH', `/projects/${id}`, { name: 'Lost update' }, { 'if-match': first }), third);
    const patched = await call('PATCH', `/projects/${id}`, { name: 'Mobile apps' }, { 'if-match': third });
    expect(patched.status).toBe(200);
    expect(patched.body.data.name).toBe('Mobile apps');
    expect(etag(patched)).not.toBe(third);
    expect(etag(await call('GET', `/projects/${id}`))).toBe(etag(patched));
    // Creating tasks takes task numbers from the project row but does not change what GET shows.
    await call('POST', '/tasks', { projectId: id, title: 'Crash on start' });
    expect(etag(await call('GET', `/projects/${id}`))).toBe(etag(patched));
  });
});

describe('OpenAPI', () => {
  it('documents ETag, If-Match, If-None-Match, 304 and 412 on the conditional operations', async () => {
    const doc = (await fetch(`${h.base}/v1/openapi.json`).then((r) => r.json())) as any;
    const op = (path: string, method: string) => doc.paths[path][method];
    const headerNames = (o: any) => (o.parameters ?? []).filter((p: any) => p.in === 'header').map((p: any) => p.name);
    for (const [path, method] of [['/v1/tasks/{ref}', 'get'], ['/v1/docs/{id}', 'get'], ['/v1/projects/{id}', 'get']] as const) {
      expect(headerNames(op(path, method)), path).toContain('If-None-Match');
      expect(op(path, method).responses['304'], path).toBeDefined();
      expect(op(path, method).responses['200'].headers.ETag, path).toBeDefined();
    }
    for (const [path, method] of [
      ['/v1/tasks/{ref}', 'patch'], ['/v1/tasks/{ref}/move', 'post'], ['/v1/tasks/{ref}', 'delete'], ['/v1/docs/{id}', 'patch'], ['/v1/projects/{id}', 'patch'],
    ] as const) {
      expect(headerNames(op(path, method)), `${method} ${path}`).toContain('If-Match');
      expect(op(path, method).responses['412'].description, `${method} ${path}`).toContain('precondition_failed');
    }
    expect(op('/v1/tasks', 'post').responses['201'].headers.ETag).toBeDefined();
  });
});
