import { afterEach, describe, expect, it, vi } from 'vitest';
import { dropQueue, delivered, startStack, team, uniquePrefix, type Stack } from './test/stack.js';
import { freePort, PrivateRedis, spawnWorker, type WorkerProcess } from './test/processes.js';

// Real Redis only: skipped without TEST_REDIS_URL. Tests that run the worker as its own process share the database
// with it, so they need PostgreSQL (TEST_DATABASE_URL) too.
const REDIS = process.env.TEST_REDIS_URL;
const PG = process.env.TEST_DATABASE_URL;

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!().catch(() => undefined);
});

/** What a task by alice assigned to bob and carol, and bob's comment mentioning dave, must deliver. */
function expectedFor(taskIds: string[], commentIds: string[]): string[] {
  return [
    ...taskIds.flatMap((t) => [`bob assigned assigned:${t}`, `carol assigned assigned:${t}`]),
    ...commentIds.flatMap((c) => [`alice comment comment:${c}`, `carol comment comment:${c}`, `dave mention comment:${c}`]),
  ].sort();
}

const waitFor = <T>(fn: () => Promise<T>) => vi.waitFor(fn, { timeout: 60_000, interval: 100 });

/** Database sessions waiting on a lock in the test database: workers blocked on the test's uncommitted rows. */
async function blockedSessions(stack: Stack): Promise<number> {
  const r = await stack.runtime.db.raw("select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'");
  return r.rows[0].n;
}

describe.runIf(REDIS)('Redis down while tasks are created', () => {
  it('keeps the jobs in the outbox and delivers every notification exactly once when Redis is back', async () => {
    const redis = new PrivateRedis(await freePort());
    await redis.start();
    cleanups.push(() => redis.stop());
    const stack = await startStack({ redisUrl: redis.url, consume: true });
    cleanups.push(() => stack.close());
    const { alice, bob, carol, dave, boardId, workspaceId } = await team(stack);

    await redis.stop();
    const taskIds: string[] = [];
    const commentIds: string[] = [];
    for (let i = 0; i < 8; i++) {
      const t = await stack.call(alice.token, 'POST', '/tasks', { boardId, title: `While down ${i}`, assigneeIds: [bob.id, carol.id] });
      expect(t.status).toBe(201);
      taskIds.push(t.body.data.id);
      const c = await stack.call(bob.token, 'POST', `/tasks/${t.body.data.id}/comments`, { text: `@${dave.login} please check` });
      expect(c.status).toBe(201);
      commentIds.push(c.body.data.id);
    }
    // Committed with the tasks: an assignment job per task, a comment job per comment (the board has no automation
    // rules, so no automation job).
    expect(await stack.runtime.deps.store.outbox.pending()).toBe(8 * 2);
    expect(await delivered(stack, workspaceId)).toEqual([]);
    expect((await stack.op('GET', '/jobs/stats')).body.data).toEqual({ queueReachable: false, outboxPending: 8 * 2 });
    expect((await stack.op('GET', '/jobs/failed')).status).toBe(422);

    await redis.start();
    const expected = expectedFor(taskIds, commentIds);
    await waitFor(async () => expect(await delivered(stack, workspaceId)).toHaveLength(expected.length));
    expect(await delivered(stack, workspaceId)).toEqual(expected);
    await waitFor(async () => expect((await stack.runtime.jobs.stats())).toMatchObject({ outboxPending: 0, waiting: 0, active: 0, failed: 0, completed: 8 * 2 }));
  });
});

