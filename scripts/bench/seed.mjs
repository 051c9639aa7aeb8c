// Bulk seeding for the benchmarks: the layout through the API, the rows through one INSERT ... SELECT each.
import { ADMIN_TOKEN, BENCH_SCOPES, benchWorkspace, call, databaseUrl, finish, freshDatabase, openDatabase, startBuiltApi } from './lib.mjs';

export const PROJECTS = 10;
export const USERS = 50;
const LABELS = ['backend', 'frontend', 'ux', 'infra', 'docs', 'security', 'perf', 'mobile', 'api', 'db'];

/** Ten projects, each with a scrum board and a bugs board: 110 columns. */
export async function seedLayout(base, token, userIds) {
  const columns = [];
  for (let p = 0; p < PROJECTS; p++) {
    const project = (await call(base, token, 'POST', '/v1/projects', { name: `Bench ${p}`, key: `B${p}`, template: 'scrum' })).data;
    const second = (await call(base, token, 'POST', '/v1/boards', { projectId: project.id, name: 'Bugs', template: 'bugs' })).data;
    for (const board of [project.boards[0], second]) {
      for (const s of board.statuses) columns.push({ project_id: project.id, project_key: project.key, board_id: board.id, status_id: s.id, category: s.category });
    }
  }
  await call(base, token, 'POST', '/v1/tasks', { title: 'warm-up', projectId: columns[0].project_id, assigneeIds: [userIds[1]], labels: LABELS });
  return columns;
}

