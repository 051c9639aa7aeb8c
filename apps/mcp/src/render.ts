import type { Deps, Task, TaskSummary, UserRecord } from '@tt/domain';
import { fenceInline, plain } from './untrusted.js';

/** Compact Markdown for agents: one line per list item, keys and ids always shown so they can be passed back. */

export type Users = Map<string, UserRecord>;

/** Looks up the users named by ids in one query. */
export async function usersById(workspaceId: string, ids: Iterable<string | null>, deps: Deps): Promise<Users> {
  const wanted = [...new Set([...ids].filter((id): id is string => !!id))];
  const rows = wanted.length ? await deps.store.users.byIds(workspaceId, wanted) : [];
  return new Map(rows.map((u) => [u.id, u]));
}

export const login = (users: Users, id: string): string => {
  const u = users.get(id);
  return u ? `@${plain(u.login)}` : id;
};

/** A person as "Name (@login)". */
export const person = (users: Users, id: string | null): string => {
  if (!id) return 'nobody';
  const u = users.get(id);
  return u ? `${plain(u.name)} (@${plain(u.login)})` : id;
};

const labelList = (labels: string[]): string => labels.map((l) => plain(l)).join(', ');

/** One line per task: key, fenced title, column, priority, type, assignees, labels, due date. */
export function taskLine(t: TaskSummary, users: Users): string {
  const parts = [`${plain(t.status.name)} (${t.status.category})`, t.priority, t.type];
  parts.push(t.assigneeIds.length ? t.assigneeIds.map((id) => login(users, id)).join(', ') : 'unassigned');
  if (t.labels.length) parts.push(`labels: ${labelList(t.labels)}`);
  if (t.dueDate) parts.push(`due ${t.dueDate}`);
  if (t.archived) parts.push('archived');
  return `- **${t.key}** ${fenceInline('title', t.title, { id: t.id })} — ${parts.join(' · ')}`;
}

/** The task after a write: what it is now, at a glance; get_task gives the whole text. */
export function taskCard(t: Task, users: Users): string {
  const done = t.checklist.filter((c) => c.done).length;
  return [
    `**${t.key}** (id ${t.id}) ${fenceInline('title', t.title, { id: t.id })}`,
    `- Column: ${plain(t.status.name)} (${t.status.category}), column id ${t.statusId}, board ${t.boardId}`,
    `- Type: ${t.type}; priority: ${t.priority}`,
    `- Assignees: ${t.assigneeIds.length ? t.assigneeIds.map((id) => login(users, id)).join(', ') : 'none'}`,
    `- Labels: ${t.labels.length ? labelList(t.labels) : 'none'}; due date: ${t.dueDate ?? 'none'}; parent: ${t.parentId ?? 'none'}`,
    `- Checklist: ${t.checklist.length ? `${done} of ${t.checklist.length} done` : 'none'}; linked pages: ${t.docIds.length ? t.docIds.join(', ') : 'none'}`,
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
