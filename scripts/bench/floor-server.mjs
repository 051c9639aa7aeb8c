// The floor: a bare Express + pg server answering GET /v1/tasks/{key} and GET /v1/tasks the cheapest honest way,
// on the same database and indexes: one indexed key lookup for auth, then one indexed query for the answer (the
// list's exact total counted in the same statement). No validation library, logging, rate limit or presenters.
//   DATABASE_URL=... PORT=... node scripts/bench/floor-server.mjs
import { createHash } from 'node:crypto';
import express from 'express';
import pg from 'pg';

pg.types.setTypeParser(20, Number);
pg.types.setTypeParser(1082, (v) => v);
// JIT off, as the API has it: the floor gets every setting that makes the same queries cheaper.
const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 10, options: '-c jit=off' });
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
  if (q.assigneeId) where.push(`t.assignee_ids @> array[${arg(q.assigneeId)}]::text[]`);
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
  const order = q.orderBy === 'position' ? 't.rank, t.id' : 't.id';
  const limit = arg(Math.min(Number(q.limit ?? 50), 500) + 1);
  const sql = `select c.total, r.* from (select count(*) as total from tasks t where ${where.join(' and ')}) c
    left join lateral (select ${TASK} from tasks t join statuses s on s.id = t.status_id where ${where.join(' and ')} order by ${order} limit ${limit}) r on true`;
  const { rows } = await pool.query(sql, args);
  const data = rows.filter((r) => r.id !== null);
  const more = data.length > Number(args.at(-1)) - 1;
  if (more) data.pop();
  res.json({ data: data.map(({ total: _t, ...t }) => t), nextCursor: more ? data.at(-1).id : null, total: Number(rows[0]?.total ?? 0) });
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
