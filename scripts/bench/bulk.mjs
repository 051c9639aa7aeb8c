#!/usr/bin/env -S npx tsx
// POST /v1/tasks/bulk against the same changes made one PATCH /v1/tasks/{key} at a time, on PostgreSQL: the wall
// time of 100 PATCHes sent one after another by one client, and of one bulk call of the same 100 items, each run
// several times (alternating) on the built API. Two mixes: field changes only (title and priority), and the same with
// every other item also moved to another column (`column` in the bulk item, `statusId` in the PATCH).
//   pnpm run build && pnpm run bench:bulk
// Env: BENCH_DATABASE_URL (server to create tt_bench_bulk on; default the local PostgreSQL), BENCH_ROUNDS (5),
// BENCH_ITEMS (100), BENCH_REDIS_URL (share the limiter via Redis), BENCH_KEEP=1 (keep the database afterwards).
import { performance } from 'node:perf_hooks';
import { benchWorkspace, call, freshDatabase, startBuiltApi } from './lib.mjs';

const DB = 'tt_bench_bulk';
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const ITEMS = Number(process.env.BENCH_ITEMS ?? 100);

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function timed(fn) {
  const started = performance.now();
  await fn();
  return performance.now() - started;
}

async function main() {
  const drop = await freshDatabase(DB);
  const api = await startBuiltApi(DB);
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
      for (let round = 0; round < ROUNDS; round++) {
        // Each round changes every task (a change that changes nothing would be cheaper than a real one).
        const change = (i, way) => {
          const moved = mix !== 'fields' && i % 2 === 0 ? columns[(round + 1) % columns.length] : undefined;
          const fields = { title: `Bench ${i} ${way} ${round}`, priority: ['high', 'low'][round % 2] };
          return { fields, moved };
        };
        single.push(await timed(async () => {
          for (let i = 0; i < ITEMS; i++) {
            const { fields, moved } = change(i, 'single');
            await call(base, token, 'PATCH', `/v1/tasks/${keys[i]}`, { ...fields, ...(moved ? { statusId: moved.id } : {}) });
          }
        }));
        bulk.push(await timed(async () => {
          const items = keys.map((task, i) => {
            const { fields, moved } = change(i, 'bulk');
            return { task, ...fields, ...(moved ? { column: moved.name } : {}) };
          });
          const answer = await call(base, token, 'POST', '/v1/tasks/bulk', { items });
          if (answer.data.some((r) => r.status !== 200)) throw new Error(`a bulk item failed: ${JSON.stringify(answer.data.find((r) => r.status !== 200))}`);
        }));
      }
      const s = median(single);
      const b = median(bulk);
      rows.push({ mix, patches: Math.round(s), bulk: Math.round(b), ratio: (b / s).toFixed(3) });
      console.log(`  ${mix}: ${ITEMS} PATCHes ${Math.round(s)} ms, one bulk ${Math.round(b)} ms`);
    }
    console.log(`\n${ITEMS} PATCHes one after another vs one bulk call of ${ITEMS} items (median of ${ROUNDS} rounds, ms)`);
    console.log('| items | PATCHes ms | bulk ms | bulk / PATCHes |\n| --- | ---: | ---: | ---: |');
    for (const r of rows) console.log(`| ${r.mix} | ${r.patches} | ${r.bulk} | ${r.ratio} |`);
  } finally {
    await api.stop();
    if (process.env.BENCH_KEEP) console.log(`kept the database ${DB}`);
    else await drop();
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
