import type { Knex } from 'knex';
import { invalid, type Repos, type TimeFilter, type TimeLogRecord } from '@tt/domain';
import { dayOrNull, newId, num } from '../util.js';

type Row = Record<string, any>;

const timeLog = (r: Row): TimeLogRecord => ({
  id: r.id, workspaceId: r.workspace_id, taskId: r.task_id, taskKey: r.task_key, projectId: r.project_id, userId: r.user_id,
  seconds: Number(r.seconds), date: dayOrNull(r.date)!, note: r.note, createdAt: Number(r.created_at),
});

/** Time logs the filter may read: its workspace and period, visible projects, tasks on boards open to the user. */
function visible(db: Knex, f: TimeFilter): Knex.QueryBuilder {
  const q = db('time_logs')
    .join('tasks', 'tasks.id', 'time_logs.task_id')
    .join('boards', 'boards.id', 'tasks.board_id')
    .where('time_logs.workspace_id', f.workspaceId)
    .whereBetween('time_logs.date', [f.from, f.to])
    .where((w) => w.whereNull('boards.member_ids').orWhereRaw('? = any(boards.member_ids)', [f.userId]));
  if (f.visibleProjectIds) q.whereIn('time_logs.project_id', f.visibleProjectIds);
  if (f.userIds?.length) q.whereIn('time_logs.user_id', f.userIds);
  if (f.projectIds?.length) q.whereIn('time_logs.project_id', f.projectIds);
  if (f.taskIds?.length) q.whereIn('time_logs.task_id', f.taskIds);
  return q;
}

const GROUP_COLUMNS = { user: 'time_logs.user_id', project: 'time_logs.project_id', task: 'time_logs.task_id', day: 'time_logs.date' } as const;
const GROUP_KEYS = { user: 'userId', project: 'projectId', task: 'taskId', day: 'day' } as const;

export function timeLogRepo(db: Knex): Repos['timeLogs'] {
  return {
    async insert(input) {
      const id = newId('time');
      await db('time_logs').insert({
        id, workspace_id: input.workspaceId, task_id: input.taskId, project_id: input.projectId, user_id: input.userId,
        seconds: input.seconds, date: input.date, note: input.note, created_at: input.createdAt,
      });
      // The task keeps the sum of its logs, so lists show timeSpentSeconds without aggregating.
      await db('tasks').where({ id: input.taskId }).increment('time_spent_seconds', input.seconds);
      const row = await db('time_logs').join('tasks', 'tasks.id', 'time_logs.task_id').where('time_logs.id', id).first('time_logs.*', 'tasks.key as task_key');
      return timeLog(row);
    },
    async list(f, page) {
      const base = visible(db, f);
      const rowsQ = base.clone().select('time_logs.*', 'tasks.key as task_key');
      if (page.after !== undefined) {
        const [date, id] = page.after.split('|');
        if (!date || !id || !/^\d{4}-\d{2}-\d{2}$/.test(date)) throw invalid('cursor', 'malformed cursor; pass nextCursor from the previous page');
        rowsQ.whereRaw('(time_logs.date, time_logs.id) < (?::date, ?)', [date, id]);
      }
      const [rows, countRow] = await Promise.all([
        rowsQ.orderBy([{ column: 'time_logs.date', order: 'desc' }, { column: 'time_logs.id', order: 'desc' }]).limit(page.limit + 1) as Promise<Row[]>,
        base.clone().count({ n: '*' }).first(),
      ]);
      const more = rows.length > page.limit;
      const kept = (more ? rows.slice(0, page.limit) : rows).map(timeLog);
      const last = kept[kept.length - 1];
      return { rows: kept, next: more && last ? `${last.date}|${last.id}` : null, total: num(countRow?.n) };
    },
    async report(f, groupBy) {
      const cols = groupBy.map((g) => GROUP_COLUMNS[g]);
      const q = visible(db, f)
        .select(groupBy.map((g) => db.raw('?? as ??', [GROUP_COLUMNS[g], GROUP_KEYS[g]])))
        .sum({ seconds: 'time_logs.seconds' })
        .count({ entries: '*' })
        .groupBy(cols);
      const rows = (await q) as Row[];
      return rows.map((r) => ({
        ...(r.userId !== undefined ? { userId: r.userId as string } : {}),
        ...(r.projectId !== undefined ? { projectId: r.projectId as string } : {}),
        ...(r.taskId !== undefined ? { taskId: r.taskId as string } : {}),
        ...(r.day !== undefined ? { day: dayOrNull(r.day)! } : {}),
        seconds: num(r.seconds),
        entries: num(r.entries),
      }));
    },
  };
}
