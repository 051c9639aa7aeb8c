import type {
  AttachmentRecord, BoardRecord, CommentRecord, KeyRecord, ProjectRecord, TaskDetails, TaskRecord, TeamRecord,
  TimeLogRecord, UserRecord, WorkspaceRecord,
} from './ports.js';
import type { ApiKey, Team, User, Workspace } from './schemas/company.js';
import type { Board, Project } from './schemas/project.js';
import type { Attachment, Comment, Task, TaskSummary, TimeLog } from './schemas/task.js';

export const presentUser = (u: UserRecord): User => ({
  id: u.id, name: u.name, login: u.login, role: u.role, isAdmin: u.isAdmin, teamIds: u.teamIds,
});
export const presentTeam = (t: TeamRecord): Team => ({
  id: t.id, name: t.name, description: t.description, memberIds: t.memberIds, leadId: t.leadId,
});
export const presentWorkspace = (w: WorkspaceRecord): Workspace => ({
  id: w.id, name: w.name, plan: w.plan, timezone: w.timezone, memberKeysEnabled: w.memberKeysEnabled,
});
export const presentKey = (k: KeyRecord): ApiKey => ({
  id: k.id, userId: k.userId, scopes: k.scopes, projectIds: k.projectIds, expiresAt: k.expiresAt,
  allowedIps: k.allowedIps, createdAt: k.createdAt,
});
export const presentProject = (p: ProjectRecord): Project => ({
  id: p.id, key: p.key, name: p.name, description: p.description, createdAt: p.createdAt,
});
export const presentBoard = (b: BoardRecord): Board => ({
  id: b.id, projectId: b.projectId, name: b.name, description: b.description,
  statuses: b.statuses.map((s) => ({ id: s.id, name: s.name, category: s.category })),
});

export function presentTaskSummary(t: TaskRecord & { position?: number }): TaskSummary {
  const out: TaskSummary = {
    id: t.id, key: t.key, projectId: t.projectId, boardId: t.boardId, statusId: t.statusId,
    status: { name: t.statusName, category: t.statusCategory },
    title: t.title, type: t.type, priority: t.priority, assigneeId: t.assigneeId, assigneeIds: t.assigneeIds,
    reporterId: t.reporterId, labels: t.labels, dueDate: t.dueDate, parentId: t.parentId,
    timeEstimateSeconds: t.timeEstimateSeconds, timeSpentSeconds: t.timeSpentSeconds,
    archived: t.archivedAt !== null, doneAt: t.doneAt, archivedAt: t.archivedAt, createdAt: t.createdAt, updatedAt: t.updatedAt,
  };
  if (t.position !== undefined) out.position = t.position;
  return out;
}

export const presentTimeLog = (l: TimeLogRecord): TimeLog => ({
  id: l.id, taskId: l.taskId, taskKey: l.taskKey, projectId: l.projectId, userId: l.userId, seconds: l.seconds,
  date: l.date, note: l.note, createdAt: l.createdAt,
});
export const presentAttachment = (a: AttachmentRecord): Attachment => ({ id: a.id, name: a.name, size: a.size, type: a.type });

export function presentTask(t: TaskRecord, d: TaskDetails): Task {
  const summary = presentTaskSummary(t);
  if (d.position !== null) summary.position = d.position;
  return {
    ...summary,
    description: t.descriptionHtml,
    descriptionText: t.descriptionText,
    checklist: t.checklist.map((c) => ({ id: c.id, text: c.text, done: c.done })),
    subtaskIds: d.subtaskIds,
    timeLogs: d.timeLogs.map(presentTimeLog),
    attachments: d.attachments.map(presentAttachment),
    docIds: d.docIds,
  };
}

export const presentComment = (c: CommentRecord): Comment => ({
  id: c.id, taskId: c.taskId, authorId: c.authorId, text: c.text, replyTo: c.replyTo, mentionIds: c.mentionIds, createdAt: c.createdAt,
});
