#!/usr/bin/env -S npx tsx
// The activity reads at a fixed rate (issue 32's goal: p99 under 20 ms at 100 req/s with 1 000 000 entries): a task's
// history, GET /v1/tasks/{ref}/activity (a random task per request), and the workspace's feed,
// GET /v1/activity?since=<a day ago> and <a week ago>. The built API on PostgreSQL; the entries go in with one
// INSERT ... SELECT over generate_series, spread over the seeded tasks, projects, boards and members, one entry every
// BENCH_ACTIVITY_EVERY_MS going back from now. Open-loop load (scripts/bench/fixed-rate.mjs), its own process.
//   pnpm run build && npx tsx scripts/bench/activity.mjs                      # 1 000 000 entries
//   BENCH_ACTIVITY_ROWS=20000 BENCH_DURATION=5 npx tsx scripts/bench/activity.mjs  # a quick check
// Env: BENCH_ACTIVITY_ROWS (1000000), BENCH_ACTIVITY_EVERY_MS (10000: a day is 8 640 entries), BENCH_TASKS (20000),
// BENCH_RATE (req/s, 100), BENCH_DURATION (s per route, 20), BENCH_WARMUP (s per route, 3), BENCH_CONNECTIONS (10),
// BENCH_KEEP=1 / BENCH_REUSE=1 (keep or reuse the seeded database tt_bench_activity), BENCH_DATABASE_URL, BENCH_NODE_ARGS.
import { fixedRateApart } from './fixed-rate.mjs';
import { call } from './lib.mjs';
import { withSeededApi } from './seed.mjs';

const ROWS = Number(process.env.BENCH_ACTIVITY_ROWS ?? 1_000_000);
const EVERY_MS = Number(process.env.BENCH_ACTIVITY_EVERY_MS ?? 10_000);
const TASKS = Number(process.env.BENCH_TASKS ?? 20_000);
const RATE = Number(process.env.BENCH_RATE ?? 100);
const DURATION = Number(process.env.BENCH_DURATION ?? 20);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 3);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);
const DAY = 86_400_000;
/** The seeded entries' ids: a reused database is recognised (and re-seeded) by them. */
const PREFIX = 'act_bench_';

/**
 * ROWS entries of the workspace's tasks in one statement: entry g is about task g mod tasks, by member g mod members,
 * through REST (most), MCP with an OAuth client, or an automation, and is a field change, a move, a comment or time.
 */
async function seedActivity(db, workspaceId) {
  const [{ n }] = await db('activity').where('id', 'like', `${PREFIX}%`).count({ n: '*' });
  if (Number(n) === ROWS) return console.log(`reusing ${ROWS} seeded activity entries`);
  await db('activity').where('id', 'like', `${PREFIX}%`).delete();
  const started = Date.now();
  const keyId = (await db('api_keys').join('users', 'users.id', 'api_keys.user_id').where('users.workspace_id', workspaceId).first('api_keys.id')).id;
  await db.raw(
    `insert into activity (id, workspace_id, at, actor_id, channel, key_id, client_name, automation_id, project_id, board_id, space_id,
                           task_id, task_key, doc_id, action, changes)
     select :prefix || lpad(g::text, 10, '0'), :ws, :now::bigint - g * :every::bigint, (:users::text[])[1 + g % :nusers],
            (array['rest','rest','rest','mcp','worker'])[1 + g % 5], case when g % 5 = 4 then null else :key end,
            case when g % 5 = 3 then 'Claude' end, null, t.project_id, t.board_id, null, t.id, t.key, null,
            (array['task.updated','task.updated','task.moved','comment.created','time.logged'])[1 + (g / 5) % 5],
            case (g / 5) % 5
              when 2 then '[{"field":"status","from":{"id":"s1","name":"To do"},"to":{"id":"s2","name":"In progress"}}]'
              when 3 then '[{"field":"comment","from":null,"to":{"text":{"characters":42}}}]'
              when 4 then '[{"field":"timeSpentSeconds","from":0,"to":1800}]'
              else '[{"field":"priority","from":"medium","to":"high"}]' end::jsonb
     from generate_series(1, :rows) g
     join (select id, key, project_id, board_id, row_number() over (order by id) - 1 as i from tasks where workspace_id = :ws) t
       on t.i = g % :ntasks`,
    {
      prefix: PREFIX, ws: workspaceId, now: Date.now(), every: EVERY_MS, rows: ROWS, key: keyId,
      users: await db('users').where({ workspace_id: workspaceId }).orderBy('id').pluck('id'),
      nusers: Number((await db('users').where({ workspace_id: workspaceId }).count({ n: '*' }))[0].n),
      ntasks: Number((await db('tasks').where({ workspace_id: workspaceId }).count({ n: '*' }))[0].n),
    },
  );
  // As after seedTasks: planner statistics, the visibility map, and the bulk load's dirty pages written now.
  await db.raw('vacuum analyze activity');
  await db.raw('checkpoint').catch(() => console.log('(no checkpoint: not a superuser)'));
  console.log(`seeded ${ROWS} activity entries in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}

/** One turn of `path()` at RATE req/s; the warm-up turn before it is not reported. */
async function turn(base, token, path) {
  if (WARMUP > 0) await fixedRateApart({ base, token, rate: RATE, duration: WARMUP, connections: CONNECTIONS, path });
  return fixedRateApart({ base, token, rate: RATE, duration: DURATION, connections: CONNECTIONS, path });
}

await withSeededApi('tt_bench_activity', TASKS, async ({ api, db, workspaceId, token }) => {
  await seedActivity(db, workspaceId);
  const keys = await db('tasks').where({ workspace_id: workspaceId }).orderByRaw('random()').limit(1000).pluck('key');
  let k = 0;
  const since = (ms) => encodeURIComponent(new Date(Date.now() - ms).toISOString());
  const routes = [
    ['GET /v1/tasks/{ref}/activity', () => `/v1/tasks/${keys[k++ % keys.length]}/activity?limit=100`],
    ['GET /v1/activity?since=<a day ago>', () => `/v1/activity?since=${since(DAY)}&limit=100`],
    ['GET /v1/activity?since=<a week ago>', () => `/v1/activity?since=${since(7 * DAY)}&limit=100`],
  ];
  const rows = [];
  for (const [name, path] of routes) {
    // What the route answers, for the table: how many entries match and whether the count stopped at its cap.
    const sample = await call(api.base, token, 'GET', path());
    const r = await turn(api.base, token, path);
    rows.push({ name, total: `${sample.total}${sample.totalCapped ? '+' : ''}`, ...r });
    console.log(`  ${name}: ${r.rps.toFixed(1)} req/s, p50 ${r.p50} ms, p99 ${r.p99} ms${r.bad ? `, ${r.bad} FAILED` : ''}`);
  }
  console.log(`\n${ROWS} activity entries (one every ${EVERY_MS / 1000} s), ${TASKS} tasks, ${RATE} req/s for ${DURATION} s per route, ${CONNECTIONS} connections, limit=100`);
  console.log('| route | `total` (its first page) | req/s answered | p50 ms | p99 ms | max ms | failed |\n| --- | ---: | ---: | ---: | ---: | ---: | ---: |');
  for (const r of rows) console.log(`| ${r.name} | ${r.total} | ${r.rps.toFixed(1)} | ${r.p50} | ${r.p99} | ${r.max} | ${r.bad} |`);
  if (rows.some((r) => r.bad > 0)) {
    process.exitCode = 1;
    console.error('some requests failed; see the failed column');
  }
});
