import { tagged, withIfMatch, type ConditionalOptions, type Tagged } from '../conditional.js';
import type { HttpClient, RequestOptions } from '../http.js';
import type { Page } from '../responses.js';
import type {
  ActivityEntry, BulkTaskItem, BulkTaskResult, Comment, CreateCommentInput, CreateTaskInput, ListTasksParams, LogTimeInput, MoveTaskInput, PageParams, Task, TaskContext, TaskSummary,
  TimeLog, UpdateTaskInput,
} from '../types.js';

/** What a task's full form adds on request: `position`, its place in its column (a move's answer always has it). */
interface Include {
  include?: 'position';
}
const included = (include: 'position' | undefined) => (include ? { query: { include } } : {});

/** Tasks, their comments, context and time logs. `ref` is a task id or key (`WEB-12`). */
export class Tasks {
  constructor(private readonly http: HttpClient) {}

  /** One page of task summaries by filters, in creation order (or column order with `orderBy: 'position'`). */
  async list(params: ListTasksParams = {}, opts?: RequestOptions): Promise<Page<TaskSummary>> {
    return this.http.call('getTasks', { query: params }, opts);
  }

  /** Every matching task, page after page: `for await (const t of client.tasks.iterate({ projectId }))`. */
  iterate(params: ListTasksParams = {}, opts?: RequestOptions): AsyncGenerator<TaskSummary, void, undefined> {
    return this.http.items('getTasks', { query: params }, opts);
  }

  /** The pages of a task list, each with `total` and `nextCursor`. */
  pages(params: ListTasksParams = {}, opts?: RequestOptions): AsyncGenerator<Page<TaskSummary>, void, undefined> {
    return this.http.pages('getTasks', { query: params }, opts);
  }

  /** A task in full form; its `position` in its column only with `{ include: 'position' }`. */
  async get(ref: string, opts?: RequestOptions & Include): Promise<Task> {
    const { include, ...rest } = opts ?? {};
    return (await this.http.call('getTasksByRef', { params: { ref }, ...included(include) }, rest)).data;
  }

  /** A task in full form with its ETag, for a later `update`, `move` or `delete` with `{ ifMatch: etag }`. */
  async getWithEtag(ref: string, opts?: RequestOptions & Include): Promise<Tagged<Task>> {
    const { include, ...rest } = opts ?? {};
    return tagged(await this.http.callTagged('getTasksByRef', { params: { ref }, ...included(include) }, rest), `GET /v1/tasks/${ref}`);
  }

  /**
   * Creates a task as the key's user; assignees are notified and board automations run. Retry-safe: pass
   * `{ idempotencyKey }` (else one is generated per call) and a resend returns the first task instead of a second one.
   */
  async create(input: CreateTaskInput, opts?: RequestOptions): Promise<Task> {
    return (await this.http.call('postTasks', { body: input }, opts)).data;
  }

  /**
   * Changes only the fields sent; with `ifMatch`, only if the task still has that ETag (else 412 `precondition_failed`).
   * The answer has the task's `position` only with `{ include: 'position' }`.
   */
  async update(ref: string, input: UpdateTaskInput, opts?: ConditionalOptions & Include): Promise<Task> {
    const { include, ...rest } = opts ?? {};
    return (await this.http.call('patchTasksByRef', { params: { ref }, body: input, ...included(include) }, withIfMatch(rest))).data;
  }

  /**
   * Changes up to 100 tasks in one call (one rate-limit point each): each item is `update`'s input plus `task` (key or
   * id) and optionally `column` (name, id or category). Answers one entry per item, in order: `status` 200 with `data`,
   * or the status the item alone would get with `error`. With `atomic: true` nothing is applied when an item fails, and
   * the call throws that item's error (its message names `items[i]`). Retry-safe like `create`.
   */
  async bulk(items: BulkTaskItem[], opts: RequestOptions & { atomic?: boolean } = {}): Promise<BulkTaskResult[]> {
    const { atomic, ...rest } = opts;
    return (await this.http.call('postTasksBulk', { body: { items, ...(atomic !== undefined ? { atomic } : {}) } }, rest)).data;
  }

  /** Deletes a task and its time logs for good; with `ifMatch`, only if the task still has that ETag. */
  async delete(ref: string, opts?: ConditionalOptions): Promise<void> {
    await this.http.call('deleteTasksByRef', { params: { ref } }, withIfMatch(opts));
  }

  /**
   * Moves a task to a column (and position, 0 = top), optionally on another board of the project; with `ifMatch`,
   * only if the task still has that ETag.
   */
  async move(ref: string, input: MoveTaskInput, opts?: ConditionalOptions): Promise<Task> {
    return (await this.http.call('postTasksByRefMove', { params: { ref }, body: input }, withIfMatch(opts))).data;
  }

  /** The task with its discussion, linked docs and meeting agreements, as Markdown text. */
  async context(ref: string, opts?: RequestOptions): Promise<string> {
    return this.http.text('getTasksByRefContext', { params: { ref }, query: { format: 'markdown' } }, opts);
  }

  /** The same context wrapped as `{taskId, key, markdown}`. */
  async contextJson(ref: string, opts?: RequestOptions): Promise<TaskContext> {
    return (await this.http.call('getTasksByRefContext', { params: { ref }, query: { format: 'json' } }, opts)).data;
  }

  /** One page of a task's comments, oldest first. */
  async listComments(ref: string, params: PageParams = {}, opts?: RequestOptions): Promise<Page<Comment>> {
    return this.http.call('getTasksByRefComments', { params: { ref }, query: params }, opts);
  }

  /** Every comment of a task, oldest first. */
  iterateComments(ref: string, params: PageParams = {}, opts?: RequestOptions): AsyncGenerator<Comment, void, undefined> {
    return this.http.items('getTasksByRefComments', { params: { ref }, query: params }, opts);
  }

  commentPages(ref: string, params: PageParams = {}, opts?: RequestOptions): AsyncGenerator<Page<Comment>, void, undefined> {
    return this.http.pages('getTasksByRefComments', { params: { ref }, query: params }, opts);
  }

  /** Comments as the key's user; `@login` mentions and `replyTo` notify people. */
  async addComment(ref: string, input: CreateCommentInput, opts?: RequestOptions): Promise<Comment> {
    return (await this.http.call('postTasksByRefComments', { params: { ref }, body: input }, opts)).data;
  }

  /** One page of the task's history, newest first: who changed what, when, through which channel, key or agent. */
  async activity(ref: string, params: PageParams = {}, opts?: RequestOptions): Promise<Page<ActivityEntry>> {
    return this.http.call('getTasksByRefActivity', { params: { ref }, query: params }, opts);
  }

  /** The task's whole history, newest first. */
  iterateActivity(ref: string, params: PageParams = {}, opts?: RequestOptions): AsyncGenerator<ActivityEntry, void, undefined> {
    return this.http.items('getTasksByRefActivity', { params: { ref }, query: params }, opts);
  }

  /** Records time (`minutes` or `seconds`) on the task as the key's user. Needs `time:write`. */
  async logTime(ref: string, input: LogTimeInput, opts?: RequestOptions): Promise<TimeLog> {
    return (await this.http.call('postTasksByRefTime', { params: { ref }, body: input }, opts)).data;
  }
}
