import { activity, ACTIVITY_COUNT_CAP, ActivityPage, ActivityQuery, TaskActivityQuery, z } from '@tt/domain';
import { actorOf, type Routes } from '../../http/route.js';

const refParam = z.strictObject({ ref: z.string().min(1).max(100).openapi({ description: 'Task id or key', example: 'WEB-12' }) });
const entryText =
  'An entry: who (`actor`), when (`at`), through what (`via`: channel `rest`, `mcp`, `worker` or `operator`, the key, ' +
  'the OAuth client\'s registered name), which task or page, the `action` and its `changes` (`field`, `from`, `to`; ' +
  `a description or page content as a \`{characters}\` marker). \`total\` is exact up to ${ACTIVITY_COUNT_CAP} matches; beyond, ` +
  `it is ${ACTIVITY_COUNT_CAP} and \`totalCapped\` is true (the count stops there, so a wide period costs no more than a ` +
  'narrow one; page on with `nextCursor` to see every entry).';

/** REST: a task's history and the workspace's activity feed. */
export function activityRoutes(r: Routes): void {
  r.add({
    method: 'get', path: '/tasks/:ref/activity', tag: 'Activity', summary: "A task's history, newest first",
    description: `${entryText} A task the key cannot see is 404.`,
    scope: 'tasks:read', params: refParam, query: TaskActivityQuery, response: ActivityPage,
    handler: ({ req, params, query, deps }) => activity.taskActivity(actorOf(req), params.ref, query, deps),
  });
  r.add({
    method: 'get', path: '/activity', tag: 'Activity', summary: "The workspace's activity, newest first",
    description:
      `${entryText} Filters: \`since\`/\`until\` (a date-time without an offset is read in the workspace's time zone), ` +
      '`projectId` (id or key), `actorId` (id, login or `me`), `taskId` (id or key). Entries of projects outside the ' +
      "key's, of closed boards and of closed doc spaces are left out.",
    scope: 'tasks:read', query: ActivityQuery, response: ActivityPage,
    handler: ({ req, query, deps }) => activity.listActivity(actorOf(req), query, deps),
  });
}
