import { requireScope, type Actor } from '../access.js';
import { decodeCursor, encodeCursor } from '../cursor.js';
import type { Deps } from '../deps.js';
import type { Repos, TimeFilter } from '../ports.js';
import { presentTimeLog } from '../presenters.js';
import { reportPeriod, today, weekday } from '../rules/period.js';
import type { Page } from '../schemas/common.js';
import type { TimeLog } from '../schemas/task.js';
import type { LogTimeInput, TimeEntriesQuery, TimeReport, TimeReportQuery, TimeReportRow } from '../schemas/time.js';
import { assertActive, TASK_KEY, visibleTask } from './tasks.js';

/** Records time on a task for the key's user; the task's timeSpentSeconds grows with it. */
export async function logTime(actor: Actor, ref: string, input: LogTimeInput, deps: Deps): Promise<TimeLog> {
  requireScope(actor, 'time:write');
  const seconds = input.seconds ?? Math.round((input.minutes ?? 0) * 60);
  return deps.store.transaction(async (repos) => {
    const task = await visibleTask(actor, ref, repos);
    assertActive(task);
    const now = deps.now();
    const log = await repos.timeLogs.insert({
      workspaceId: actor.workspace.id, taskId: task.id, projectId: task.projectId, userId: actor.user.id, seconds,
      date: input.date ?? today(actor.workspace.timezone, now), note: input.note, createdAt: now,
    });
    await repos.tasks.update(task.id, { updatedAt: now });
    return presentTimeLog(log);
  });
}

/** Task filters accept keys as well as ids; an unknown or invisible task matches nothing. */
async function taskIdsOf(actor: Actor, refs: string[] | undefined, repos: Repos): Promise<string[] | undefined> {
  if (!refs?.length) return undefined;
  const ids = await Promise.all(
    refs.map((ref) => (TASK_KEY.test(ref) ? visibleTask(actor, ref, repos).then((t) => t.id, () => `missing:${ref}`) : ref)),
  );
  return ids;
}

async function filterFor(actor: Actor, q: TimeEntriesQuery | TimeReportQuery, deps: Deps): Promise<TimeFilter> {
  const period = reportPeriod(q.from, q.to, actor.workspace.timezone, deps.now());
  return {
    workspaceId: actor.workspace.id,
    userId: actor.user.id,
    visibleProjectIds: actor.key.projectIds,
    ...period,
    userIds: q.userId?.map((u) => (u === 'me' ? actor.user.id : u)),
    projectIds: q.projectId,
    taskIds: await taskIdsOf(actor, q.taskId, deps.store),
  };
}

/** Individual time logs, newest first. */
export async function listEntries(actor: Actor, query: TimeEntriesQuery, deps: Deps): Promise<Page<TimeLog>> {
  requireScope(actor, 'time:read');
  const filter = await filterFor(actor, query, deps);
  const page = await deps.store.timeLogs.list(filter, { limit: query.limit, after: decodeCursor(query.cursor) });
  return { data: page.rows.map(presentTimeLog), nextCursor: encodeCursor(page.next), total: page.total };
}

const hours = (seconds: number): number => Math.round((seconds / 3600) * 100) / 100;

/**
 * Sums of time grouped by up to three of user, task, project and day. Rows come with days in order when grouped by
 * day, then the largest sums first.
 */
export async function report(actor: Actor, query: TimeReportQuery, deps: Deps): Promise<TimeReport> {
  requireScope(actor, 'time:read');
  const filter = await filterFor(actor, query, deps);
  const repos = deps.store;
  const groups = await repos.timeLogs.report(filter, query.groupBy);
  const uniq = (xs: Array<string | undefined>) => [...new Set(xs.filter((x): x is string => x !== undefined))];
  const [users, projects, tasks] = await Promise.all([
    query.groupBy.includes('user') ? repos.users.byIds(actor.workspace.id, uniq(groups.map((g) => g.userId))) : [],
    query.groupBy.includes('project') ? repos.projects.byIds(actor.workspace.id, uniq(groups.map((g) => g.projectId))) : [],
    query.groupBy.includes('task') ? repos.tasks.byIds(actor.workspace.id, uniq(groups.map((g) => g.taskId))) : [],
  ]);
  const userOf = new Map(users.map((u) => [u.id, u]));
  const projectOf = new Map(projects.map((p) => [p.id, p]));
  const taskOf = new Map(tasks.map((t) => [t.id, t]));
  const rows: TimeReportRow[] = groups.map((g) => {
    const row: TimeReportRow = { seconds: g.seconds, entries: g.entries, hours: hours(g.seconds) };
    for (const key of query.groupBy) {
      if (key === 'user' && g.userId) row.user = { id: g.userId, name: userOf.get(g.userId)?.name ?? '' };
      if (key === 'project' && g.projectId) {
        const p = projectOf.get(g.projectId);
        row.project = { id: g.projectId, key: p?.key ?? '', name: p?.name ?? '' };
      }
      if (key === 'task' && g.taskId) {
        const t = taskOf.get(g.taskId);
        row.task = { id: g.taskId, key: t?.key ?? '', title: t?.title ?? '', projectId: t?.projectId ?? g.projectId ?? '' };
      }
      if (key === 'day' && g.day) row.day = { date: g.day, weekday: weekday(g.day) };
    }
    return row;
  });
  const byDay = query.groupBy.includes('day');
  const tie = (r: TimeReportRow) => `${r.user?.id ?? ''}|${r.project?.id ?? ''}|${r.task?.id ?? ''}`;
  rows.sort((a, b) => {
    if (byDay && a.day!.date !== b.day!.date) return a.day!.date < b.day!.date ? -1 : 1;
    return b.seconds - a.seconds || (tie(a) < tie(b) ? -1 : tie(a) > tie(b) ? 1 : 0);
  });
  const totalSeconds = groups.reduce((s, g) => s + g.seconds, 0);
  return { from: filter.from, to: filter.to, groupBy: query.groupBy, totalSeconds, totalHours: hours(totalSeconds), data: rows };
}
