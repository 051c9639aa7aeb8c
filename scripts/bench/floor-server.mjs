// The floor: a bare Express + pg server answering GET /v1/tasks/{key}, GET /v1/tasks, POST /v1/tasks (on a board, in
// a project, under a parent), PATCH /v1/tasks/{key}, POST /v1/tasks/{key}/move and POST /v1/tasks/{key}/comments the
// cheapest honest way, on the same database, indexes and triggers: one indexed key lookup for auth, then one statement
// for the answer (the list's exact total counted in the same statement; a write makes its change, its history row in
// `activity` and the outbox job the API queues for it, and commits, all in one statement). No validation library,
// logging, rate limit or presenters.
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
// The spec asks no ETag and no x-powered-by of any answer: Express's default would hash every body it sends.
app.set('etag', false);
app.disable('x-powered-by');

async function auth(req, res) {
  const token = /^Bearer (\S+)$/.exec(req.headers.authorization ?? '')?.[1];
  const hash = createHash('sha256').update(token ?? '').digest('hex');
  const { rows } = await pool.query({ name: 'key', text: 'select id, workspace_id, user_id, project_ids from api_keys where token_hash = $1 and revoked_at is null', values: [hash] });
  if (!rows[0]) res.status(401).json({ error: { code: 'invalid_key' } });
  return rows[0];
}

const TASK = `t.id, t.project_id as "projectId", t.board_id as "boardId", t.status_id as "statusId", t.key, t.title, t.type, t.priority,
  t.assignee_id as "assigneeId", t.assignee_ids as "assigneeIds", t.reporter_id as "reporterId", t.labels, t.due_date as "dueDate",
  t.parent_id as "parentId", t.time_estimate_seconds as "timeEstimateSeconds", t.time_spent_seconds as "timeSpentSeconds",
  t.archived_at as "archivedAt", t.done_at as "doneAt", t.created_at as "createdAt", t.updated_at as "updatedAt",
  s.name as "statusName", s.category as "statusCategory"`;

// The full form as the spec gives it (the summary's fields, the description in both forms, the checklist, subtasks,
// time logs, attachments and linked pages; no position in the column and no ETag, which the spec does not ask of it),
// read from the task row `t` and its column `s`: by key in one prepared statement on the key's index, and as the
// answer of a PATCH or a move, from the changed row, in the statement that changes it.
const FULL = `t.id, t.key, t.project_id, t.board_id, t.status_id, s.name as status_name, s.category as status_category, t.title, t.type,
    t.priority, t.assignee_id, t.assignee_ids, t.reporter_id, t.labels, t.due_date, t.parent_id, t.time_estimate_seconds, t.time_spent_seconds,
    t.archived_at, t.done_at, t.created_at, t.updated_at, t.description_html, t.description_text, t.checklist,
    coalesce((select array_agg(c.id order by c.id) from tasks c where c.parent_id = t.id), '{}') as subtask_ids,
    coalesce((select json_agg(json_build_object('id', l.id, 'taskId', l.task_id, 'taskKey', t.key, 'projectId', l.project_id, 'userId', l.user_id,
      'seconds', l.seconds, 'date', l.date, 'note', l.note) order by l.date, l.id) from time_logs l where l.task_id = t.id), '[]') as time_logs,
    coalesce((select json_agg(json_build_object('id', a.id, 'name', a.name, 'size', a.size, 'type', a.type) order by a.id)
      from attachments a where a.task_id = t.id), '[]') as attachments,
    coalesce((select array_agg(dt.doc_id) from doc_tasks dt where dt.task_id = t.id), '{}') as doc_ids`;
/** FULL read from another alias of the task row (a data-modifying CTE's). */
const fullOf = (alias) => FULL.replace(/\bt\./g, `${alias}.`);
const BY_KEY = `select ${FULL} from tasks t join statuses s on s.id = t.status_id where t.workspace_id = $1 and t.key = $2`;

/** A row of FULL in the spec's shape. */
const fullForm = (t) => ({
  id: t.id, key: t.key, projectId: t.project_id, boardId: t.board_id, statusId: t.status_id, status: { name: t.status_name, category: t.status_category },
  title: t.title, type: t.type, priority: t.priority, assigneeId: t.assignee_id, assigneeIds: t.assignee_ids, reporterId: t.reporter_id,
  labels: t.labels, dueDate: t.due_date, parentId: t.parent_id, timeEstimateSeconds: t.time_estimate_seconds, timeSpentSeconds: t.time_spent_seconds,
  archived: t.archived_at !== null, doneAt: t.done_at, archivedAt: t.archived_at, createdAt: t.created_at, updatedAt: t.updated_at,
  description: t.description_html, descriptionText: t.description_text, checklist: t.checklist, subtaskIds: t.subtask_ids,
  timeLogs: t.time_logs, attachments: t.attachments, docIds: t.doc_ids,
});

