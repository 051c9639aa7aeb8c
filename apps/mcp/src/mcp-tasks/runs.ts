import { type McpServer, ProtocolError, ProtocolErrorCode, type ServerContext } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { DomainError, type RunOutcome, type RunRecord, tasks } from '@tt/domain';
import { withoutDeadline } from '@tt/http';
import { contextOf } from '../edge/context.js';
import { type CallToolResult, errorResult, TASK_ANSWER, type TaskAnswer, type ToolAnswer, type ToolContext, type ToolDef } from '../tool.js';
import { followsTasks, missingTasksExtension } from './extension.js';

/*
 * MCP tasks (the tasks extension io.modelcontextprotocol/tasks, SEP-2663, 2026-07-28), once for every tool that
 * answers them (a ToolDef's `task`: update_tasks' long calls, the conformance fixtures). A call the tool sends on as a
 * task (runAsTask) is stored as a run in the database (the domain's runs) before its answer leaves, so any replica
 * answers tasks/get, tasks/update and tasks/cancel for it; its work runs in the background on the replica that started
 * it, which renews the run's lease, and a work that asks for the client's input parks the run (input_required) until
 * tasks/update brings the answers; whichever replica receives them runs the work again. Only the key that started a
 * task sees it; another key's, a missing and an expired task all answer -32602 alike.
 */

/** How often a client should poll a working task, and how often the replica running it renews its lease. */
const POLL_MS = 1000;
const RENEW_MS = tasks.BULK_RUN_LEASE_MS / 3;

/** The tools that answer tasks, by name, as servers register them: tasks/get and tasks/update find a run's tool here. */
const taskTools = new Map<string, ToolDef<z.ZodObject, ToolAnswer>>();
export function noteTaskTools(tools: ReadonlyArray<ToolDef<z.ZodObject, ToolAnswer>>): void {
  for (const tool of tools) if (tool.task) taskTools.set(tool.name, tool);
}

/** A run's state as the extension's Task: what the creation answer, tasks/get and notifications/tasks carry. */
export function taskState(run: RunRecord) {
  return {
    taskId: run.id, status: run.status, ...(run.statusMessage ? { statusMessage: run.statusMessage } : {}),
    createdAt: new Date(run.createdAt).toISOString(), lastUpdatedAt: new Date(run.updatedAt).toISOString(),
    ttlMs: tasks.BULK_RUN_TTL_MS, pollIntervalMs: POLL_MS,
  };
}

/** The detailed task: a waiting one with its open input requests, an ended one with its result or its error. */
export function detailedTask(run: RunRecord) {
  const state = taskState(run);
  if (run.status === 'input_required') return { ...state, inputRequests: run.inputRequests ?? {} };
  if (run.status !== 'completed' && run.status !== 'failed') return state;
  const end: RunOutcome = run.outcome ?? taskTools.get(run.tool)?.task?.detail?.(run) ?? { error: { code: ProtocolErrorCode.InternalError, message: run.statusMessage ?? 'failed' } };
  // The result is the call's, as a 2026-07-28 server answers it: a complete result says so (resultType is required there).
  return 'result' in end ? { ...state, result: { ...end.result, resultType: 'complete' } } : { ...state, ...end };
}

const isInputRequired = (a: object): a is { resultType: 'input_required'; inputRequests: Record<string, unknown> } =>
  (a as { resultType?: unknown }).resultType === 'input_required';

/**
 * Runs the tool's work for a stored run, in the background (outside the request's deadline), and stores how it ended.
 * The lease is renewed meanwhile; once the run is no longer working (cancelled, or failed by a reader) the work's
 * signal aborts and whatever it answers is dropped.
 */
