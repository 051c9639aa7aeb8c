import type { Request, Response } from 'express';
import type { ServerContext } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { type Actor, type BulkRunRecord, type Deps, DomainError, invalid, type BulkTaskResult, tasks } from '@tt/domain';
import { withoutDeadline } from '@tt/http';
import { done } from '../answer/answer.js';
import { errorText } from '../answer/error-text.js';
import { resolveUsers } from '../resolve.js';
import { rpcIdOf, sendRpcError } from '../edge/host-guard.js';
import { type CallToolResult, defineTool, type ToolContext } from '../tool.js';
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
    const using = (a: Actor) => ({ prepare: (raw: unknown, inner: Deps) => prepare(raw, (list) => resolveUsers(a, list, inner, 'assignees')) });
    // An atomic call is one transaction, so it never runs in batches.
    if (args.items.length > tasks.BULK_RUN_ABOVE && !args.atomic && followsTasks(req)) {
      const run = await tasks.startBulkRun(actor, args, deps);
      // The batches run after the answer, outside the request's deadline; a fault ends the run failed (runBulk). Its
      // listeners hear each batch through the change feed (subscriptions/tasks.ts).
      withoutDeadline(() => void tasks.runBulk(actor, run.id, deps, using(actor))
        .catch((err: Error) => ctx.log.error({ err, run: run.id }, 'bulk run failed')));
      return { resultType: 'task', ...taskState(run) } as unknown as CallToolResult;
    }
    return answerOf(await tasks.bulkUpdateTasks(actor, args, deps, using(actor)), args.items);
  },
});

/** update_tasks' answer for the entries of `items`. */
function answerOf(results: BulkTaskResult[], items: readonly unknown[]): CallToolResult {
  const applied = results.filter((r) => r.status === 200).length;
  const result = done([`Updated ${applied} of ${results.length} tasks.`, ...results.map((r, i) => line(r, items[i]))].join('\n'), { results });
  // isError only when nothing was applied: a partly applied call is a result the agent must read item by item.
  return applied ? result : { ...result, isError: true };
}

/**
 * MCP tasks (extension io.modelcontextprotocol/tasks, 2026-07-28): a long update_tasks answers a task the client
 * polls with tasks/get, stops with tasks/cancel, or follows on subscriptions/listen. The run itself is the domain's
 * (tasks.runBulk); this is its wire form.
 */
export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';

/** Whether the client declared the tasks extension in this request's capabilities. */
function followsTasks(req: ServerContext): boolean {
  const key = 'io.modelcontextprotocol/clientCapabilities';
  const envelope = (req.mcpReq.envelope ?? {}) as Record<string, unknown>;
  const caps = (envelope[key] ?? envelope.clientCapabilities ?? (req.mcpReq._meta as Record<string, unknown> | undefined)?.[key]) as
    { extensions?: Record<string, unknown> } | undefined;
  return caps?.extensions?.[TASKS_EXTENSION] !== undefined;
}

/** A run's state as the extension's Task: what tasks/get, the creation answer and notifications/tasks carry. */
function taskState(run: BulkRunRecord) {
  return {
    taskId: run.id, status: run.status, ...(run.statusMessage ? { statusMessage: run.statusMessage } : {}),
    createdAt: new Date(run.createdAt).toISOString(), lastUpdatedAt: new Date(run.updatedAt).toISOString(),
    ttlMs: tasks.BULK_RUN_TTL_MS, pollIntervalMs: 1000,
  };
}

/** The detailed task: a completed one carries update_tasks' answer, a failed one the entries of what it applied. */
export function detailedTask(run: BulkRunRecord) {
  const state = taskState(run);
  if (run.status === 'completed') return { ...state, result: answerOf(run.results, run.items) };
  if (run.status === 'failed') return { ...state, error: { code: -32603, message: run.statusMessage ?? 'failed', data: { results: run.results } } };
  return state;
}

/**
 * tasks/get and tasks/cancel, answered at the edge (they are no tool calls): only the key that started the run sees
 * it; any other key, a missing or an expired run all answer -32602, alike.
 */
export async function answerTaskRequest(req: Request, res: Response, ctx: ToolContext): Promise<void> {
  const id = rpcIdOf(req.body);
  const body = req.body as { method: string; params?: { taskId?: unknown } };
  const taskId = body.params?.taskId;
  if (typeof taskId !== 'string' || !taskId) return sendRpcError(res, 200, 'Invalid params: taskId: a task id is required', -32602, id);
  try {
    const run = body.method === 'tasks/cancel' ? await tasks.cancelBulkRun(ctx.actor, taskId, ctx.deps) : await tasks.getBulkRun(ctx.actor, taskId, ctx.deps);
    res.json({ jsonrpc: '2.0', id, result: { resultType: 'complete', ...detailedTask(run) } });
  } catch (e) {
    if (e instanceof DomainError && e.code === 'not_found') return sendRpcError(res, 200, `Invalid params: taskId: no task ${taskId}`, -32602, id);
    throw e;
  }
}
