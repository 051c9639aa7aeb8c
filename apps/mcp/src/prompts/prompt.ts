import { type McpServer, ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server';
import type { z } from 'zod';
import { DomainError, hasScope, type Scope } from '@tt/domain';
import { FULL_SESSION, type Toolset } from '../edge/session.js';
import type { ToolContext } from '../tool.js';

/** A prompt: its arguments, the rights and toolset it needs (as the tools it points at), and its text. */
export interface PromptDef<S extends z.ZodObject = z.ZodObject> {
  name: string;
  title: string;
  description: string;
  scopes: Scope[];
  toolset: Toolset;
  args(ctx: ToolContext): S;
  /** The user message: data read as the key, person-written text fenced, and which tools to use next. */
  run(args: z.output<S>, ctx: ToolContext): Promise<string>;
}

export const definePrompt = <S extends z.ZodObject>(def: PromptDef<S>): PromptDef<S> => def;

/**
 * Runs a lookup for one argument: a domain error (not found, bad value) becomes -32602 naming the argument, in the
 * words a tool would use, so the client can show the person what to fix.
 */
export async function forArg<T>(name: string, work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (e) {
    if (e instanceof DomainError && e.status < 500) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `${name}: ${e.message}`, { argument: name, code: e.code });
    throw e;
  }
}

/** A bad argument value: -32602 naming the argument. */
export const badArg = (name: string, message: string): ProtocolError =>
  new ProtocolError(ProtocolErrorCode.InvalidParams, `${name}: ${message}`, { argument: name });

/** Registers the prompts this key and session may use: the same rule as tools (rights first, then toolsets). */
export function registerPromptDefs(server: McpServer, defs: ReadonlyArray<PromptDef>, ctx: ToolContext): string[] {
  const session = ctx.session ?? FULL_SESSION;
  const allowed = defs.filter((def) => def.scopes.every((s) => hasScope(ctx.actor, s)) && (!session.toolsets || session.toolsets.includes(def.toolset)));
  // prompts/list never changes while a server runs: no listChanged (the SDK would advertise it by default).
  if (allowed.length) server.server.registerCapabilities({ prompts: { listChanged: false } });
  const names: string[] = [];
  for (const def of allowed) {
    server.registerPrompt(def.name, { title: def.title, description: def.description, argsSchema: def.args(ctx) }, async (args: Record<string, unknown>) => ({
      description: def.title,
      messages: [{ role: 'user' as const, content: { type: 'text' as const, text: await def.run(args as never, ctx) } }],
    }));
    names.push(def.name);
  }
  return names;
}
