import { commaEnum, commaList, Cursor, Day, Id, Limit, Moment, oneLine, Ts, z } from '../shared/index.js';
import { CATEGORIES, Category } from '../projects/index.js';

export const TASK_TYPES = ['task', 'bug', 'story', 'epic'] as const;
export const TaskType = z.enum(TASK_TYPES);
export type TaskType = z.infer<typeof TaskType>;
export const PRIORITIES = ['highest', 'high', 'medium', 'low', 'lowest'] as const;
export const Priority = z.enum(PRIORITIES);
export type Priority = z.infer<typeof Priority>;

export const ChecklistItem = z.object({ id: Id, text: z.string(), done: z.boolean() }).openapi('ChecklistItem');
export type ChecklistItem = z.infer<typeof ChecklistItem>;
export const ChecklistItemInput = z
  .strictObject({
    text: z.string().trim().min(1, 'must not be empty').max(1000, 'must be at most 1000 characters'),
    done: z.boolean().default(false),
  })
  .openapi('ChecklistItemInput');

export const Attachment = z
  .object({ id: Id, name: z.string(), size: z.number().int(), type: z.string() })
  .openapi('Attachment');
export type Attachment = z.infer<typeof Attachment>;

export const TimeLog = z
  .object({
    id: Id,
    taskId: Id,
    taskKey: z.string(),
    projectId: Id,
    userId: Id,
    seconds: z.number().int(),
    date: Day,
    note: z.string(),
    createdAt: Ts,
  })
  .openapi('TimeLog');
export type TimeLog = z.infer<typeof TimeLog>;

export const TaskSummary = z
  .object({
    id: Id,
    key: z.string().openapi({ example: 'WEB-12' }),
    projectId: Id,
    boardId: Id,
    statusId: Id,
    status: z.object({ name: z.string(), category: Category }),
    title: z.string(),
    type: TaskType,
    priority: Priority,
    assigneeId: Id.nullable(),
    assigneeIds: z.array(Id),
    reporterId: Id,
    labels: z.array(z.string()),
    dueDate: Day.nullable(),
    parentId: Id.nullable(),
    timeEstimateSeconds: z.number().int(),
    timeSpentSeconds: z.number().int(),
    archived: z.boolean(),
    doneAt: Ts.nullable(),
    archivedAt: Ts.nullable(),
    createdAt: Ts,
    updatedAt: Ts,
    position: z
      .number()
      .int()
      .optional()
      .openapi({
        description:
          'Place in its column, 0 = top; in a move\'s answer, in column-ordered lists, and in the full form when asked for with `include=position`',
      }),
  })
  .openapi('TaskSummary');
export type TaskSummary = z.infer<typeof TaskSummary>;

export const Task = TaskSummary.extend({
  description: z.string().openapi({ description: 'Sanitized HTML' }),
  descriptionText: z.string(),
  checklist: z.array(ChecklistItem),
  subtaskIds: z.array(Id),
  timeLogs: z.array(TimeLog),
  attachments: z.array(Attachment),
  docIds: z.array(Id),
}).openapi('Task');

export type Task = z.infer<typeof Task>;

const title = oneLine(500);
const html = z.string().max(200_000, 'must be at most 200000 characters');
const labels = z
  .array(oneLine(100))
  .max(50, 'at most 50 labels');
const estimate = z.number().int('must be an integer').min(0, 'must not be negative').max(10 * 365 * 86400);
const checklist = z.array(ChecklistItemInput).max(200, 'at most 200 items');

export const CreateTaskInput = z
  .strictObject({
    title,
    boardId: Id.optional(),
    projectId: Id.optional(),
    statusId: Id.optional(),
    description: html.optional(),
    descriptionText: html.optional(),
    type: TaskType.optional(),
    priority: Priority.optional(),
    assigneeIds: z.array(Id).max(50).optional(),
    assigneeId: Id.optional(),
    labels: labels.optional(),
    dueDate: Day.nullable().optional(),
    timeEstimateSeconds: estimate.optional(),
    checklist: checklist.optional(),
    parentId: Id.optional(),
  })
  .openapi('CreateTaskInput');
