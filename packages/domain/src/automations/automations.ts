import {
  type Deps, type DomainError, invalid, isDomainError, type JobPayload, notFound, rejected, type Repos, type Store,
} from '../shared/index.js';
import { addComment } from '../comments/index.js';
import { type Actor, canSeeBoard, SCOPES } from '../keys/index.js';
import type { BoardRecord } from '../projects/index.js';
import { moveTask, taskChangeEvents, updateTask } from '../tasks/index.js';
import type { AutomationRecord } from './ports.js';
import type { Automation, AutomationAction, CreateAutomationInput } from './schema.js';

export const presentAutomation = (a: AutomationRecord): Automation => ({
  id: a.id, boardId: a.boardId, trigger: a.trigger, statusId: a.statusId, actions: a.actions, ownerId: a.ownerId, createdAt: a.createdAt,
});

async function boardOr404(boardId: string, deps: Deps): Promise<BoardRecord> {
  const board = await deps.store.boards.get(null, boardId);
  if (!board) throw notFound('Board');
  return board;
}

function columnCheck(board: BoardRecord, statusId: string, field: string): void {
  if (!board.statuses.some((s) => s.id === statusId)) throw invalid(field, `column ${statusId} is not on board ${board.id} (${board.name})`);
}

/**
 * Operator: adds a rule to a board. It acts as `ownerId` (default: the workspace's earliest admin), who must be a
 * live member able to see the board; columns and users named by the actions are checked now and again when it runs.
 */
export async function createAutomation(boardId: string, input: CreateAutomationInput, deps: Deps): Promise<Automation> {
  const board = await boardOr404(boardId, deps);
  if (input.statusId) columnCheck(board, input.statusId, 'statusId');
  for (const [i, action] of input.actions.entries()) {
    if (action.type === 'move') columnCheck(board, action.statusId, `actions.${i}.statusId`);
    if (action.type === 'assign') {
      const ids = [...new Set(action.userIds)];
      const live = new Set((await deps.store.users.byIds(board.workspaceId, ids)).filter((u) => u.deletedAt === null).map((u) => u.id));
      const missing = ids.filter((id) => !live.has(id));
      if (missing.length) throw invalid(`actions.${i}.userIds`, `unknown user ${missing.join(', ')}`);
    }
  }
  let owner;
  if (input.ownerId !== undefined) {
    owner = await deps.store.users.get(board.workspaceId, input.ownerId);
    if (!owner || owner.deletedAt !== null) throw invalid('ownerId', `unknown user ${input.ownerId}`);
  } else {
    owner = await deps.store.automations.firstAdmin(board.workspaceId);
    if (!owner) throw rejected('The workspace has no admin to own the rule; send ownerId');
  }
  if (board.memberIds !== null && !board.memberIds.includes(owner.id)) {
    throw rejected(`The owner ${owner.login} cannot see board ${board.name}; give them access or choose another owner`);
  }
  const rule = await deps.store.automations.create({
    workspaceId: board.workspaceId, boardId: board.id, ownerId: owner.id, trigger: input.trigger, statusId: input.statusId ?? null,
    actions: input.actions, createdAt: deps.now(),
  });
  return presentAutomation(rule);
}

export async function listAutomations(boardId: string, deps: Deps): Promise<Automation[]> {
  const board = await boardOr404(boardId, deps);
  return (await deps.store.automations.list(board.id)).map(presentAutomation);
}

export async function deleteAutomation(id: string, deps: Deps): Promise<void> {
  if (!(await deps.store.automations.delete(id))) throw notFound('Automation');
}

/** How one rule went on one task. */
export interface RuleOutcome {
  ruleId: string;
  result: 'applied' | 'already_applied' | 'skipped';
  reason?: string;
}

/** A store whose "transaction" is the one already open, so use cases called inside join it. */
const joined = (repos: Repos): Store => ({ ...repos, transaction: (fn) => fn(joined(repos)) });

/** The rule's owner as an actor with every right on every project: the owner's own permissions still apply. */
async function ownerActor(rule: AutomationRecord, repos: Repos): Promise<Actor | undefined> {
  // One after the other: these repos are bound to a transaction, which is one connection.
  const workspace = await repos.workspaces.get(rule.workspaceId);
  const user = await repos.users.get(rule.workspaceId, rule.ownerId);
  if (!workspace || !user || user.deletedAt !== null) return undefined;
  const via = { channel: 'worker' as const, keyId: null, clientName: null, automationId: rule.id };
  return { workspace, user, key: { id: `automation:${rule.id}`, scopes: [...SCOPES], projectIds: null }, via };
}

