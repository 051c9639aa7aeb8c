import { afterEach, describe, expect, it, vi } from 'vitest';
import { verifyWebhook } from '@tt/sdk';
import { spawnWorker, type WorkerProcess } from './test/processes.js';
import { Receiver, startWebhookStack, team } from './test/webhook-stack.js';

// The worker as its own process needs the shared database and Redis.
const REDIS = process.env.TEST_REDIS_URL;
const PG = process.env.TEST_DATABASE_URL;

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!().catch(() => undefined);
});
const waitFor = <T>(fn: () => Promise<T> | T) => vi.waitFor(fn, { timeout: 60_000, interval: 100 });

describe.runIf(REDIS && PG)('a worker killed while delivering', () => {
  it('loses nothing: another worker sends the same delivery again under the same id', async () => {
    const receiver = new Receiver();
    await receiver.start();
    cleanups.push(() => receiver.stop());
    // The api only relays; deliveries run in the worker processes.
    const stack = await startWebhookStack({ redisUrl: REDIS!, consume: false, allowPrivate: true });
    cleanups.push(() => stack.close());
    const { alice, boardId, workspaceId } = await team(stack as never);
    const w = (await stack.op('POST', `/workspaces/${workspaceId}/webhooks`, { url: receiver.url, events: ['task.created'] })).body.data;
    const taskIds: string[] = [];
    for (let i = 0; i < 5; i++) taskIds.push((await stack.call(alice.token, 'POST', '/tasks', { boardId, title: `K${i}` })).body.data.id);

    // The first delivery the receiver sees never gets an answer: the worker is killed while it waits.
    receiver.answer = (n) => (n === 1 ? 'hang' : 200);
    const env = {
      DATABASE_URL: stack.databaseUrl!, REDIS_URL: REDIS!, QUEUE_PREFIX: stack.prefix, WORKER_LOCK_DURATION_MS: '2000',
      WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_RETRY_BASE_MS: '50', WEBHOOK_CONCURRENCY: '1',
    };
    const track = (p: WorkerProcess) =>
      cleanups.push(async () => {
        if (p.proc.exitCode === null && p.proc.signalCode === null) {
          p.kill('SIGKILL');
          await p.exited;
        }
      });
    const first = await spawnWorker(env);
    track(first);
    await waitFor(() => expect(receiver.requests).toHaveLength(1));
    const held = String(receiver.requests[0]!.headers['x-tracker-delivery']);
    first.kill('SIGKILL');
    expect((await first.exited).signal).toBe('SIGKILL');

    const second = await spawnWorker(env);
    track(second);
    await waitFor(async () => {
      const log = (await stack.op('GET', `/webhooks/${w.id}/deliveries`)).body.data;
      expect(log.map((d: any) => d.status)).toEqual(['succeeded', 'succeeded', 'succeeded', 'succeeded', 'succeeded']);
    });
    // Every task's event arrived; the held delivery came again with its id, nothing else twice.
    const answered = receiver.requests.slice(1);
    const tasks = await Promise.all(answered.map(async (r) => (await verifyWebhook({ payload: r.body, signature: r.headers['x-tracker-signature'] as string, secret: w.secret })).data));
    expect(tasks.map((d: any) => d.task.id).sort()).toEqual([...taskIds].sort());
    const ids = answered.map((r) => String(r.headers['x-tracker-delivery']));
    expect(new Set(ids).size).toBe(5);
    expect(ids).toContain(held);
    expect(second.output()).toContain('"msg":"job done"');
  });
});
