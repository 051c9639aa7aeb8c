import { type CallToolResult as SdkCallToolResult, type InputRequiredResult, type McpServer, ProtocolError, ProtocolErrorCode, type ServerContext, type Tool, type ToolAnnotations } from '@modelcontextprotocol/server';
import type { Logger } from 'pino';
import type { z } from 'zod';
import { isOutcomeUnknown, isUnavailable, timeToolCall, toolOutcome, UNAVAILABLE_MESSAGE } from '@tt/http';
import { assertJsonObject, assertShallow, assertStorable, DomainError, hasScope, type Actor, type RunRecord, type Deps, type RunOutcome, type Scope } from '@tt/domain';
import { errorText } from './answer/error-text.js';
import { composed } from './answer/gate.js';
import { humanIssues } from './issues.js';
import { listedAnnotations, toolJsonSchema } from './json-schema.js';
import { FULL_SESSION, type Session, type Toolset } from './edge/session.js';
import { contextOf } from './edge/context.js';
import { followsTasks, missingTasksExtension } from './mcp-tasks/extension.js';
import type { SessionClaims } from './sessions/token.js';

/** A tool's result. Structured content is always an object here (the SDK's type allows any JSON value). */
export type CallToolResult = SdkCallToolResult & { structuredContent?: Record<string, unknown> };

/** What a tool handler gets: the key's user, the use-case deps and the session's narrowing. Never the request. */
export interface ToolContext {
  actor: Actor;
  deps: Deps;
  log: Logger;
  requestId?: string | undefined;
  session?: Session;
  /**
   * Set when this request's tools/call is over the key's per-minute limit: the seconds until the window resets. The
   * call then answers a tool error naming the wait (the edge counted it; see edge/limits.ts).
   */
  retryInSeconds?: number | undefined;
  /** The 2025-era session the request carried (Mcp-Session-Id, checked at the edge; sessions/). */
  mcpSession?: SessionClaims | undefined;
}

type Input = z.ZodObject;

/**
 * What a tool may answer: its result, or (2026-07-28, multi-round-trip) a request for the client's input first, or
 * (a tool with `task`) that the rest runs as an MCP task (mcp-tasks/runs.ts: runAsTask).
 */
export type ToolAnswer = CallToolResult | InputRequiredResult | TaskAnswer;

/** The key under which a TaskAnswer carries how it is answered (mcp-tasks/runs.ts makes them). */
export const TASK_ANSWER = Symbol('task-answer');

/** A tool's answer that the call goes on as a task: it answers the call itself (a task, or the work at once). */
export interface TaskAnswer {
  [TASK_ANSWER](tool: ToolDef<Input, ToolAnswer>, ctx: ToolContext, req: ServerContext): Promise<CallToolResult | InputRequiredResult>;
}

/** One round of a task's work: the run, the client's answers to its input requests so far, and its cancellation. */
export interface TaskStep {
  /** The run's id; undefined when the work runs at once, in the call (a client that does not follow tasks). */
  runId: string | undefined;
  /** The client's answers so far, by input request key (the call's own, when the work runs in the call). */
  responses: Record<string, unknown>;
  /** Aborted once the run is no longer working (cancelled, or failed by another replica). */
  signal: AbortSignal;
}

/**
 * How a tool answers MCP tasks (the tasks extension; mcp-tasks/runs.ts does the rest): the tool's `run` answers
 * `runAsTask(args)` when the call should go on as a task, and `work` does the rest, in the background, on any replica.
 */
export interface TaskSupport {
  /** `required`: only as a task; a client that does not follow tasks is answered -32021 before the tool runs. */
  support: 'optional' | 'required';
  /** Stores the run (default: a tool's run of these arguments). */
  start?(args: unknown, ctx: ToolContext): Promise<RunRecord>;
  /**
   * The work: its answer ends the run (completed), `input_required` makes the run wait for the client's answers
   * (tasks/update; the work then runs again, with every answer), a ProtocolError fails it. Undefined: the work ended
   * the run itself (update_tasks' batches).
   */
  work(args: unknown, ctx: ToolContext, step: TaskStep): Promise<CallToolResult | InputRequiredResult | undefined>;
  /** The ended run's answer, for a tool whose work ended it itself. */
  detail?(run: RunRecord): RunOutcome;
}

