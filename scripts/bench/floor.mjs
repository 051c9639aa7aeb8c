#!/usr/bin/env -S npx tsx
// This API against its floor (scripts/bench/floor-server.mjs: bare Express + pg, same database, same indexes), in
// one run, alternating A B A B per scenario so load from elsewhere on the machine falls on both alike. Prints
// req/s, p99 and the ratio (API / floor) per scenario; with BENCH_RATE=n both are driven open-loop at a fixed n req/s
// (scripts/bench/fixed-rate.mjs) and the latency percentiles are the figures to read.
//   pnpm run build && pnpm run bench:floor
// Env: BENCH_TASKS (100000), BENCH_ROUNDS (2), BENCH_DURATION (10 s per turn), BENCH_CONNECTIONS (10),
// BENCH_RATE (unset: as fast as each goes), BENCH_ONLY (a regular expression: only the scenarios it matches),
// BENCH_DATABASE_URL, BENCH_KEEP=1 (keep the seeded database), BENCH_REUSE=1 (use a kept one of the same size),
// BENCH_WARMUP (5 s: each side's first turn of a scenario is preceded by this much of the same request, as fast as it
// goes, not measured), BENCH_NODE_ARGS (more node flags for both servers), BENCH_API_STDOUT=1 (the API's stdout, for
// a --trace-gc in BENCH_NODE_ARGS, say). With BENCH_RATE the load generator runs in a process of its own
// (fixedRateApart in fixed-rate.mjs).
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { fixedRateApart } from './fixed-rate.mjs';
import { databaseUrl, freePort, nodeArgs, ROOT } from './lib.mjs';
import { withSeededApi } from './seed.mjs';

