#!/usr/bin/env -S npx tsx
// POST /v1/tasks and PATCH /v1/tasks/{key}, the write path with everything it sets off (outbox, notifications,
// automations, the activity log):
//   server:   the built API and worker on PostgreSQL + Redis, creates spread over 10 projects and 20 boards as fast
//             as 10 connections go, then PATCHes of the created tasks the same way; after each, how long the worker
//             takes to deliver everything they queued.
//   embedded: the built embedded server (PGlite, in-process queue and worker), 100 000 creates in windows of
//             10 000: the create rate and the process's memory per window, so a slowdown or growth shows.
//   pnpm run build && pnpm run bench:writes            # both
//   BENCH_MODE=server pnpm run bench:writes            # or embedded
//   BENCH_MODE=server BENCH_BASELINE_REF=4e40042 pnpm run bench:writes   # A/B against the build of another commit
// A/B (server mode): the commit is checked out with `git worktree add` under the system's temp directory, installed
// offline (`pnpm install --frozen-lockfile --offline`) and its api and worker built there, then this tree's build (A)
// and the baseline (B) take turns, A B A B, each turn on a fresh database of its own; the table gives every turn and
// the ratio A / B of the mean req/s. The worktree is removed at the end (BENCH_BASELINE_KEEP=1 keeps it, and a later
// run reuses its build). A commit that does not build on its own takes BENCH_BASELINE_PICK, commits applied on top
// without committing: 4e40042 (the commit before the activity log) needs b4244b7,2c54837, the store's and http's
// request deadline, which apps/mcp (bundled into the api) already imported there.
// Env: BENCH_DURATION (server: seconds per scenario, 20), BENCH_CONNECTIONS (10), BENCH_ROUNDS (A/B rounds, 2),
// BENCH_BASELINE_REF, BENCH_BASELINE_PICK, BENCH_BASELINE_KEEP, BENCH_CREATES (embedded: 100000), BENCH_WINDOW (embedded: 10000),
// BENCH_DATABASE_URL, BENCH_REDIS_URL (redis://127.0.0.1:6379), BENCH_NODE_ARGS (node options for the servers, e.g.
// "--cpu-prof --cpu-prof-dir=prof").
import { execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
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
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const BASELINE_REF = process.env.BENCH_BASELINE_REF;
const PICKS = (process.env.BENCH_BASELINE_PICK ?? '').split(',').filter(Boolean);
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

/** PATCHes of the created tasks, round the list: a new title and a priority flip, so every one changes fields. */
function patches(keys) {
  let n = 0;
  return {
    method: 'PATCH',
    setupRequest: (req) => {
      n++;
      return { ...req, path: `/v1/tasks/${keys[n % keys.length]}`, body: JSON.stringify({ title: `Renamed ${n}`, priority: n % 2 ? 'high' : 'low' }) };
    },
  };
}

/** Seconds until the worker has relayed every job and `done()` holds (at most 5 minutes). */
async function caughtUp(db, done) {
  const ended = Date.now();
  const pending = async () => Number((await db('outbox').whereNull('relayed_at').count({ n: '*' }).first()).n);
  while ((await pending()) > 0 || !(await done())) {
    if (Date.now() - ended > 300_000) throw new Error('the worker did not catch up in 5 minutes');
    await sleep(100);
  }
  return (Date.now() - ended) / 1000;
}

/**
 * One turn of the built tree at `root` (this one, or a baseline worktree): a fresh database, its API and worker on
 * PostgreSQL + Redis, DURATION s of creates and then of PATCHes, each followed by the worker's catching up.
 */
async function serverTurn(root) {
  const DB = 'tt_bench_writes';
  // A queue of its own per turn, so nothing else on this Redis is touched; the API and worker read it from the environment.
  process.env.QUEUE_PREFIX = `tt-bench-${randomBytes(4).toString('hex')}`;
  const drop = await freshDatabase(DB);
  const db = openDatabase({ databaseUrl: databaseUrl(DB), poolMax: 2 });
  let api;
  let worker;
  try {
    api = await startBuiltApi(DB, root);
    const env = { ...process.env, DATABASE_URL: databaseUrl(DB), REDIS_URL: process.env.BENCH_REDIS_URL, WORKER_PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'warn' };
    const child = spawn(process.execPath, [...nodeArgs(), join(root, 'apps', 'worker', 'dist', 'main.js')], { env, stdio: ['ignore', 'ignore', 'inherit'] });
    const exited = new Promise((resolve) => child.once('exit', resolve));
    worker = { stop: async () => (child.kill('SIGTERM'), await exited) };
    const { userIds, token } = await benchWorkspace(api.base, 20);
    const columns = await seedLayout(api.base, token, userIds);
    const created = await fire(api.base, token, creates(columns, userIds), { duration: DURATION });
    // Every create notifies its assignee: done when the inbox holds one per task created (the layout's own too).
    const tasks = Number((await db('tasks').count({ n: '*' }).first()).n);
    const notified = async () => Number((await db('notifications').where({ kind: 'assigned' }).count({ n: '*' }).first()).n);
    const createLag = await caughtUp(db, async () => (await notified()) >= tasks);
    const keys = await db('tasks').orderByRaw('random()').limit(1000).pluck('key');
    const patched = await fire(api.base, token, patches(keys), { duration: DURATION });
    const patchLag = await caughtUp(db, async () => true);
    const row = (r, lag) => ({ n: r.requests.total, rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, lag });
    return { create: row(created, createLag), patch: row(patched, patchLag), notifications: await notified() };
  } finally {
    await worker?.stop();
    await api?.stop();
    await db.destroy();
    await drop();
    await dropQueue(process.env.BENCH_REDIS_URL, process.env.QUEUE_PREFIX);
  }
}

async function server() {
  process.env.BENCH_REDIS_URL ??= 'redis://127.0.0.1:6379';
  const title = `built API + worker on PostgreSQL + Redis, ${PROJECTS} projects, ${CONNECTIONS} connections, ${DURATION} s per scenario`;
  if (!BASELINE_REF) {
    const t = await serverTurn(ROOT);
    console.log(`\nPOST /v1/tasks and PATCH /v1/tasks/{key}, ${title}`);
    console.log('| scenario | requests | req/s | p50 ms | p99 ms | worker done after the last request |\n| --- | ---: | ---: | ---: | ---: | ---: |');
    console.log(`| POST /v1/tasks | ${t.create.n} | ${Math.round(t.create.rps)} | ${t.create.p50} | ${t.create.p99} | ${t.create.lag.toFixed(1)} s (${t.notifications} notifications) |`);
    console.log(`| PATCH /v1/tasks/{key} | ${t.patch.n} | ${Math.round(t.patch.rps)} | ${t.patch.p50} | ${t.patch.p99} | ${t.patch.lag.toFixed(1)} s |`);
    return;
  }
  const baseline = baselineBuild(BASELINE_REF);
  try {
    const sides = { A: ROOT, B: baseline.root };
    const turns = [];
    for (let round = 1; round <= ROUNDS; round++) {
      for (const side of ['A', 'B']) {
        const t = await serverTurn(sides[side]);
        turns.push({ round, side, ...t });
        console.log(`  round ${round} ${side}: creates ${Math.round(t.create.rps)} req/s, PATCH ${Math.round(t.patch.rps)} req/s`);
      }
    }
    printAB(turns, title);
  } finally {
    baseline.remove();
  }
}

/**
 * The built API and worker of commit `ref`: a detached worktree under the temp directory, BENCH_BASELINE_PICK's commits
 * applied on top without committing (a tree that does not build alone), installed offline, and only the two apps this
 * benchmark starts built. Kept from an earlier run (BENCH_BASELINE_KEEP=1), its build is used as it is. `remove()`
 * unregisters and deletes the worktree.
 */
function baselineBuild(ref) {
  const sha = execFileSync('git', ['rev-parse', '--short', `${ref}^{commit}`], { cwd: ROOT, encoding: 'utf8' }).trim();
  const root = join(tmpdir(), `tt-baseline-${sha}`);
  const run = (cmd, args, cwd) => execFileSync(cmd, args, { cwd, stdio: ['ignore', 'ignore', 'inherit'] });
  const built = existsSync(join(root, 'apps', 'api', 'dist', 'main.js')) && existsSync(join(root, 'apps', 'worker', 'dist', 'main.js'));
  if (built) console.log(`baseline ${sha}: reusing the build in ${root}`);
  else {
    if (!existsSync(root)) {
      run('git', ['worktree', 'add', '--detach', root, sha], ROOT);
      for (const pick of PICKS) run('git', ['cherry-pick', '--no-commit', pick], root);
    }
    console.log(`baseline ${sha}${PICKS.length ? ` + ${PICKS.join(', ')}` : ''}: installing (offline) and building the api and worker in ${root}`);
    run('npx', ['-y', 'pnpm@12.21.0', 'install', '--frozen-lockfile', '--offline'], root);
    run('npx', ['-y', 'pnpm@12.21.0', '--filter', '@tt/api', '--filter', '@tt/worker', 'run', 'build'], root);
  }
  return {
    root,
    remove() {
      if (process.env.BENCH_BASELINE_KEEP) return console.log(`kept the baseline worktree ${root}`);
      run('git', ['worktree', 'remove', '--force', root], ROOT);
    },
  };
}

/** Every turn, then the means per side and their ratio A / B (the goal: A at most 10 % slower, a ratio of 0.90 or more). */
function printAB(turns, title) {
  console.log(`\nA/B: A = this tree, B = ${[BASELINE_REF, ...PICKS].join(' + ')}; ${title}; ${ROUNDS} round(s), A B alternating, a fresh database each turn`);
  console.log('| round | side | creates/s | create p99 ms | PATCH/s | PATCH p99 ms | worker done after creates / PATCHes |\n| ---: | --- | ---: | ---: | ---: | ---: | ---: |');
  for (const t of turns) {
    console.log(`| ${t.round} | ${t.side} | ${Math.round(t.create.rps)} | ${t.create.p99} | ${Math.round(t.patch.rps)} | ${t.patch.p99} | ${t.create.lag.toFixed(1)} s / ${t.patch.lag.toFixed(1)} s |`);
  }
  const mean = (side, k) => {
    const xs = turns.filter((t) => t.side === side);
    return xs.reduce((s, t) => s + t[k].rps, 0) / xs.length;
  };
  console.log('| scenario | A req/s (mean) | B req/s (mean) | A / B |\n| --- | ---: | ---: | ---: |');
  for (const [k, name] of [['create', 'POST /v1/tasks'], ['patch', 'PATCH /v1/tasks/{key}']]) {
    console.log(`| ${name} | ${Math.round(mean('A', k))} | ${Math.round(mean('B', k))} | ${(mean('A', k) / mean('B', k)).toFixed(2)} |`);
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
