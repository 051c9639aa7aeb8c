import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness, type TestWorkspace } from '../../test/harness.js';

/**
 * References in request bodies: an object that does not exist and one the key may not see get the same 404
 * `not_found` naming the field, so a restricted key learns nothing; a visible object that breaks a rule keeps its
 * 400/422.
 */
let h: Harness;
let ws: TestWorkspace;
let open: any;
let hidden: any;
let closedBoard: any;
let outsider: { id: string; token: string };
let restricted: { id: string; token: string };

beforeAll(async () => {
  h = await startHarness();
  ws = await h.workspace();
  open = (await h.call(ws.token, 'POST', '/projects', { name: 'Open', key: 'OPN' })).body.data;
  hidden = (await h.call(ws.token, 'POST', '/projects', { name: 'Hidden', key: 'HID' })).body.data;
  closedBoard = (await h.call(ws.token, 'POST', '/boards', { projectId: open.id, name: 'Secret board' })).body.data;
  await h.op('PUT', `/boards/${closedBoard.id}/access`, { memberIds: [ws.adminUser.id] });
  const u = await ws.user();
  outsider = { id: u.id, token: (await ws.key(u.id)).token };
  const r = await ws.user();
  restricted = { id: r.id, token: (await ws.key(r.id, { projectIds: [open.id] })).token };
});
afterAll(() => h.close());

const notFound = (r: { status: number; body: any }, field: string) => {
  expect(r.status, JSON.stringify(r.body)).toBe(404);
  expect(r.body.error.code).toBe('not_found');
  expect(r.body.error.message).toContain(field);
};

describe('references to invisible objects in bodies are 404', () => {
  it('POST /tasks: project outside a restricted key, closed board, missing column, parent and assignee', async () => {
    notFound(await h.call(restricted.token, 'POST', '/tasks', { title: 't', projectId: hidden.id }), 'projectId');
    notFound(await h.call(restricted.token, 'POST', '/tasks', { title: 't', projectId: 'prj_nope' }), 'projectId');
    notFound(await h.call(restricted.token, 'POST', '/tasks', { title: 't', boardId: hidden.boards[0].id }), 'boardId');
    notFound(await h.call(outsider.token, 'POST', '/tasks', { title: 't', boardId: closedBoard.id }), 'boardId');
    notFound(await h.call(ws.token, 'POST', '/tasks', { title: 't', boardId: open.boards[0].id, statusId: 'col_nope' }), 'statusId');
    const secretTask = (await h.call(ws.token, 'POST', '/tasks', { title: 'secret', boardId: closedBoard.id })).body.data;
    notFound(await h.call(outsider.token, 'POST', '/tasks', { title: 't', projectId: open.id, parentId: secretTask.id }), 'parentId');
    notFound(await h.call(outsider.token, 'POST', '/tasks', { title: 't', projectId: open.id, parentId: secretTask.key }), 'parentId');
    notFound(await h.call(ws.token, 'POST', '/tasks', { title: 't', projectId: open.id, assigneeIds: ['usr_nope'] }), 'assigneeIds');
    // Nothing was written by the refused requests.
    const all = await h.call(ws.token, 'GET', '/tasks?archived=all');
    expect(all.body.data.map((t: any) => t.title)).toEqual(['secret']);
  });

  it('PATCH and move: a closed board or a missing column is 404', async () => {
    const t = (await h.call(outsider.token, 'POST', '/tasks', { title: 'mine', projectId: open.id })).body.data;
    notFound(await h.call(outsider.token, 'PATCH', `/tasks/${t.key}`, { boardId: closedBoard.id }), 'boardId');
    notFound(await h.call(outsider.token, 'POST', `/tasks/${t.key}/move`, { statusId: closedBoard.statuses[0].id }), 'statusId');
    notFound(await h.call(outsider.token, 'POST', `/tasks/${t.key}/move`, { statusId: open.boards[0].statuses[0].id, boardId: closedBoard.id }), 'boardId');
    notFound(await h.call(outsider.token, 'POST', `/tasks/${t.key}/comments`, { text: 'hi', replyTo: 'cmt_nope' }), 'replyTo');
  });

  it('POST /docs: a closed space, a page of a closed space and an invisible task are 404', async () => {
    const openSpace = (await h.op('POST', `/workspaces/${ws.id}/doc-spaces`, { name: 'Open space' })).body.data;
    const closedSpace = (await h.op('POST', `/workspaces/${ws.id}/doc-spaces`, { name: 'Closed', memberIds: [ws.adminUser.id] })).body.data;
    const secretPage = (await h.call(ws.token, 'POST', '/docs', { spaceId: closedSpace.id, title: 'Secret' })).body.data;
    notFound(await h.call(outsider.token, 'POST', '/docs', { spaceId: closedSpace.id, title: 'x' }), 'spaceId');
    notFound(await h.call(outsider.token, 'POST', '/docs', { spaceId: openSpace.id, title: 'x', parentId: secretPage.id }), 'parentId');
    const hiddenTask = (await h.call(ws.token, 'POST', '/tasks', { title: 'h', projectId: hidden.id })).body.data;
    notFound(await h.call(restricted.token, 'POST', '/docs', { spaceId: openSpace.id, title: 'x', taskIds: [hiddenTask.key] }), 'taskIds');
    // A visible page of another visible space breaks a rule: 400.
    const other = (await h.call(ws.token, 'POST', '/docs', { spaceId: openSpace.id, title: 'Other' })).body.data;
    const elsewhere = (await h.op('POST', `/workspaces/${ws.id}/doc-spaces`, { name: 'Elsewhere' })).body.data;
    const rule = await h.call(outsider.token, 'POST', '/docs', { spaceId: elsewhere.id, title: 'x', parentId: other.id });
    expect(rule.status).toBe(400);
  });

  it('answers leave out what the key may not see: subtasks on a closed board', async () => {
    const parent = (await h.call(ws.token, 'POST', '/tasks', { title: 'parent', projectId: open.id })).body.data;
    const secret = (await h.call(ws.token, 'POST', '/tasks', { title: 'secret child', boardId: closedBoard.id, parentId: parent.id })).body.data;
    expect((await h.call(ws.token, 'GET', `/tasks/${parent.key}`)).body.data.subtaskIds).toEqual([secret.id]);
    expect((await h.call(outsider.token, 'GET', `/tasks/${parent.key}`)).body.data.subtaskIds).toEqual([]);
  });

  it('visible objects that break a rule keep 400/422', async () => {
    const second = (await h.call(ws.token, 'POST', '/projects', { name: 'Second', key: 'SEC' })).body.data;
    const r = await h.call(ws.token, 'POST', '/tasks', { title: 't', projectId: second.id, boardId: open.boards[0].id });
    expect(r.status).toBe(400);
    const parent = (await h.call(ws.token, 'POST', '/tasks', { title: 'p', projectId: second.id })).body.data;
    const cross = await h.call(ws.token, 'POST', '/tasks', { title: 't', projectId: open.id, parentId: parent.id });
    expect(cross.status).toBe(422);
  });
});
