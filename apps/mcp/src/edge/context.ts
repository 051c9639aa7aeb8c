import type { AuthInfo } from '@modelcontextprotocol/server';
import type { ToolContext } from '../tool.js';

/*
 * A request's context travels with the request, not with the server that answers it: the edge wraps the key's
 * ToolContext in the SDK's AuthInfo (`carrier`), the SDK hands that AuthInfo to every handler it calls (`ctx.http`), and
 * handlers read it back with `contextOf`. So one server instance, with every handler installed once, serves request
 * after request (server.ts keeps them), and nothing a handler does can reach another request's key.
 */

const CONTEXT = Symbol('tool-context');
const METHOD = Symbol('method');

/** The AuthInfo a request's messages carry: the key's id and rights for the SDK, our context for the handlers. */
export type Carrier = AuthInfo & { extra: { [CONTEXT]: ToolContext; [METHOD]: string | undefined } };

export function carrier(ctx: ToolContext, method: string | undefined): Carrier {
  return { token: '', clientId: ctx.actor.key.id, scopes: [...ctx.actor.key.scopes], extra: { [CONTEXT]: ctx, [METHOD]: method } };
}

/** What the SDK hands a handler, as far as the context is concerned. */
export interface HandlerExtra {
  http?: { authInfo?: AuthInfo | undefined } | undefined;
}

/** The request's context, from the handler's extra; a request that arrived without one is refused, never served as someone. */
export function contextOf(extra: HandlerExtra | undefined): ToolContext {
  const ctx = (extra?.http?.authInfo as Carrier | undefined)?.extra?.[CONTEXT];
  if (!ctx) throw new Error('MCP request without an authenticated context');
  return ctx;
}

/** The context and method a carrier holds (for the server factory), or undefined for an AuthInfo of another origin. */
export function carried(authInfo: AuthInfo | undefined): { ctx: ToolContext; method: string | undefined } | undefined {
  const extra = (authInfo as Carrier | undefined)?.extra;
  const ctx = extra?.[CONTEXT];
  return ctx ? { ctx, method: extra[METHOD] } : undefined;
}
