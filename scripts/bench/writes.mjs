#!/usr/bin/env -S npx tsx
// POST /v1/tasks, the write path with everything it sets off (outbox, notifications, automations):
//   server:   the built API and worker on PostgreSQL + Redis, creates spread over 10 projects and 20 boards as fast
//             as 10 connections go; then how long the worker takes to deliver everything the creates queued.
//   embedded: the built embedded server (PGlite, in-process queue and worker), 100 000 creates in windows of
//             10 000: the create rate and the process's memory per window, so a slowdown or growth shows.
//   pnpm run build && pnpm run bench:writes            # both
//   BENCH_MODE=server pnpm run bench:writes            # or embedded
// Env: BENCH_DURATION (server: seconds, 20), BENCH_CONNECTIONS (10), BENCH_CREATES (embedded: 100000),
// BENCH_WINDOW (embedded: 10000), BENCH_DATABASE_URL, BENCH_REDIS_URL (redis://127.0.0.1:6379), BENCH_NODE_ARGS (node
// options for the servers, e.g. "--cpu-prof --cpu-prof-dir=prof").
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { Redis } from 'ioredis';
import { ADMIN_TOKEN, ROOT, benchWorkspace, databaseUrl, freePort, freshDatabase, nodeArgs, openDatabase, startBuiltApi } from './lib.mjs';
import { PROJECTS, seedLayout } from './seed.mjs';

const MODE = process.env.BENCH_MODE ?? 'both';
const DURATION = Number(process.env.BENCH_DURATION ?? 20);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);
const CREATES = Number(process.env.BENCH_CREATES ?? 100_000);
const WINDOW = Number(process.env.BENCH_WINDOW ?? 10_000);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** A create spread over the boards (two per project) with an assignee and labels, so it notifies and is indexed. */
function creates(columns, userIds) {
  const boards = [...new Set(columns.map((c) => c.board_id))];
  let n = 0;
  return {
    method: 'POST', path: '/v1/tasks',
    setupRequest: (req) => {
      n++;
      return { ...req, body: JSON.stringify({ title: `Write ${n}`, boardId: boards[n % boards.length], assigneeIds: [userIds[1 + (n % (userIds.length - 1))]], labels: ['perf'] }) };
    },
  };
}

async function fire(base, token, request, opts) {
  const r = await autocannon({
    url: base, connections: CONNECTIONS, timeout: 30, requests: [request], ...opts,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
  });
  const bad = r.errors + r.timeouts + r.non2xx;
  if (bad) throw new Error(`${bad} creates failed (non-2xx ${r.non2xx}, errors ${r.errors}, timeouts ${r.timeouts})`);
  return r;
}

async function server() {
  const DB = 'tt_bench_writes';
  process.env.BENCH_REDIS_URL ??= 'redis://127.0.0.1:6379';
  // A queue of its own, so nothing else on this Redis is touched; the API and worker read it from the environment.
  process.env.QUEUE_PREFIX = `tt-bench-${randomBytes(4).toString('hex')}`;
  const drop = await freshDatabase(DB);
  const db = openDatabase({ databaseUrl: databaseUrl(DB), poolMax: 2 });
  let api;
  let worker;
  try {
    api = await startBuiltApi(DB);
    const env = { ...process.env, DATABASE_URL: databaseUrl(DB), REDIS_URL: process.env.BENCH_REDIS_URL, WORKER_PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'warn' };
    const child = spawn(process.execPath, [...nodeArgs(), join(ROOT, 'apps', 'worker', 'dist', 'main.js')], { env, stdio: ['ignore', 'ignore', 'inherit'] });
    const exited = new Promise((resolve) => child.once('exit', resolve));
    worker = { stop: async () => (child.kill('SIGTERM'), await exited) };
    const { userIds, token } = await benchWorkspace(api.base, 20);
    const columns = await seedLayout(api.base, token, userIds);
    const r = await fire(api.base, token, creates(columns, userIds), { duration: DURATION });
    const ended = Date.now();
    const pending = async () => Number((await db('outbox').whereNull('relayed_at').count({ n: '*' }).first()).n);
    const tasks = Number((await db('tasks').count({ n: '*' }).first()).n);
    // Every create notifies its assignee: done when the inbox holds one per task created (the layout's own too).
    const expected = tasks;
    let notified = 0;
    while ((await pending()) > 0 || (notified = Number((await db('notifications').where({ kind: 'assigned' }).count({ n: '*' }).first()).n)) < expected) {
      if (Date.now() - ended > 300_000) throw new Error(`the worker did not catch up in 5 minutes (${notified} of ${expected} notifications)`);
      await sleep(100);
    }
    const lag = (Date.now() - ended) / 1000;
    console.log(`\nPOST /v1/tasks, built API + worker on PostgreSQL + Redis, ${PROJECTS} projects, ${CONNECTIONS} connections, ${DURATION} s`);
    console.log('| tasks created | req/s | p50 ms | p99 ms | worker done after the last create |\n| ---: | ---: | ---: | ---: | ---: |');
    console.log(`| ${r.requests.total} | ${Math.round(r.requests.average)} | ${r.latency.p50} | ${r.latency.p99} | ${lag.toFixed(1)} s (${notified} notifications) |`);
  } finally {
    await worker?.stop();
    await api?.stop();
    await db.destroy();
    await drop();
    await dropQueue(process.env.BENCH_REDIS_URL, process.env.QUEUE_PREFIX);
  }
}

