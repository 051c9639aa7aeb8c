import { setTimeout as sleep } from 'node:timers/promises';
import { inputRequired, ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { composed } from '../answer/gate.js';
import { runAsTask } from '../mcp-tasks/runs.js';
import { defineTool, ok, type TaskSupport, type TaskStep, type ToolAnswer, type ToolDef } from '../tool.js';

/*
 * The suite's tasks fixtures (2026-07-28, the tasks extension): tools that answer tasks through the same mechanism as
 * update_tasks (a ToolDef's `task`, mcp-tasks/runs.ts), so the suite drives the product's task store, tasks/get,
 * tasks/update and tasks/cancel. Each fixture is only its work; every protocol rule lives in the mechanism.
 */

const READ = { readOnlyHint: true, destructiveHint: false, idempotentHint: true } as const;
const NONE = z.object({}).loose();

/** An elicitation answered `accept`: its content, else undefined. */
const accepted = (step: TaskStep, key: string): Record<string, unknown> | undefined => {
  const r = step.responses[key] as { action?: unknown; content?: unknown } | undefined;
  return r?.action === 'accept' && r.content !== null && typeof r.content === 'object' ? (r.content as Record<string, unknown>) : undefined;
};

const ask = (message: string, field: string, schema: { type: 'string' } | { type: 'boolean' }) =>
  inputRequired.elicit({ message, requestedSchema: { type: 'object', properties: { [field]: schema }, required: [field] } });

/** A fixture whose every call goes on as a task (`support`: may a client that follows none call it). */
function taskTool<S extends z.ZodObject>(
  name: string, description: string, input: S, support: TaskSupport['support'], work: (args: z.output<S>, step: TaskStep) => ReturnType<TaskSupport['work']>,
): ToolDef<S, ToolAnswer> {
  return defineTool<S, ToolAnswer>({
    name, title: name, description, input, annotations: READ,
    run: async (args) => runAsTask(args),
    task: { support, work: (args, _ctx, step) => work(args as z.output<S>, step) },
  });
}

const SlowInput = z.object({ seconds: z.number().min(0).max(600), label: z.string().max(200).optional() });

export const TASK_TOOLS: ReadonlyArray<ToolDef<z.ZodObject, ToolAnswer>> = [
  defineTool({
    name: 'greet', title: 'greet', description: 'Greets someone at once (no task)', input: z.object({ name: z.string().max(200) }), annotations: READ,
    run: async ({ name }) => ok(`Hello, ${name}!`),
  }),
  taskTool('slow_compute', 'Sleeps `seconds`, then answers', SlowInput, 'optional', async ({ seconds, label }, step) => {
    await sleep(seconds * 1000, undefined, { signal: step.signal });
    return ok(`Computed ${label ?? 'a result'} after ${seconds} s`);
  }),
  taskTool('failing_job', 'Fails as a tool after a second', NONE, 'required', async (_args, step) => {
    await sleep(1000, undefined, { signal: step.signal });
    return { isError: true, content: [{ type: 'text', text: composed('failing_job: the job failed') }] };
  }),
  taskTool('protocol_error_job', 'Fails at the protocol level', NONE, 'optional', async () => {
    throw new ProtocolError(ProtocolErrorCode.InternalError, 'protocol_error_job: the job broke');
  }),
  taskTool('confirm_delete', 'Asks to confirm, then deletes (nothing)', z.object({ filename: z.string().max(200) }), 'optional', async ({ filename }, step) => {
    if (!step.responses.confirm) return inputRequired({ inputRequests: { confirm: ask(`Delete ${filename}?`, 'confirm', { type: 'boolean' }) } });
    return ok(accepted(step, 'confirm')?.confirm === true ? `Deleted ${filename}` : `Kept ${filename}`);
  }),
  taskTool('multi_input', 'Asks two questions at once', NONE, 'optional', async (_args, step) => {
    const open = Object.fromEntries(
      [['first', () => ask('First name?', 'name', { type: 'string' })], ['second', () => ask('Second name?', 'name', { type: 'string' })]]
        .filter(([key]) => !step.responses[key as string]).map(([key, make]) => [key, (make as () => ReturnType<typeof ask>)()]),
    );
    if (Object.keys(open).length) return inputRequired({ inputRequests: open });
    return ok(`Received ${String(accepted(step, 'first')?.name)} and ${String(accepted(step, 'second')?.name)}`);
  }),
  defineTool<typeof NONE, ToolAnswer>({
    name: 'test_tool_with_task', title: 'test_tool_with_task', description: 'Asks a name, then greets it in a task', input: NONE, annotations: READ,
    // The name is asked in the call itself (multi-round-trip); once answered, the rest goes on as a task.
    run: async (_args, _ctx, req) => {
      const r = req.mcpReq.inputResponses?.user_name as { action?: unknown; content?: { name?: unknown } } | undefined;
      if (!r) return inputRequired({ inputRequests: { user_name: ask('What is your name?', 'name', { type: 'string' }) } });
      return runAsTask({ name: r.action === 'accept' && typeof r.content?.name === 'string' ? r.content.name : 'unknown' });
    },
    task: { support: 'required', work: async (args) => ok(`Hello, ${(args as { name: string }).name}, from a task!`) },
  }),
];
