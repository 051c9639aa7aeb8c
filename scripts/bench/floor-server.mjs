// The floor: a bare Express + pg server answering GET /v1/tasks/{key}, GET /v1/tasks, POST /v1/tasks and
// PATCH /v1/tasks/{key} the cheapest honest way, on the same database, indexes and triggers: one indexed key lookup
// for auth, then one statement for the answer (the list's exact total counted in the same statement; a create takes
// the project's next number, inserts the task, its labels and its notification job in the outbox, and commits, all
// in one statement). No validation library, logging, rate limit or presenters.
//   DATABASE_URL=... PORT=... node scripts/bench/floor-server.mjs
import { createHash } from 'node:crypto';
import express from 'express';
import pg from 'pg';

pg.types.setTypeParser(20, Number);
pg.types.setTypeParser(1082, (v) => v);
// JIT and parallel workers off, as the API has them: the floor gets every setting that makes the same queries cheaper.
const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 10, options: '-c jit=off -c max_parallel_workers_per_gather=0' });
const app = express();
app.set('query parser', 'simple');

async function auth(req, res) {
  const token = /^Bearer (\S+)$/.exec(req.headers.authorization ?? '')?.[1];
  const hash = createHash('sha256').update(token ?? '').digest('hex');
  const { rows } = await pool.query('select workspace_id, user_id, project_ids from api_keys where token_hash = $1 and revoked_at is null', [hash]);
  if (!rows[0]) res.status(401).json({ error: { code: 'invalid_key' } });
  return rows[0];
}

const TASK = `t.id, t.project_id as "projectId", t.board_id as "boardId", t.status_id as "statusId", t.key, t.title, t.type, t.priority,
  t.assignee_id as "assigneeId", t.assignee_ids as "assigneeIds", t.reporter_id as "reporterId", t.labels, t.due_date as "dueDate",
  t.parent_id as "parentId", t.time_estimate_seconds as "timeEstimateSeconds", t.time_spent_seconds as "timeSpentSeconds",
  t.archived_at as "archivedAt", t.done_at as "doneAt", t.created_at as "createdAt", t.updated_at as "updatedAt",
  s.name as "statusName", s.category as "statusCategory"`;

app.get('/v1/tasks/:key', async (req, res) => {
  const key = await auth(req, res);
  if (!key) return;
  const { rows } = await pool.query(
    `select ${TASK}, t.description_html as description, t.description_text as "descriptionText", t.checklist,
       coalesce((select array_agg(c.id order by c.id) from tasks c where c.parent_id = t.id), '{}') as "subtaskIds",
       coalesce((select json_agg(a order by a.id) from attachments a where a.task_id = t.id), '[]') as attachments,
       coalesce((select json_agg(l order by l.date, l.id) from time_logs l where l.task_id = t.id), '[]') as "timeLogs",
       coalesce((select array_agg(dt.doc_id) from doc_tasks dt where dt.task_id = t.id), '{}') as "docIds",
       (select count(*) from tasks p where p.status_id = t.status_id and p.archived_at is null and (p.rank, p.id) < (t.rank, t.id)) as position
     from tasks t join statuses s on s.id = t.status_id where t.workspace_id = $1 and t.key = $2`,
    [key.workspace_id, req.params.key.toUpperCase()],
  );
  if (!rows[0]) return void res.status(404).json({ error: { code: 'not_found' } });
  res.json({ data: rows[0] });
});

const ORDERS = {
  created: 't.id',
  position: 't.rank, t.id',
  priority: "(case t.priority when 'highest' then 1 when 'high' then 2 when 'medium' then 3 when 'low' then 4 else 5 end), t.id",
  dueDate: "coalesce(t.due_date, '9999-12-31'::date), t.id",
  updated: 't.updated_at desc, t.id desc',
};

app.get('/v1/tasks', async (req, res) => {
  const key = await auth(req, res);
  if (!key) return;
  const q = req.query;
  const args = [key.workspace_id];
  const arg = (v) => `$${args.push(v)}`;
  const where = ['t.workspace_id = $1', q.archived === 'true' ? 't.archived_at is not null' : 't.archived_at is null'];
  if (key.project_ids) where.push(`t.project_id = any(${arg(key.project_ids)})`);
  if (q.projectId) where.push(`t.project_id = ${arg(q.projectId)}`);
  if (q.boardId) where.push(`t.board_id = ${arg(q.boardId)}`);
  if (q.statusId) where.push(`t.status_id = ${arg(q.statusId)}`);
  if (q.category) where.push(`t.status_id in (select cs.id from statuses cs join boards cb on cb.id = cs.board_id where cb.workspace_id = $1 and cs.category = ${arg(q.category)})`);
  if (q.assigneeId) where.push(`t.assignee_ids @> array[${arg(q.assigneeId === 'me' ? key.user_id : q.assigneeId)}]::text[]`);
  if (q.reporterId) where.push(`t.reporter_id = ${arg(q.reporterId)}`);
  if (q.label) where.push(`t.labels @> ${arg(q.label.split(','))}::text[]`);
  if (q.priority) where.push(`t.priority = any(${arg(q.priority.split(','))})`);
  if (q.type) where.push(`t.type = any(${arg(q.type.split(','))})`);
  if (q.updatedSince) where.push(`t.updated_at > ${arg(Number(q.updatedSince))}`);
  if (q.dueBefore) where.push(`t.due_date <= ${arg(q.dueBefore)}`);
  if (q.q) {
    const p = arg(q.q);
    where.push(`(t.search @@ (websearch_to_tsquery('simple', ${p}) || websearch_to_tsquery('english', ${p}) || websearch_to_tsquery('russian', ${p})) or t.key = upper(${p}))`);
  }
  const order = ORDERS[q.orderBy ?? 'created'] ?? 't.id';
  // The spec's default page: 100.
  const limit = arg(Math.min(Number(q.limit ?? 100), 500) + 1);
  const sql = `select c.total, r.* from (select count(*) as total from tasks t where ${where.join(' and ')}) c
    left join lateral (select ${TASK} from tasks t join statuses s on s.id = t.status_id where ${where.join(' and ')} order by ${order} limit ${limit}) r on true`;
  const { rows } = await pool.query(sql, args);
  const data = rows.filter((r) => r.id !== null);
  const more = data.length > Number(args.at(-1)) - 1;
  if (more) data.pop();
  res.json({ data: data.map(({ total: _t, ...t }) => t), nextCursor: more ? data.at(-1).id : null, total: Number(rows[0]?.total ?? 0) });
});

