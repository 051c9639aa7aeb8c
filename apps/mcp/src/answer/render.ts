import type { Deps, Task, TaskSummary, UserRecord } from '@tt/domain';
import { fenceLines, fenceTableWithin, plain } from './untrusted.js';

/** Compact Markdown for agents: one line per list item, keys and ids always shown so they can be passed back. */

export type Users = Map<string, UserRecord>;

/** Looks up the users named by ids in one query. */
export async function usersById(workspaceId: string, ids: Iterable<string | null>, deps: Deps): Promise<Users> {
  const wanted = [...new Set([...ids].filter((id): id is string => !!id))];
  const rows = wanted.length ? await deps.store.users.byIds(workspaceId, wanted) : [];
  return new Map(rows.map((u) => [u.id, u]));
}

/** A user's login (server-checked letters, digits, `.`, `-`, `_`: shown outside blocks), or the id of someone unknown. */
export const login = (users: Users, id: string): string => {
  const u = users.get(id);
  return u ? `@${plain(u.login)}` : id;
};

/** A person as "Name (@login)": the name is person-written, so this goes inside a block. */
export const person = (users: Users, id: string | null): string => {
  if (!id) return 'nobody';
  const u = users.get(id);
  return u ? `${plain(u.name)} (@${plain(u.login)})` : id;
};

const logins = (users: Users, ids: readonly string[], none: string): string => (ids.length ? ids.map((id) => login(users, id)).join(', ') : none);

/** Tasks as one table in one block: titles, column names and labels are person-written; a list costs one fence. */
export function taskTable(list: readonly TaskSummary[], users: Users): string {
  return taskTableWithin(list, users, Infinity).text;
}

/** The task table of as many of `list`, from the first, as fit in `room` characters (at least one); how many it kept. */
export function taskTableWithin(list: readonly TaskSummary[], users: Users, room: number): { text: string; kept: number } {
  return fenceTableWithin(
    ['Key', 'Title', 'Column', 'Category', 'Priority', 'Type', 'Assignees', 'Labels', 'Due'],
    list.map((t) => [
      `${t.key}${t.archived ? ' (archived)' : ''}`, t.title, t.status.name, t.status.category, t.priority, t.type,
      logins(users, t.assigneeIds, 'unassigned'), t.labels.join(', '), t.dueDate ?? '',
    ]),
    room,
  );
}

/** The task after a write: what it is now, at a glance; get_task gives the whole text. */
export function taskCard(t: Task, users: Users): string {
  const done = t.checklist.filter((c) => c.done).length;
  return [
    `**${t.key}** (id ${t.id})`,
    `- Column id ${t.statusId} (${t.status.category}), board ${t.boardId}`,
    `- Type: ${t.type}; priority: ${t.priority}`,
    `- Assignees: ${logins(users, t.assigneeIds, 'none')}`,
    `- Due date: ${t.dueDate ?? 'none'}; parent: ${t.parentId ?? 'none'}`,
    `- Checklist: ${t.checklist.length ? `${done} of ${t.checklist.length} done` : 'none'}; linked pages: ${t.docIds.length ? t.docIds.join(', ') : 'none'}`,
    fenceLines('names', [`Title: ${t.title}`, `Column: ${t.status.name}`, `Labels: ${t.labels.length ? t.labels.join(', ') : 'none'}`], { id: t.id }),
  ].join('\n');
}

/** Task summary as structured content. */
export const taskData = (t: TaskSummary, users: Users) => ({
  id: t.id,
  key: t.key,
  title: t.title,
  projectId: t.projectId,
  boardId: t.boardId,
  statusId: t.statusId,
  status: t.status.name,
  category: t.status.category,
  type: t.type,
  priority: t.priority,
  assignees: t.assigneeIds.map((id) => ({ id, login: users.get(id)?.login ?? null })),
  labels: t.labels,
  dueDate: t.dueDate,
  parentId: t.parentId,
  updatedAt: t.updatedAt,
});

export const when = (ms: number | null): string => (ms === null ? '-' : new Date(ms).toISOString().replace('T', ' ').slice(0, 16) + ' UTC');
