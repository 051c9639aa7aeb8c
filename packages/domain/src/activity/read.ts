import {
  type ActivityRow, type CutPage, cutPage, decodeCursor, type Deps, encodeCursor, momentIn, type Page, type PageRequest, type PageResult, uncut,
} from '../shared/index.js';
import { type Actor, requireScope } from '../keys/index.js';
import { resolveUser } from '../people/index.js';
import { projectByRef } from '../projects/index.js';
import { filterTaskId, visibleTask } from '../tasks/index.js';
import { presentActivity, presentAudit } from './present.js';
import { type ActivityNarrowing, readActivity } from './visibility.js';
import { ACTIVITY_COUNT_CAP, type ActivityEntry, type ActivityPage, type ActivityQuery, type AuditEntry, type AuditQuery, type TaskActivityQuery } from './schema.js';

const pageOf = (q: { limit: number; cursor?: string | undefined }): PageRequest => ({ limit: q.limit, after: decodeCursor(q.cursor) });
/** An activity list's page: the count stops at ACTIVITY_COUNT_CAP (see there). */
const activityPageOf = (q: { limit: number; cursor?: string | undefined }): PageRequest => ({ ...pageOf(q), countAtMost: ACTIVITY_COUNT_CAP });
const presentPage = (page: PageResult<ActivityRow>): ActivityPage => ({
  data: page.rows.map(presentActivity), nextCursor: encodeCursor(page.next), total: page.total, totalCapped: page.totalCapped ?? false,
});

/** A task's history, newest first; 404 for a task the key cannot see. */
export async function taskActivity(actor: Actor, ref: string, query: TaskActivityQuery, deps: Deps): Promise<ActivityPage> {
  requireScope(actor, 'tasks:read');
  const task = await visibleTask(actor, ref, deps.store);
  return presentPage(await readActivity(actor, { taskId: task.id }, activityPageOf(query), deps));
}

/**
 * The workspace's feed, newest first, narrowed by period, project (id or key), person (id, login or `me`) and task
 * (id or key). An unknown or invisible project is 404 as everywhere; a task the key cannot see matches nothing.
 */
export async function listActivity(actor: Actor, query: ActivityQuery, deps: Deps): Promise<ActivityPage> {
  return uncut(await listActivityPage(actor, query, deps));
}

/** listActivity with the cursor after any of its first entries (see CutPage). */
export async function listActivityPage(actor: Actor, query: ActivityQuery, deps: Deps): Promise<CutPage<ActivityPage>> {
  requireScope(actor, 'tasks:read');
  const tz = actor.workspace.timezone;
  const filter: ActivityNarrowing = { since: momentIn(query.since, tz), until: momentIn(query.until, tz) };
  if (query.projectId !== undefined) filter.projectId = (await projectByRef(actor, query.projectId, deps.store)).id;
  if (query.actorId !== undefined) filter.actorId = await resolveUser(actor, query.actorId, deps.store, { field: 'actorId' });
  if (query.taskId !== undefined) filter.taskId = await filterTaskId(actor, query.taskId, deps.store);
  const page = await readActivity(actor, filter, activityPageOf(query), deps);
  return cutPage(presentPage(page), page);
}

/** The latest `n` entries of a task the caller already found visible (get_task's history section). */
export async function latestTaskActivity(actor: Actor, taskId: string, n: number, deps: Deps): Promise<ActivityEntry[]> {
  const page = await readActivity(actor, { taskId }, { limit: n }, deps);
  return page.rows.map(presentActivity);
}

/** Operator: the audit log, newest first. */
export async function listAudit(query: AuditQuery, deps: Deps): Promise<Page<AuditEntry>> {
  // Without an offset: the named workspace's time zone, else UTC (the operator's log spans workspaces).
  const ws = query.workspaceId === undefined ? undefined : await deps.store.workspaces.get(query.workspaceId);
  const tz = ws?.timezone ?? 'UTC';
  const filter = { workspaceId: query.workspaceId, since: momentIn(query.since, tz), until: momentIn(query.until, tz), action: query.action };
  const page = await deps.store.audit.list(filter, pageOf(query));
  return { data: page.rows.map(presentAudit), nextCursor: encodeCursor(page.next), total: page.total };
}