/** Deletes the run's queue keys, so Redis does not keep growing from one run to the next. */
async function dropQueue(url, prefix) {
  const redis = new Redis(url);
  try {
    for await (const keys of redis.scanStream({ match: `${prefix}:*`, count: 1000 })) if (keys.length) await redis.del(...keys);
  } finally {
    redis.disconnect();
  }
}

const rssMb = (pid) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))[1]) / 1024;

async function embedded() {
  const dataDir = mkdtempSync(join(tmpdir(), 'tt-bench-embedded-'));
  const [port, mcpPort] = [await freePort(), await freePort()];
  const env = { ...process.env, DATA_DIR: dataDir, PORT: String(port), MCP_PORT: String(mcpPort), HOST: '127.0.0.1', ADMIN_TOKEN, RATE_LIMIT_PER_MINUTE: '100000000', LOG_LEVEL: 'warn' };
  delete env.DATABASE_URL;
  delete env.REDIS_URL;
  const child = spawn(process.execPath, [...nodeArgs(), join(ROOT, 'apps', 'api', 'dist', 'embedded.js')], { env, stdio: ['ignore', 'ignore', 'inherit'] });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const base = `http://127.0.0.1:${port}`;
  try {
    for (let i = 0; !(await fetch(`${base}/ready`).then((r) => r.ok, () => false)); i++) {
      if (i > 600) throw new Error('the embedded server did not start in 60 s');
      await sleep(100);
    }
    const { userIds, token } = await benchWorkspace(base, 20);
    const columns = await seedLayout(base, token, userIds);
    const request = creates(columns, userIds);
    const rows = [];
    for (let done = 0; done < CREATES; done += WINDOW) {
      const r = await fire(base, token, request, { amount: WINDOW });
      rows.push({ creates: done + WINDOW, 'req/s': Math.round(r.requests.average), 'p99 ms': r.latency.p99, 'rss MB': Math.round(rssMb(child.pid)) });
      console.log(`  ${done + WINDOW} creates: ${rows.at(-1)['req/s']} req/s, p99 ${rows.at(-1)['p99 ms']} ms, rss ${rows.at(-1)['rss MB']} MB`);
    }
    const kept = rows.at(-1)['req/s'] / rows[0]['req/s'];
    console.log(`\nPOST /v1/tasks, embedded server (PGlite, in-process queue and worker), ${CREATES} creates, ${CONNECTIONS} connections`);
    console.log('| creates | req/s | p99 ms | RSS MB |\n| ---: | ---: | ---: | ---: |');
    for (const r of rows) console.log(`| ${r.creates} | ${r['req/s']} | ${r['p99 ms']} | ${r['rss MB']} |`);
    console.log(`last window / first window: ${kept.toFixed(2)}; RSS ${rows[0]['rss MB']} -> ${rows.at(-1)['rss MB']} MB`);
  } finally {
    child.kill('SIGTERM');
    await exited;
    rmSync(dataDir, { recursive: true, force: true });
  }
}

if (MODE === 'server' || MODE === 'both') await server();
if (MODE === 'embedded' || MODE === 'both') await embedded();
