#!/usr/bin/env -S npx tsx
// POST /v1/tasks/bulk against the same changes made one PATCH /v1/tasks/{key} at a time, on PostgreSQL: the wall
// time of 100 PATCHes sent one after another by one client, and of one bulk call of the same 100 items, each run
// several times (alternating) on the built API. Two mixes: field changes only (title and priority), and the same with
// every other item also moved to another column (`column` in the bulk item, `statusId` in the PATCH).
//   pnpm run build && pnpm run bench:bulk
// Beside the wall time, the CPU time both sides spend (Linux only): the API process's and its PostgreSQL backends',
// summed over the rounds, which a machine shared with other work disturbs less than the wall time.
// Env: BENCH_DATABASE_URL (server to create tt_bench_bulk on; default the local PostgreSQL), BENCH_ROUNDS (5),
// BENCH_ITEMS (100), BENCH_REDIS_URL (share the limiter via Redis), BENCH_KEEP=1 (keep the database afterwards),
// BENCH_ROOT (the built API of another checkout, for a before/after).
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { openDatabase } from '../../packages/store/src/index.ts';
import { benchWorkspace, call, databaseUrl, freshDatabase, startBuiltApi } from './lib.mjs';

const DB = 'tt_bench_bulk';
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const ITEMS = Number(process.env.BENCH_ITEMS ?? 100);

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function timed(fn) {
  const started = performance.now();
  await fn();
  return performance.now() - started;
}

/** CPU ticks (user + system) of each process, by pid; none when /proc cannot be read. */
function ticks(pids) {
  const out = new Map();
  for (const pid of pids) {
    try {
      // The fields after the command's closing parenthesis: utime and stime are the 12th and 13th of them.
      const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
      out.set(pid, Number(fields[11]) + Number(fields[12]));
    } catch {
      // gone, or not Linux
    }
  }
  return out;
}

/**
 * Runs `fn` and answers its CPU milliseconds: the API process and the PostgreSQL backends of the database (read
 * before and after from pg_stat_activity; a backend that appeared meanwhile counts from its start).
 */
async function cpu(api, admin, fn) {
  const backends = async () => (await admin.raw('select pid from pg_stat_activity where datname = ?', [DB])).rows.map((r) => r.pid);
  const before = ticks([api.pid, ...(await backends())]);
  await fn();
  const after = ticks([api.pid, ...(await backends())]);
  let sum = 0;
  for (const [pid, t] of after) sum += t - (before.get(pid) ?? 0);
  return (sum * 1000) / 100;
}

async function main() {
  const drop = await freshDatabase(DB);
  const api = await startBuiltApi(DB, process.env.BENCH_ROOT);
  // On another database of the server: its own backend is not among the API's.
  const admin = openDatabase({ databaseUrl: databaseUrl('postgres'), poolMax: 1 });
  try {
    const { base } = api;
    const { token } = await benchWorkspace(base, 2);
    const project = (await call(base, token, 'POST', '/v1/projects', { name: 'Bulk bench', key: 'BB', template: 'scrum' })).data;
    const columns = project.boards[0].statuses;
    const keys = [];
    for (let i = 0; i < ITEMS; i++) keys.push((await call(base, token, 'POST', '/v1/tasks', { boardId: project.boards[0].id, title: `Bench ${i}` })).data.key);

    const rows = [];
    for (const mix of ['fields', 'fields + column']) {
      const single = [];
      const bulk = [];
      const cpuMs = { single: 0, bulk: 0 };
      for (let round = 0; round < ROUNDS; round++) {
        // Each round changes every task (a change that changes nothing would be cheaper than a real one).
        const change = (i, way) => {
          const moved = mix !== 'fields' && i % 2 === 0 ? columns[(round + 1) % columns.length] : undefined;
          const fields = { title: `Bench ${i} ${way} ${round}`, priority: ['high', 'low'][round % 2] };
          return { fields, moved };
        };
        cpuMs.single += await cpu(api, admin, async () => single.push(await timed(async () => {
          for (let i = 0; i < ITEMS; i++) {
            const { fields, moved } = change(i, 'single');
            await call(base, token, 'PATCH', `/v1/tasks/${keys[i]}`, { ...fields, ...(moved ? { statusId: moved.id } : {}) });
          }
        })));
        cpuMs.bulk += await cpu(api, admin, async () => bulk.push(await timed(async () => {
          const items = keys.map((task, i) => {
            const { fields, moved } = change(i, 'bulk');
            return { task, ...fields, ...(moved ? { column: moved.name } : {}) };
          });
          const answer = await call(base, token, 'POST', '/v1/tasks/bulk', { items });
          if (answer.data.some((r) => r.status !== 200)) throw new Error(`a bulk item failed: ${JSON.stringify(answer.data.find((r) => r.status !== 200))}`);
        })));
      }
      const s = median(single);
      const b = median(bulk);
      const c = { patches: Math.round(cpuMs.single / ROUNDS), bulk: Math.round(cpuMs.bulk / ROUNDS) };
      rows.push({ mix, patches: Math.round(s), bulk: Math.round(b), ratio: (b / s).toFixed(3), cpu: c, cpuRatio: cpuMs.single ? (cpuMs.bulk / cpuMs.single).toFixed(3) : 'n/a' });
      console.log(`  ${mix}: ${ITEMS} PATCHes ${Math.round(s)} ms, one bulk ${Math.round(b)} ms; CPU per round ${c.patches} ms against ${c.bulk} ms`);
    }
    console.log(`\n${ITEMS} PATCHes one after another vs one bulk call of ${ITEMS} items (wall: median of ${ROUNDS} rounds; CPU of the API and its PostgreSQL backends: mean per round; ms)`);
    console.log('| items | PATCHes ms | bulk ms | bulk / PATCHes | PATCHes CPU ms | bulk CPU ms | CPU bulk / PATCHes |\n| --- | ---: | ---: | ---: | ---: | ---: | ---: |');
    for (const r of rows) console.log(`| ${r.mix} | ${r.patches} | ${r.bulk} | ${r.ratio} | ${r.cpu.patches} | ${r.cpu.bulk} | ${r.cpuRatio} |`);
  } finally {
    await admin.destroy();
    await api.stop();
    if (process.env.BENCH_KEEP) console.log(`kept the database ${DB}`);
    else await drop();
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