app.get('/v1/tasks/:key', async (req, res) => {
  const key = await auth(req, res);
  if (!key) return;
  const { rows: [t] } = await pool.query({ name: 'task-by-key', text: BY_KEY, values: [key.workspace_id, req.params.key.toUpperCase()] });
  if (!t) return void res.status(404).json({ error: { code: 'not_found' } });
  res.json({ data: fullForm(t) });
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

// Every write below is one statement that commits on its own and writes the change's history row into `activity`
// with the columns the API's entry fills (who, through which key, the task's project, board, id and key, the action
// and a JSON diff). Its parameters start the same way: $1 the workspace, $2 the key's user, $3 the key, $4 the time
// and $5 the entry's id.
const ENTRY_COLUMNS = 'id, workspace_id, at, actor_id, channel, key_id, client_name, automation_id, project_id, board_id, space_id, task_id, task_key, doc_id, meeting_id, action, changes';
const entry = (task, action, changes) =>
  `insert into activity (${ENTRY_COLUMNS}) select $5, $1, $4, $2, 'rest', $3, null, null, ${task}.project_id, ${task}.board_id, null, ${task}.id, ${task}.key, null, null, '${action}', ${changes} from ${task}`;
const head = (key, now) => [key.workspace_id, key.user_id, key.id, now, newId('act')];

// A create as the schema needs it: the board's project and first column (for a create by project, the project's
// first board, by id as the API picks it), the project's counter, the task below the column's last (the rank index),
// its labels, its task.created entry, a notification job for its assignees in the outbox (the worker delivers it as
// it does the API's), and for a subtask the parent's version (its subtaskIds changed), in one statement. The triggers
// that keep the counters and the search column run as for any insert. Nothing is checked beyond what the foreign keys
// check. The entry's changes are those the API records: title, column, then the other fields set ($12, made here).
const create = (byProject, withParent) => `with b as (
    select b.id, b.project_id, p.key as project_key, s.id as status_id, s.name as status_name
    from boards b join projects p on p.id = b.project_id
    cross join lateral (select s.id, s.name from statuses s where s.board_id = b.id order by s.position limit 1) s
    where b.workspace_id = $1 and ${byProject ? 'b.project_id = $6 order by b.id limit 1' : 'b.id = $6'}),
  seq as (update projects set task_seq = task_seq + 1 where id = (select project_id from b) returning task_seq),
  top as (select rank from tasks where status_id = (select status_id from b) and archived_at is null order by rank desc, id desc limit 1),
  ins as (insert into tasks (id, workspace_id, project_id, board_id, status_id, number, key, title, type, priority, assignee_id,
                             assignee_ids, reporter_id, labels, parent_id, rank, created_at, updated_at)
          select $7, $1, b.project_id, b.id, b.status_id, seq.task_seq, b.project_key || '-' || seq.task_seq, $8, 'task', 'medium', ($9::text[])[1],
                 $9::text[], $2, $10::text[], $11, coalesce((select rank from top), 0) + 1024, $4, $4
          from b, seq returning *),
  ${withParent ? 'parent as (update tasks set version = version + 1 where id = $11 and workspace_id = $1),' : ''}
  lab as (insert into labels (workspace_id, name) select $1, unnest($10::text[]) on conflict (workspace_id, name) do nothing),
  act as (${entry('ins', 'task.created', `jsonb_build_array(jsonb_build_object('field', 'title', 'from', null, 'to', $8::text),
            jsonb_build_object('field', 'status', 'from', null, 'to', jsonb_build_object('id', (select status_id from b), 'name', (select status_name from b)))) || $12::jsonb`)}),
  job as (insert into outbox (name, payload, created_at)
          select 'notify.assigned', jsonb_build_object('workspaceId', $1::text, 'taskId', ins.id, 'actorId', $2::text, 'userIds', array_remove($9::text[], $2::text)), $4
          from ins where cardinality(array_remove($9::text[], $2::text)) > 0)
  select ${TASK.replaceAll('t.', 'ins.')}, 0 as position from ins join statuses s on s.id = ins.status_id`;
const CREATES = new Map([false, true].flatMap((byProject) => [false, true].map((withParent) => [`${byProject}:${withParent}`, create(byProject, withParent)])));

let seq = 0;
const newId = (prefix) => `${prefix}_f${Date.now().toString(36)}${process.pid.toString(36)}${(++seq).toString(36).padStart(6, '0')}`;

app.post('/v1/tasks', express.json(), async (req, res) => {
  const key = await auth(req, res);
  if (!key) return;
  const b = req.body ?? {};
  const assignees = Array.isArray(b.assigneeIds) ? b.assigneeIds : [];
  const labels = b.labels ?? [];
  const parentId = b.parentId ?? null;
  const changes = [{ field: 'type', from: null, to: 'task' }, { field: 'priority', from: null, to: 'medium' }];
  if (assignees.length) changes.push({ field: 'assigneeIds', from: null, to: assignees });
  if (labels.length) changes.push({ field: 'labels', from: null, to: labels });
  if (parentId) changes.push({ field: 'parentId', from: null, to: parentId });
  const { rows } = await pool.query(CREATES.get(`${!b.boardId}:${Boolean(parentId)}`), [
    ...head(key, Date.now()), b.boardId ?? b.projectId, newId('task'), String(b.title), assignees, labels, parentId, JSON.stringify(changes),
  ]);
  if (!rows[0]) return void res.status(404).json({ error: { code: 'not_found' } });
  res.status(201).json({ data: rows[0] });
});

// A change of title and priority: one update that moves the version, by key, and its task.updated entry holding the
// fields that changed, from and to (the row as it was comes from the statement's snapshot), answering the full form as
// the spec's PATCH does (a move too).
app.patch('/v1/tasks/:key', express.json(), async (req, res) => {
  const key = await auth(req, res);
  if (!key) return;
  const b = req.body ?? {};
  const { rows } = await pool.query(
    `with u as (update tasks t set title = coalesce($7, t.title), priority = coalesce($8, t.priority), updated_at = $4, version = t.version + 1
                from tasks o where o.id = t.id and t.workspace_id = $1 and t.key = $6 and t.archived_at is null
                returning t.*, o.title as old_title, o.priority as old_priority),
          d as (select u.*, (select coalesce(jsonb_agg(jsonb_build_object('field', f, 'from', a, 'to', z)), '[]') from
                  (values ('title', u.old_title, u.title), ('priority', u.old_priority, u.priority)) c(f, a, z) where a is distinct from z) as changes from u),
          act as (${entry('d', 'task.updated', 'd.changes')} where jsonb_array_length(d.changes) > 0)
     select ${fullOf('u')} from u join statuses s on s.id = u.status_id`,
    [...head(key, Date.now()), req.params.key.toUpperCase(), b.title ?? null, b.priority ?? null],
  );
  if (!rows[0]) return void res.status(404).json({ error: { code: 'not_found' } });
  res.json({ data: fullForm(rows[0]) });
});

// A move to the top of a column (the spec's default position 0): the column's first rank by the rank index, the
// status, done_at as the API sets it (kept when the task was already done, now when it becomes done, else cleared),
// the version, and the task.moved entry naming the columns left and entered.
app.post('/v1/tasks/:key/move', express.json(), async (req, res) => {
  const key = await auth(req, res);
  if (!key) return;
  const b = req.body ?? {};
  const { rows } = await pool.query(
    `with s as (select id, name, category from statuses where id = $7),
          top as (select rank from tasks where status_id = $7 and archived_at is null order by rank, id limit 1),
          u as (update tasks t set status_id = s.id, rank = coalesce((select rank from top), 0) - 1024, updated_at = $4, version = t.version + 1,
                  done_at = case when s.category <> 'done' then null when os.category = 'done' then o.done_at else $4 end
                from s, tasks o join statuses os on os.id = o.status_id
                where o.id = t.id and t.workspace_id = $1 and t.key = $6 and t.archived_at is null
                returning t.*, o.status_id as old_status_id, os.name as old_status_name),
          act as (${entry('u', 'task.moved', `case when u.old_status_id = u.status_id then '[]'::jsonb else jsonb_build_array(jsonb_build_object('field', 'status',
                    'from', jsonb_build_object('id', u.old_status_id, 'name', u.old_status_name), 'to', jsonb_build_object('id', u.status_id, 'name', (select name from s)))) end`)})
     select ${fullOf('u')} from u join statuses s on s.id = u.status_id`,
    [...head(key, Date.now()), req.params.key.toUpperCase(), b.statusId],
  );
  if (!rows[0]) return void res.status(404).json({ error: { code: 'not_found' } });
  res.status(201).json({ data: fullForm(rows[0]) });
});

// A comment, as the API writes one without mentions or a reply: the comment, the task's updated_at and version, the
// notify.comment job the worker turns into the inbox notifications (author, assignees, watchers), and the
// comment.created entry (the text as its length, as the API records it).
app.post('/v1/tasks/:key/comments', express.json(), async (req, res) => {
  const key = await auth(req, res);
  if (!key) return;
  const text = String(req.body?.text ?? '');
  const { rows } = await pool.query(
    `with t as (update tasks set updated_at = $4, version = version + 1 where workspace_id = $1 and key = $6 and archived_at is null
                returning id, key, project_id, board_id),
          c as (insert into comments (id, workspace_id, task_id, author_id, text, reply_to, mention_ids, created_at)
                select $7, $1, t.id, $2, $8, null, '{}', $4 from t returning *),
          job as (insert into outbox (name, payload, created_at)
                  select 'notify.comment', jsonb_build_object('workspaceId', $1::text, 'taskId', t.id, 'commentId', $7::text, 'actorId', $2::text), $4 from t),
          act as (${entry('t', 'comment.created', `jsonb_build_array(jsonb_build_object('field', 'comment', 'from', null,
                    'to', jsonb_build_object('id', $7::text, 'replyTo', null, 'text', jsonb_build_object('characters', length($8::text)))))`)})
     select c.id, c.author_id as "authorId", c.text, c.reply_to as "replyTo", c.created_at as "createdAt" from c`,
    [...head(key, Date.now()), req.params.key.toUpperCase(), newId('cmt'), text],
  );
  if (!rows[0]) return void res.status(404).json({ error: { code: 'not_found' } });
  res.status(201).json({ data: rows[0] });
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
