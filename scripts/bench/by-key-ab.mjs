#!/usr/bin/env -S npx tsx
// GET /v1/tasks/{key} of two builds of the API and the floor on one kept database, in turns that rotate their order
// (A B floor, floor B A, B A floor, ...), with req/s and the CPU a request cost (the server's Node process and this
// database's PostgreSQL backends, from /proc) per side. On a machine shared with other work the three sides share
// its load in each round, so the A/B holds where a matrix run (each side against its floor) moves with the load.
//   BENCH_OTHER=<root of another build's tree> npx tsx scripts/bench/by-key-ab.mjs
// Env: BENCH_OTHER (required: a tree with apps/api/dist/main.js built and its node_modules installed, e.g. a git
// worktree of the commit before), BENCH_TASKS (20000; the kept database <BENCH_DB_PREFIX>_<tasks> of the matrix is
// reused, else seeded), BENCH_DB_PREFIX (tt_bench_matrix), BENCH_ROUNDS (3), BENCH_DURATION (s per turn, 10),
// BENCH_CONNECTIONS (10), BENCH_REDIS_URL (redis://127.0.0.1:6379), BENCH_NODE_ARGS.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { cpuMs, databaseUrl, freePort, measure, nodeArgs, ROOT, startBuiltApi } from './lib.mjs';
import { withSeededApi } from './seed.mjs';

const OTHER = process.env.BENCH_OTHER;
if (!OTHER) throw new Error('BENCH_OTHER: the root of the other build (apps/api/dist/main.js under it)');
const TASKS = Number(process.env.BENCH_TASKS ?? 20_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const DB = `${process.env.BENCH_DB_PREFIX ?? 'tt_bench_matrix'}_${TASKS}`;
process.env.BENCH_REUSE = '1';
process.env.BENCH_REDIS_URL ??= 'redis://127.0.0.1:6379';

await withSeededApi(DB, TASKS, async ({ api, db, workspaceId, token }) => {
  const keys = await db('tasks').where({ workspace_id: workspaceId }).orderByRaw('random()').limit(1000).pluck('key');
  let k = 0;
  const request = { method: 'GET', setupRequest: (req) => ({ ...req, path: `/v1/tasks/${keys[k++ % keys.length]}` }) };
  const other = await startBuiltApi(DB, OTHER);
  const port = await freePort();
  const floorProcess = spawn(process.execPath, [...nodeArgs(), join(ROOT, 'scripts', 'bench', 'floor-server.mjs')], {
    env: { ...process.env, DATABASE_URL: databaseUrl(DB), PORT: String(port) }, stdio: ['ignore', 'ignore', 'inherit'],
  });
  const floor = { base: `http://127.0.0.1:${port}`, pid: floorProcess.pid };
  for (let i = 0; !(await fetch(`${floor.base}/health`).then(() => true, () => false)); i++) {
    if (i > 300) throw new Error('the floor did not start');
    await new Promise((r) => setTimeout(r, 100));
  }
  const sides = { this: api, other, floor };
  const backends = async () => (await db.raw('select pid from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()')).rows.map((r) => r.pid);
  const sums = Object.fromEntries(Object.keys(sides).map((s) => [s, { n: 0, rps: 0, node: 0, pg: 0 }]));
  try {
    for (const [name, side] of Object.entries(sides)) await measure(`warm-up ${name}`, side.base, token, request);
    const orders = [['other', 'this', 'floor'], ['floor', 'this', 'other'], ['this', 'other', 'floor']];
    for (let round = 0; round < ROUNDS; round++) {
      for (const name of orders[round % orders.length]) {
        const side = sides[name];
        const pg0 = new Map((await backends()).map((pid) => [pid, cpuMs(pid)]));
        const node0 = cpuMs(side.pid);
        const m = await measure(name, side.base, token, request);
        const node = cpuMs(side.pid) - node0;
        const pg = (await backends()).reduce((t, pid) => t + cpuMs(pid) - (pg0.get(pid) ?? 0), 0);
        if (m.failed > 0) throw new Error(`${name}: ${m.failed} failed requests`);
        Object.assign(sums[name], { n: sums[name].n + m.requests, rps: sums[name].rps + m['req/s'], node: sums[name].node + node, pg: sums[name].pg + pg });
        console.log(`  round ${round + 1} ${name}: ${m['req/s']} req/s, CPU ms a request ${(node / m.requests).toFixed(3)}+${(pg / m.requests).toFixed(3)}`);
      }
    }
  } finally {
    await other.stop();
    floorProcess.kill('SIGTERM');
  }
  const cpu = (s) => (s.node + s.pg) / s.n;
  console.log(`\n${TASKS} tasks, GET /tasks/{key}, ${ROUNDS} round(s) of ${process.env.BENCH_DURATION ?? 10} s a side, this tree against ${OTHER}`);
  console.log('| side | req/s | ÷ floor | CPU ms a request (Node+PG) | CPU ratio floor ÷ side |\n| --- | ---: | ---: | ---: | ---: |');
  for (const [name, s] of Object.entries(sums)) {
    console.log(`| ${name} | ${Math.round(s.rps / ROUNDS)} | ${(s.rps / sums.floor.rps).toFixed(2)} | ${(s.node / s.n).toFixed(3)}+${(s.pg / s.n).toFixed(3)} | ${(cpu(sums.floor) / cpu(s)).toFixed(2)} |`);
  }
});
