import { decodeCursor, type Deps, encodeCursor, type Page, recordActivity, reportPeriod, today, weekday } from '../shared/index.js';
import { type Actor, requireScope } from '../keys/index.js';
import { activityTask, assertActive, filterTaskId, presentTimeLog, taskRefOf, type TimeLog, visibleTask } from '../tasks/index.js';
import { recordEvent } from '../webhooks/index.js';
import type { TimeFilter } from './ports.js';
import type { LogTimeInput, TimeEntriesQuery, TimeReport, TimeReportQuery, TimeReportRow } from './schema.js';

/** Records time on a task for the key's user; the task's timeSpentSeconds grows with it. */
export async function logTime(actor: Actor, ref: string, input: LogTimeInput, deps: Deps): Promise<TimeLog> {
  requireScope(actor, 'time:write');
  const seconds = input.seconds ?? Math.round((input.minutes ?? 0) * 60);
  const result = await deps.store.transaction(async (repos) => {
    const task = await visibleTask(actor, ref, repos);
    assertActive(task);
    const now = deps.now();
    const log = await repos.timeLogs.insert({
      workspaceId: actor.workspace.id, taskId: task.id, projectId: task.projectId, userId: actor.user.id, seconds,
      date: input.date ?? today(actor.workspace.timezone, now), note: input.note, createdAt: now,
    });
    await repos.tasks.update(task.id, { updatedAt: now });
    await recordActivity(repos, deps, actor, task.workspaceId, activityTask(task), 'time.logged', [
      { field: 'timeSpentSeconds', from: task.timeSpentSeconds, to: task.timeSpentSeconds + seconds },
      { field: 'timeLog', from: null, to: { id: log.id, seconds, date: log.date } },
    ]);
    await recordEvent(repos, deps, {
      workspaceId: task.workspaceId, projectId: task.projectId, type: 'time.logged', subject: { task },
      data: () => ({ actorId: actor.user.id, timeLog: presentTimeLog(log), task: taskRefOf(task) }),
    });
    return presentTimeLog(log);
  });
  deps.jobs.notify();
  return result;
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
    taskIds: q.taskId && (await Promise.all(q.taskId.map((ref) => filterTaskId(actor, ref, deps.store)))),
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
  const groups = await deps.store.timeLogs.report(filter, query.groupBy);
  const byDay = query.groupBy.includes('day');
  const keyed = groups.map((g) => {
    const row: TimeReportRow = { seconds: g.seconds, entries: g.entries, hours: hours(g.seconds) };
    for (const key of query.groupBy) {
      if (key === 'user') row.user = { id: g.userId!, name: g.userName ?? '' };
      if (key === 'project') row.project = { id: g.projectId!, key: g.projectKey ?? '', name: g.projectName ?? '' };
      if (key === 'task') row.task = { id: g.taskId!, key: g.taskKey ?? '', title: g.taskTitle ?? '', projectId: g.taskProjectId ?? '' };
      if (key === 'day') row.day = { date: g.day!, weekday: weekday(g.day!) };
    }
    return { row, day: g.day ?? '', tie: `${g.userId ?? ''}|${g.projectId ?? ''}|${g.taskId ?? ''}` };
  });
  keyed.sort((a, b) => {
    if (byDay && a.day !== b.day) return a.day < b.day ? -1 : 1;
    return b.row.seconds - a.row.seconds || (a.tie < b.tie ? -1 : a.tie > b.tie ? 1 : 0);
  });
  const rows = keyed.map((k) => k.row);
  const totalSeconds = groups.reduce((s, g) => s + g.seconds, 0);
  return { from: filter.from, to: filter.to, groupBy: query.groupBy, totalSeconds, totalHours: hours(totalSeconds), data: rows };
}
