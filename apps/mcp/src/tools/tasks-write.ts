import { z } from 'zod';
import { type Actor, CreateTaskInput, Day, type Deps, docs, invalid, markdownToHtml, Priority, type Task, tasks, TaskType, UpdateTaskInput } from '@tt/domain';
import { done } from '../answer/answer.js';
import { firstBoard, resolveBoard, resolveColumn, resolveProject, resolveTask, resolveUsers } from '../resolve.js';
import { loginsById, taskCard } from '../answer/render.js';
import { defineTool, validate } from '../tool.js';
import { requestIdArg, withRequestId } from '../request-id.js';

/** Argument schemas come from the domain's, so MCP cannot drift from REST's limits. */
export const taskRef = z.string().min(1).max(100).describe('Task key (e.g. WEB-12) or id');
export const assignees = z
  .array(z.string().min(1).max(200))
  .max(50)
  .describe('Logins, names, ids or `me`; the first holds the task');
export const labels = CreateTaskInput.shape.labels.unwrap().describe('Unknown labels are created');
const checklist = CreateTaskInput.shape.checklist.unwrap();
const pageIds = z.array(z.string().min(1).max(100)).max(100).describe('Page ids to link; needs docs:write');
export const WRITE = { readOnlyHint: false, destructiveHint: false, idempotentHint: false } as const;

/**
 * What every task write returns: ids to chain on, and the task at a glance (its title too, which the output schema
 * leaves out: it lists what programs read).
 */
export const TaskWritten = z.object({ id: z.string(), key: z.string(), status: z.string(), docIds: z.array(z.string()) });
const written = (t: Task) => ({ id: t.id, key: t.key, title: t.title, status: t.status.name, docIds: t.docIds });

export async function card(actor: Actor, task: Task, deps: Deps, headline: string) {
  const logins = await loginsById(actor.workspace.id, task.assigneeIds, deps);
  return done(`${headline}\n\n${taskCard(task, logins)}`, written(task));
}

export const createTask = withRequestId(defineTool({
  name: 'create_task',
  title: 'Create task',
  scope: 'tasks:write',
  toolset: 'tasks',
  description:
    'Creates a task; send project or board.',
  input: z.strictObject({
    title: CreateTaskInput.shape.title.describe('One line'),
    project: z.string().min(1).max(100).optional().describe('Project key or id (its first board)'),
    board: z.string().min(1).max(100).optional().describe('Board id; wins over project'),
    status: z.string().min(1).max(100).optional().describe('Column name, id or category; default the first column'),
    description: z.string().max(100_000).optional().describe('Markdown'),
    type: TaskType.optional(),
    priority: Priority.optional(),
    assignees: assignees.optional(),
    labels: labels.optional(),
    dueDate: Day.optional().describe('YYYY-MM-DD'),
    parent: z.string().min(1).max(100).optional().describe('Parent task key or id'),
    checklist: checklist.optional().describe('Checklist items'),
    docs: pageIds.optional(),
    requestId: requestIdArg,
  }),
  output: TaskWritten,
  annotations: WRITE,
  async run(args, { actor, deps }) {
    if (args.project === undefined && args.board === undefined) throw invalid('project', 'required: send project (key or id) or board (id)');
    const project = args.project !== undefined ? await resolveProject(actor, args.project, deps) : undefined;
    const board = args.board !== undefined ? await resolveBoard(actor, args.board, deps) : project && args.status !== undefined ? await firstBoard(actor, project, deps) : undefined;
    const input = validate(CreateTaskInput, {
      title: args.title,
      boardId: board?.id,
      projectId: project?.id,
      statusId: board && args.status !== undefined ? resolveColumn(board, args.status, 'status').id : undefined,
      description: args.description !== undefined ? markdownToHtml(args.description) : undefined,
      type: args.type,
      priority: args.priority,
      assigneeIds: args.assignees ? await resolveUsers(actor, args.assignees, deps, 'assignees') : undefined,
      labels: args.labels,
      dueDate: args.dueDate,
      parentId: args.parent !== undefined ? (await resolveTask(actor, args.parent, deps)).id : undefined,
      checklist: args.checklist,
    });
    const task = await docs.createTaskWithDocs(actor, input, args.docs ?? [], deps);
    return card(actor, task, deps, `Created ${task.key}.`);
  },
}));

export const updateTask = defineTool({
  name: 'update_task',
  title: 'Update task',
  scope: 'tasks:write',
  toolset: 'tasks',
  description:
    'Changes the fields passed; a list replaces the whole list. Not the description: comment instead.',
  input: z.strictObject({
    task: taskRef,
    title: CreateTaskInput.shape.title.optional().describe('One line'),
    priority: Priority.optional(),
    type: TaskType.optional(),
    labels: labels.optional().describe('[] removes all'),
    dueDate: Day.nullable().optional().describe('YYYY-MM-DD; null removes it'),
    assignees: assignees.optional().describe('[] unassigns all'),
    checklist: checklist.optional().describe('[] clears it'),
    docs: pageIds.optional().describe('Page ids; needs docs:write'),
  }),
  output: TaskWritten,
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true },
  async run(args, { actor, deps }) {
    const { task: ref, assignees: people, docs: pages, ...fields } = args;
    if (Object.values(fields).every((v) => v === undefined) && people === undefined && pages === undefined) {
      throw invalid('task', 'nothing to change: pass at least one of title, priority, type, labels, dueDate, assignees, checklist, docs');
    }
    const task = await resolveTask(actor, ref, deps);
    const input = validate(UpdateTaskInput, {
      ...fields,
      assigneeIds: people !== undefined ? await resolveUsers(actor, people, deps, 'assignees') : undefined,
    });
    const updated = await docs.updateTaskWithDocs(actor, task.id, input, pages, deps);
    return card(actor, updated, deps, `Updated ${updated.key}.`);
  },
});

export const moveTask = defineTool({
  name: 'move_task',
  title: 'Move task',
  scope: 'tasks:write',
  toolset: 'tasks',
  description: 'Moves a task to another column of its board.',
  input: z.strictObject({
    task: taskRef,
    column: z.string().min(1).max(100).describe('Column name, id or category'),
  }),
  output: TaskWritten,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true },
  async run(args, { actor, deps }) {
    const task = await resolveTask(actor, args.task, deps);
    const board = await resolveBoard(actor, task.boardId, deps);
    const column = resolveColumn(board, args.column, 'column');
    const moved = await tasks.moveTask(actor, task.id, { statusId: column.id, position: 0 }, deps);
    return card(actor, moved, deps, `Moved ${moved.key} to column ${column.id} (${column.category}).`);
  },
});
