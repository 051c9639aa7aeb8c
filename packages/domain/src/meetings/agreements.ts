import { cutWhole, dayOf, type Deps, DomainError, invalid, LINE_BREAK, recordActivity, rejected, type Repos } from '../shared/index.js';
import { type Actor, requireScope, type UserRecord } from '../keys/index.js';
import { usersByName } from '../people/index.js';
import { createTaskIn, type CreateTaskInput, type Task, visibleTasksById } from '../tasks/index.js';
import { visibleMeeting } from './meetings.js';
import type { MeetingSummaryRecord } from './ports.js';
import type { TaskFromAgreementInput } from './schema.js';

export interface AgreementOwner {
  /** The owner as the summary names them. */
  name: string;
  /** The user the name resolved to, when it named exactly one person. */
  userId: string | null;
  /** People the name fits when it fits several (the task is then left unassigned). */
  candidates: Array<{ id: string; login: string; name: string }>;
}

export interface AgreementTask {
  task: Task;
  meetingId: string;
  index: number;
  owner: AgreementOwner;
}

/** The owner of an agreement as a user: a login first, then a full or first name that fits one person. */
async function ownerOf(actor: Actor, owner: string, repos: Repos): Promise<AgreementOwner> {
  const name = owner.trim();
  const result: AgreementOwner = { name: owner, userId: null, candidates: [] };
  if (!name) return result;
  const [byLogin] = (await repos.users.byLogins(actor.workspace.id, [name.replace(/^@/, '').toLowerCase()])).filter((u) => u.deletedAt === null);
  if (byLogin) return { ...result, userId: byLogin.id };
  const match = await usersByName(actor, name, repos);
  if ('user' in match) return { ...result, userId: match.user.id };
  if ('candidates' in match) return { ...result, candidates: match.candidates.map((u: UserRecord) => ({ id: u.id, login: u.login, name: u.name })) };
  return result;
}

const titleOf = (text: string): string => cutWhole(text.split(LINE_BREAK).map((s) => s.trim()).filter(Boolean).join(' '), 500).trim();

/**
 * Makes a task from agreement `index` (0-based, the order of summary.actionItems) of a meeting and records the task
 * on the agreement, in one transaction. The meeting row is locked first, so of two concurrent requests for one
 * agreement the second waits, then sees the first task and is refused with its key: one agreement, one task.
 */
export async function createTaskFromAgreement(
  actor: Actor, meetingId: string, index: number, input: TaskFromAgreementInput, deps: Deps,
): Promise<AgreementTask> {
  requireScope(actor, 'tasks:write');
  requireScope(actor, 'meetings:read');
  const result = await deps.store.transaction(async (repos) => {
    const meeting = await visibleMeeting(actor, meetingId, repos);
    const summary = await repos.meetings.lockSummary(meeting.id);
    const items = summary?.actionItems ?? [];
    const item = items[index];
    if (!summary || !item) {
      const range = items.length ? `it has ${items.length} (index 0 to ${items.length - 1})` : 'it has none';
      throw new DomainError('not_found', `Agreement ${index} of meeting ${meeting.id} not found; ${range}`);
    }
    if (item.taskId) {
      const existing = await repos.tasks.get(actor.workspace.id, { id: item.taskId });
      // A deleted task frees the agreement; a live one, visible or not, holds it.
      if (existing) {
        const shown = (await visibleTasksById(actor, [existing.id], repos)).get(existing.id);
        const which = shown ? `task ${shown.key} (${shown.id})` : 'a task you cannot see';
        throw rejected(`Agreement ${index} of meeting ${meeting.id} already has ${which}; an agreement makes one task`);
      }
    }
    const explicit = input.assigneeIds !== undefined || input.assigneeId !== undefined;
    const owner = explicit ? { name: item.owner, userId: null, candidates: [] } : await ownerOf(actor, item.owner, repos);
    const { title, ...rest } = input;
    const place = input.boardId !== undefined || input.projectId !== undefined ? {} : { projectId: meeting.projectId ?? undefined };
    if (input.boardId === undefined && input.projectId === undefined && meeting.projectId === null) {
      throw invalid('projectId', 'required: the meeting belongs to no project; send projectId or boardId');
    }
    const day = dayOf(meeting.startedAt, actor.workspace.timezone);
    const create: CreateTaskInput = {
      ...rest,
      ...place,
      title: title ?? titleOf(item.text),
      dueDate: input.dueDate !== undefined ? input.dueDate : item.due,
      ...(explicit ? {} : owner.userId ? { assigneeIds: [owner.userId] } : {}),
      ...(input.description === undefined && input.descriptionText === undefined
        ? { descriptionText: `Agreed at the meeting "${meeting.title}" on ${day}: ${item.text}` }
        : {}),
    };
    const task = await createTaskIn(actor, create, repos, deps);
    const next: MeetingSummaryRecord = { ...summary, actionItems: items.map((a, i) => (i === index ? { ...a, taskId: task.id } : a)) };
    await repos.meetings.recordAgreementTask(meeting.id, index, next);
    const subject = { task: { id: task.id, key: task.key, projectId: task.projectId, boardId: task.boardId }, meeting: { id: meeting.id } };
    await recordActivity(repos, deps, actor, actor.workspace.id, subject, 'task.created_from_agreement', [
      { field: 'meeting', from: null, to: { id: meeting.id, title: meeting.title, agreement: index } },
    ]);
    return { task, meetingId: meeting.id, index, owner };
  });
  deps.jobs.notify();
  return result;
}