async function apply(actor: Actor, taskId: string, action: AutomationAction, deps: Deps, repos: Repos): Promise<void> {
  const task = await repos.tasks.getAny(taskId);
  if (!task) throw notFound('Task');
  switch (action.type) {
    case 'assign': {
      const live = (await repos.users.byIds(task.workspaceId, action.userIds)).filter((u) => u.deletedAt === null).map((u) => u.id);
      const ids = [...new Set([...task.assigneeIds, ...live])];
      if (ids.length !== task.assigneeIds.length) await updateTask(actor, task.id, { assigneeIds: ids }, deps);
      return;
    }
    case 'add_labels':
      await updateTask(actor, task.id, { labels: [...new Set([...task.labels, ...action.labels])] }, deps);
      return;
    case 'set_priority':
      await updateTask(actor, task.id, { priority: action.priority }, deps);
      return;
    case 'move':
      await moveTask(actor, task.id, { statusId: action.statusId, position: 0 }, deps);
      return;
    case 'add_checklist': {
      // Appended as is: existing items keep their ids (a checklist write through updateTask would renumber them).
      const items = action.items.map((i) => ({ id: deps.newId('chk'), text: i.text, done: i.done }));
      await repos.tasks.update(task.id, { checklist: [...task.checklist, ...items], updatedAt: deps.now() });
      await taskChangeEvents(repos, deps, actor, task, (await repos.tasks.getAny(task.id)) ?? task);
      return;
    }
    case 'comment':
      await addComment(actor, task.id, { text: action.text, replyTo: null }, deps);
      return;
  }
}

/** Runs one rule on one task in one transaction: all of its actions or none, and at most once per (rule, task). */
async function runRule(rule: AutomationRecord, taskId: string, deps: Deps): Promise<RuleOutcome> {
  return deps.store.transaction(async (repos) => {
    if (!(await repos.automations.claimRun(rule.id, taskId, deps.now()))) return { ruleId: rule.id, result: 'already_applied' };
    const task = await repos.tasks.getAny(taskId);
    if (!task) return { ruleId: rule.id, result: 'skipped', reason: 'task deleted' };
    if (task.archivedAt !== null) return { ruleId: rule.id, result: 'skipped', reason: 'task archived' };
    const actor = await ownerActor(rule, repos);
    if (!actor) return { ruleId: rule.id, result: 'skipped', reason: 'owner deleted' };
    const board = await repos.boards.get(task.workspaceId, task.boardId);
    if (!board || !canSeeBoard(actor, board)) return { ruleId: rule.id, result: 'skipped', reason: 'owner cannot see the board' };
    // Notifications the actions queue commit with them; the caller wakes the relay once after all rules.
    const inner: Deps = { ...deps, store: joined(repos), jobs: { notify: () => undefined } };
    for (const action of rule.actions) await apply(actor, task.id, action, inner, repos);
    return { ruleId: rule.id, result: 'applied' };
  });
}

/**
 * Job `automations.task_created`: the board's rules for the column the task was created in run in creation order,
 * each as its owner. Changes made here never queue automations (only task creation does), so rules cannot loop.
 * A rule refused by a business rule (archived task, a column gone, ...) is rolled back and skipped; other failures
 * throw so the job is retried, and rules that already ran are not run again.
 */
export async function runTaskCreated(p: JobPayload<'automations.task_created'>, deps: Deps): Promise<RuleOutcome[]> {
  const task = await deps.store.tasks.getAny(p.taskId);
  if (!task || task.workspaceId !== p.workspaceId) return [];
  const rules = await deps.store.automations.forTaskCreated(p.boardId, p.statusId, task.createdAt);
  const outcomes: RuleOutcome[] = [];
  for (const rule of rules) {
    try {
      outcomes.push(await runRule(rule, task.id, deps));
    } catch (e) {
      if (!isDomainError(e)) throw e;
      outcomes.push({ ruleId: rule.id, result: 'skipped', reason: `${(e as DomainError).code}: ${e.message}` });
    }
  }
  if (outcomes.some((o) => o.result === 'applied')) deps.jobs.notify();
  return outcomes;
}