function drive(tool: ToolDef<z.ZodObject, ToolAnswer>, run: RunRecord, ctx: ToolContext): void {
  const work = async () => {
    const abort = new AbortController();
    const renew = setInterval(() => {
      tasks.renewRun(run.id, ctx.deps).then(
        (now) => void (now?.status !== 'working' && abort.abort()),
        (err: Error) => ctx.log.warn({ err, run: run.id }, 'task lease not renewed'),
      );
    }, RENEW_MS);
    try {
      const answer = await tool.task!.work(run.arguments, ctx, { runId: run.id, responses: run.inputResponses ?? {}, signal: abort.signal });
      if (answer === undefined || abort.signal.aborted) return;
      if (isInputRequired(answer)) await tasks.parkRun(run.id, answer.inputRequests, ctx.deps);
      else await tasks.finishRun(run.id, { result: answer as Record<string, unknown> }, ctx.deps);
    } catch (e) {
      if (abort.signal.aborted) return;
      // A protocol error fails the task; anything else is the tool's error, as the call would have answered it.
      const outcome: RunOutcome = e instanceof ProtocolError
        ? { error: { code: e.code, message: e.message, ...(e.data === undefined ? {} : { data: e.data }) } }
        : { result: errorResult(e, ctx, tool.name, run.arguments) as Record<string, unknown> };
      await tasks.finishRun(run.id, outcome, ctx.deps);
    } finally {
      clearInterval(renew);
    }
  };
  withoutDeadline(() => void work().catch((err: Error) => ctx.log.error({ err, run: run.id, tool: tool.name }, 'task failed')));
}

/**
 * A tool's answer that the call goes on as a task of `args`. To a client that follows tasks it answers the task
 * (CreateTaskResult), once the run is stored; to one that does not, the work runs at once, in the call, and its
 * answer is the call's.
 */
export function runAsTask(args: unknown): TaskAnswer {
  return {
    async [TASK_ANSWER](tool, ctx, req) {
      const task = tool.task;
      if (!task) throw new Error(`${tool.name} answers no tasks`);
      if (!followsTasks(req)) {
        const answer = await task.work(args, ctx, { runId: undefined, responses: req.mcpReq.inputResponses ?? {}, signal: req.mcpReq.signal });
        if (!answer) throw new Error(`${tool.name}'s work answered nothing in the call`);
        return answer;
      }
      const run = await (task.start ? task.start(args, ctx) : tasks.startRun(ctx.actor, tool.name, args, ctx.deps));
      drive(tool, run, ctx);
      return { resultType: 'task', ...taskState(run) } as unknown as CallToolResult;
    },
  };
}

/** The run of `taskId` for the request's key; any other key's, a missing or an expired one is -32602. */
async function known<T>(taskId: string, read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (e) {
    if (e instanceof DomainError && e.code === 'not_found') throw new ProtocolError(ProtocolErrorCode.InvalidParams, `taskId: no task ${taskId}`, { argument: 'taskId' });
    throw e;
  }
}

const TaskRef = z.looseObject({ taskId: z.string().min(1).max(200) });

/** The request's context, once the client is known to follow tasks (-32021 otherwise). */
function following(method: string, req: ServerContext): ToolContext {
  if (!followsTasks(req)) throw missingTasksExtension(method);
  return contextOf(req);
}

/**
 * tasks/get, tasks/update and tasks/cancel on a 2026-07-28 server (the SDK checks their Mcp-Name header against the
 * taskId). tasks/update and tasks/cancel answer an empty acknowledgement: the task's state is read with tasks/get.
 */
export function registerTaskMethods(server: McpServer): void {
  server.server.setRequestHandler('tasks/get', { params: TaskRef }, async (params, req) => {
    const ctx = following('tasks/get', req);
    const run = await known(params.taskId, () => tasks.getRun(ctx.actor, params.taskId, ctx.deps));
    return { resultType: 'complete', ...detailedTask(run) };
  });
  server.server.setRequestHandler('tasks/update', { params: TaskRef }, async (params, req) => {
    const ctx = following('tasks/update', req);
    // The SDK lifts `inputResponses` off the params, as on a multi-round-trip call, keeping the well-formed answers.
    const responses = req.mcpReq.inputResponses ?? {};
    const { run, resume } = await known(params.taskId, () => tasks.answerRun(ctx.actor, params.taskId, responses, ctx.deps));
    if (resume) {
      const tool = taskTools.get(run.tool);
      if (tool) drive(tool, run, ctx);
      else await tasks.finishRun(run.id, { error: { code: ProtocolErrorCode.InternalError, message: `${run.tool} is not served here` } }, ctx.deps);
    }
    return { resultType: 'complete' };
  });
  server.server.setRequestHandler('tasks/cancel', { params: TaskRef }, async (params, req) => {
    const ctx = following('tasks/cancel', req);
    await known(params.taskId, () => tasks.cancelRun(ctx.actor, params.taskId, ctx.deps));
    return { resultType: 'complete' };
  });
}
