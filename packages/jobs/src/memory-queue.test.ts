import { UnrecoverableError } from 'bullmq';
import { describe, expect, it } from 'vitest';
import { createMemoryQueue } from './memory-queue.js';
import type { JobRun, Log } from './queue.js';

const silent: Log = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined, child: () => silent };
const job = (id: string, name = 'notify.comment') => ({ id, name, payload: { n: id }, timestamp: 1 });

describe('the in-process queue', () => {
  it('runs each job id once, in order, and reports it settled', async () => {
    const settled: string[] = [];
    const q = createMemoryQueue({ log: silent, onSettled: async (j, outcome) => void settled.push(`${j.id}:${outcome}`) });
    const ran: string[] = [];
    q.consume(async (j) => void ran.push(j.id), { concurrency: 1 });
    await q.add([job('a'), job('b'), job('a')]);
    await q.add([job('b')]);
    await q.idle();
    expect(ran).toEqual(['a', 'b']);
    expect(settled).toEqual(['a:completed', 'b:completed']);
    expect(await q.counts()).toEqual({ waiting: 0, active: 0, delayed: 0, failed: 0, completed: 2 });
    expect(q.backlog()).toBe(0);
  });

  it('retries a failing job with backoff and counts attempts', async () => {
    const q = createMemoryQueue({ log: silent });
    const attempts: number[] = [];
    q.consume(async (j: JobRun) => {
      attempts.push(j.attempt);
      if (j.attempt === 1) throw new Error('transient');
    }, { concurrency: 2 });
    await q.add([job('r')]);
    await q.idle();
    expect(attempts).toEqual([1, 2]);
    expect((await q.counts()).failed).toBe(0);
  });

  it('puts a permanent failure in the failed set at once; retry runs it again with fresh attempts', async () => {
    const settled: string[] = [];
    const q = createMemoryQueue({ log: silent, onSettled: async (j, outcome) => void settled.push(`${j.id}:${outcome}`) });
    let fixed = false;
    const seen: number[] = [];
    q.consume(async (j) => {
      seen.push(j.attempt);
      if (!fixed) throw new UnrecoverableError('bad payload');
    }, { concurrency: 1 });
    await q.add([job('p')]);
    await q.idle();
    expect(await q.failed(0, 10)).toEqual([
      { id: 'p', name: 'notify.comment', payload: { n: 'p' }, failedReason: 'bad payload', attemptsMade: 1, createdAt: 1, failedAt: expect.any(Number) },
    ]);
    expect(settled).toEqual(['p:failed']);
    // In the failed set, not the backlog: its outbox row is settled, so the relay does not hand it over again.
    expect(q.backlog()).toBe(0);
    expect(await q.retry('nope')).toBe('not_found');
    fixed = true;
    expect(await q.retry('p')).toBe('retried');
    await q.idle();
    expect(seen).toEqual([1, 1]);
    expect(await q.counts()).toMatchObject({ failed: 0, completed: 1 });
    expect(await q.retry('p')).toBe('not_found');
  });
});