describe.runIf(REDIS && PG)('the worker process', () => {
  async function setup() {
    const stack = await startStack({ redisUrl: REDIS!, prefix: uniquePrefix(), consume: false });
    cleanups.push(() => dropQueue(REDIS!, stack.prefix));
    cleanups.push(() => stack.close());
    const people = await team(stack);
    const env = { DATABASE_URL: stack.databaseUrl!, REDIS_URL: REDIS!, QUEUE_PREFIX: stack.prefix, WORKER_LOCK_DURATION_MS: '2000' };
    const spawnTracked = async (extra: Record<string, string>): Promise<WorkerProcess> => {
      const w = await spawnWorker({ ...env, ...extra });
      cleanups.push(async () => {
        if (w.proc.exitCode === null && w.proc.signalCode === null) {
          w.kill('SIGKILL');
          await w.exited;
        }
      });
      return w;
    };
    return { stack, ...people, spawn: spawnTracked };
  }

  /** Holds, uncommitted, the row a job will insert, so that job blocks in the worker until released. */
  async function blockDelivery(stack: Stack, row: { workspaceId: string; userId: string; taskId: string; commentId: string; actorId: string }) {
    const trx = await stack.runtime.db.transaction();
    await trx('notifications').insert({
      id: `ntf_blocker_${row.commentId}`, workspace_id: row.workspaceId, user_id: row.userId, kind: 'mention', task_id: row.taskId,
      comment_id: row.commentId, actor_id: row.actorId, event_key: `comment:${row.commentId}`, created_at: Date.now(),
    });
    return trx;
  }

  it('killed mid-batch loses nothing and doubles nothing; two workers then share the rest', async () => {
    const { stack, alice, bob, carol, dave, boardId, workspaceId, spawn } = await setup();
    const taskIds: string[] = [];
    const comments: Array<{ id: string; taskId: string }> = [];
    for (let i = 0; i < 30; i++) {
      const t = await stack.call(alice.token, 'POST', '/tasks', { boardId, title: `Batch ${i}`, assigneeIds: [bob.id, carol.id] });
      taskIds.push(t.body.data.id);
      const c = await stack.call(bob.token, 'POST', `/tasks/${t.body.data.id}/comments`, { text: `@${dave.login} please check` });
      comments.push({ id: c.body.data.id, taskId: t.body.data.id });
    }
    // All 60 jobs (an assignment and a comment per task) wait in Redis before any worker runs.
    await waitFor(async () => expect(await stack.runtime.jobs.stats()).toMatchObject({ outboxPending: 0, waiting: 60 }));

    const held = comments[20]!;
    const blocker = await blockDelivery(stack, { workspaceId, userId: dave.id, taskId: held.taskId, commentId: held.id, actorId: bob.id });
    const first = await spawn({ WORKER_CONCURRENCY: '1' });
    await waitFor(async () => expect(await blockedSessions(stack)).toBe(1));
    const before = (await delivered(stack, workspaceId)).length;
    // Mid-batch: the jobs before the held one are delivered, the later ones still wait.
    expect(before).toBeGreaterThan(0);
    expect((await stack.runtime.jobs.stats()).waiting).toBeGreaterThan(0);

    first.kill('SIGKILL');
    expect((await first.exited).signal).toBe('SIGKILL');
    await blocker.rollback();

    // Two workers at once, one job at a time each, and two later deliveries held: each worker ends up holding one,
    // so both provably take part.
    const held2 = [comments[25]!, comments[28]!];
    const blockers = await Promise.all(
      held2.map((c) => blockDelivery(stack, { workspaceId, userId: dave.id, taskId: c.taskId, commentId: c.id, actorId: bob.id })),
    );
    const [second, third] = await Promise.all([spawn({ WORKER_CONCURRENCY: '1' }), spawn({ WORKER_CONCURRENCY: '1' })]);
    await waitFor(async () => expect(await blockedSessions(stack)).toBe(2));
    await Promise.all(blockers.map((b) => b.rollback()));
    const expected = expectedFor(taskIds, comments.map((c) => c.id));
    await waitFor(async () => expect(await delivered(stack, workspaceId)).toHaveLength(expected.length));
    expect(await delivered(stack, workspaceId)).toEqual(expected);
    await waitFor(async () => expect(await stack.runtime.jobs.stats()).toMatchObject({ waiting: 0, active: 0, delayed: 0, failed: 0, completed: 60 }));
    for (const w of [second, third]) expect(w.output()).toContain('"msg":"job done"');

    const ready = await fetch(`http://127.0.0.1:${second.port}/ready`).then((r) => r.json() as Promise<any>);
    expect(ready).toMatchObject({ status: 'ready', checks: { database: true, redis: true, queue: true }, queue: { failed: 0, waiting: 0 } });
    const metrics = await fetch(`http://127.0.0.1:${second.port}/metrics`).then((r) => r.text());
    expect(metrics).toContain('tt_jobs_failed 0');
    expect(metrics).toContain('tt_jobs_waiting 0');
  });

  it('SIGTERM finishes the job in hand before the process exits', async () => {
    const { stack, alice, bob, carol, dave, boardId, workspaceId, spawn } = await setup();
    const t = await stack.call(alice.token, 'POST', '/tasks', { boardId, title: 'Shutdown' });
    const c = await stack.call(bob.token, 'POST', `/tasks/${t.body.data.id}/comments`, { text: `@${dave.login} and @${carol.login}` });
    await waitFor(async () => expect(await stack.runtime.jobs.stats()).toMatchObject({ outboxPending: 0 }));
    const blocker = await blockDelivery(stack, { workspaceId, userId: dave.id, taskId: t.body.data.id, commentId: c.body.data.id, actorId: bob.id });
    const worker = await spawn({ WORKER_CONCURRENCY: '1' });
    await waitFor(async () => expect(await blockedSessions(stack)).toBe(1));

    worker.kill('SIGTERM');
    // It reports draining at once and takes no new jobs; the job it holds cannot finish while the test holds the row,
    // so it must still run (its HTTP endpoints too, until the job is done).
    await waitFor(async () => expect(await fetch(`http://127.0.0.1:${worker.port}/ready`).then((r) => r.json() as Promise<any>, () => 'down')).toMatchObject({ status: 'draining' }));
    await new Promise((r) => setTimeout(r, 300));
    expect(worker.proc.exitCode).toBeNull();
    expect((await fetch(`http://127.0.0.1:${worker.port}/ready`)).status).toBe(503);
    await blocker.rollback();
    expect(await worker.exited).toEqual({ code: 0, signal: null });
    expect(await fetch(`http://127.0.0.1:${worker.port}/health`).then(() => 'up', () => 'down')).toBe('down');
    expect(await delivered(stack, workspaceId)).toEqual([`alice comment comment:${c.body.data.id}`, `carol mention comment:${c.body.data.id}`, `dave mention comment:${c.body.data.id}`]);
    expect(await stack.runtime.jobs.stats()).toMatchObject({ active: 0, waiting: 0, failed: 0, completed: 1 });
  });
});

