import {
  type CutPage, cutPage, decodeCursor, type Deps, encodeCursor, htmlToMarkdown, invalid, missingRef, momentIn, notFound, type Page, type Repos, richText, uncut,
} from '../shared/index.js';
import { type Actor, hasScope, requireScope } from '../keys/index.js';
import { filterTaskId, findVisibleTask, withVisibleTaskIds } from '../tasks/index.js';
import { checkVersion, type Versioned, withoutVersion, type WriteOptions } from '../versions/index.js';
import { recordEvent } from '../webhooks/index.js';
import { recordDocActivity } from './activity.js';
import type { DocRecord, DocSpaceRecord } from './ports.js';
import type {
  CreateDocInput, CreateDocSpaceInput, Doc, DocSpace, DocSummary, ListDocsQuery, UpdateDocInput,
} from './schema.js';

/** The previous text of a page is kept at most once per this period. */
export const VERSION_INTERVAL_MS = 3_600_000;

const presentSpace = (s: DocSpaceRecord): DocSpace => ({ id: s.id, name: s.name, description: s.description });
const presentSummary = (d: DocRecord): DocSummary => ({
  id: d.id, spaceId: d.spaceId, parentId: d.parentId, title: d.title, taskIds: d.taskIds, authorId: d.authorId,
  createdAt: d.createdAt, updatedAt: d.updatedAt,
});

const presentDoc = (d: DocRecord): Doc => ({ ...presentSummary(d), content: d.contentHtml, text: d.text, attachments: [] });
/** A page as answered: links to tasks the key may not see are left out. */
const shownDoc = async (actor: Actor, d: DocRecord, repos: Repos): Promise<Doc> => (await withVisibleTaskIds(actor, [presentDoc(d)], repos))[0]!;

const readable = (actor: Actor, s: DocSpaceRecord): boolean => s.memberIds === null || s.memberIds.includes(actor.user.id);

async function visibleSpace(actor: Actor, id: string, repos: Repos): Promise<DocSpaceRecord | undefined> {
  const space = await repos.docSpaces.get(actor.workspace.id, id);
  return space && readable(actor, space) ? space : undefined;
}

/** A page in a space the user may read, or 404. */
async function visibleDoc(actor: Actor, id: string, repos: Repos): Promise<DocRecord & { path: string }> {
  const doc = await repos.docs.get(actor.workspace.id, id);
  if (!doc || !(await visibleSpace(actor, doc.spaceId, repos))) throw notFound('Page');
  return doc;
}

/**
 * Of pages named by id in another object (a task's history), those the key may open: it reads pages (docs:read) and
 * the page's space is open to the user. Two queries however many ids; missing and closed ones are left out.
 */
export async function readablePageIds(actor: Actor, ids: Iterable<string>, repos: Repos): Promise<Set<string>> {
  const wanted = [...new Set(ids)];
  if (!wanted.length || !hasScope(actor, 'docs:read')) return new Set();
  const pages = await repos.docs.byIds(actor.workspace.id, wanted);
  const spaces = new Set((await repos.docSpaces.listVisible(actor.workspace.id, actor.user.id)).map((s) => s.id));
  return new Set(pages.filter((p) => spaces.has(p.spaceId)).map((p) => p.id));
}

/** Task ids or keys of a write, each a task the actor may see. */
async function linkedTasks(actor: Actor, refs: string[], repos: Repos): Promise<string[]> {
  const ids: string[] = [];
  for (const ref of new Set(refs)) {
    const task = await findVisibleTask(actor, ref, repos);
    if (!task) throw missingRef('body.taskIds', `task ${ref}`);
    ids.push(task.id);
  }
  return [...new Set(ids)];
}

export async function listSpaces(actor: Actor, deps: Deps): Promise<Page<DocSpace>> {
  requireScope(actor, 'docs:read');
  const spaces = await deps.store.docSpaces.listVisible(actor.workspace.id, actor.user.id);
  return { data: spaces.map(presentSpace), nextCursor: null, total: spaces.length };
}

/** Page summaries in tree order: depth first, siblings in creation order. */
export async function listDocs(actor: Actor, query: ListDocsQuery, deps: Deps): Promise<Page<DocSummary>> {
  return uncut(await listDocPage(actor, query, deps));
}

