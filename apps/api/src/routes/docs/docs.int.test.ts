import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness, type TestWorkspace } from '../../test/harness.js';

let h: Harness;
let ws: TestWorkspace;
let space: any;
let closed: any;
let task: any;
let outsider: { id: string; token: string };

beforeAll(async () => {
  h = await startHarness();
  ws = await h.workspace();
  space = (await h.op('POST', `/workspaces/${ws.id}/doc-spaces`, { name: 'Engineering', description: 'How we build' })).body.data;
  closed = (await h.op('POST', `/workspaces/${ws.id}/doc-spaces`, { name: 'Board room', memberIds: [ws.adminUser.id] })).body.data;
  const p = (await h.call(ws.token, 'POST', '/projects', { name: 'Docs', key: 'DOC' })).body.data;
  task = (await h.call(ws.token, 'POST', '/tasks', { projectId: p.id, title: 'Write the runbook' })).body.data;
  const u = await ws.user({ login: 'outsider' });
  outsider = { id: u.id, token: (await ws.key(u.id)).token };
});
afterAll(() => h.close());

const create = (body: Record<string, unknown>, token = ws.token) => h.call(token, 'POST', '/docs', { spaceId: space.id, ...body });

describe('doc spaces', () => {
  it('lists the spaces the user may read; closed spaces only to members', async () => {
    const mine = await h.call(ws.token, 'GET', '/doc-spaces');
    expect(mine.status).toBe(200);
    expect(mine.body).toMatchObject({ total: 2, nextCursor: null });
    expect(mine.body.data[0]).toEqual({ id: space.id, name: 'Engineering', description: 'How we build' });
    const theirs = await h.call(outsider.token, 'GET', '/doc-spaces');
    expect(theirs.body.data.map((s: any) => s.id)).toEqual([space.id]);
    const noRight = await ws.key(ws.adminUser.id, { scopes: ['tasks:read'] });
    const denied = await h.call(noRight.token, 'GET', '/doc-spaces');
    expect(denied.status).toBe(403);
    expect(denied.body.error.message).toContain('docs:read');
  });

  it('the operator checks the body', async () => {
    const bad = await h.op('POST', `/workspaces/${ws.id}/doc-spaces`, { name: 'x', memberIds: ['usr_nobody'] });
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toContain('memberIds');
    expect((await h.op('POST', '/workspaces/ws_nope/doc-spaces', { name: 'x' })).status).toBe(404);
  });
});

