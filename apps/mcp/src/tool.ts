import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { CallToolRequestSchema, type CallToolResult, type ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from 'pino';
import type { z } from 'zod';
import { timeToolCall, toolOutcome } from '@tt/http';
import { DomainError, formatIssues, hasScope, type Actor, type Deps, type Scope } from '@tt/domain';

/** What a tool handler gets: the key's user and the use-case deps. Never the request. */
export interface ToolContext {
  actor: Actor;
  deps: Deps;
  log: Logger;
  requestId?: string | undefined;
}

type Input = z.ZodObject;

export interface ToolDef<S extends Input = Input> {
  name: string;
  title: string;
  description: string;
  /** Right the key needs to see and call the tool; omitted = any key. */
  scope?: Scope;
  input: S;
  output?: z.ZodObject;
  annotations: Required<Pick<ToolAnnotations, 'readOnlyHint' | 'destructiveHint' | 'idempotentHint'>>;
  run(args: z.output<S>, ctx: ToolContext): Promise<CallToolResult>;
}

/** Identity helper that keeps the argument type of `run` tied to the input schema. */
export const defineTool = <S extends Input>(def: ToolDef<S>): ToolDef<S> => def;

/** A Markdown text result, with structured content for clients that read it. */
export function ok(markdown: string, structured?: Record<string, unknown>): CallToolResult {
  return structured ? { content: [{ type: 'text', text: markdown }], structuredContent: structured } : { content: [{ type: 'text', text: markdown }] };
}

/** Turns a thrown error into a tool result: domain errors as `code: message`, anything else generic and logged. */
export function errorResult(e: unknown, ctx: ToolContext, tool: string): CallToolResult {
  if (e instanceof DomainError) return { isError: true, content: [{ type: 'text', text: `${e.code}: ${e.message}` }] };
  ctx.log.error({ err: e, tool }, 'tool failed');
  const ref = ctx.requestId ? `; request id ${ctx.requestId}` : '';
  return { isError: true, content: [{ type: 'text', text: `internal: Unexpected error in ${tool}; it was logged${ref}` }] };
}

/** Runs a domain input schema over the built input, so MCP validates exactly like REST. */
export function validate<T extends z.ZodType>(schema: T, value: unknown): z.output<T> {
  assertStorable(value);
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw new DomainError('invalid_request', formatIssues(parsed.error.issues as never));
  return parsed.data;
}

/**
 * Registers the tools the key's rights allow; the others are not even listed. Calls are dispatched here rather than
 * by McpServer, so that arguments failing a tool's schema come back like REST's 400: a tool result with
 * `invalid_request: <field>: <fault>`, not a protocol error.
 */
export function registerTools(server: McpServer, tools: ReadonlyArray<ToolDef<Input>>, ctx: ToolContext): string[] {
  const allowed = new Map<string, ToolDef<Input>>();
  for (const tool of tools) {
    if (tool.scope && !hasScope(ctx.actor, tool.scope)) continue;
    server.registerTool(
      tool.name,
      {
        title: tool.title,
        description: tool.description,
        inputSchema: tool.input,
        ...(tool.output ? { outputSchema: tool.output } : {}),
        annotations: { title: tool.title, ...tool.annotations, openWorldHint: false },
      },
      (() => undefined) as never,
    );
    allowed.set(tool.name, tool);
  }
  server.server.setRequestHandler(CallToolRequestSchema, async (request): Promise<CallToolResult> => {
    const tool = allowed.get(request.params.name);
    // Metrics label only names this server's tools, so made-up names cannot add series.
    const done = timeToolCall(tools.some((t) => t.name === request.params.name) ? request.params.name : 'unknown');
    if (!tool) {
      done('denied');
      return { isError: true, content: [{ type: 'text', text: `not_found: no tool ${request.params.name}; tools/list shows the tools this key may use` }] };
    }
    try {
      const args = validate(tool.input, request.params.arguments ?? {});
      const result = await tool.run(args as z.output<Input>, ctx);
      done(result.isError ? 'error' : 'ok');
      return result;
    } catch (e) {
      done(toolOutcome(e));
      return errorResult(e, ctx, tool.name);
    }
  });
  return [...allowed.keys()];
}

/** "12 of 40 tasks shown. More: ... cursor" — a list never ends silently. `noun` is singular. */
export function pageNote(shown: number, total: number, noun: string, nextCursor: string | null): string {
  const of = `${total} ${total === 1 ? noun : `${noun}s`}`;
  if (nextCursor) return `${shown} of ${of} shown. More: call again with cursor "${nextCursor}".`;
  return shown === total ? `${of}.` : `${shown} of ${of} shown (last page).`;
}