export type CreateTaskInput = z.infer<typeof CreateTaskInput>;

export const UpdateTaskInput = z
  .strictObject({
    title: title.optional(),
    description: html.optional(),
    descriptionText: html.optional(),
    type: TaskType.optional(),
    priority: Priority.optional(),
    labels: labels.optional(),
    dueDate: Day.nullable().optional(),
    timeEstimateSeconds: estimate.optional(),
    checklist: checklist.optional(),
    statusId: Id.optional(),
    boardId: Id.optional(),
    assigneeIds: z.array(Id).max(50).optional(),
    assigneeId: Id.nullable().optional(),
    parentId: Id.nullable().optional(),
  })
  .openapi('UpdateTaskInput');
export type UpdateTaskInput = z.infer<typeof UpdateTaskInput>;

export const MoveTaskInput = z
  .strictObject({
    statusId: Id,
    position: z.number().int('must be an integer').min(0, 'must not be negative').default(0),
    boardId: Id.optional(),
  })
  .openapi('MoveTaskInput');
export type MoveTaskInput = z.infer<typeof MoveTaskInput>;

/**
 * The query of a by-key read and of a PATCH: `include=position` adds the task's place in its column, which the spec's
 * full form does not have and which costs a count of the tasks above it. Other parameters are ignored, as before.
 */
export const TaskAnswerQuery = z
  .object({
    include: z.enum(['position']).optional().openapi({
      description:
        '`position`: the answer carries the task\'s place in its column (0 = top), a count of the tasks above it. Without it the ' +
        'full form has no `position` (a move\'s answer always has it)',
    }),
  })
  .openapi('TaskAnswerQuery');
export type TaskAnswerQuery = z.infer<typeof TaskAnswerQuery>;

export const ListTasksQuery = z
  .strictObject({
    projectId: Id.optional(),
    boardId: Id.optional(),
    statusId: commaList.optional().openapi({ type: 'string', description: 'Column id, or a comma list of them (any of)' }),
    category: commaEnum(CATEGORIES).optional().openapi({ type: 'string', description: 'todo, progress, done, or a comma list of them (any of)' }),
    assigneeId: Id.optional().openapi({ description: 'Any of assigneeIds: a user id, login or `me`; `none` = no assignee' }),
    reporterId: Id.optional(),
    type: commaEnum(TASK_TYPES).optional(),
    priority: commaEnum(PRIORITIES).optional(),
    label: commaList.optional().openapi({ description: 'Comma list; the task must have all of them' }),
    parentId: Id.optional().openapi({ description: 'Subtasks of that task; `none` = top-level only' }),
    dueBefore: Day.optional().openapi({ description: 'Due on or before this day' }),
    dueAfter: Day.optional().openapi({ description: 'Due on or after this day' }),
    updatedSince: Moment.optional(),
    createdSince: Moment.optional().openapi({ description: "Created at or after this moment (without an offset: the workspace's time zone)" }),
    createdBefore: Moment.optional().openapi({ description: "Created before this moment (without an offset: the workspace's time zone)" }),
    q: z.string().trim().min(1).max(200).optional().openapi({ description: 'Search in title, key and description' }),
    archived: z.enum(['false', 'true', 'all']).default('false'),
    orderBy: z
      .enum(['created', 'position', 'priority', 'dueDate', 'updated'])
      .default('created')
      .openapi({
        description:
          '`created` (default, oldest first), `position` (column order, top first; needs one statusId), `priority` (highest first), ' +
          '`dueDate` (soonest first, undated last) or `updated` (latest change first)',
      }),
    limit: Limit,
    cursor: Cursor.optional(),
  })
  .openapi('ListTasksQuery');
export type ListTasksQuery = z.infer<typeof ListTasksQuery>;

export const AttachmentInput = z
  .strictObject({
    name: z.string().trim().min(1).max(500),
    size: z.number().int().min(0).max(10 * 1024 ** 3),
    type: z.string().min(1).max(200).regex(/^[\w.+-]+\/[\w.+-]+$/, 'must be a media type such as image/png'),
  })
  .openapi('AttachmentInput');
export type AttachmentInput = z.infer<typeof AttachmentInput>;
