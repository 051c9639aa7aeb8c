import { type McpServer, ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server';
import { contextOf, type HandlerExtra } from '../edge/context.js';
import { visibleUri } from '../subscriptions/watch.js';
import type { ToolContext } from '../tool.js';
import type { LegacySessions, SessionClaims } from './index.js';

/**
 * resources/subscribe and resources/unsubscribe on 2025-era servers, advertised (`resources.subscribe`) only where
 * sessions are served: a session subscribes to task:// and doc:// resources its key may read (the rule of
 * `subscriptions/listen`), and hears `notifications/resources/updated` on its GET stream. `fixtureUris`: the
 * conformance suite's test:// resources may be subscribed to as they are (they never change).
 */
export function registerSubscribe(server: McpServer, sessions: LegacySessions, o: { fixtureUris?: boolean } = {}): void {
  server.server.registerCapabilities({ resources: { subscribe: true, listChanged: false } });
  const sessionOf = (extra: unknown, method: string): { ctx: ToolContext; claims: SessionClaims } => {
    const ctx = contextOf(extra as HandlerExtra);
    if (!ctx.mcpSession) {
      throw new ProtocolError(ProtocolErrorCode.InvalidRequest, `${method} needs a session: initialize without Mcp-Session-Id, then send the id its answer carries`);
    }
    return { ctx, claims: ctx.mcpSession };
  };
  const canonical = (ctx: ToolContext, uri: string) =>
    o.fixtureUris && uri.startsWith('test://') ? Promise.resolve(uri) : visibleUri(ctx.actor, ctx.session, uri, ctx.deps);

  server.server.setRequestHandler('resources/subscribe', async (request, extra) => {
    const { ctx, claims } = sessionOf(extra, 'resources/subscribe');
    const uri = request.params.uri;
    const found = await canonical(ctx, uri);
    // Missing and invisible answer alike (-32002 on 2025-era revisions, edge/era.ts), so nothing leaks about what exists.
    if (!found) throw new ProtocolError(ProtocolErrorCode.InvalidParams, 'Resource not found', { uri });
    if ((await sessions.subscribe(claims, found, uri, ctx.log)) === 'full') {
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, `uri: this session watches the most resources it may (${sessions.perSession}); unsubscribe from one first`, { uri });
    }
    return {};
  });
  server.server.setRequestHandler('resources/unsubscribe', async (request, extra) => {
    const { ctx, claims } = sessionOf(extra, 'resources/unsubscribe');
    const uri = request.params.uri;
    // A resource the key no longer sees is still dropped by the URI it was subscribed as.
    await sessions.unsubscribe(claims, (await canonical(ctx, uri)) ?? uri);
    return {};
  });
}
