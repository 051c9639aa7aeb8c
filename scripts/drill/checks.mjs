// The restore drill's verdicts, apart from the processes so a test can feed them. Each returns a list of failures
// (empty: the check passed). `writes` is what the creates wrote, read by SQL: {tasks: [{id, key}], activity:
// [{id, task_id, task_key}] (task.created entries), outbox: [{id, name, taskId, payload}] (the create's jobs)}.

const NOTIFY = 'notify.assigned';
const AUTOMATIONS = 'automations.task_created';

const ids = (rows) => new Set(rows.map((r) => r.id));
const short = (list, n = 5) => `${list.slice(0, n).join(', ')}${list.length > n ? `, ... (${list.length})` : ''}`;

/**
 * The writes agree with each other: every task has exactly one task.created entry naming its key, exactly one
 * notify.assigned job (each drill task is assigned to someone other than its author) and at most one automations
 * job; no entry or job names a task that is not there.
 */
export function agreement(writes, label) {
  const failures = [];
  const tasks = new Map(writes.tasks.map((t) => [t.id, t.key]));
  const entries = new Map();
  for (const e of writes.activity) {
    if (!tasks.has(e.task_id)) failures.push(`${label}: task.created entry ${e.id} names task ${e.task_id}, which is not there`);
    else if (e.task_key !== tasks.get(e.task_id)) failures.push(`${label}: task.created entry ${e.id} names key ${e.task_key}, the task's is ${tasks.get(e.task_id)}`);
    entries.set(e.task_id, (entries.get(e.task_id) ?? 0) + 1);
  }
  const jobs = new Map();
  for (const j of writes.outbox) {
    if (!tasks.has(j.taskId)) failures.push(`${label}: outbox ${j.name} row ${j.id} names task ${j.taskId}, which is not there`);
    const k = `${j.taskId} ${j.name}`;
    jobs.set(k, (jobs.get(k) ?? 0) + 1);
  }
  for (const [id, key] of tasks) {
    if (entries.get(id) !== 1) failures.push(`${label}: ${key} has ${entries.get(id) ?? 0} task.created entries, not 1`);
    if (jobs.get(`${id} ${NOTIFY}`) !== 1) failures.push(`${label}: ${key} has ${jobs.get(`${id} ${NOTIFY}`) ?? 0} ${NOTIFY} outbox rows, not 1`);
    if ((jobs.get(`${id} ${AUTOMATIONS}`) ?? 0) > 1) failures.push(`${label}: ${key} has ${jobs.get(`${id} ${AUTOMATIONS}`)} ${AUTOMATIONS} outbox rows`);
  }
  return failures;
}

/** Sets of ids: what `want` has that `got` lacks, and what `got` has beyond `want`. */
function sameIds(want, got, label, after = new Map()) {
  const w = ids(want);
  const g = ids(got);
  const missing = [...w].filter((id) => !g.has(id));
  const extra = [...g].filter((id) => !w.has(id));
  const failures = [];
  if (missing.length) failures.push(`${label}: ${missing.length} acknowledged before the moment missing: ${short(missing)}`);
  const late = extra.filter((id) => after.has(id));
  if (late.length) failures.push(`${label}: ${late.length} acknowledged after the moment present: ${short(late.map((id) => after.get(id)))}`);
  if (extra.length > late.length) failures.push(`${label}: ${extra.length - late.length} never acknowledged present: ${short(extra.filter((id) => !after.has(id)))}`);
  return failures;
}

/** The source at the moment holds exactly the creates acknowledged before it, and its writes agree. */
export function compareMoment(before, atMoment) {
  return [...sameIds(before, atMoment.tasks, 'source at the moment'), ...agreement(atMoment, 'source at the moment')];
}

/** Rows compared as they were read (order by id), every field. */
function sameRows(want, got, label) {
  const key = (r) => JSON.stringify(r);
  const w = new Set(want.map(key));
  const g = new Set(got.map(key));
  const missing = want.filter((r) => !g.has(key(r)));
  const extra = got.filter((r) => !w.has(key(r)));
  const failures = [];
  if (missing.length) failures.push(`${label}: ${missing.length} rows of the moment missing or changed: ${short(missing.map((r) => r.id))}`);
  if (extra.length) failures.push(`${label}: ${extra.length} rows not there at the moment: ${short(extra.map((r) => r.id))}`);
  return failures;
}

/**
 * The restored service against the moment: `listed` (REST list of the project's tasks) and the SQL tasks are exactly
 * those acknowledged before it; `gets` (task id -> status of GET /tasks/{key}) 200 for them and 404 for those after
 * it; `activityOf` (task id -> actions of GET /tasks/{key}/activity) holds task.created; the task.created entries
 * and create outbox rows are the moment's, row for row, and agree with the tasks.
 */
export function restoreFailures({ before, after, atMoment, restored, listed, gets, activityOf }) {
  const afterKeys = new Map(after.map((a) => [a.id, a.key]));
  const failures = [
    ...sameIds(before, restored.tasks, 'SQL tasks', afterKeys),
    ...sameIds(before, listed, 'REST GET /v1/tasks', afterKeys),
  ];
  const keys = new Map(restored.tasks.map((t) => [t.id, t.key]));
  const wrongKeys = before.filter((a) => keys.has(a.id) && keys.get(a.id) !== a.key);
  if (wrongKeys.length) failures.push(`SQL tasks: ${wrongKeys.length} with another key than acknowledged: ${short(wrongKeys.map((a) => a.key))}`);
  const notFound = before.filter((a) => gets[a.id] !== 200);
  if (notFound.length) failures.push(`REST GET /v1/tasks/{key}: ${notFound.length} acknowledged before the moment not 200: ${short(notFound.map((a) => `${a.key} ${gets[a.id]}`))}`);
  const found = after.filter((a) => gets[a.id] !== 404);
  if (found.length) failures.push(`REST GET /v1/tasks/{key}: ${found.length} acknowledged after the moment not 404: ${short(found.map((a) => `${a.key} ${gets[a.id]}`))}`);
  for (const [id, actions] of Object.entries(activityOf)) {
    if (!actions.includes('task.created')) failures.push(`REST GET /v1/tasks/${id}/activity: no task.created entry (${actions.join(', ') || 'none'})`);
  }
  failures.push(
    ...sameRows(atMoment.activity, restored.activity, 'SQL activity (task.created)'),
    ...sameRows(atMoment.outbox, restored.outbox, 'SQL outbox (create jobs)'),
    ...agreement(restored, 'restored'),
  );
  return failures;
}