export interface ToolDef<S extends Input = Input, R extends ToolAnswer = CallToolResult> {
  name: string;
  title: string;
  description: string;
  /** Rights the key needs to see and call the tool; omitted = any key. */
  scope?: Scope | Scope[];
  /** The toolset (X-MCP-Toolsets) the tool belongs to; omitted = always available (whoami). */
  toolset?: Toolset;
  input: S;
  /**
   * The input schema tools/list shows, when the one made from `input` cannot say it (keywords zod does not write, such
   * as a conformance fixture's `$defs` or `x-mcp-header`). Arguments are still checked with `input`.
   */
  listedInput?: Record<string, unknown>;
  output?: z.ZodObject;
  annotations: Required<Pick<ToolAnnotations, 'readOnlyHint' | 'destructiveHint' | 'idempotentHint'>>;
  /** The MCP Apps view (a `ui://` resource, views/index.ts) a host shows with the tool's answer. */
  view?: string;
  /** `req` is the SDK's view of the call, for the few tools that talk back on it (progress, input requests). */
  run(args: z.output<S>, ctx: ToolContext, req: ServerContext): Promise<R>;
  /** The tool answers MCP tasks (2026-07-28, the tasks extension). */
  task?: TaskSupport;
}

/** Identity helper that keeps the argument type of `run` tied to the input schema. */
export const defineTool = <S extends Input, R extends ToolAnswer = CallToolResult>(def: ToolDef<S, R>): ToolDef<S, R> => def;

/** A Markdown text result, with structured content for clients that read it. */
export function ok(markdown: string, structured?: Record<string, unknown>): CallToolResult {
  const text = composed(markdown);
  return structured ? { content: [{ type: 'text', text }], structuredContent: structured } : { content: [{ type: 'text', text }] };
}

/** A tool error; its text is neutralised and on one line (see error-text.ts), wherever it was built. */
const fail = (text: string, args?: unknown): CallToolResult => ({ isError: true, content: [{ type: 'text', text: composed(errorText(text, args)) }] });

/**
 * Turns a thrown error into a tool result: domain errors as `code: message` (the caller's `args` they repeat cut short), an unavailable database as
 * `service_unavailable` (the agent should retry; the outage is logged once by the runtime), anything else generic and
 * logged.
 */
export function errorResult(e: unknown, ctx: ToolContext, tool: string, args?: unknown): CallToolResult {
  if (e instanceof DomainError) return fail(`${e.code}: ${e.message}`, args);
  if (isOutcomeUnknown(e)) {
    ctx.log.warn({ err: (e as Error).message, tool }, 'tool call outcome unknown');
    return fail(`outcome_unknown: the database did not answer in time whether the change was saved; it may have been. Call ${tool} again with the same requestId (if it takes one) to get its answer, or read the object before changing it again`);
  }
  if (isUnavailable(e)) return fail(`service_unavailable: ${UNAVAILABLE_MESSAGE}; call ${tool} again then (with the same requestId, if it takes one, so that a change saved before the failure is not made twice)`);
  ctx.log.error({ err: e, tool }, 'tool failed');
  const ref = ctx.requestId ? `; request id ${ctx.requestId}` : '';
  return fail(`internal: Unexpected error in ${tool}; it was logged${ref}`);
}

/**
 * Runs a domain input schema over the built input, so MCP validates exactly like REST, in words for a person. The
 * depth and object checks come first: the storable check and zod walk the value.
 */
export function validate<T extends z.ZodType>(schema: T, value: unknown): z.output<T> {
  assertShallow(value, 'arguments');
  assertJsonObject(value, 'arguments');
  assertStorable(value);
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw new DomainError('invalid_request', humanIssues(parsed.error.issues, value, schema));
  return parsed.data;
}

/** The rights a tool needs. */
export const scopesOf = (tool: ToolDef<Input, ToolAnswer>): Scope[] => (tool.scope === undefined ? [] : Array.isArray(tool.scope) ? tool.scope : [tool.scope]);

/** Why a tool cannot be used in this request, or null when it can. */
export function refusal(tool: ToolDef<Input, ToolAnswer>, ctx: Profile): string | null {
  const missing = scopesOf(tool).filter((s) => !hasScope(ctx.actor, s));
  if (missing.length) {
    const has = ctx.actor.key.scopes.length ? ctx.actor.key.scopes.join(', ') : 'none';
    return `insufficient_scope: ${tool.name} needs the right ${missing.join(' and ')}, which this key lacks; the key's rights: ${has}. ` +
      'Ask the person you work for for a key with that right.';
  }
  const session = ctx.session ?? FULL_SESSION;
  if (session.readOnly && !tool.annotations.readOnlyHint) {
    return `forbidden: ${tool.name} changes data and this session is read-only (X-MCP-Readonly or /mcp/readonly); connect without read-only mode to use it`;
  }
  if (session.toolsets && tool.toolset && !session.toolsets.includes(tool.toolset)) {
    return `forbidden: ${tool.name} is in the toolset ${tool.toolset}, and this session asked only for ${session.toolsets.join(', ')} (X-MCP-Toolsets)`;
  }
  return null;
}

