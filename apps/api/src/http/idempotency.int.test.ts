import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { idempotency, requestFingerprint, type Deps } from '@tt/domain';
import { TaskTrackerClient, type FetchLike, type ResponseInfo } from '@tt/sdk';
import { startHarness, type Harness, type TestResponse, type TestWorkspace } from '../test/harness.js';

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
