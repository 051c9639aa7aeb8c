import { type Deps, type Task, type TaskSummary, type UserRecord, wallClock } from '@tt/domain';
import { fenceLines, fenceTableWithin, plain } from './untrusted.js';

/** Compact Markdown for agents: one line per list item, keys and ids always shown so they can be passed back. */

export type Users = Map<string, UserRecord>;
/** Users' logins by id. */
export type Logins = ReadonlyMap<string, string>;

/** The logins of the users named by ids: what the store has not read before, in one query. */
export async function loginsById(workspaceId: string, ids: Iterable<string | null>, deps: Deps): Promise<Logins> {
  const wanted = [...ids].filter((id): id is string => !!id);
  return wanted.length ? deps.store.users.logins(workspaceId, wanted) : new Map();
}

/** A user's login (server-checked letters, digits, `.`, `-`, `_`: shown outside blocks), or the id of someone unknown. */
export const login = (logins: Logins, id: string): string => {
  const l = logins.get(id);
  return l === undefined ? id : `@${plain(l)}`;
};

/** A person as "Name (@login)": the name is person-written, so this goes inside a block. */
export const person = (users: Users, id: string | null): string => {
  if (!id) return 'nobody';
  const u = users.get(id);
  return u ? `${plain(u.name)} (@${plain(u.login)})` : id;
};

const loginList = (logins: Logins, ids: readonly string[], none: string): string => (ids.length ? ids.map((id) => login(logins, id)).join(', ') : none);

/** Tasks as one table in one block: titles, column names and labels are person-written; a list costs one fence. */
export function taskTable(list: readonly TaskSummary[], logins: Logins): string {
  return taskTableWithin(list, logins, Infinity).text;
}

/** The task table of as many of `list`, from the first, as fit in `room` characters (at least one); how many it kept. */
export function taskTableWithin(list: readonly TaskSummary[], logins: Logins, room: number): { text: string; kept: number } {
  return fenceTableWithin(
    ['Key', 'Title', 'Column', 'Category', 'Priority', 'Type', 'Assignees', 'Labels', 'Due'],
    list.map((t) => [
      `${t.key}${t.archived ? ' (archived)' : ''}`, t.title, t.status.name, t.status.category, t.priority, t.type,
      loginList(logins, t.assigneeIds, 'unassigned'), t.labels.join(', '), t.dueDate ?? '',
    ]),
    room,
  );
}

/** The task after a write: what it is now, at a glance; get_task gives the whole text. */
export function taskCard(t: Task, logins: Logins): string {
  const done = t.checklist.filter((c) => c.done).length;
  return [
    `**${t.key}** (id ${t.id})`,
    `- Column id ${t.statusId} (${t.status.category}), board ${t.boardId}`,
    `- Type: ${t.type}; priority: ${t.priority}`,
    `- Assignees: ${loginList(logins, t.assigneeIds, 'none')}`,
    `- Due date: ${t.dueDate ?? 'none'}; parent: ${t.parentId ?? 'none'}`,
    `- Checklist: ${t.checklist.length ? `${done} of ${t.checklist.length} done` : 'none'}; linked pages: ${t.docIds.length ? t.docIds.join(', ') : 'none'}`,
    fenceLines('names', [`Title: ${t.title}`, `Column: ${t.status.name}`, `Labels: ${t.labels.length ? t.labels.join(', ') : 'none'}`], { id: t.id }),
  ].join('\n');
}

/** Task summary as structured content. */
export const taskData = (t: TaskSummary, logins: Logins) => ({
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
  assignees: t.assigneeIds.map((id) => ({ id, login: logins.get(id) ?? null })),
  labels: t.labels,
  dueDate: t.dueDate,
  parentId: t.parentId,
  updatedAt: t.updatedAt,
});

/** A moment in a text answer: the workspace's wall-clock time with its offset (`2026-11-28 17:06 +01:00`), as everywhere. */
export const when = (ms: number | null, timezone: string): string => (ms === null ? '-' : wallClock(ms, timezone));
