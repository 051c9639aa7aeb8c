import { type Deps, DomainError, type Repos } from '../shared/index.js';
import { type Actor, requireScope } from '../keys/index.js';
import {
  createTaskIn, type CreateTaskInput, getTask, type Task, updateTask, type UpdateTaskInput, visibleTask,
} from '../tasks/index.js';
import { recordDocActivity } from './activity.js';
import type { DocRecord } from './ports.js';

/**
 * Links between a task and documentation pages, written from the task's side (the page's side is taskIds of
 * POST/PATCH /docs). A link is a change to the page, so it needs docs:write and a page the user may read.
 */

async function readablePages(actor: Actor, ids: readonly string[], repos: Repos, field: string): Promise<DocRecord[]> {
  const out: DocRecord[] = [];
  for (const id of new Set(ids.map((i) => i.trim()))) {
    const doc = await repos.docs.get(actor.workspace.id, id);
    const space = doc ? await repos.docSpaces.get(actor.workspace.id, doc.spaceId) : undefined;
    if (!doc || !space || (space.memberIds !== null && !space.memberIds.includes(actor.user.id))) {
      throw new DomainError('not_found', `${field}: page ${id} not found`);
    }
    out.push(doc);
  }
  return out;
}

/** Links the task to the pages; with `replace`, unlinks the readable pages not named. Logs each page changed. */
async function link(actor: Actor, taskId: string, pages: DocRecord[], replace: boolean, repos: Repos, deps: Deps): Promise<void> {
  const now = deps.now();
  const named = new Set(pages.map((p) => p.id));
  const change = async (doc: DocRecord, taskIds: string[]) => {
    await repos.docs.setTasks(doc.id, taskIds);
    await repos.docs.addLog({ docId: doc.id, userId: actor.user.id, action: 'updated', changes: ['taskIds'], createdAt: now });
    // The page's entry and the task's (docIds), as when the link is made from the page's side.
    await recordDocActivity(repos, deps, actor, doc, { ...doc, taskIds });
  };
  for (const doc of pages) if (!doc.taskIds.includes(taskId)) await change(doc, [...doc.taskIds, taskId]);
  if (!replace) return;
  const linked = await repos.docs.byIds(actor.workspace.id, await repos.docs.linkedToTask(taskId, actor.user.id));
  for (const doc of linked) if (!named.has(doc.id)) await change(doc, doc.taskIds.filter((t) => t !== taskId));
}

/** Creates a task linked to pages, in one transaction: a page that cannot be linked leaves no task behind. */
export async function createTaskWithDocs(actor: Actor, input: CreateTaskInput, docIds: readonly string[], deps: Deps): Promise<Task> {
  requireScope(actor, 'tasks:write');
  if (docIds.length) requireScope(actor, 'docs:write');
  const task = await deps.store.transaction(async (repos) => {
    const pages = await readablePages(actor, docIds, repos, 'docs');
    const created = await createTaskIn(actor, input, repos, deps);
    if (!pages.length) return created;
    await link(actor, created.id, pages, false, repos, deps);
    return { ...created, docIds: [...created.docIds, ...pages.map((p) => p.id)] };
  });
  deps.jobs.notify();
  return task;
}

/** Updates a task and sets its linked pages (the whole list), all or nothing. */
export async function updateTaskWithDocs(
  actor: Actor, ref: string, input: UpdateTaskInput | null, docIds: readonly string[] | undefined, deps: Deps,
): Promise<Task> {
  requireScope(actor, 'tasks:write');
  if (docIds !== undefined) requireScope(actor, 'docs:write');
  // One transaction for the fields and the links: the task update runs as a savepoint inside it, and the relay is
  // woken only after the whole commit.
  const updated = await deps.store.transaction(async (store) => {
    const inner: Deps = { ...deps, store, jobs: { notify: () => undefined } };
    const task = await visibleTask(actor, ref, store);
    const pages = docIds !== undefined ? await readablePages(actor, docIds, store, 'docs') : [];
    if (input && Object.values(input).some((v) => v !== undefined)) await updateTask(actor, task.id, input, inner);
    if (docIds !== undefined) await link(actor, task.id, pages, true, store, deps);
    return getTask(actor, task.id, inner);
  });
  deps.jobs.notify();
  return updated;
}
