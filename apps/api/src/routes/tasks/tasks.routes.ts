import {
  BulkTaskItem, BulkTaskResult, BulkTasksInput, BULK_MAX_ITEMS, CreateTaskInput, envelope, ListTasksQuery, MoveTaskInput, paged, Task, TaskAnswerQuery, tasks,
  TaskSummary, UpdateTaskInput, z,
} from '@tt/domain';
import { actorOf, type Routes } from '../../http/route.js';
import { conditionalWrite, ifMatch, tagged, taggedRead } from '../../http/etag.js';

const refParam = z.strictObject({ ref: z.string().min(1).max(100).openapi({ description: 'Task id or key', example: 'WEB-12' }) });
const TaskResponse = envelope(Task, 'TaskResponse');
const POSITION_NOTE =
  'The answer is the full form without `position` (the task\'s place in its column, which the spec\'s form does not have and ' +
  'which costs a count of the tasks above it) unless asked for with `include=position`; a move\'s answer always has it.';
const BulkResponse = envelope(z.array(BulkTaskResult), 'BulkTasksResponse');

export function taskRoutes(r: Routes): void {
  r.add({
    method: 'get', path: '/tasks', tag: 'Tasks', summary: 'Tasks by filters, in creation order (or column order)',
    scope: 'tasks:read', query: ListTasksQuery, response: paged(TaskSummary, 'TaskPage'),
    handler: ({ req, query, deps }) => tasks.listTasks(actorOf(req), query, deps),
  });
  r.add({
    method: 'post', path: '/tasks', tag: 'Tasks', summary: 'Create a task',
    description: 'Assignees are notified and the board automations run.',
    scope: 'tasks:write', status: 201, body: CreateTaskInput, response: TaskResponse, conditional: 'create',
    handler: async ({ req, res, body, deps }) => tagged(res, await tasks.createTaskVersioned(actorOf(req), body, deps)),
  });
  // The body's items are checked one by one (see BulkTasksInput): the document names their shape here.
  r.registry?.register('BulkTaskItem', BulkTaskItem);
  r.add({
    method: 'post', path: '/tasks/bulk', tag: 'Tasks', summary: `Change up to ${BULK_MAX_ITEMS} tasks in one call`,
    description:
      'Each item is the body of PATCH /tasks/{ref} plus `task` (key or id) and `column` (name, id or category). ' +
      'Items are applied in order, each answered with the status it would get alone (`data` when applied, `error` when not). ' +
      'With `atomic: true` nothing is applied when an item fails, and the call answers that item\'s error, named `items[i]`. ' +
      'Spends one point of the rate limit per item.',
    scope: 'tasks:write', body: BulkTasksInput, response: BulkResponse,
    handler: async ({ req, body, deps }) => ({ data: await tasks.bulkUpdateTasks(actorOf(req), body, deps) }),
  });
  r.add({
    method: 'get', path: '/tasks/:ref', tag: 'Tasks', summary: 'A task, full form', scope: 'tasks:read', params: refParam,
    description: POSITION_NOTE, query: TaskAnswerQuery, response: TaskResponse, conditional: 'read',
    handler: async ({ req, res, params, query, deps }) =>
      taggedRead(req, res, await tasks.getTaskVersioned(actorOf(req), params.ref, deps, { position: query.include === 'position', readAhead: req.taskReadAhead })),
  });
  r.add({
    method: 'patch', path: '/tasks/:ref', tag: 'Tasks', summary: 'Change a task (only the fields sent)', description: POSITION_NOTE,
    scope: 'tasks:write', params: refParam, query: TaskAnswerQuery, body: UpdateTaskInput, response: TaskResponse, conditional: 'write',
    handler: async ({ req, res, params, query, body, deps }) =>
      tagged(res, await conditionalWrite(res, () =>
        tasks.updateTaskVersioned(actorOf(req), params.ref, body, deps, ifMatch(req), { position: query.include === 'position' }))),
  });
  r.add({
    method: 'delete', path: '/tasks/:ref', tag: 'Tasks', summary: 'Delete a task and its time logs for good',
    scope: 'tasks:write', params: refParam, status: 204, conditional: 'write',
    handler: async ({ req, res, params, deps }) => conditionalWrite(res, () => tasks.deleteTask(actorOf(req), params.ref, deps, ifMatch(req))),
  });
  r.add({
    method: 'post', path: '/tasks/:ref/move', tag: 'Tasks', summary: 'Move a task to a column and position',
    scope: 'tasks:write', status: 201, params: refParam, body: MoveTaskInput, response: TaskResponse, conditional: 'write',
    handler: async ({ req, res, params, body, deps }) =>
      tagged(res, await conditionalWrite(res, () => tasks.moveTaskVersioned(actorOf(req), params.ref, body, deps, ifMatch(req)))),
  });
}
