import type { Knex } from 'knex';
import { type Repos, type TimeFilter, type TimeLogRecord } from '@tt/domain';
import { columnMap } from '../columns.js';
import { dayOrNull, newId, num, pageNewestFirst } from '../util.js';

type Row = Record<string, any>;

/** The time_logs table; the task's key comes from the joined task. */
const TIME_LOG = columnMap<TimeLogRecord>('time_logs', {
  id: 'id', workspaceId: 'workspace_id', taskId: 'task_id', taskKey: { column: 'task_key', readOnly: true }, projectId: 'project_id', userId: 'user_id',
  seconds: { column: 'seconds', read: Number }, date: { column: 'date', read: dayOrNull }, note: 'note', createdAt: { column: 'created_at', read: Number },
});
const TIME_LOG_SELECT = [...TIME_LOG.select(), 'tasks.key as task_key'];

/**
 * Time logs the filter may read: its workspace and period, visible projects, and not of a task on a board closed to
 * the user. No join: the closed boards' tasks are a small anti-join list, so counts stay index scans of time_logs.
 */
function visible(db: Knex, f: TimeFilter, table: 'time_logs' | 'time_daily' = 'time_logs'): Knex.QueryBuilder {
  const hiddenTasks = db('tasks')
    .join('boards', 'boards.id', 'tasks.board_id')
    .select('tasks.id')
    .where('boards.workspace_id', f.workspaceId)
    .whereNotNull('boards.member_ids')
    .whereRaw('not (? = any(boards.member_ids))', [f.userId]);
  const q = db(table)
    .where(`${table}.workspace_id`, f.workspaceId)
    .whereBetween(`${table}.date`, [f.from, f.to])
    .whereNotIn(`${table}.task_id`, hiddenTasks);
  if (f.visibleProjectIds) q.whereIn(`${table}.project_id`, f.visibleProjectIds);
  if (f.userIds?.length) q.whereIn(`${table}.user_id`, f.userIds);
  if (f.projectIds?.length) q.whereIn(`${table}.project_id`, f.projectIds);
  if (f.taskIds?.length) q.whereIn(`${table}.task_id`, f.taskIds);
  return q;
}

const GROUP_COLUMNS = { user: 'time_daily.user_id', project: 'time_daily.project_id', task: 'time_daily.task_id', day: 'time_daily.date' } as const;
const GROUP_KEYS = { user: 'userId', project: 'projectId', task: 'taskId', day: 'day' } as const;

export function timeLogRepo(db: Knex): Repos['timeLogs'] {
  return {
    async insert(input) {
      const id = newId('time');
      await db('time_logs').insert(TIME_LOG.write({ ...input, id }));
      // The task keeps the sum of its logs, so lists show timeSpentSeconds without aggregating.
      await db('tasks').where({ id: input.taskId }).increment('time_spent_seconds', input.seconds);
      const row = await db('time_logs').join('tasks', 'tasks.id', 'time_logs.task_id').where('time_logs.id', id).first(TIME_LOG_SELECT);
      return TIME_LOG.read(row);
    },
    list(f, page) {
      return pageNewestFirst<Row, TimeLogRecord>(visible(db, f), { column: 'time_logs.date', id: 'time_logs.id', value: 'day' }, page, TIME_LOG.read, (q) =>
        q.join('tasks', 'tasks.id', 'time_logs.task_id').select(TIME_LOG_SELECT),
      );
    },
    async report(f, groupBy) {
      // Sums over the daily rollup (time_daily, kept by triggers with every log written), not over every log; then
      // each group is named once: users, projects and tasks joined to the sums.
      const sums = visible(db, f, 'time_daily')
        .select(groupBy.map((g) => db.raw('?? as ??', [GROUP_COLUMNS[g], GROUP_KEYS[g]])))
        .sum({ seconds: 'time_daily.seconds' })
        .sum({ entries: 'time_daily.entries' })
        .groupBy(groupBy.map((g) => GROUP_COLUMNS[g]));
      const q = db.from(sums.as('g')).select('g.*');
      if (groupBy.includes('user')) q.leftJoin('users as u', 'u.id', 'g.userId').select('u.name as userName');
      if (groupBy.includes('project')) q.leftJoin('projects as p', 'p.id', 'g.projectId').select('p.key as projectKey', 'p.name as projectName');
      if (groupBy.includes('task')) {
        q.leftJoin('tasks as t', 't.id', 'g.taskId').select('t.key as taskKey', 't.title as taskTitle', 't.project_id as taskProjectId');
      }
      const rows = (await q) as Row[];
      return rows.map((r) => ({
        ...(r.userId !== undefined ? { userId: r.userId as string, userName: (r.userName as string | null) ?? '' } : {}),
        ...(r.projectId !== undefined ? { projectId: r.projectId as string, projectKey: r.projectKey ?? '', projectName: r.projectName ?? '' } : {}),
        ...(r.taskId !== undefined ? { taskId: r.taskId as string, taskKey: r.taskKey ?? '', taskTitle: r.taskTitle ?? '', taskProjectId: r.taskProjectId ?? '' } : {}),
        ...(r.day !== undefined ? { day: dayOrNull(r.day)! } : {}),
        seconds: num(r.seconds),
        entries: num(r.entries),
      }));
    },
  };
}
