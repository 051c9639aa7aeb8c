import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Deps, idempotency, requestFingerprint } from '@tt/domain';
import { type FetchLike, type ResponseInfo, TaskTrackerClient } from '@tt/sdk';
import { type Harness, startHarness, type TestResponse, type TestWorkspace } from '../test/harness.js';

// This file's own tests; their setup and state stay inside this describe.
describe('idempotency', () => {
  let h: Harness;
  let ws: TestWorkspace;
  let board: any;
  let n = 0;

  beforeAll(async () => {
    h = await startHarness();
    ws = await h.workspace();
    board = (await h.call(ws.token, 'POST', '/projects', { name: 'Retries', key: 'IDM' })).body.data.boards[0];
  });
  afterAll(() => h.close());

  const newKey = () => `key-${Date.now()}-${++n}`;
  const post = (path: string, body: unknown, key: string, token = ws.token) => h.call(token, 'POST', path, body, { 'idempotency-key': key });
  const createTask = (body: Record<string, unknown>, key: string, token = ws.token) => post('/tasks', { boardId: board.id, ...body }, key, token);
  const tasksTitled = async (title: string) => Number((await h.runtime.db('tasks').where({ title }).count({ c: '*' }).first())!.c);
  const replayed = (r: TestResponse) => r.headers.get('idempotent-replayed');
  const rowOf = (key: string) => h.runtime.db('idempotency_keys').where({ idem_key: key }).first();

  describe('Idempotency-Key on POST', () => {
    it('replays the first answer (status, body, headers) with Idempotent-Replayed and creates nothing again', async () => {
      const key = newKey();
      const first = await createTask({ title: 'Replay me' }, key);
      expect(first.status).toBe(201);
      expect(replayed(first)).toBeNull();
      const again = await createTask({ title: 'Replay me' }, key);
      expect(again.status).toBe(201);
      expect(replayed(again)).toBe('true');
      expect(again.text).toBe(first.text);
      expect(again.headers.get('content-type')).toBe(first.headers.get('content-type'));
      expect(await tasksTitled('Replay me')).toBe(1);
      // The draft's Structured Field form ("...") names the same key; body key order does not matter.
      const quoted = await post('/tasks', { title: 'Replay me', boardId: board.id }, `"${key}"`);
      expect([quoted.status, replayed(quoted), quoted.text]).toEqual([201, 'true', first.text]);
      expect(await tasksTitled('Replay me')).toBe(1);
    });

    it('refuses the key with another body or path: 422 idempotency_key_reused, nothing created', async () => {
      const key = newKey();
      expect((await createTask({ title: 'Reuse A' }, key)).status).toBe(201);
      const other = await createTask({ title: 'Reuse B' }, key);
      expect(other.status).toBe(422);
      expect(other.body.error.code).toBe('idempotency_key_reused');
      expect(other.body.error.message).toContain('Idempotency-Key');
      const elsewhere = await post(`/boards/${board.id}/statuses`, { name: 'Reuse column' }, key);
      expect([elsewhere.status, elsewhere.body.error.code]).toEqual([422, 'idempotency_key_reused']);
      expect(await tasksTitled('Reuse B')).toBe(0);
    });

    it('two requests with one key sent at once make exactly one task; the others get 409 or the replay', async () => {
      const key = newKey();
      const answers = await Promise.all(Array.from({ length: 5 }, () => createTask({ title: 'Raced' }, key)));
      const ran = answers.filter((r) => r.status === 201 && replayed(r) === null);
      expect(ran).toHaveLength(1);
      for (const r of answers) {
        if (r === ran[0]) continue;
        if (r.status === 409) expect(r.body.error.code).toBe('idempotency_conflict');
        else expect([r.status, replayed(r), r.text]).toEqual([201, 'true', ran[0]!.text]);
      }
      expect(await tasksTitled('Raced')).toBe(1);
    });

    it('answers 409 idempotency_conflict while the first request runs, and runs a retry once it is released', async () => {
      const key = newKey();
      const body = { boardId: board.id, title: 'In flight' };
      const scope = { keyId: ws.keyId, surface: 'rest' as const };
      // The first request, still running in another process: its claim, made by the same use case the middleware calls.
      const first = await idempotency.start(scope, key, requestFingerprint(['POST', '/v1/tasks', body]), h.runtime.deps);
      expect(first.kind).toBe('run');
      const during = await post('/tasks', body, key);
      expect([during.status, during.body.error.code]).toEqual([409, 'idempotency_conflict']);
      await h.runtime.deps.store.idempotency.release(scope, key, (first as { token: string }).token);
      const retry = await post('/tasks', body, key);
      expect([retry.status, replayed(retry)]).toEqual([201, null]);
      expect(await tasksTitled('In flight')).toBe(1);
    });

    it('keeps an answer that committed though its request gave up on the COMMIT: the release leaves it, the retry replays it', async () => {
      const key = newKey();
      const body = { boardId: board.id, title: 'Late commit' };
      const scope = { keyId: ws.keyId, surface: 'rest' as const };
      // A request whose COMMIT the server executed but whose reply came after its deadline: its answer is stored, and it
      // releases its claim as after any failure, not knowing. The release used to delete the stored answer, so the
      // retry wrote the task a second time (seen in test-e2e/src/deadline-fault.e2e.test.ts).
      await idempotency.once(scope, key, requestFingerprint(['POST', '/v1/tasks', body]), h.runtime.deps, async () => ({
        value: undefined,
        answer: { status: 201, headers: {}, body: '{"data":"the first answer"}' },
      }));
      const { token } = await rowOf(key);
      expect(await h.runtime.deps.store.idempotency.release(scope, key, token)).toBe(false);
      const retry = await post('/tasks', body, key);
      expect([retry.status, replayed(retry), retry.text]).toEqual([201, 'true', '{"data":"the first answer"}']);
      expect(await tasksTitled('Late commit')).toBe(0);
    });

    it('takes over the claim of a request whose process died once its lock has lapsed', async () => {
      const key = newKey();
      const body = { boardId: board.id, title: 'Orphaned' };
      const sixMinutesAgo: Deps = { ...h.runtime.deps, now: () => Date.now() - 6 * 60_000 };
      const dead = await idempotency.start({ keyId: ws.keyId, surface: 'rest' }, key, requestFingerprint(['POST', '/v1/tasks', body]), sixMinutesAgo);
      expect(dead.kind).toBe('run');
      const retry = await post('/tasks', body, key);
      expect([retry.status, replayed(retry)]).toEqual([201, null]);
      expect((await post('/tasks', body, key)).text).toBe(retry.text);
      expect(await tasksTitled('Orphaned')).toBe(1);
    });

    it('does not keep a 5xx answer: the retry runs again', async () => {
      const key = newKey();
      // A real database failure: a constraint the insert breaks, answered as 500 internal.
      await h.runtime.db.raw(`ALTER TABLE tasks ADD CONSTRAINT test_refuse_title CHECK (title <> 'Fails once') NOT VALID`);
      let failed: TestResponse;
      try {
        failed = await createTask({ title: 'Fails once' }, key);
      } finally {
        await h.runtime.db.raw('ALTER TABLE tasks DROP CONSTRAINT test_refuse_title');
      }
      expect([failed.status, failed.body.error.code]).toEqual([500, 'internal']);
      expect(await rowOf(key)).toBeUndefined();
      const retry = await createTask({ title: 'Fails once' }, key);
      expect([retry.status, replayed(retry)]).toEqual([201, null]);
      expect(await tasksTitled('Fails once')).toBe(1);
    });

    it('stores the answer in the transaction of the write: when storing it fails, the write is rolled back and the retry runs once', async () => {
      const key = newKey();
      // The moment between the write and its stored answer, made to fail: an answer that cannot be stored. Before the
      // answer was stored in the write's transaction, the task stayed behind and a retry after the claim lapsed made a second.
      await h.runtime.db.raw(`ALTER TABLE idempotency_keys ADD CONSTRAINT test_refuse_answer CHECK (status IS NULL) NOT VALID`);
      let failed: TestResponse;
      try {
        failed = await createTask({ title: 'Answer lost' }, key);
      } finally {
        await h.runtime.db.raw('ALTER TABLE idempotency_keys DROP CONSTRAINT test_refuse_answer');
      }
      expect([failed.status, failed.body.error.code]).toEqual([500, 'internal']);
      expect(failed.headers.get('etag')).toBeNull();
      expect(await tasksTitled('Answer lost')).toBe(0);
      expect(await rowOf(key)).toBeUndefined();
      const retry = await createTask({ title: 'Answer lost' }, key);
      expect([retry.status, replayed(retry)]).toEqual([201, null]);
      expect((await createTask({ title: 'Answer lost' }, key)).text).toBe(retry.text);
      expect(await tasksTitled('Answer lost')).toBe(1);
    });

    it('replays a refusal (404) but not a 400, which the client may fix and resend with the same key', async () => {
      const key = newKey();
      const missing = await post('/tasks/IDM-9999/comments', { text: 'Hello' }, key);
      expect(missing.status).toBe(404);
      const again = await post('/tasks/IDM-9999/comments', { text: 'Hello' }, key);
      expect([again.status, replayed(again), again.text]).toEqual([404, 'true', missing.text]);

      const key2 = newKey();
      const bad = await createTask({ title: '' }, key2);
      expect([bad.status, bad.body.error.code]).toEqual([400, 'invalid_request']);
      const fixed = await createTask({ title: 'Fixed body' }, key2);
      expect([fixed.status, replayed(fixed)]).toEqual([201, null]);
    });

    it('scopes keys to the API key: another key with the same Idempotency-Key is independent', async () => {
      const key = newKey();
      const other = await ws.key(ws.adminUser.id);
      const mine = await createTask({ title: 'Per key' }, key);
      const theirs = await createTask({ title: 'Per key' }, key, other.token);
      expect([mine.status, theirs.status, replayed(theirs)]).toEqual([201, 201, null]);
      expect(theirs.body.data.id).not.toBe(mine.body.data.id);
      expect(await tasksTitled('Per key')).toBe(2);
    });

    it('refuses a bad key with 400 naming the header, before doing anything', async () => {
      for (const bad of ['x'.repeat(256), '""']) {
        const r = await createTask({ title: 'Bad key' }, bad);
        expect([r.status, r.body.error.code]).toEqual([400, 'invalid_request']);
        expect(r.body.error.message).toContain('Idempotency-Key');
      }
      expect((await createTask({ title: 'Bad key' }, 'x'.repeat(255))).status).toBe(201);
      expect(await tasksTitled('Bad key')).toBe(1);
    });

    it('forgets keys after 24 hours, and pruning deletes them', async () => {
      const key = newKey();
      expect((await createTask({ title: 'Day old' }, key)).status).toBe(201);
      const dayAgo = Date.now() - 25 * 3_600_000;
      await h.runtime.db('idempotency_keys').where({ idem_key: key }).update({ created_at: dayAgo });
      // Expired but not yet pruned: counts as absent, so the key starts over.
      const later = await createTask({ title: 'Day later' }, key);
      expect([later.status, replayed(later)]).toEqual([201, null]);
      await h.runtime.db('idempotency_keys').where({ idem_key: key }).update({ created_at: dayAgo });
      const fresh = newKey();
      expect((await createTask({ title: 'Still fresh' }, fresh)).status).toBe(201);
      expect(await idempotency.prune(h.runtime.deps)).toBeGreaterThanOrEqual(1);
      expect(await rowOf(key)).toBeUndefined();
      expect(await rowOf(fresh)).toBeDefined();
    });

    it('leaves other methods alone and describes the header and codes on every POST of the OpenAPI document', async () => {
      const key = newKey();
      const created = await createTask({ title: 'Patched' }, key);
      const patch = (title: string) => h.call(ws.token, 'PATCH', `/tasks/${created.body.data.id}`, { title }, { 'idempotency-key': key });
      expect((await patch('Patched twice')).status).toBe(200);
      expect((await patch('Patched thrice')).body.data.title).toBe('Patched thrice');

      const doc = (await h.call(null, 'GET', '/openapi.json')).body;
      let posts = 0;
      for (const methods of Object.values(doc.paths) as Array<Record<string, any>>) {
        for (const [method, op] of Object.entries(methods)) {
          const header = (op.parameters ?? []).find((p: any) => p.in === 'header' && p.name === 'Idempotency-Key');
          if (method !== 'post') {
            expect(header, op.operationId).toBeUndefined();
            continue;
          }
          posts++;
          expect(header, op.operationId).toMatchObject({ required: false, schema: { type: 'string', maxLength: 255 } });
          expect(op.responses['409'].description, op.operationId).toContain('idempotency_conflict');
          expect(op.responses['422'].description, op.operationId).toContain('idempotency_key_reused');
        }
      }
      expect(posts).toBeGreaterThanOrEqual(8);
    });
  });

  describe('the SDK over a connection that loses answers', () => {
    it('resends a create whose answer was lost with the same key and gets the first task back', async () => {
      let lost = 0;
      // The request reaches the API and runs; its answer is lost on the way back, as when a proxy drops the connection.
      const flaky: FetchLike = async (url, init) => {
        const res = await fetch(url, init);
        if (init.method === 'POST' && lost++ === 0) throw new TypeError('socket hang up');
        return res;
      };
      const seen: ResponseInfo[] = [];
      const client = new TaskTrackerClient({ baseUrl: `${h.base}/v1`, apiKey: ws.token, fetch: flaky, onResponse: (r) => seen.push(r) });
      const task = await client.tasks.create({ title: 'Lost answer', boardId: board.id });
      expect(seen.map((r) => [r.status, r.replayed])).toEqual([[201, true]]);
      expect(await tasksTitled('Lost answer')).toBe(1);
      const again = await client.tasks.create({ title: 'Lost answer', boardId: board.id }, { idempotencyKey: 'sdk-explicit' });
      const replay = await client.tasks.create({ title: 'Lost answer', boardId: board.id }, { idempotencyKey: 'sdk-explicit' });
      expect(replay.id).toBe(again.id);
      expect(again.id).not.toBe(task.id);
      expect(seen.slice(1).map((r) => r.replayed)).toEqual([false, true]);
      expect(await tasksTitled('Lost answer')).toBe(2);
    });
  });
});

// The tests of apps/api/src/http/etag.int.test.ts, folded in here (one test process and one module load for them all); their setup and state stay inside this describe.
describe('etag', () => {
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
});
