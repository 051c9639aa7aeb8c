#!/usr/bin/env -S npx tsx
// What the request deadline costs on the hot path: the same built API twice on one seeded database, one process with
// the deadline (REQUEST_DEADLINE_MS, default 5000: per-statement timers, the transaction deadline, the checks before
// each statement) and one with it off (REQUEST_DEADLINE_MS=0), the read scenarios A B A B in one run; prints the
// ratio on / off per scenario (goal: within 2 %).
//   pnpm run build && npx tsx scripts/bench/deadline-ab.mjs
// Env: BENCH_TASKS (20000), BENCH_ROUNDS (3), BENCH_DURATION (s per turn, 10), BENCH_CONNECTIONS (10),
// BENCH_ONLY (a part of a scenario's name), BENCH_REUSE=1 / BENCH_KEEP=1 (see seed.mjs).
import { get, measure, startBuiltApi } from './lib.mjs';
import { withSeededApi } from './seed.mjs';

const DB = 'tt_bench_deadline';
const TASKS = Number(process.env.BENCH_TASKS ?? 20_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
/** BENCH_ONLY: run only the scenarios whose name contains it (e.g. `{key}`). */
const ONLY = process.env.BENCH_ONLY;

/** The built API on `DB` with REQUEST_DEADLINE_MS set to `ms` ('0' = off). */
async function apiWith(ms) {
  const before = process.env.REQUEST_DEADLINE_MS;
  process.env.REQUEST_DEADLINE_MS = ms;
  try {
    return await startBuiltApi(DB);
  } finally {
    if (before === undefined) delete process.env.REQUEST_DEADLINE_MS;
    else process.env.REQUEST_DEADLINE_MS = before;
  }
}

await withSeededApi(DB, TASKS, async ({ db, workspaceId, userIds, token, columns }) => {
  const keys = await db('tasks').where({ workspace_id: workspaceId }).orderByRaw('random()').limit(1000).pluck('key');
  let k = 0;
  const scenarios = [
    ['GET /tasks/{key}', { method: 'GET', setupRequest: (req) => ({ ...req, path: `/v1/tasks/${keys[k++ % keys.length]}` }) }],
    ['GET /tasks?projectId&category=todo', get(`/tasks?projectId=${columns[0].project_id}&category=todo&limit=100`)],
    ['GET /tasks (my open tasks)', get('/tasks')],
    ['GET /tasks?assigneeId&category=progress', get(`/tasks?assigneeId=${userIds[7]}&category=progress`)],
  ].filter(([name]) => !ONLY || name.includes(ONLY));
  const on = await apiWith('5000');
  const off = await apiWith('0');
  try {
    const sums = new Map(scenarios.map(([name]) => [name, { on: 0, off: 0, p99: [] }]));
    for (let round = 1; round <= ROUNDS; round++) {
      for (const [name, request] of scenarios) {
        const a = await measure(`${name} (deadline on)`, on.base, token, request);
        const b = await measure(`${name} (deadline off)`, off.base, token, request);
        for (const r of [a, b]) if (r.failed > 0) throw new Error(`${r.scenario}: ${r.failed} failed requests`);
        const s = sums.get(name);
        s.on += a['req/s'];
        s.off += b['req/s'];
        s.p99.push(`${a['p99 ms']}/${b['p99 ms']}`);
        console.log(`  round ${round}: ${name}: on ${a['req/s']} req/s, off ${b['req/s']}`);
      }
    }
    console.log(`\n${TASKS} tasks, ${ROUNDS} round(s) A B alternating, ${process.env.BENCH_DURATION ?? 10} s a turn\n`);
    console.log('| scenario | deadline on req/s (mean) | off req/s (mean) | on / off | p99 ms on/off per round |\n| --- | ---: | ---: | ---: | --- |');
    for (const [name, s] of sums) {
      console.log(`| ${name} | ${Math.round(s.on / ROUNDS)} | ${Math.round(s.off / ROUNDS)} | ${(s.on / s.off).toFixed(3)} | ${s.p99.join(', ')} |`);
    }
  } finally {
    await on.stop();
    await off.stop();
  }
});
