import { type InputRequiredResult, isInputRequiredResult, type McpServer, type PromptMessage, ProtocolError, ProtocolErrorCode, type ServerContext } from '@modelcontextprotocol/server';
import type { z } from 'zod';
import { DomainError, hasScope, type Scope } from '@tt/domain';
import { FULL_SESSION, type Toolset } from '../edge/session.js';
import type { Profile, ToolContext } from '../tool.js';
import { contextOf } from '../edge/context.js';
import { completeArgument, isTemplate, templateVariable } from './args.js';
import { humanIssues } from '../issues.js';
import { echo } from '../answer/untrusted.js';

/** A prompt: its arguments, the rights and toolset it needs (as the tools it points at), and its text. */
export interface PromptDef<S extends z.ZodObject = z.ZodObject> {
  name: string;
  title: string;
  description: string;
  scopes: Scope[];
  /** Omitted: offered whatever toolsets the session asked for (the conformance fixtures). */
  toolset?: Toolset;
  /** The arguments, built once per process; completion/complete answers for them (args.ts). */
  args: S;
  /**
   * The user message: data read as the key, person-written text fenced, and which tools to use next. Messages as they
   * are for a prompt whose answer is not one text (a conformance fixture's image or embedded resource), or (2026-07-28)
   * a request for the client's input first; `req` is the SDK's view of the request, for the latter.
   */
  run(args: z.output<S>, ctx: ToolContext, req: ServerContext): Promise<string | PromptMessage[] | InputRequiredResult>;
  /** The values completion/complete offers for an argument, when args.ts does not know the prompt. */
  complete?(argument: string, value: string): string[];
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

/**
 * Registers the prompts this key and session may use: the same rule as tools (rights first, then toolsets), and
 * answers completion/complete for their arguments and the resource templates' variables with the key's view.
 */
export function registerPromptDefs(server: McpServer, defs: ReadonlyArray<PromptDef>, profile: Profile): string[] {
  const session = profile.session ?? FULL_SESSION;
  const allowed = defs.filter((def) => def.scopes.every((s) => hasScope(profile.actor, s)) && (!session.toolsets || !def.toolset || session.toolsets.includes(def.toolset)));
  // prompts/list never changes while a server runs: no listChanged (the SDK would advertise it by default).
  if (allowed.length) server.server.registerCapabilities({ prompts: { listChanged: false } });
  // A prompt's answer, for the registry's callback and for the prompts/get handler below that answers in its place.
  const answer = async (def: PromptDef, args: unknown, extra: ServerContext) => {
    const made = await def.run(args as never, contextOf(extra), extra);
    if (isInputRequiredResult(made)) return made;
    const messages: PromptMessage[] = typeof made === 'string' ? [{ role: 'user', content: { type: 'text', text: made } }] : made;
    return { description: def.title, messages };
  };
  for (const def of allowed) {
    server.registerPrompt(def.name, { title: def.title, description: def.description, argsSchema: def.args }, (args: Record<string, unknown>, extra) => answer(def, args, extra));
  }
  const byName = new Map(allowed.map((d) => [d.name, d]));
  if (allowed.length) {
    // prompts/get answered here rather than by McpServer's registry, so a bad argument is -32602 naming it on one line
    // (the registry's answer carries the validator's dump), like a domain error of the prompt (forArg).
    server.server.setRequestHandler('prompts/get', async (request, extra) => {
      const def = byName.get(request.params.name);
      if (!def) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `name: no prompt ${echo(request.params.name)}; the prompts are ${[...byName.keys()].join(', ')}`, { argument: 'name' });
      const args = request.params.arguments ?? {};
      const parsed = def.args.strict().safeParse(args);
      if (!parsed.success) {
        const first = parsed.error.issues[0];
        const argument = first?.code === 'unrecognized_keys' ? first.keys[0] : first?.path[0];
        throw new ProtocolError(ProtocolErrorCode.InvalidParams, humanIssues(parsed.error.issues.slice(0, 1), args, def.args), { argument: argument === undefined ? undefined : String(argument) });
      }
      return answer(def, parsed.data, extra);
    });
  }
  const names = new Set(allowed.map((d) => d.name));
  server.server.registerCapabilities({ completions: {} });
  server.server.setRequestHandler('completion/complete', async (request, extra) => {
    const ctx = contextOf(extra);
    const { ref, argument } = request.params;
    let values: string[];
    if (ref.type === 'ref/prompt') {
      if (!names.has(ref.name)) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `ref.name: no prompt ${echo(ref.name)}`, { argument: 'ref.name' });
      const shape = byName.get(ref.name)!.args.shape as Record<string, unknown>;
      if (!Object.prototype.hasOwnProperty.call(shape, argument.name)) {
        throw new ProtocolError(ProtocolErrorCode.InvalidParams, `argument.name: prompt ${ref.name} has no argument ${echo(argument.name)}; its arguments: ${Object.keys(shape).join(', ')}`, { argument: 'argument.name' });
      }
      const def = byName.get(ref.name)!;
      values = def.complete ? def.complete(argument.name, argument.value) : await completeArgument(ctx, { type: 'prompt', name: ref.name }, argument.name, argument.value);
    } else if (ref.type === 'ref/resource') {
      if (!isTemplate(ref.uri)) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `ref.uri: no resource template ${echo(ref.uri)}`, { argument: 'ref.uri' });
      const variable = templateVariable(ref.uri);
      if (argument.name !== variable) {
        throw new ProtocolError(ProtocolErrorCode.InvalidParams, `argument.name: ${ref.uri} has no variable ${echo(argument.name)}; its variable: ${variable}`, { argument: 'argument.name' });
      }
      values = await completeArgument(ctx, { type: 'template', name: ref.uri }, argument.name, argument.value);
    } else {
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, 'Invalid completion reference');
    }
    return { completion: { values: values.slice(0, 100), total: values.length, hasMore: values.length > 100 } };
  });
  return [...names];
}
