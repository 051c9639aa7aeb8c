import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness, type TestResponse, type TestWorkspace } from './test/harness.js';

/*
 * Limits on the shape of a JSON body: nested deeper than MAX_JSON_DEPTH (64) levels, or null or not an object where
 * the endpoint takes an object, it answers 400 invalid_request naming the problem, before anything walks the value.
 * Deep bodies are written as text: JSON.stringify itself overflows the stack a few thousand levels down.
 */

let h: Harness;
let ws: TestWorkspace;
let projectId: string;
let boardId: string;
let taskKey: string;
let docId: string;

/** JSON text of arrays nested `levels` deep, as the value of `field` in an object. */
const deepBody = (levels: number, field = 'title'): string => `{"${field}":${'['.repeat(levels)}${']'.repeat(levels)}}`;

const refused = (r: TestResponse, message: string, label: string) => {
  expect(r.status, `${label}: ${r.text.slice(0, 200)}`).toBe(400);
  expect(r.body, label).toEqual({ error: { code: 'invalid_request', message } });
};

beforeAll(async () => {
  h = await startHarness();
  ws = await h.workspace();
  const project = (await h.call(ws.token, 'POST', '/projects', { name: 'Web', key: 'WEB' })).body.data;
  projectId = project.id;
  boardId = project.boards[0].id;
  taskKey = (await h.call(ws.token, 'POST', '/tasks', { title: 'First', projectId })).body.data.key;
  const space = (await h.op('POST', `/workspaces/${ws.id}/doc-spaces`, { name: 'Handbook' })).body.data;
  docId = (await h.call(ws.token, 'POST', '/docs', { spaceId: space.id, title: 'Onboarding', text: 'Welcome' })).body.data.id;
}, 60_000);

afterAll(() => h?.close());

/** Every /v1 operation that takes a body, with its path filled. */
const bodyEndpoints = (): Array<[string, string]> => [
  ['POST', '/tasks'],
  ['PATCH', `/tasks/${taskKey}`],
  ['POST', `/tasks/${taskKey}/move`],
  ['POST', `/tasks/${taskKey}/comments`],
  ['POST', `/tasks/${taskKey}/time`],
  ['POST', '/projects'],
  ['PATCH', `/projects/${projectId}`],
  ['POST', '/boards'],
  ['POST', `/boards/${boardId}/statuses`],
  ['POST', '/docs'],
  ['PATCH', `/docs/${docId}`],
  ['POST', '/notifications/read'],
];

describe('a JSON body nested deeper than 64 levels', () => {
  it('answers 400 invalid_request naming the problem on every body endpoint, not 500', async () => {
    for (const [method, path] of bodyEndpoints()) {
      refused(await h.call(ws.token, method, path, deepBody(10_000)), 'body: nested deeper than 64 levels', `${method} ${path}`);
      refused(await h.call(ws.token, method, path, '['.repeat(10_000) + ']'.repeat(10_000)), 'body: nested deeper than 64 levels', `${method} ${path} array`);
    }
  });

  it('is refused before the idempotency fingerprint walks it, and the key stays free', async () => {
    const headers = { 'idempotency-key': 'deep-1' };
    refused(await h.call(ws.token, 'POST', '/tasks', deepBody(10_000), headers), 'body: nested deeper than 64 levels', 'POST /tasks keyed');
    const ok = await h.call(ws.token, 'POST', '/tasks', { title: 'Keyed', projectId }, headers);
    expect(ok.status).toBe(201);
  });

  it('a body a million levels deep (1 MB) is refused the same way, and the process keeps serving', async () => {
    refused(await h.call(ws.token, 'POST', '/tasks', deepBody(524_000)), 'body: nested deeper than 64 levels', 'POST /tasks 1 MB');
    expect((await h.call(ws.token, 'GET', `/tasks/${taskKey}`)).status).toBe(200);
  });

  it('is refused on the operator API too', async () => {
    const r = await h.op('POST', `/workspaces/${ws.id}/doc-spaces`, deepBody(10_000, 'name'));
    refused(r, 'body: nested deeper than 64 levels', 'operator POST doc-spaces');
  });

  it('64 levels pass the depth check and reach the schema', async () => {
    const r = await h.call(ws.token, 'POST', '/tasks', deepBody(63, 'labels'));
    expect(r.status).toBe(400);
    expect(r.body.error.message).toMatch(/body\.labels\.0: /);
    expect(r.body.error.message).not.toMatch(/nested/);
  });
});

describe('a null or non-object JSON body where an object is expected', () => {
  it('answers 400 on PATCH /projects, /docs and /tasks, and changes nothing', async () => {
    const before = (await h.call(ws.token, 'GET', `/tasks/${taskKey}`)).body.data;
    for (const path of [`/projects/${projectId}`, `/docs/${docId}`, `/tasks/${taskKey}`]) {
      refused(await h.call(ws.token, 'PATCH', path, 'null'), 'body: must be a JSON object, not null', `PATCH ${path}`);
    }
    const after = (await h.call(ws.token, 'GET', `/tasks/${taskKey}`)).body.data;
    expect(after.updatedAt).toBe(before.updatedAt);
  });

  it('names what came instead, on every body endpoint', async () => {
    for (const [method, path] of bodyEndpoints()) {
      refused(await h.call(ws.token, method, path, 'null'), 'body: must be a JSON object, not null', `${method} ${path}`);
      refused(await h.call(ws.token, method, path, '[]'), 'body: must be a JSON object, not an array', `${method} ${path}`);
      refused(await h.call(ws.token, method, path, '"x"'), 'body: must be a JSON object, not a string', `${method} ${path}`);
      refused(await h.call(ws.token, method, path, '7'), 'body: must be a JSON object, not a number', `${method} ${path}`);
    }
  });

  it('a missing body is still an empty one', async () => {
    for (const [method, path] of [['PATCH', `/projects/${projectId}`], ['PATCH', `/tasks/${taskKey}`], ['POST', '/notifications/read']] as const) {
      const missing = await h.call(ws.token, method, path);
      const empty = await h.call(ws.token, method, path, {});
      expect(missing.status, `${method} ${path}`).toBe(empty.status);
      expect(missing.body?.error, `${method} ${path}`).toEqual(empty.body?.error);
    }
  });
});