describe('pages', () => {
  it('creates a page with sanitized HTML, derived text and task links', async () => {
    const r = await create({
      title: 'Runbook',
      content: '<h1>Deploy</h1><p onclick="x()">Run <b>make</b><script>alert(1)</script></p><style>p{}</style><marquee>old</marquee>',
      taskIds: [task.key],
    });
    expect(r.status).toBe(201);
    const d = r.body.data;
    expect(d).toMatchObject({ spaceId: space.id, parentId: null, title: 'Runbook', taskIds: [task.id], authorId: ws.adminUser.id, attachments: [] });
    expect(d.content).toContain('<b>make</b>');
    expect(d.content).not.toMatch(/script|onclick|style|marquee/);
    expect(d.text).toContain('Run make');
    expect(d.createdAt).toBe(d.updatedAt);
    const t = (await h.call(ws.token, 'GET', `/tasks/${task.key}`)).body.data;
    expect(t.docIds).toEqual([d.id]);
  });

  it('accepts plain text instead of HTML, and checks the body', async () => {
    const r = await create({ title: 'Notes', text: 'line one\nline <two>' });
    expect(r.status).toBe(201);
    expect(r.body.data.text).toBe('line one\nline <two>');
    expect(r.body.data.content).toContain('&lt;two&gt;');
    // Malformed bodies are 400; references to what does not exist or is closed to the key are 404, like a missing path.
    for (const [body, field, status] of [
      [{ title: '' }, 'title', 400],
      [{ title: 'x', color: 'red' }, 'color', 400],
      [{ title: 'x', spaceId: 'space_nope' }, 'spaceId', 404],
      [{ title: 'x', spaceId: closed.id, text: 'y' }, 'spaceId', 404],
      [{ title: 'x', taskIds: ['DOC-999'] }, 'taskIds', 404],
      [{ title: 'x', parentId: 'doc_nope' }, 'parentId', 404],
    ] as const) {
      const bad = await create(body, body.spaceId === closed.id ? outsider.token : ws.token);
      expect(bad.status, JSON.stringify(body)).toBe(status);
      expect(bad.body.error.message).toContain(field);
    }
  });

  it('lists pages in tree order with filters and stable paging', async () => {
    const s = (await h.op('POST', `/workspaces/${ws.id}/doc-spaces`, { name: 'Tree' })).body.data;
    const mk = async (title: string, parentId?: string) => (await create({ spaceId: s.id, title, text: `${title} body`, ...(parentId ? { parentId } : {}) })).body.data;
    const a = await mk('A');
    const b = await mk('B');
    const a1 = await mk('A1', a.id);
    const b1 = await mk('B1', b.id);
    const a2 = await mk('A2', a.id);
    const a1x = await mk('A1x', a1.id);
    const tree = await h.call(ws.token, 'GET', `/docs?spaceId=${s.id}`);
    expect(tree.body.data.map((d: any) => d.title)).toEqual(['A', 'A1', 'A1x', 'A2', 'B', 'B1']);
    expect(tree.body.data[0]).not.toHaveProperty('content');
    expect(tree.body.total).toBe(6);
    const p1 = await h.call(ws.token, 'GET', `/docs?spaceId=${s.id}&limit=4`);
    await mk('A3', a.id);
    const p2 = await h.call(ws.token, 'GET', `/docs?spaceId=${s.id}&limit=4&cursor=${p1.body.nextCursor}`);
    expect([...p1.body.data, ...p2.body.data].map((d: any) => d.title)).toEqual(['A', 'A1', 'A1x', 'A2', 'A3', 'B', 'B1']);
    expect((await h.call(ws.token, 'GET', `/docs?spaceId=${s.id}&parentId=none`)).body.data.map((d: any) => d.id)).toEqual([a.id, b.id]);
    expect((await h.call(ws.token, 'GET', `/docs?parentId=${a1.id}`)).body.data.map((d: any) => d.id)).toEqual([a1x.id]);
    expect((await h.call(ws.token, 'GET', `/docs?taskId=${task.key}`)).body.data.map((d: any) => d.title)).toEqual(['Runbook']);
    const since = Date.now();
    await new Promise((r) => setTimeout(r, 5));
    await h.call(ws.token, 'PATCH', `/docs/${b1.id}`, { title: 'B1 renamed' });
    const changed = await h.call(ws.token, 'GET', `/docs?updatedSince=${since}`);
    expect(changed.body.data.map((d: any) => d.id)).toEqual([b1.id]);
    expect((await h.call(ws.token, 'GET', `/docs?updatedSince=${new Date(since).toISOString()}`)).body.total).toBe(1);
    expect(a2.parentId).toBe(a.id);
  });

  it('searches title and text in English and Russian with the full-text index', async () => {
    const s = (await h.op('POST', `/workspaces/${ws.id}/doc-spaces`, { name: 'Search' })).body.data;
    await create({ spaceId: s.id, title: 'Deployment guide', text: 'How the servers are deployed every evening' });
    await create({ spaceId: s.id, title: 'Отчёт о встрече', text: 'Обсуждали развертывание серверов и планы релизов' });
    await create({ spaceId: s.id, title: 'Unrelated', text: 'Cats' });
    const en = await h.call(ws.token, 'GET', `/docs?spaceId=${s.id}&q=deploying`);
    expect(en.body.data.map((d: any) => d.title)).toEqual(['Deployment guide']);
    const ru = await h.call(ws.token, 'GET', `/docs?spaceId=${s.id}&q=${encodeURIComponent('релиз')}`);
    expect(ru.body.data.map((d: any) => d.title)).toEqual(['Отчёт о встрече']);
    const ruTitle = await h.call(ws.token, 'GET', `/docs?spaceId=${s.id}&q=${encodeURIComponent('встречи')}`);
    expect(ruTitle.body.total).toBe(1);
  });

  it('returns the full page as JSON or Markdown', async () => {
    const d = (await create({ title: 'Guide', content: '<h2>Steps</h2><ul><li>one</li><li><a href="https://x.test">two</a></li></ul>' })).body.data;
    const json = await h.call(ws.token, 'GET', `/docs/${d.id}`);
    expect(json.body.data).toMatchObject({ id: d.id, title: 'Guide', content: d.content, text: expect.stringContaining('one') });
    const md = await h.call(ws.token, 'GET', `/docs/${d.id}?format=markdown`);
    expect(md.status).toBe(200);
    expect(md.headers.get('content-type')).toContain('text/markdown');
    expect(md.text).toBe('# Guide\n\n## Steps\n\n- one\n- [two](https://x.test)\n');
  });

  it('hides pages of closed spaces from non-members (404 and absent from lists)', async () => {
    const secret = (await create({ spaceId: closed.id, title: 'Secret plan', text: 'shh', taskIds: [task.id] })).body.data;
    expect((await h.call(outsider.token, 'GET', `/docs/${secret.id}`)).status).toBe(404);
    expect((await h.call(outsider.token, 'PATCH', `/docs/${secret.id}`, { title: 'mine' })).status).toBe(404);
    expect((await h.call(outsider.token, 'GET', `/docs?spaceId=${closed.id}`)).body.total).toBe(0);
    const outsiderView = (await h.call(outsider.token, 'GET', `/tasks/${task.key}`)).body.data;
    expect(outsiderView.docIds).not.toContain(secret.id);
    expect((await h.call(ws.token, 'GET', `/tasks/${task.key}`)).body.data.docIds).toContain(secret.id);
    const stranger = await h.workspace();
    expect((await h.call(stranger.token, 'GET', `/docs/${secret.id}`)).status).toBe(404);
  });
});