// BENCH_DB: another seeded database to reuse (with BENCH_REUSE=1), e.g. the matrix's tt_bench_matrix_1000000.
const DB = process.env.BENCH_DB ?? 'tt_bench_floor';
const TASKS = Number(process.env.BENCH_TASKS ?? 100_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const DURATION = Number(process.env.BENCH_DURATION ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);
const RATE = process.env.BENCH_RATE ? Number(process.env.BENCH_RATE) : undefined;
const ONLY = process.env.BENCH_ONLY ? new RegExp(process.env.BENCH_ONLY) : undefined;
const WARMUP = Number(process.env.BENCH_WARMUP ?? 5);

async function startFloor(dbName) {
  const port = await freePort();
  const child = spawn(process.execPath, [...nodeArgs(), join(ROOT, 'scripts', 'bench', 'floor-server.mjs')], {
    env: { ...process.env, DATABASE_URL: databaseUrl(dbName), PORT: String(port) },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const base = `http://127.0.0.1:${port}`;
  for (let i = 0; !(await fetch(`${base}/ready`).then((r) => r.ok, () => false)); i++) {
    if (i > 100) throw new Error('the floor server did not start');
    await new Promise((r) => setTimeout(r, 100));
  }
  return { base, stop: () => new Promise((resolve) => (child.once('exit', resolve), child.kill('SIGTERM'))) };
}

let quietDb;
/** Waits until the database runs no query but this one: abandoned requests of a slow side may still be running. */
async function quiet() {
  for (let i = 0; i < 600; i++) {
    const { rows } = await quietDb.raw(
      "select count(*)::int as n from pg_stat_activity where datname = current_database() and state = 'active' and pid <> pg_backend_pid()",
    );
    if (rows[0].n === 0) return;
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * One turn of a scenario: as fast as it goes (autocannon), or open-loop at BENCH_RATE. With `warmup` it first sends
 * the same request as fast as it goes for BENCH_WARMUP seconds and discards that: a server's first requests on a path
 * run unoptimized code and prepare their statements on each pooled connection, which is start-up, not the steady state
 * measured here. V8 optimizes a path's functions over its first thousand or so requests: 2 s at 100 req/s (200
 * requests) left the 1 000 000-task `q` p99 at 17 to 25 ms, 12 s (1 200) at 10 to 13 ms. Closed-loop, a fast side
 * gets its thousands of requests in a few seconds and a slow one (the floor's counting lists) builds no backlog.
 */
async function turn(base, token, path, warmup = false) {
  if (warmup && WARMUP > 0) {
    await closedLoop(base, token, path, WARMUP);
    await quiet();
  }
  return measureTurn(base, token, path, DURATION);
}

async function measureTurn(base, token, path, duration) {
  if (RATE) {
    const r = await fixedRateApart({ base, token, rate: RATE, duration, connections: CONNECTIONS, path });
    await quiet();
    return r;
  }
  return closedLoop(base, token, path, duration);
}

async function closedLoop(base, token, path, duration) {
  const r = await autocannon({
    url: base, connections: CONNECTIONS, duration, timeout: 10,
    requests: [{ method: 'GET', setupRequest: (req) => ({ ...req, path: path() }) }],
    headers: { authorization: `Bearer ${token}` },
  });
  await fetch(`${base}/health`);
  return { rps: r.requests.average, p50: r.latency.p50, p90: r.latency.p90, p99: r.latency.p99, bad: r.errors + r.timeouts + r.non2xx };
}

/** Checks that both servers give the same total for a list, so the comparison is of the same answer. */
async function sameTotal(api, floor, token, path) {
  const read = (base) => fetch(base + path, { headers: { authorization: `Bearer ${token}` } }).then((r) => r.json());
  const [a, b] = await Promise.all([read(api), read(floor)]);
  if (path.includes('/tasks?') && a.total !== b.total) throw new Error(`${path}: the API says total ${a.total}, the floor ${b.total}`);
}

await withSeededApi(DB, TASKS, async ({ api, db, workspaceId, userIds, token, columns }) => {
  quietDb = db;
  const floor = await startFloor(DB);
  try {
    const keys = await db('tasks').where({ workspace_id: workspaceId }).orderByRaw('random()').limit(1000).pluck('key');
    let k = 0;
    const since = Date.now() - 86_400_000;
    const at = (path) => () => `/v1${path}`;
    const scenarios = [
      ['GET /tasks/{key}', () => `/v1/tasks/${keys[k++ % keys.length]}`],
      ['GET /tasks?projectId&category=todo&limit=100', at(`/tasks?projectId=${columns[20].project_id}&category=todo&limit=100`)],
      ['GET /tasks (no filter, 100)', at('/tasks?limit=100')],
      ['GET /tasks?projectId', at(`/tasks?projectId=${columns[20].project_id}`)],
      ['GET /tasks?statusId&orderBy=position', at(`/tasks?statusId=${columns[3].status_id}&orderBy=position&limit=50`)],
      ['GET /tasks?priority=high,highest', at('/tasks?priority=high,highest')],
      ['GET /tasks?assigneeId&category=progress', at(`/tasks?assigneeId=${userIds[7]}&category=progress`)],
      ['GET /tasks?label=a,b', at('/tasks?label=backend,ux')],
      ['GET /tasks?q=zeppelin', at('/tasks?q=zeppelin')],
      ['GET /tasks?updatedSince (24 h)', at(`/tasks?updatedSince=${since}`)],
    ];
    const rows = [];
    for (const [name, path] of scenarios) {
      if (ONLY && !ONLY.test(name)) continue;
      await sameTotal(api.base, floor.base, token, path());
      const a = [];
      const b = [];
      for (let round = 0; round < ROUNDS; round++) {
        a.push(await turn(api.base, token, path, round === 0));
        b.push(await turn(floor.base, token, path, round === 0));
      }
      const mean = (xs, f) => xs.reduce((s, x) => s + f(x), 0) / xs.length;
      const worst = (xs, p) => Math.max(...xs.map((x) => x[p]));
      const row = {
        scenario: name,
        'api req/s': Math.round(mean(a, (x) => x.rps)), 'api p50': worst(a, 'p50'), 'api p90': worst(a, 'p90'), 'api p99': worst(a, 'p99'),
        'floor req/s': Math.round(mean(b, (x) => x.rps)), 'floor p50': worst(b, 'p50'), 'floor p90': worst(b, 'p90'), 'floor p99': worst(b, 'p99'),
        failed: a.reduce((s, x) => s + x.bad, 0) + b.reduce((s, x) => s + x.bad, 0),
      };
      row.ratio = Number((row['api req/s'] / row['floor req/s']).toFixed(2));
      rows.push(row);
      const show = (who) => `${row[`${who} req/s`]} req/s p50/p90/p99 ${row[`${who} p50`]}/${row[`${who} p90`]}/${row[`${who} p99`]} ms`;
      console.log(`  ${name}: api ${show('api')} | floor ${show('floor')} | ratio ${row.ratio}`);
    }
    const mode = RATE ? `fixed ${RATE} req/s` : `${CONNECTIONS} connections`;
    console.log(`\n${TASKS} tasks, API vs floor, ${mode}, ${ROUNDS} x ${DURATION} s each, alternating`);
    console.table(rows);
    console.log('| request | API req/s | API p50/p90/p99 ms | floor req/s | floor p50/p90/p99 ms | ratio |\n| --- | ---: | ---: | ---: | ---: | ---: |');
    const ps = (r, who) => `${r[`${who} p50`]} / ${r[`${who} p90`]} / ${r[`${who} p99`]}`;
    for (const r of rows) console.log(`| ${r.scenario} | ${r['api req/s']} | ${ps(r, 'api')} | ${r['floor req/s']} | ${ps(r, 'floor')} | ${r.ratio} |`);
    if (rows.some((r) => r.failed > 0)) {
      process.exitCode = 1;
      console.error('some requests failed; see the failed column');
    }
  } finally {
    await floor.stop();
  }
});
