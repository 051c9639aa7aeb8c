#!/usr/bin/env -S npx tsx
// Notifications on PostgreSQL + Redis with the built API and worker processes:
//  1. delivered per second from queue to inbox: comment jobs are queued while no worker runs, then the worker
//     drains them (timed from the first delivery seen to the last);
//  2. the time from a comment's 201 to its notification being readable through GET /v1/notifications (p50, p99).
//   pnpm run build && pnpm run bench:notifications
// Env: BENCH_DATABASE_URL (server to create tt_bench_notify on; default the local PostgreSQL), BENCH_REDIS_URL
// (default redis://127.0.0.1:6379), BENCH_COMMENTS (3000), BENCH_SAMPLES (300), BENCH_WORKERS (1 worker process),
// WORKER_CONCURRENCY (8 per worker).
import { spawn } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { ADMIN_TOKEN, ROOT, benchWorkspace, call, databaseUrl, freshDatabase, nodeArgs, openDatabase, startBuiltApi } from './lib.mjs';

const DB = 'tt_bench_notify';
const COMMENTS = Number(process.env.BENCH_COMMENTS ?? 3000);
const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 300);
const WORKERS = Number(process.env.BENCH_WORKERS ?? 1);
const CONCURRENCY = process.env.WORKER_CONCURRENCY ?? '8';
const REDIS_URL = (process.env.BENCH_REDIS_URL ??= 'redis://127.0.0.1:6379');
// A queue of its own, so nothing else on this Redis is touched; the API process reads it from the environment.
const PREFIX = (process.env.QUEUE_PREFIX = `tt-bench-${randomBytes(4).toString('hex')}`);

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];

async function startWorker() {
  const main = join(ROOT, 'apps', 'worker', 'dist', 'main.js');
  if (!existsSync(main)) throw new Error('apps/worker/dist/main.js is missing: build first (pnpm run build)');
  const env = {
    ...process.env, DATABASE_URL: databaseUrl(DB), REDIS_URL, QUEUE_PREFIX: PREFIX, WORKER_CONCURRENCY: CONCURRENCY, WORKER_PORT: '0',
    HOST: '127.0.0.1', LOG_LEVEL: 'warn',
  };
  const child = spawn(process.execPath, [...nodeArgs(), main], { env, stdio: ['ignore', 'ignore', 'inherit'] });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  return { stop: async () => (child.kill('SIGTERM'), await exited) };
}

/** Runs `fn` over `items` with at most `n` at once. */
async function pool(items, n, fn) {
  let next = 0;
  await Promise.all(Array.from({ length: n }, async () => {
    while (next < items.length) await fn(items[next++]);
  }));
}

async function main() {
  const drop = await freshDatabase(DB);
  const db = openDatabase({ databaseUrl: databaseUrl(DB), poolMax: 2 });
  const workers = [];
  let api;
  try {
    api = await startBuiltApi(DB);
    const { userIds, token } = await benchWorkspace(api.base, 5);
    const keyOf = async (userId) => (await call(api.base, ADMIN_TOKEN, 'POST', `/admin/v1/users/${userId}/keys`, { scopes: ['tasks:read', 'tasks:write'] })).data.token;
    const [writer, reader] = [await keyOf(userIds[1]), await keyOf(userIds[2])];
    const board = (await call(api.base, token, 'POST', '/v1/projects', { name: 'Notify', key: 'NTF' })).data.boards[0];
    const tasks = [];
    for (let i = 0; i < 50; i++) {
      tasks.push((await call(api.base, token, 'POST', '/v1/tasks', { boardId: board.id, title: `Inbox ${i}`, assigneeIds: [userIds[2], userIds[3]] })).data.id);
    }

    // 1. Queue to inbox. Each comment notifies the task's author, its two assignees and a mentioned member: 4 each.
    const before = Date.now();
    await pool(Array.from({ length: COMMENTS }, (_, i) => i), 16, (i) =>
      call(api.base, writer, 'POST', `/v1/tasks/${tasks[i % tasks.length]}/comments`, { text: `Note ${i} for @member4` }));
    console.log(`queued ${COMMENTS} comments in ${((Date.now() - before) / 1000).toFixed(1)} s`);
    while (Number((await db('outbox').whereNull('relayed_at').count({ n: '*' }).first()).n) > 0) await sleep(50);
    const expected = tasks.length * 2 + COMMENTS * 4;
    const count = async () => Number((await db('notifications').count({ n: '*' }).first()).n);
    for (let i = 0; i < WORKERS; i++) workers.push(await startWorker());
    let first;
    let last;
    for (;;) {
      const n = await count();
      const now = performance.now();
      if (first === undefined && n > 0) first = { n, at: now };
      if (n >= expected) {
        last = { n, at: now };
        break;
      }
      await sleep(20);
    }
    const seconds = (last.at - first.at) / 1000;
    const perSecond = Math.round((last.n - first.n) / seconds);
    const jobsPerSecond = Math.round((COMMENTS * (last.n - first.n)) / expected / seconds);

    // 2. A comment's 201 to its notification readable by the mentioned member, one comment at a time.
    const latencies = [];
    for (let i = 0; i < SAMPLES; i++) {
      const c = await call(api.base, writer, 'POST', `/v1/tasks/${tasks[i % tasks.length]}/comments`, { text: `Ping ${i} @member2` });
      const t0 = performance.now();
      for (;;) {
        const page = await call(api.base, reader, 'GET', '/v1/notifications?limit=1');
        if (page.data[0]?.commentId === c.data.id) break;
      }
      latencies.push(performance.now() - t0);
    }
    latencies.sort((a, b) => a - b);
    const rows = [
      { measure: `notifications delivered per second (queue -> inbox, ${WORKERS} worker x ${CONCURRENCY})`, value: perSecond },
      { measure: 'comment jobs per second (4 notifications each)', value: jobsPerSecond },
      { measure: `comment 201 -> notification readable, p50 ms (${SAMPLES} comments)`, value: Number(percentile(latencies, 50).toFixed(1)) },
      { measure: 'comment 201 -> notification readable, p99 ms', value: Number(percentile(latencies, 99).toFixed(1)) },
    ];
    console.log(`\nNotifications on PostgreSQL + Redis (built api and worker; ${expected} notifications drained)`);
    console.table(rows);
    console.log('| measure | value |\n| --- | ---: |');
    for (const r of rows) console.log(`| ${r.measure} | ${r.value} |`);
  } finally {
    for (const w of workers) await w.stop();
    await api?.stop();
    await db.destroy();
    await drop();
    const connection = new Redis(REDIS_URL, { maxRetriesPerRequest: null });
    const q = new Queue('jobs', { connection, prefix: PREFIX });
    await q.obliterate({ force: true }).catch(() => undefined);
    await q.close();
    connection.disconnect();
  }
}

await main();
