import { z } from 'zod';
import { type Actor, CreateTaskInput, Day, type Deps, docs, invalid, markdownToHtml, Priority, type Task, tasks, TaskType, UpdateTaskInput } from '@tt/domain';
import { done } from '../answer/answer.js';
import { firstBoard, resolveBoard, resolveColumn, resolveProject, resolveTask, resolveUsers } from '../resolve.js';
import { loginsById, taskCard } from '../answer/render.js';
import { defineTool, validate } from '../tool.js';
import { requestIdArg, withRequestId } from '../request-id.js';

/** Argument schemas come from the domain's, so MCP cannot drift from REST's limits. */
export const taskRef = z.string().min(1).max(100).describe('Task key (e.g. WEB-12) or task id');
export const assignees = z
  .array(z.string().min(1).max(200))
  .max(50)
  .describe('Assignees as logins, names, user ids or `me`; the first one holds the task');
export const labels = CreateTaskInput.shape.labels.unwrap().describe('Labels; unknown labels are created');
const checklist = CreateTaskInput.shape.checklist.unwrap();
const pageIds = z.array(z.string().min(1).max(100)).max(100).describe('Documentation page ids (from list_docs) to link the task to; needs docs:write');
export const WRITE = { readOnlyHint: false, destructiveHint: false, idempotentHint: false } as const;

/** What every task write returns: ids to chain on, and the task at a glance. */
export const TaskWritten = z.object({ id: z.string(), key: z.string(), title: z.string(), status: z.string(), docIds: z.array(z.string()) });
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
    'Creates a task with you as the author; assignees are notified and board automations run. Name the place with `board` (board id) ' +
    'or `project` (key or id: its first board is used). The description is Markdown. `docs` links documentation pages. ' +
    'Returns the new task id and key. To make a task from a meeting agreement use create_task_from_agreement.',
  input: z.strictObject({
    title: CreateTaskInput.shape.title.describe('Task title, one line'),
    project: z.string().min(1).max(100).optional().describe('Project key (e.g. WEB) or id; the first board of the project is used'),
    board: z.string().min(1).max(100).optional().describe('Board id (from list_projects); takes precedence over the first board of `project`'),
    status: z.string().min(1).max(100).optional()
      .describe('Column: column id, column name, or category todo/progress/done (first column of it); default the first column'),
    description: z.string().max(100_000).optional().describe('Description in Markdown'),
    type: TaskType.optional().describe('task (default), bug, story or epic'),
    priority: Priority.optional().describe('highest, high, medium (default), low or lowest'),
    assignees: assignees.optional(),
    labels: labels.optional(),
    dueDate: Day.optional().describe('Due day YYYY-MM-DD'),
    parent: z.string().min(1).max(100).optional().describe('Parent task key or id (same project): makes this a subtask'),
    checklist: checklist.optional().describe('Checklist items [{text, done}]'),
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
    'Changes only the fields passed: title, priority, type, labels, dueDate, assignees, checklist, docs (linked pages). ' +
    'labels, assignees, checklist and docs replace the whole list (send the full new list). ' +
    'The description cannot be changed by an agent: write results into a comment with add_comment. To change the column use move_task.',
  input: z.strictObject({
    task: taskRef,
    title: CreateTaskInput.shape.title.optional().describe('New title, one line'),
    priority: Priority.optional().describe('highest, high, medium, low or lowest'),
    type: TaskType.optional().describe('task, bug, story or epic'),
    labels: labels.optional().describe('The whole new label list; [] removes all labels'),
    dueDate: Day.nullable().optional().describe('Due day YYYY-MM-DD; null removes the due date'),
    assignees: assignees.optional().describe('The whole new assignee list (logins, names, ids or `me`); [] unassigns everybody'),
    checklist: checklist.optional().describe('The whole new checklist [{text, done}], existing items included; [] clears it'),
    docs: pageIds.optional().describe('The whole list of linked page ids; [] unlinks every page you can read; needs docs:write'),
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
  description:
    "Moves a task to another column of its board, to the top of that column. `column` is a column name, a column id, or a category " +
    '(todo, progress, done = the first column of that category on the task board).',
  input: z.strictObject({
    task: taskRef,
    column: z.string().min(1).max(100).describe('Column name (e.g. "In Review"), column id, or category todo/progress/done'),
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