/** listDocs with the cursor after any of its first pages (see CutPage). */
export async function listDocPage(actor: Actor, query: ListDocsQuery, deps: Deps): Promise<CutPage<Page<DocSummary>>> {
  requireScope(actor, 'docs:read');
  // An unknown or invisible task has no visible pages.
  const taskId = query.taskId === undefined ? undefined : await filterTaskId(actor, query.taskId, deps.store);
  const page = await deps.store.docs.list(
    {
      workspaceId: actor.workspace.id, userId: actor.user.id, spaceId: query.spaceId, parentId: query.parentId, taskId,
      q: query.q, updatedSince: momentIn(query.updatedSince, actor.workspace.timezone),
    },
    { limit: query.limit, after: decodeCursor(query.cursor) },
  );
  return cutPage({ data: await withVisibleTaskIds(actor, page.rows.map(presentSummary), deps.store), nextCursor: encodeCursor(page.next), total: page.total }, page);
}

/** A page as shown to the actor, with its version. */
const versionedDoc = async (actor: Actor, d: DocRecord, repos: Repos): Promise<Versioned<Doc>> => ({
  data: await shownDoc(actor, d, repos),
  version: d.version,
});

export async function getDocVersioned(actor: Actor, id: string, deps: Deps): Promise<Versioned<Doc>> {
  requireScope(actor, 'docs:read');
  return versionedDoc(actor, await visibleDoc(actor, id, deps.store), deps.store);
}

export const getDoc = withoutVersion(getDocVersioned);

/** A page as Markdown: its title as a heading, then the content. */
export function pageMarkdown(page: Pick<Doc, 'title' | 'content'>): string {
  return `# ${page.title}\n\n${htmlToMarkdown(page.content)}`.trimEnd() + '\n';
}

export async function getDocMarkdown(actor: Actor, id: string, deps: Deps): Promise<string> {
  return pageMarkdown(await getDoc(actor, id, deps));
}

export async function createDocVersioned(actor: Actor, input: CreateDocInput, deps: Deps): Promise<Versioned<Doc>> {
  requireScope(actor, 'docs:write');
  const result = await deps.store.transaction(async (repos) => {
    const space = await visibleSpace(actor, input.spaceId, repos);
    if (!space) throw missingRef('body.spaceId', `space ${input.spaceId}`);
    let parentPath = space.id;
    if (input.parentId) {
      const parent = await repos.docs.get(actor.workspace.id, input.parentId);
      if (!parent || (parent.spaceId !== space.id && !(await visibleSpace(actor, parent.spaceId, repos)))) {
        throw missingRef('body.parentId', `page ${input.parentId}`);
      }
      if (parent.spaceId !== space.id) throw invalid('body.parentId', `page ${input.parentId} is not a page of space ${space.id}`);
      parentPath = parent.path;
    }
    const content = richText(input.content, input.text) ?? { html: '', text: '' };
    const taskIds = input.taskIds ? await linkedTasks(actor, input.taskIds, repos) : [];
    const id = deps.newId('doc');
    const now = deps.now();
    await repos.docs.insert(
      {
        workspaceId: actor.workspace.id, spaceId: space.id, parentId: input.parentId ?? null, title: input.title,
        contentHtml: content.html, text: content.text, authorId: actor.user.id, createdAt: now, updatedAt: now,
      },
      `${parentPath}/${id}`,
    );
    if (taskIds.length) await repos.docs.setTasks(id, taskIds);
    await repos.versions.bump('task', taskIds); // their docIds changed
    await repos.docs.addLog({ docId: id, userId: actor.user.id, action: 'created', changes: ['title', 'content', ...(taskIds.length ? ['taskIds'] : [])], createdAt: now });
    const created = (await repos.docs.get(actor.workspace.id, id))!;
    await recordDocActivity(repos, deps, actor, null, created);
    // Pages belong to no project: only subscriptions to every project hear of them.
    await recordEvent(repos, deps, {
      workspaceId: actor.workspace.id, projectId: null, type: 'doc.created', subject: { doc: created },
      data: () => ({ actorId: actor.user.id, doc: presentDoc(created) }),
    });
    return versionedDoc(actor, created, repos);
  });
  deps.jobs.notify();
  return result;
}

export const createDoc = withoutVersion(createDocVersioned);

