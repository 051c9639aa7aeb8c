import { z } from 'zod';
import { type Actor, type Deps, invalid, type BulkTaskResult, tasks } from '@tt/domain';
import { done } from '../answer/answer.js';
import { errorText } from '../answer/error-text.js';
import { resolveUsers } from '../resolve.js';
import { followsTasks } from '../mcp-tasks/extension.js';
import { runAsTask } from '../mcp-tasks/runs.js';
import { type CallToolResult, defineTool } from '../tool.js';
import { taskRef, updateTask } from './tasks-write.js';

/**
 * update_tasks: update_task for many tasks, through the same bulk use case as POST /v1/tasks/bulk. An item takes
 * update_task's arguments without `docs` (REST's PATCH has none either), plus move_task's `column`. The listed schema
 * names only `task` and points at update_task, whose schema the model has already read (the tool list's size, see
 * docs/mcp.md); each item is checked here against that schema, so a bad item is that item's error, as in REST.
 */
const { docs: _docs, ...fields } = updateTask.input.shape;
const Item = z.strictObject({ ...fields, column: z.string().min(1).max(100).optional() });
const ITEM_FIELDS = Object.keys(Item.shape).filter((k) => k !== 'task');

/** An item as update_task takes it: logins and names become user ids, and an item that changes nothing is refused. */
async function prepare(raw: unknown, user: (list: string[]) => Promise<string[]>): Promise<unknown> {
  const parsed = Item.safeParse(raw);
  if (!parsed.success) throw new tasks.BulkItemInvalid(parsed.error.issues);
  const { assignees, ...item } = parsed.data;
  if (assignees === undefined && ITEM_FIELDS.every((k) => (item as Record<string, unknown>)[k] === undefined)) {
    throw invalid('task', `nothing to change: pass at least one of ${ITEM_FIELDS.join(', ')}`);
  }
  return { ...item, ...(assignees !== undefined ? { assigneeIds: await user(assignees) } : {}) };
}

/** One line per item: its key and what became of it (an error's text as every tool error reaches the model). */
const line = (r: BulkTaskResult, item: unknown) =>
  `- ${r.task === null ? '(no task)' : errorText(r.task, item)}: ${r.status === 200 ? 'updated' : `${r.status} ${errorText(`${r.error!.code}: ${r.error!.message}`, item)}`}`;

export const updateTasks = defineTool({
  name: 'update_tasks',
  title: 'Update tasks',
  scope: 'tasks:write',
  toolset: 'tasks',
  description: 'update_task for up to 100 tasks, in order. atomic: all or none.',
  input: z.strictObject({
    items: z
      .array(z.looseObject({ task: taskRef }))
      .min(1)
      .max(tasks.BULK_MAX_ITEMS)
      .describe("Each update_task's arguments, plus move_task's column"),
    atomic: z.boolean().default(false),
  }),
  output: z.object({ results: z.array(z.object({ task: z.string().nullable(), status: z.number() })) }),
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true },
  async run(args, ctx, req) {
    const { actor, deps } = ctx;
    // An atomic call is one transaction, so it never runs in batches; a long one goes on as a task when the client
    // follows tasks (its batches run after the answer, mcp-tasks/runs.ts).
    if (args.items.length > tasks.BULK_RUN_ABOVE && !args.atomic && followsTasks(req)) return runAsTask(args);
    return answerOf(await tasks.bulkUpdateTasks(actor, args, deps, using(actor)), args.items);
  },
  task: {
    support: 'optional',
    start: (args, ctx) => tasks.startBulkRun(ctx.actor, args as tasks.BulkTasksInput, ctx.deps),
    // The domain runs the batches and ends the run (tasks.runBulk); its listeners hear each batch through the change
    // feed (subscriptions/tasks.ts). A fault ends the run failed.
    async work(_args, ctx, step) {
      await tasks.runBulk(ctx.actor, step.runId!, ctx.deps, using(ctx.actor));
      return undefined;
    },
    detail: (run) => (run.status === 'completed'
      ? { result: answerOf(run.results, run.items) as Record<string, unknown> }
      : { error: { code: -32603, message: run.statusMessage ?? 'failed', data: { results: run.results } } }),
  },
});

/** Item preparation as `a` sees it: logins and names become user ids. */
const using = (a: Actor) => ({ prepare: (raw: unknown, inner: Deps) => prepare(raw, (list) => resolveUsers(a, list, inner, 'assignees')) });

/** update_tasks' answer for the entries of `items`. */
function answerOf(results: BulkTaskResult[], items: readonly unknown[]): CallToolResult {
  const applied = results.filter((r) => r.status === 200).length;
  const result = done([`Updated ${applied} of ${results.length} tasks.`, ...results.map((r, i) => line(r, items[i]))].join('\n'), { results });
  // isError only when nothing was applied: a partly applied call is a result the agent must read item by item.
  return applied ? result : { ...result, isError: true };
}
