#!/usr/bin/env -S npx tsx
// GET /tasks, GET /tasks/{key} and POST /tasks against 100 000 tasks on PostgreSQL.
//   pnpm run build && pnpm run bench:tasks
// Env: BENCH_DATABASE_URL (server to create tt_bench on; default the local PostgreSQL), BENCH_TASKS (100000),
// BENCH_DURATION (seconds per scenario, 10), BENCH_CONNECTIONS (10), BENCH_REDIS_URL (share the limiter via Redis),
// BENCH_KEEP=1 (keep tt_bench afterwards to look at plans).
import { get, runScenarios } from './lib.mjs';
import { PROJECTS, USERS, withSeededApi } from './seed.mjs';

const DB = 'tt_bench';
const TASKS = Number(process.env.BENCH_TASKS ?? 100_000);

async function main() {
  await withSeededApi(DB, TASKS, async ({ api, db, workspaceId, userIds, token, columns }) => {

    const project = columns[20].project_id;
    const column = columns[3].status_id;
    const since = Date.now() - 86400000;
    const keys = (await db('tasks').where({ workspace_id: workspaceId }).orderByRaw('random()').limit(1000).pluck('key'));
    let k = 0;
    const scenarios = [
      ['GET /tasks (first page of 100, no filter)', get('/tasks')],
      ['GET /tasks?projectId', get(`/tasks?projectId=${project}`)],
      ['GET /tasks?assigneeId&category=progress', get(`/tasks?assigneeId=${userIds[7]}&category=progress`)],
      ['GET /tasks?label=a,b&priority=high,highest', get('/tasks?label=backend,ux&priority=high,highest')],
      ['GET /tasks?q=zeppelin', get('/tasks?q=zeppelin')],
      ['GET /tasks?updatedSince (last 24 h)', get(`/tasks?updatedSince=${since}`)],
      ['GET /tasks?statusId&orderBy=position', get(`/tasks?statusId=${column}&orderBy=position&limit=50`)],
      ['GET /tasks?limit=500', get('/tasks?limit=500')],
      ['GET /tasks/{key}', { method: 'GET', setupRequest: (req) => ({ ...req, path: `/v1/tasks/${keys[k++ % keys.length]}` }) }],
      [
        'POST /tasks',
        {
          method: 'POST', path: '/v1/tasks',
          setupRequest: (req) => ({
            ...req,
            body: JSON.stringify({ title: `Bench ${k++}`, boardId: columns[(k % PROJECTS) * 11].board_id, assigneeIds: [userIds[k % USERS]], labels: ['perf'] }),
          }),
        },
      ],
    ];
    await runScenarios(`${TASKS} tasks, built API on PostgreSQL${process.env.BENCH_REDIS_URL ? ' + Redis' : ''}`, api.base, token, scenarios);
  });
}

await main();