/**
 * Replaces the title and/or the whole content. Before the content changes, the previous text goes to the version
 * history unless a version was saved within the last hour; every change is written to the page's log.
 */
export async function updateDocVersioned(
  actor: Actor, id: string, input: UpdateDocInput, deps: Deps, opts?: WriteOptions,
): Promise<Versioned<Doc>> {
  requireScope(actor, 'docs:write');
  const result = await deps.store.transaction(async (repos) => {
    const doc = await visibleDoc(actor, id, repos);
    await checkVersion(repos, 'doc', doc, `Page ${doc.id}`, opts);
    const content = richText(input.content, input.text);
    const changes: string[] = [];
    if (input.title !== undefined && input.title !== doc.title) changes.push('title');
    if (content && content.html !== doc.contentHtml) changes.push('content');
    let taskIds: string[] | undefined;
    if (input.taskIds !== undefined) {
      taskIds = await linkedTasks(actor, input.taskIds, repos);
      const same = taskIds.length === doc.taskIds.length && taskIds.every((t) => doc.taskIds.includes(t));
      if (!same) changes.push('taskIds');
    }
    if (!changes.length) return versionedDoc(actor, doc, repos);
    const now = deps.now();
    if (changes.includes('content') || changes.includes('title')) {
      const latest = await repos.docs.latestVersion(doc.id);
      if (!latest || now - latest.createdAt >= VERSION_INTERVAL_MS) {
        await repos.docs.addVersion({ docId: doc.id, title: doc.title, contentHtml: doc.contentHtml, text: doc.text, createdAt: now });
      }
    }
    await repos.docs.update(doc.id, {
      ...(changes.includes('title') ? { title: input.title } : {}),
      ...(changes.includes('content') && content ? { contentHtml: content.html, text: content.text } : {}),
      updatedAt: now,
    });
    if (taskIds && changes.includes('taskIds')) {
      await repos.docs.setTasks(doc.id, taskIds);
      // Tasks linked or unlinked show the change in their docIds.
      const kept = new Set(taskIds.filter((t) => doc.taskIds.includes(t)));
      await repos.versions.bump('task', [...taskIds, ...doc.taskIds].filter((t) => !kept.has(t)));
    }
    await repos.docs.addLog({ docId: doc.id, userId: actor.user.id, action: 'updated', changes, createdAt: now });
    const updated = (await repos.docs.get(actor.workspace.id, doc.id))!;
    await recordDocActivity(repos, deps, actor, doc, updated);
    await recordEvent(repos, deps, {
      workspaceId: actor.workspace.id, projectId: null, type: 'doc.updated', subject: { doc: updated },
      data: () => ({ actorId: actor.user.id, doc: presentDoc(updated), changes }),
    });
    return versionedDoc(actor, updated, repos);
  });
  deps.jobs.notify();
  return result;
}

export const updateDoc = withoutVersion(updateDocVersioned);

/** Linked pages for a task's context: those in spaces the user may read, as Markdown. */
export async function docsForTask(actor: Actor, taskId: string, repos: Repos): Promise<Array<{ id: string; title: string; markdown: string }>> {
  const ids = await repos.docs.linkedToTask(taskId, actor.user.id);
  const docs = await repos.docs.byIds(actor.workspace.id, ids);
  return docs.map((d) => ({ id: d.id, title: d.title, markdown: htmlToMarkdown(d.contentHtml) }));
}

/** Operator use case: a documentation space, open (memberIds null) or closed to its members. */
export async function createSpace(workspaceId: string, input: CreateDocSpaceInput, deps: Deps): Promise<DocSpace & { memberIds: string[] | null }> {
  return deps.store.transaction(async (repos) => {
    if (!(await repos.workspaces.get(workspaceId))) throw notFound('Workspace');
    const memberIds = input.memberIds === null ? null : [...new Set(input.memberIds)];
    if (memberIds?.length) {
      const found = new Set((await repos.users.byIds(workspaceId, memberIds)).filter((u) => u.deletedAt === null).map((u) => u.id));
      const missing = memberIds.filter((id) => !found.has(id));
      if (missing.length) throw invalid('body.memberIds', `unknown user ${missing.join(', ')}`);
    }
    const space = await repos.docSpaces.create({ workspaceId, name: input.name, description: input.description, memberIds });
    return { ...presentSpace(space), memberIds: space.memberIds };
  });
}
