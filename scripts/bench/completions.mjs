#!/usr/bin/env -S npx tsx
// completion/complete at 100 000 tasks: the built API seeds the bench workspace (10 projects, 100 000 tasks), the
// built mcp process answers 2026-07-28 completion requests for task keys, project keys and logins; each is timed
// over HTTP (the whole request: authentication, the per-request server, the lookup) BENCH_SAMPLES (50) times.
//   pnpm run build && npx tsx scripts/bench/completions.mjs
// Env: BENCH_DATABASE_URL, BENCH_TASKS (100000), BENCH_SAMPLES (50), BENCH_REUSE=1 / BENCH_KEEP=1 (see seed.mjs).
import { performance } from 'node:perf_hooks';
import { keys, people, projects, tasks } from '@tt/domain';
import { createStore } from '../../packages/store/src/index.ts';
import { modernCall, startBuiltMcp } from './mcp-process.mjs';
import { withSeededApi } from './seed.mjs';

const DB = 'tt_bench_complete';
const TASKS = Number(process.env.BENCH_TASKS ?? 100_000);
const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 50);
const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];

/** Times `fn` SAMPLES times after 5 warm-up runs: [p50, p95] in ms. */
async function time(fn) {
  const times = [];
  for (let i = 0; i < SAMPLES + 5; i++) {
    const t0 = performance.now();
    await fn();
    if (i >= 5) times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  return [percentile(times, 50), percentile(times, 95)];
}

await withSeededApi(DB, TASKS, async ({ token, db }) => {
  // The lookups alone, in this process on the same database: what the domain's use cases and the indexes cost.
  const deps = { store: createStore(db), now: () => Date.now(), newId: (p) => `${p}_bench`, jobs: { notify() {} }, rateLimitPerMinute: 1e9 };
  const actor = await keys.authenticate({ authorization: `Bearer ${token}`, ip: '127.0.0.1', surface: 'mcp' }, deps);
  console.log(`\nThe completion use cases alone (one PostgreSQL connection, ${TASKS} tasks; ${SAMPLES} calls each)`);
  console.log('| use case, prefix | values | p50 ms | p95 ms |');
  console.log('| --- | --- | --- | --- |');
  const domainCases = [
    ['completeTaskKeys "B3-"', () => tasks.completeTaskKeys(actor, 'B3-', deps)],
    ['completeTaskKeys "B3-1"', () => tasks.completeTaskKeys(actor, 'B3-1', deps)],
    ['completeTaskKeys "B3-99"', () => tasks.completeTaskKeys(actor, 'B3-99', deps)],
    ['completeTaskKeys "B3-5432"', () => tasks.completeTaskKeys(actor, 'B3-5432', deps)],
    ['completeTaskKeys "B"', () => tasks.completeTaskKeys(actor, 'B', deps)],
    ['completeProjectKeys "B"', () => projects.completeProjectKeys(actor, 'B', deps)],
    ['completeLogins "member1"', () => people.completeLogins(actor, 'member1', deps)],
  ];
  for (const [label, fn] of domainCases) {
    const values = (await fn()).length;
    const [p50, p95] = await time(fn);
    console.log(`| ${label} | ${values} | ${p50.toFixed(1)} | ${p95.toFixed(1)} |`);
  }
  const mcp = await startBuiltMcp(DB);
  try {
    const cases = [
      ['task "B3-"', 'brief_task', 'task', 'B3-'],
      ['task "B3-1"', 'brief_task', 'task', 'B3-1'],
      ['task "B3-99"', 'brief_task', 'task', 'B3-99'],
      ['task "B3-5432"', 'brief_task', 'task', 'B3-5432'],
      ['task "B"', 'brief_task', 'task', 'B'],
      ['project "B"', 'triage_project', 'project', 'B'],
      ['person "member1"', 'standup', 'person', 'member1'],
    ];
    console.log(`\ncompletion/complete on one mcp process, ${TASKS} tasks in 10 projects; ${SAMPLES} requests each, one at a time`);
    console.log('| argument, prefix | values | p50 ms | p95 ms |');
    console.log('| --- | --- | --- | --- |');
    for (const [label, prompt, argument, value] of cases) {
      const times = [];
      let values = 0;
      for (let i = 0; i < SAMPLES + 5; i++) {
        const t0 = performance.now();
        const r = await modernCall(mcp.base, token, 'completion/complete', { ref: { type: 'ref/prompt', name: prompt }, argument: { name: argument, value } });
        if (!r.result) throw new Error(`${label}: ${JSON.stringify(r)}`);
        if (i >= 5) times.push(performance.now() - t0);
        values = r.result.completion.values.length;
      }
      times.sort((a, b) => a - b);
      console.log(`| ${label} | ${values} | ${percentile(times, 50).toFixed(1)} | ${percentile(times, 95).toFixed(1)} |`);
    }
    // The floor: the same process answering ping, so the lookup's share can be read off.
    const pings = [];
    for (let i = 0; i < SAMPLES; i++) {
      const t0 = performance.now();
      await modernCall(mcp.base, token, 'ping', {});
      pings.push(performance.now() - t0);
    }
    pings.sort((a, b) => a - b);
    console.log(`| (ping, for comparison) | - | ${percentile(pings, 50).toFixed(1)} | ${percentile(pings, 95).toFixed(1)} |`);
  } finally {
    await mcp.stop();
  }
});
