import { z } from 'zod';
import {
  ChecklistItemInput, comments, CreateCommentInput, CreateTaskInput, Day, invalid, markdownToHtml, Priority, tasks, TaskType,
  UpdateTaskInput, type Actor, type Deps, type Task,
} from '@tt/domain';
import { firstBoard, resolveBoard, resolveColumn, resolveProject, resolveTask, resolveUsers } from '../resolve.js';
import { taskCard, usersById } from '../render.js';
import { defineTool, ok, validate } from '../tool.js';
import { requestIdArg, withRequestId } from '../request-id.js';

const taskRef = z.string().min(1).max(100).describe('Task key (e.g. WEB-12) or task id');
const assignees = z
  .array(z.string().min(1).max(100))
  .max(50)
  .describe('Assignees as user ids, logins or `me`; the first one holds the task');
const labels = z.array(z.string().min(1).max(100)).max(50).describe('Labels; unknown labels are created');
const checklist = z.array(ChecklistItemInput).max(200);

async function card(actor: Actor, task: Task, deps: Deps, headline: string): Promise<string> {
  const users = await usersById(actor.workspace.id, [...task.assigneeIds, task.reporterId], deps);
  return `${headline}\n\n${taskCard(task, users)}`;
}

export const addComment = defineTool({
  name: 'add_comment',
  title: 'Add comment',
  scope: 'tasks:write',
  description:
    'Writes a comment on a task as you (the key user). Put results, answers and questions here: the task description is never changed by you. ' +
    'Mention people as @login (they are notified); replyTo answers an earlier comment (ids are in get_task).',
  input: z.strictObject({
    task: taskRef,
    text: z.string().min(1).max(20_000).describe('Comment text, plain text with line breaks, up to 20000 characters; mentions as @login'),
    replyTo: z.string().min(1).max(100).optional().describe('Id of the comment answered (from get_task)'),
  }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false },
  async run(args, { actor, deps }) {
    const input = validate(CreateCommentInput, { text: args.text, replyTo: args.replyTo });
    const task = await resolveTask(actor, args.task, deps);
    const comment = await comments.addComment(actor, task.id, input, deps);
    const mentioned = await usersById(actor.workspace.id, comment.mentionIds, deps);
    const lines = [`Comment ${comment.id} added to ${task.key} as @${actor.user.login}${comment.replyTo ? `, in reply to ${comment.replyTo}` : ''}.`];
    if (mentioned.size) lines.push(`Mentioned (notified): ${[...mentioned.values()].map((u) => `@${u.login}`).join(', ')}.`);
    return ok(lines.join('\n'));
  },
});

export const createTask = withRequestId(defineTool({
  name: 'create_task',
  title: 'Create task',
  scope: 'tasks:write',
  description:
    'Creates a task with you as the author; assignees are notified and board automations run. Name the place with `board` (board id) ' +
    'or `project` (key or id: its first board is used). The description is Markdown.',
  input: z.strictObject({
    title: z.string().trim().min(1).max(500).describe('Task title'),
    project: z.string().min(1).max(100).optional().describe('Project key (e.g. WEB) or id; the first board of the project is used'),
    board: z.string().min(1).max(100).optional().describe('Board id (from list_projects); takes precedence over the first board of `project`'),
    status: z
      .string()
      .min(1)
      .max(100)
      .optional()
      .describe('Column: column id, column name, or category todo/progress/done (first column of it); default the first column'),
    description: z.string().max(100_000).optional().describe('Description in Markdown'),
    type: TaskType.optional().describe('task (default), bug, story or epic'),
    priority: Priority.optional().describe('highest, high, medium (default), low or lowest'),
    assignees: assignees.optional(),
    labels: labels.optional(),
    dueDate: Day.optional().describe('Due day YYYY-MM-DD'),
    parent: z.string().min(1).max(100).optional().describe('Parent task key or id (same project): makes this a subtask'),
    checklist: checklist.optional().describe('Checklist items [{text, done}]'),
    requestId: requestIdArg,
  }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false },
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
    const task = await tasks.createTask(actor, input, deps);
    return ok(await card(actor, task, deps, `Created ${task.key}.`));
  },
}));

export const updateTask = defineTool({
  name: 'update_task',
  title: 'Update task',
  scope: 'tasks:write',
  description:
    'Changes only the fields passed: title, priority, type, labels, dueDate, assignees, checklist. ' +
    'labels, assignees and checklist replace the whole list (send the full new list). ' +
    'The description cannot be changed by an agent: write results into a comment with add_comment. To change the column use move_task.',
  input: z.strictObject({
    task: taskRef,
    title: z.string().trim().min(1).max(500).optional().describe('New title'),
    priority: Priority.optional().describe('highest, high, medium, low or lowest'),
    type: TaskType.optional().describe('task, bug, story or epic'),
    labels: labels.optional().describe('The whole new label list; [] removes all labels'),
    dueDate: Day.nullable().optional().describe('Due day YYYY-MM-DD; null removes the due date'),
    assignees: assignees.optional().describe('The whole new assignee list (ids, logins or `me`); [] unassigns everybody'),
    checklist: checklist.optional().describe('The whole new checklist [{text, done}], existing items included; [] clears it'),
  }),
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true },
  async run(args, { actor, deps }) {
    const { task: ref, assignees: people, ...fields } = args;
    if (Object.values(fields).every((v) => v === undefined) && people === undefined) {
      throw invalid('task', 'nothing to change: pass at least one of title, priority, type, labels, dueDate, assignees, checklist');
    }
    const task = await resolveTask(actor, ref, deps);
    const input = validate(UpdateTaskInput, {
      ...fields,
      assigneeIds: people !== undefined ? await resolveUsers(actor, people, deps, 'assignees') : undefined,
    });
    const updated = await tasks.updateTask(actor, task.id, input, deps);
    return ok(await card(actor, updated, deps, `Updated ${updated.key}.`));
  },
});

export const moveTask = defineTool({
  name: 'move_task',
  title: 'Move task',
  scope: 'tasks:write',
  description:
    "Moves a task to another column of its board, to the top of that column. `column` is a column name, a column id, or a category " +
    '(todo, progress, done = the first column of that category on the task board).',
  input: z.strictObject({
    task: taskRef,
    column: z.string().min(1).max(100).describe('Column name (e.g. "In Review"), column id, or category todo/progress/done'),
  }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true },
  async run(args, { actor, deps }) {
    const task = await resolveTask(actor, args.task, deps);
    const board = await resolveBoard(actor, task.boardId, deps);
    const column = resolveColumn(board, args.column, 'column');
    const moved = await tasks.moveTask(actor, task.id, { statusId: column.id, position: 0 }, deps);
    return ok(await card(actor, moved, deps, `Moved ${moved.key} to ${column.name} (${column.category}).`));
  },
});