describe.runIf(REDIS)('failed jobs', () => {
  it('land in the failed set, which the operator lists and re-runs', async () => {
    const stack = await startStack({ redisUrl: REDIS!, consume: true });
    cleanups.push(() => dropQueue(REDIS!, stack.prefix));
    cleanups.push(() => stack.close());
    const { alice, bob, boardId } = await team(stack);
    // Its assignment job runs and completes; the job added below fails.
    const t = await stack.call(alice.token, 'POST', '/tasks', { boardId, title: 'Fine', assigneeIds: [bob.id] });
    // A payload that fails its schema can never succeed: it fails at once, without retries.
    await stack.runtime.jobs.queue.add([{ id: 'bad-1', name: 'notify.comment', payload: { taskId: t.body.data.id }, timestamp: Date.now() }]);
    await waitFor(async () => expect((await stack.op('GET', '/jobs/stats')).body.data).toMatchObject({ failed: 1, waiting: 0, active: 0, outboxPending: 0 }));

    const failed = await stack.op('GET', '/jobs/failed');
    expect(failed.status).toBe(200);
    expect(failed.body.data).toEqual([
      {
        id: 'bad-1', name: 'notify.comment', payload: { taskId: t.body.data.id }, failedReason: expect.stringContaining('commentId'), attemptsMade: 1,
        createdAt: expect.any(Number), failedAt: expect.any(Number),
      },
    ]);
    const retried = await stack.op('POST', '/jobs/bad-1/retry');
    expect(retried).toEqual({ status: 200, body: { data: { id: 'bad-1', retried: true } } });
    await waitFor(async () => {
      const [again] = (await stack.op('GET', '/jobs/failed')).body.data;
      expect(again.failedAt).toBeGreaterThan(failed.body.data[0].failedAt);
    });
    expect((await stack.op('POST', '/jobs/nope/retry')).status).toBe(404);
    await waitFor(async () => expect((await stack.runtime.jobs.stats()).completed).toBe(1));
    const done = await stack.runtime.db('outbox').min({ id: 'id' }).first();
    const notFailed = await stack.op('POST', `/jobs/outbox-${done!.id}/retry`);
    expect(notFailed.status).toBe(422);
    expect((await stack.op('GET', '/jobs/failed?limit=0')).status).toBe(400);
  });
});
