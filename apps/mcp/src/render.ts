import type { Deps, Task, TaskSummary, UserRecord } from '@tt/domain';

/** Compact Markdown for agents: one line per list item, ids and keys always shown so they can be passed back. */

export type Users = Map<string, UserRecord>;

/** Looks up the users named by ids in one query. */
export async function usersById(workspaceId: string, ids: Iterable<string | null>, deps: Deps): Promise<Users> {
  const wanted = [...new Set([...ids].filter((id): id is string => !!id))];
  const rows = await deps.store.users.byIds(workspaceId, wanted);
  return new Map(rows.map((u) => [u.id, u]));
}

export const login = (users: Users, id: string): string => {
  const u = users.get(id);
  return u ? `@${u.login}` : id;
};

/** One line per task: key, title, column, priority, type, assignees, labels, due date, id. */
export function taskLine(t: TaskSummary, users: Users): string {
  const parts = [`${t.status.name} (${t.status.category})`, t.priority, t.type];
  parts.push(t.assigneeIds.length ? t.assigneeIds.map((id) => login(users, id)).join(', ') : 'unassigned');
  if (t.labels.length) parts.push(`labels: ${t.labels.join(', ')}`);
  if (t.dueDate) parts.push(`due ${t.dueDate}`);
  if (t.archived) parts.push('archived');
  parts.push(`id ${t.id}`);
  return `- **${t.key}** ${t.title} — ${parts.join(' · ')}`;
}

/** The task after a write: what changed is visible at a glance; get_task gives the whole text. */
export function taskCard(t: Task, users: Users): string {
  const done = t.checklist.filter((c) => c.done).length;
  const lines = [
    `**${t.key}** ${t.title}`,
    `- Id: ${t.id}`,
    `- Column: ${t.status.name} (${t.status.category}), column id ${t.statusId}, board ${t.boardId}`,
    `- Type: ${t.type}; priority: ${t.priority}`,
    `- Assignees: ${t.assigneeIds.length ? t.assigneeIds.map((id) => login(users, id)).join(', ') : 'none'}`,
    `- Reporter: ${login(users, t.reporterId)}`,
    `- Labels: ${t.labels.length ? t.labels.join(', ') : 'none'}`,
    `- Due date: ${t.dueDate ?? 'none'}`,
    `- Parent: ${t.parentId ?? 'none'}`,
    `- Checklist: ${t.checklist.length ? `${done} of ${t.checklist.length} done` : 'none'}`,
  ];
  for (const c of t.checklist) lines.push(`  - [${c.done ? 'x' : ' '}] ${c.text}`);
  return lines.join('\n');
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
});
