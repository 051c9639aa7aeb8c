#!/usr/bin/env -S npx tsx
// GET /time/report (three groupings) and GET /time/entries against 200 000 time logs on PostgreSQL.
//   pnpm run build && pnpm run bench:time
// Env: as for tasks.mjs, plus BENCH_TIME_LOGS (200000) and BENCH_TASKS (20000 tasks to log time on).
import { get, runScenarios } from './lib.mjs';
import { withSeededApi } from './seed.mjs';

const DB = 'tt_bench_time';
const LOGS = Number(process.env.BENCH_TIME_LOGS ?? 200_000);
const TASKS = Number(process.env.BENCH_TASKS ?? 20_000);

const day = (d) => d.toISOString().slice(0, 10);

/** Time logs over the last 365 days: 50 people, each on their own 400 tasks; the tasks keep the sums of their logs. */
async function seedTimeLogs(db, workspaceId, userIds) {
  const started = Date.now();
  await db.raw(
    `insert into time_logs (id, workspace_id, task_id, project_id, user_id, seconds, date, note, created_at)
     select 'time_0' || lpad(g::text, 11, '0'), :ws, t.id, t.project_id, (:users::text[])[1 + g % :nusers],
            900 * (1 + g % 16), current_date - (g % 365), case when g % 3 = 0 then 'review' else '' end, :now::bigint - (:n - g)
     from generate_series(1, :n) g
     join (select id, project_id, row_number() over (order by id) - 1 as rn from tasks where workspace_id = :ws) t
       -- each person logs on their own 400 tasks, about 11 entries a day
       on t.rn = ((g % :nusers) * 400 + ((g / :nusers) * 37) % 400) % :ntasks`,
    { ws: workspaceId, users: userIds, nusers: userIds.length, now: Date.now(), n: LOGS, ntasks: TASKS + 1 },
  );
  await db.raw(
    `update tasks set time_spent_seconds = s.total
     from (select task_id, sum(seconds) as total from time_logs group by task_id) s where tasks.id = s.task_id`,
  );
  await db.raw('vacuum analyze');
  await db.raw('checkpoint').catch(() => undefined);
  console.log(`seeded ${LOGS} time logs in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}

async function main() {
  await withSeededApi(DB, TASKS, async ({ api, db, workspaceId, userIds, token, columns }) => {
    await seedTimeLogs(db, workspaceId, userIds);

    const today = new Date();
    const yearAgo = day(new Date(today.getTime() - 364 * 86400000));
    const monthAgo = day(new Date(today.getTime() - 30 * 86400000));
    const project = columns[0].project_id;
    // Reports with tens of thousands of groups take about a second each: they run on two connections with a long
    // timeout, so the figures show their latency instead of a queue of timeouts.
    const heavy = { connections: 2, timeout: 120 };
    const one = { connections: 1, timeout: 120 };
    const scenarios = [
      // The year-wide summary a manager asks for: every log of the year, a few hundred groups (1 connection: latency).
      ['report: year, groupBy=user', get(`/time/report?from=${yearAgo}&to=${day(today)}&groupBy=user`), one],
      ['report: year, groupBy=project,user', get(`/time/report?from=${yearAgo}&to=${day(today)}&groupBy=project,user`), one],
      ['report: year, groupBy=project,user,day', get(`/time/report?from=${yearAgo}&to=${day(today)}&groupBy=project,user,day`), heavy],
      ['report: year, groupBy=user,project,task', get(`/time/report?from=${yearAgo}&to=${day(today)}&groupBy=user,project,task`), heavy],
      ['report: year, one project, groupBy=user,day,task', get(`/time/report?from=${yearAgo}&to=${day(today)}&projectId=${project}&groupBy=user,day,task`), heavy],
      ['report: 30 days, groupBy=day,user,project', get(`/time/report?from=${monthAgo}&to=${day(today)}&groupBy=day,user,project`)],
      ['report: year, two people, groupBy=user,project,day', get(`/time/report?from=${yearAgo}&to=${day(today)}&userId=${userIds[3]},${userIds[4]}&groupBy=user,project,day`)],
      ['report: default (this month, by user)', get('/time/report')],
      ['entries: year, first page of 100', get(`/time/entries?from=${yearAgo}&to=${day(today)}`)],
    ];
    await runScenarios(`${LOGS} time logs on ${TASKS} tasks, built API on PostgreSQL`, api.base, token, scenarios);
  });
}

await main();
