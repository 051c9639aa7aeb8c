import { composed } from './answer/gate.js';
import type { CallToolResult } from './tool.js';
import { z } from 'zod';
import { idempotency, IDEMPOTENCY_KEY_MAX, parseIdempotencyKey, requestFingerprint } from '@tt/domain';
import type { ToolContext, ToolDef } from './tool.js';

type Input = z.ZodObject;

/**
 * A tool's `requestId`: the MCP form of REST's Idempotency-Key, for agents that retry. The same requestId with the same
 * arguments within 24 hours returns the first result again (prefixed with a note) and does nothing; other arguments
 * are `idempotency_key_reused`; a call still running is `idempotency_conflict`. Only successful results are kept, in
 * the transaction of the call's writes (`idempotency.once`): a failed call wrote nothing, so the agent may fix its
 * arguments and retry with the same requestId.
 */
export async function oncePerRequestId(
  ctx: ToolContext,
  tool: string,
  requestId: string | undefined,
  args: Record<string, unknown>,
  run: (ctx: ToolContext) => Promise<CallToolResult>,
): Promise<CallToolResult> {
  if (requestId === undefined) return run(ctx);
  const key = parseIdempotencyKey(requestId, 'requestId');
  const scope = { keyId: ctx.actor.key.id, surface: 'mcp' as const };
  const { requestId: _omit, ...rest } = args;
  const outcome = await idempotency.once(scope, key, requestFingerprint([tool, rest]), ctx.deps, async (deps) => {
    // The tool runs with deps whose store is the transaction its result is stored in.
    const result = await run({ ...ctx, deps });
    return { value: result, answer: result.isError ? null : { status: 200, headers: {}, body: JSON.stringify(result) } };
  }, 'requestId');
  if (outcome.kind === 'replay') return replayed(JSON.parse(outcome.response.body) as CallToolResult, key);
  // The jobs the call wrote committed just now: wake the relay (the use case's own wake came before the commit).
  if (outcome.kept) ctx.deps.jobs.notify();
  return outcome.value;
}

function replayed(result: CallToolResult, key: string): CallToolResult {
  const note = `Replayed: requestId "${key}" was already done; nothing was created again. The first result:`;
  const [first, ...others] = result.content;
  if (first?.type === 'text') return { ...result, content: [{ ...first, text: composed(`${note}\n\n${first.text}`) }, ...others] };
  return { ...result, content: [{ type: 'text', text: composed(note) }, ...result.content] };
}

/** Wraps a tool whose input has an optional `requestId`, so that a retried call runs once. */
export function withRequestId<S extends Input>(def: ToolDef<S>): ToolDef<S> {
  return {
    ...def,
    run: (args, ctx, req) =>
      oncePerRequestId(ctx, def.name, (args as { requestId?: string }).requestId, args as Record<string, unknown>, (scoped) => def.run(args, scoped, req)),
  };
}

/** The `requestId` argument of a tool that takes one. */
export const requestIdArg = z
  .string()
  .min(1)
  .max(IDEMPOTENCY_KEY_MAX)
  .optional()
  .describe('Retry key: a repeat returns the first result');
