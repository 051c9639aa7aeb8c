import { type ActingAs, type Deps, type FieldChange, recordActivity, type Repos, textMarker } from '../shared/index.js';
import { activityTask } from '../tasks/index.js';
import type { DocRecord } from './ports.js';

/**
 * A page's activity: one entry for the page (created, or its title and content changed: the content as a marker),
 * and one `task.updated` entry for every task the change linked or unlinked (field `docIds`), since a task's
 * history should say that a page about it appeared or went away.
 */
export async function recordDocActivity(
  repos: Repos, deps: Pick<Deps, 'newId' | 'now'>, actor: ActingAs, before: DocRecord | null, after: DocRecord,
): Promise<void> {
  const changes: FieldChange[] = [];
  if (!before || before.title !== after.title) changes.push({ field: 'title', from: before?.title ?? null, to: after.title });
  if (!before || before.contentHtml !== after.contentHtml) {
    changes.push({ field: 'content', from: before ? textMarker(before.text) : null, to: textMarker(after.text) });
  }
  const added = after.taskIds.filter((t) => !(before?.taskIds ?? []).includes(t));
  const removed = (before?.taskIds ?? []).filter((t) => !after.taskIds.includes(t));
  if (added.length || removed.length) changes.push({ field: 'taskIds', from: before?.taskIds ?? [], to: after.taskIds });
  const subject = { doc: { id: after.id, spaceId: after.spaceId } };
  await recordActivity(repos, deps, actor, after.workspaceId, subject, before ? 'doc.updated' : 'doc.created', changes);
  const touched = await repos.tasks.byIds(after.workspaceId, [...added, ...removed]);
  for (const task of touched) {
    const linked = added.includes(task.id);
    const change = { field: 'docIds', from: linked ? null : after.id, to: linked ? after.id : null };
    await recordActivity(repos, deps, actor, task.workspaceId, activityTask(task), 'task.updated', [change]);
  }
}
