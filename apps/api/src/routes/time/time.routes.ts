import { envelope, LogTimeInput, paged, time, TimeEntriesQuery, TimeLog, TimeReport, TimeReportQuery, z } from '@tt/domain';
import { actorOf, type Routes } from '../../http/route.js';

const refParam = z.strictObject({ ref: z.string().min(1).max(100).openapi({ description: 'Task id or key', example: 'WEB-12' }) });

export function timeRoutes(r: Routes): void {
  r.add({
    method: 'post', path: '/tasks/:ref/time', tag: 'Time', summary: 'Record time on a task as the key user',
    description: "`minutes` or `seconds`, from 1 minute to 7 days; `date` defaults to today in the workspace's time zone.",
    scope: 'time:write', status: 201, params: refParam, body: LogTimeInput, response: envelope(TimeLog, 'TimeLogResponse'),
    handler: async ({ req, params, body, deps }) => ({ data: await time.logTime(actorOf(req), params.ref, body, deps) }),
  });
  r.add({
    method: 'get', path: '/time/entries', tag: 'Time', summary: 'Time logs, newest first',
    description: 'Period as in the report: default the 1st of the current month to today, at most one year.',
    scope: 'time:read', query: TimeEntriesQuery, response: paged(TimeLog, 'TimeLogPage'),
    handler: ({ req, query, deps }) => time.listEntries(actorOf(req), query, deps),
  });
  r.add({
    method: 'get', path: '/time/report', tag: 'Time', summary: 'Time sums grouped by user, task, project and/or day',
    description:
      'Up to three groupings (default `user`). Period: default the 1st of the current month to today, at most one year. ' +
      'Archived tasks count. Rows are in day order when grouped by day, then the largest sums first. ' +
      'The response is the Time report object itself; its `data` holds the rows.',
    scope: 'time:read', query: TimeReportQuery, response: TimeReport,
    handler: ({ req, query, deps }) => time.report(actorOf(req), query, deps),
  });
}
