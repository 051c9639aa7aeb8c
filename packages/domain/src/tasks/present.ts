import type { AttachmentRecord, TaskDetails, TaskRecord, TaskSummaryRecord, TimeLogRecord } from './ports.js';
import type { Attachment, Task, TaskSummary, TimeLog } from './schema.js';

export function presentTaskSummary(t: TaskSummaryRecord & { position?: number }): TaskSummary {
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