// A create as the schema needs it: the board's project and first column, the project's counter, the task below the
// column's last (the rank index), its labels, and a notification job for its assignees in the outbox (the worker
// delivers it as it does the API's), in one statement that commits on its own. The triggers that keep the counters
// and the search column run as for any insert. Nothing is checked beyond what the foreign keys check.
const CREATE = `with b as (
    select b.project_id, p.key as project_key,
           (select s.id from statuses s where s.board_id = b.id order by s.position limit 1) as status_id
    from boards b join projects p on p.id = b.project_id where b.id = $2 and b.workspace_id = $1),
  seq as (update projects set task_seq = task_seq + 1 where id = (select project_id from b) returning task_seq),
  top as (select rank from tasks where status_id = (select status_id from b) and archived_at is null order by rank desc, id desc limit 1),
  ins as (insert into tasks (id, workspace_id, project_id, board_id, status_id, number, key, title, type, priority, assignee_id,
                             assignee_ids, reporter_id, labels, rank, created_at, updated_at)
          select $3, $1, b.project_id, $2, b.status_id, seq.task_seq, b.project_key || '-' || seq.task_seq, $4, 'task', 'medium', ($5::text[])[1],
                 $5::text[], $6, $7::text[], coalesce((select rank from top), 0) + 1024, $8, $8
          from b, seq returning *),
  lab as (insert into labels (workspace_id, name) select $1, unnest($7::text[]) on conflict (workspace_id, name) do nothing),
  job as (insert into outbox (name, payload, created_at)
          select 'notify.assigned', jsonb_build_object('workspaceId', $1::text, 'taskId', ins.id, 'actorId', $6::text, 'userIds', array_remove($5::text[], $6::text)), $8
          from ins where cardinality(array_remove($5::text[], $6::text)) > 0)
  select ${TASK.replaceAll('t.', 'ins.')}, 0 as position from ins join statuses s on s.id = ins.status_id`;

let seq = 0;
const newId = () => `task_f${Date.now().toString(36)}${process.pid.toString(36)}${(++seq).toString(36).padStart(6, '0')}`;

app.post('/v1/tasks', express.json(), async (req, res) => {
  const key = await auth(req, res);
  if (!key) return;
  const b = req.body ?? {};
  const assignees = Array.isArray(b.assigneeIds) ? b.assigneeIds : [];
  const { rows } = await pool.query(CREATE, [key.workspace_id, b.boardId, newId(), String(b.title), assignees, key.user_id, b.labels ?? [], Date.now()]);
  if (!rows[0]) return void res.status(404).json({ error: { code: 'not_found' } });
  res.status(201).json({ data: rows[0] });
});

// A change of title and priority: one update that moves the version, by key, with the row back.
app.patch('/v1/tasks/:key', express.json(), async (req, res) => {
  const key = await auth(req, res);
  if (!key) return;
  const b = req.body ?? {};
  const { rows } = await pool.query(
    `with u as (update tasks t set title = coalesce($3, t.title), priority = coalesce($4, t.priority), updated_at = $5, version = t.version + 1
                where t.workspace_id = $1 and t.key = $2 and t.archived_at is null returning t.*)
     select ${TASK.replaceAll('t.', 'u.')} from u join statuses s on s.id = u.status_id`,
    [key.workspace_id, req.params.key.toUpperCase(), b.title ?? null, b.priority ?? null, Date.now()],
  );
  if (!rows[0]) return void res.status(404).json({ error: { code: 'not_found' } });
  res.json({ data: rows[0] });
});

// Through the pool, so it answers once the queries queued before it have run (the bench waits on it between turns).
app.get('/ready', async (_req, res) => {
  await pool.query('select 1');
  res.json({ status: 'ready' });
});
app.get('/health', (_req, res) => void res.json({ status: 'ok' }));
app.use((err, _req, res, _next) => void res.status(500).json({ error: { code: 'internal', message: String(err.message) } }));

const server = app.listen(Number(process.env.PORT ?? 3100), '127.0.0.1');
process.on('SIGTERM', () => server.close(() => pool.end().then(() => process.exit(0))));