/** A tool as tools/list shows it, built once per tool: the schemas take the portable spelling (see json-schema.ts). */
const listedCache = new WeakMap<ToolDef<Input, ToolAnswer>, Tool>();
function listed(tool: ToolDef<Input, ToolAnswer>): Tool {
  let t = listedCache.get(tool);
  if (!t) {
    t = {
      name: tool.name,
      title: tool.title,
      description: tool.description,
      inputSchema: (tool.listedInput ?? toolJsonSchema(tool.input, 'input')) as Tool['inputSchema'],
      ...(tool.output ? { outputSchema: toolJsonSchema(tool.output, 'output') as Tool['outputSchema'] } : {}),
      annotations: listedAnnotations(tool.annotations),
      ...(tool.view ? { _meta: { ui: { resourceUri: tool.view } } } : {}),
    };
    listedCache.set(tool, t);
  }
  return t;
}

/** What decides which tools, prompts and resources a request may use: the key's rights and the session's narrowing. */
export type Profile = Pick<ToolContext, 'actor' | 'session'>;

/**
 * Registers the tools a profile may use (the key's rights, then the session's narrowing); the others are not
 * listed, but calling one answers why not, naming the missing right and the key's rights; a name that is no tool at
 * all is -32602. tools/list and tools/call
 * are answered here rather than by McpServer's registry, so that arguments failing a tool's schema come back like
 * REST's 400: a tool result with `invalid_request: <field>: <fault>`, not a protocol error. The list keeps the order
 * of `tools`, so it is the same on every request (clients cache it on 2026-07-28). The server serves many requests of
 * the same profile: each call reads its own context from the request (edge/context.ts).
 */
export function registerTools(server: McpServer, tools: ReadonlyArray<ToolDef<Input, ToolAnswer>>, profile: Profile): string[] {
  const allowed = new Map<string, ToolDef<Input, ToolAnswer>>();
  for (const tool of tools) if (!refusal(tool, profile)) allowed.set(tool.name, tool);
  const list = [...allowed.values()].map(listed);
  server.server.setRequestHandler('tools/list', () => ({ tools: list }));
  // On 2026-07-28 the SDK checks Mcp-Param-* headers against a tool's x-mcp-header declarations before the call; it
  // reads the schema from its own registry, which these tools bypass, so it is given the listed one.
  server.toolInputSchemaJson = (name) => {
    const tool = allowed.get(name);
    return tool && (listed(tool).inputSchema as Record<string, unknown>);
  };
  server.server.setRequestHandler('tools/call', async (request, extra): Promise<CallToolResult | InputRequiredResult> => {
    const ctx = contextOf(extra);
    const { name } = request.params;
    const tool = allowed.get(name);
    const known = tools.find((t) => t.name === name);
    // Metrics label only names this server's tools, so made-up names cannot add series.
    const done = timeToolCall(known ? name : 'unknown');
    if (ctx.retryInSeconds !== undefined) {
      done('denied');
      return fail(`rate_limited: this key made more tool calls than its limit per minute allows; retry in ${ctx.retryInSeconds} s`);
    }
    if (!tool) {
      done('denied');
      if (known) return fail(refusal(known, ctx) ?? `forbidden: ${known.name} is not available`);
      // An unknown tool is a protocol error (-32602), as the spec lists it, not a result the client reads as the tool's.
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, errorText(`name: no tool ${name}; the tools of this session are ${[...allowed.keys()].join(', ')}`, name), { argument: 'name' });
    }
    // A tool that answers only as a task, to a client that cannot follow one: refused before it runs.
    if (tool.task?.support === 'required' && !followsTasks(extra)) {
      done('denied');
      throw missingTasksExtension(`${tool.name}`);
    }
    try {
      const args = validate(tool.input, request.params.arguments ?? {});
      const answer = await tool.run(args as z.output<Input>, ctx, extra);
      const result = TASK_ANSWER in answer ? await answer[TASK_ANSWER](tool, ctx, extra) : answer;
      done('isError' in result && result.isError ? 'error' : 'ok');
      return result;
    } catch (e) {
      done(toolOutcome(e));
      // A fault in the protocol itself (a multi-round-trip state that fails its check) stays a protocol error.
      if (e instanceof ProtocolError) throw e;
      return errorResult(e, ctx, tool.name, request.params.arguments);
    }
  });
  return [...allowed.keys()];
}

/**
 * "12 of 40 tasks shown. More: ... cursor" — a list never ends silently. `noun` is singular (`plural` when adding an
 * s is wrong); `capped`: the count stopped at `total`, so more match ("of more than 1000").
 */
export function pageNote(
  shown: number, total: number, noun: string, nextCursor: string | null, o: { plural?: string; capped?: boolean } = {},
): string {
  const of = `${o.capped ? 'more than ' : ''}${total} ${total === 1 && !o.capped ? noun : (o.plural ?? `${noun}s`)}`;
  if (nextCursor) return `${shown} of ${of} shown. More: call again with cursor "${nextCursor}".`;
  return shown === total ? `${of}.` : `${shown} of ${of} shown (last page).`;
}