/** 100 000 tasks in one INSERT ... SELECT over generate_series: spread over the columns, users, labels and dates. */
export async function seedTasks(db, workspaceId, userIds, columns, count) {
  const started = Date.now();
  const now = Date.now();
  await db.raw(
    `insert into tasks (id, workspace_id, project_id, board_id, status_id, number, key, title, type, priority, assignee_id, assignee_ids,
                        reporter_id, labels, due_date, parent_id, description_text, description_html, rank, archived_at, done_at, created_at, updated_at)
     select id, :ws, project_id, board_id, status_id, number, project_key || '-' || number, title, type, priority, assignees[1], assignees,
            reporter, labels, due, parent, descr, '<p>' || descr || '</p>', g * 1024.0, archived, case when category = 'done' then created end,
            created, created + (:now::bigint - created) * (g % 30) / 30
     from (
       with bench_columns as (
         select * from json_to_recordset(:cols::json) as x(idx int, project_id text, project_key text, board_id text, status_id text, category text)
       )
       select g, c.*, 'task_0' || lpad(g::text, 11, '0') as id,
              -- numbers continue after the warm-up task of the first project
              row_number() over (partition by c.project_id order by g) + case when c.project_id = (select project_id from bench_columns where idx = 0) then 1 else 0 end as number,
              (array['Fix','Add','Remove','Refactor','Document'])[1 + g % 5] || ' ' || (array['login','billing','search','export','import','sync','report'])[1 + (g / 5) % 7]
                || ' flow ' || g || case when g % 500 = 1 then ' zeppelin' else '' end as title,
              (array['task','task','task','bug','bug','story','epic'])[1 + (g / 3) % 7] as type,
              (array['highest','high','medium','medium','medium','low','lowest'])[1 + (g / 11) % 7] as priority,
              case when g % 10 < 3 then '{}'::text[]
                   when g % 10 < 9 then array[(:users::text[])[1 + (g * 7) % :nusers]]
                   else array[(:users::text[])[1 + (g * 7) % :nusers], (:users::text[])[1 + (g * 13 + 1) % :nusers]] end as assignees,
              (:users::text[])[1 + (g * 3) % :nusers] as reporter,
              case g % 4 when 0 then '{}'::text[]
                         when 1 then array[(:labels::text[])[1 + g % 10]]
                         else array[(:labels::text[])[1 + g % 10], (:labels::text[])[1 + (g / 10) % 10]] end as labels,
              case when g % 2 = 0 then date '2025-01-01' + (g % 700) end as due,
              -- a subtask of a task in the same column, so of the same project
              case when g % 20 = 0 and g > 10 * :ncols then 'task_0' || lpad((g - 5 * :ncols)::text, 11, '0') end as parent,
              'Steps to reproduce case ' || g || case when g % 997 = 0 then ' with a walrus' else '' end as descr,
              case when g % 25 = 0 then :now::bigint - (:n - g)::bigint * 60000 + 86400000 end as archived,
              :now::bigint - (:n - g)::bigint * 60000 as created
       from generate_series(1, :n) g
       join bench_columns c on c.idx = g % :ncols
     ) s`,
    { cols: JSON.stringify(columns.map((c, idx) => ({ idx, ...c }))), ws: workspaceId, users: userIds, nusers: userIds.length, labels: LABELS, now, n: count, ncols: columns.length },
  );
  await db.raw('update projects set task_seq = (select max(number) from tasks where tasks.project_id = projects.id) where workspace_id = ?', [workspaceId]);
  // What autovacuum does in a steady state: planner statistics and an up-to-date visibility map. Then a checkpoint,
  // so the bulk load's dirty pages are written now and not during the measurements (it needs a superuser).
  await db.raw('vacuum analyze');
  await db.raw('checkpoint').catch(() => console.log('(no checkpoint: not a superuser)'));
  console.log(`seeded ${count} tasks in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}


/**
 * A fresh database `name` with the built API on it, a bench workspace, the layout and `tasks` tasks; runs
 * `run({api, db, workspaceId, userIds, token, columns})`, then stops the API and drops the database. With
 * BENCH_REUSE=1 a database kept earlier (BENCH_KEEP=1) that holds the same number of tasks is used as it is, and kept.
 */
export async function withSeededApi(name, tasks, run) {
  const reused = process.env.BENCH_REUSE ? await reusable(name, tasks) : undefined;
  const drop = reused ? async () => {} : await freshDatabase(name);
  if (reused) process.env.BENCH_KEEP = '1';
  let api;
  // No statement timeout: one INSERT ... SELECT of 1 000 000 tasks and its VACUUM ANALYZE take minutes.
  const db = openDatabase({ databaseUrl: databaseUrl(name), poolMax: 2, statementTimeoutMs: 0 });
  try {
    api = await startBuiltApi(name);
    if (reused) {
      await run({ api, db, ...(await reuse(db, api.base)) });
      return;
    }
    const { workspaceId, userIds, token } = await benchWorkspace(api.base, USERS);
    const columns = await seedLayout(api.base, token, userIds);
    await seedTasks(db, workspaceId, userIds, columns, tasks);
    await run({ api, db, workspaceId, userIds, token, columns });
  } finally {
    await finish(api, db, name, drop);
  }
}

/** Whether the kept database `name` holds a bench workspace with `tasks` seeded tasks (plus the warm-up task). */
async function reusable(name, tasks) {
  const db = openDatabase({ databaseUrl: databaseUrl(name), poolMax: 1 });
  try {
    const [row] = await db('tasks').count({ n: '*' });
    if (Number(row.n) === tasks + 1) return true;
    console.log(`${name} holds ${row.n} tasks, not ${tasks + 1}: seeding afresh`);
  } catch {
    console.log(`no ${name} to reuse: seeding`);
  } finally {
    await db.destroy();
  }
  return false;
}

/** The workspace, members, columns (in seeding order: ids are time-ordered) and a new key of a kept database. */
async function reuse(db, base) {
  const admin = await db('users').where({ login: 'bench' }).first();
  const userIds = await db('users').where({ workspace_id: admin.workspace_id }).orderBy('id').pluck('id');
  const columns = await db('statuses')
    .join('boards', 'boards.id', 'statuses.board_id').join('projects', 'projects.id', 'boards.project_id')
    .where('projects.workspace_id', admin.workspace_id)
    .orderBy(['projects.id', 'boards.id', 'statuses.position'])
    .select('projects.id as project_id', 'projects.key as project_key', 'boards.id as board_id', 'statuses.id as status_id', 'statuses.category');
  const token = (await call(base, ADMIN_TOKEN, 'POST', `/admin/v1/users/${admin.id}/keys`, { scopes: BENCH_SCOPES })).data.token;
  console.log(`reusing the kept database: ${columns.length} columns, ${userIds.length} members`);
  return { workspaceId: admin.workspace_id, userIds, token, columns };
}