describe('PATCH /docs/{id}', () => {
  it('replaces content in full, keeps a version at most once an hour, and logs every change', async () => {
    const d = (await create({ title: 'Policy', text: 'v1' })).body.data;
    const r1 = await h.call(ws.token, 'PATCH', `/docs/${d.id}`, { text: 'v2' });
    expect(r1.status).toBe(200);
    expect(r1.body.data).toMatchObject({ text: 'v2', title: 'Policy' });
    expect(r1.body.data.updatedAt).toBeGreaterThanOrEqual(d.updatedAt);
    await h.call(ws.token, 'PATCH', `/docs/${d.id}`, { content: '<p>v3</p>', title: 'Policy 2' });
    const store = h.runtime.deps.store;
    const versions = await store.docs.versions(d.id);
    expect(versions.map((v) => v.text)).toEqual(['v1']);
    const log = await store.docs.log(d.id);
    expect(log.map((l) => [l.action, l.changes])).toEqual([
      ['created', ['title', 'content']],
      ['updated', ['content']],
      ['updated', ['title', 'content']],
    ]);
    // An hour later the previous text is kept again.
    await h.runtime.db('doc_versions').where({ doc_id: d.id }).update({ created_at: Date.now() - 3_600_001 });
    await h.call(ws.token, 'PATCH', `/docs/${d.id}`, { text: 'v4' });
    expect((await store.docs.versions(d.id)).map((v) => v.text)).toEqual(['v3', 'v1']);
    const unchanged = await h.call(ws.token, 'PATCH', `/docs/${d.id}`, { text: 'v4' });
    expect(unchanged.status).toBe(200);
    expect((await store.docs.log(d.id)).length).toBe(4);
  });

  it('replaces the task links and needs docs:write', async () => {
    const d = (await create({ title: 'Linked', taskIds: [task.id] })).body.data;
    const r = await h.call(ws.token, 'PATCH', `/docs/${d.id}`, { taskIds: [] });
    expect(r.body.data.taskIds).toEqual([]);
    expect((await h.call(ws.token, 'GET', `/tasks/${task.key}`)).body.data.docIds).not.toContain(d.id);
    const reader = await ws.key(ws.adminUser.id, { scopes: ['docs:read'] });
    const denied = await h.call(reader.token, 'PATCH', `/docs/${d.id}`, { title: 'x' });
    expect(denied.status).toBe(403);
    expect(denied.body.error.message).toContain('docs:write');
    expect((await h.call(ws.token, 'PATCH', `/docs/${d.id}`, { title: '' })).status).toBe(400);
  });

  it('nothing is written when a link is bad', async () => {
    const d = (await create({ title: 'Atomic', text: 'keep' })).body.data;
    const bad = await h.call(ws.token, 'PATCH', `/docs/${d.id}`, { text: 'lost', taskIds: ['DOC-404'] });
    expect(bad.status).toBe(404);
    expect((await h.call(ws.token, 'GET', `/docs/${d.id}`)).body.data.text).toBe('keep');
  });
});

describe('task context', () => {
  it('includes linked pages only with docs:read', async () => {
    await create({ title: 'Context page', text: 'Read me first', taskIds: [task.key] });
    const full = await h.call(ws.token, 'GET', `/tasks/${task.key}/context`);
    expect(full.text).toContain('## Linked documents');
    expect(full.text).toContain('Read me first');
    const tasksOnly = await ws.key(ws.adminUser.id, { scopes: ['tasks:read'] });
    const limited = await h.call(tasksOnly.token, 'GET', `/tasks/${task.key}/context`);
    expect(limited.status).toBe(200);
    expect(limited.text).not.toContain('Linked documents');
    expect(limited.text).not.toContain('Read me first');
  });
});
