import { type Deps, notFound, recordActivity } from '../shared/index.js';
import { activityTask } from './activity.js';
import { assertActive, presentFullTask } from './checks.js';
import { taskEvent } from './events.js';
import { presentAttachment } from './present.js';
import type { Attachment, AttachmentInput, Task } from './schema.js';

/** The operator's task verbs: attachments (metadata), archive and restore. */

export async function addAttachment(taskId: string, input: AttachmentInput, deps: Deps): Promise<Attachment> {
  return deps.store.transaction(async (repos) => {
    const task = await repos.tasks.getAny(taskId);
    if (!task) throw notFound('Task');
    assertActive(task);
    const att = await repos.attachments.insert({ taskId: task.id, ...input });
    await recordActivity(repos, deps, null, task.workspaceId, activityTask(task), 'attachment.added', [{ field: 'attachment', from: null, to: { id: att.id, name: att.name } }]);
    await repos.tasks.update(task.id, { updatedAt: deps.now() });
    return presentAttachment(att);
  });
}

export async function archiveTask(taskId: string, archived: boolean, deps: Deps): Promise<Task> {
  const result = await deps.store.transaction(async (repos) => {
    const task = await repos.tasks.getAny(taskId);
    if (!task) throw notFound('Task');
    const now = deps.now();
    await repos.tasks.update(task.id, { archivedAt: archived ? (task.archivedAt ?? now) : null, updatedAt: now });
    const after = (await repos.tasks.getAny(task.id))!;
    // Only a real change is an event: archiving an archived task sends nothing.
    if ((task.archivedAt !== null) !== archived) await taskEvent(repos, deps, archived ? 'task.archived' : 'task.restored', null, after);
    return presentFullTask(null, after, repos);
  });
  deps.jobs.notify();
  return result;
}
