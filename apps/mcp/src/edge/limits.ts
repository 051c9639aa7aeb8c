import type { Request, RequestHandler } from 'express';
import { tasks } from '@tt/domain';
import { rateLimitFields, type RateLimiter } from '@tt/http';
import { rpcIdOf, sendRpcError } from './host-guard.js';

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Request {
      /** Set when this request's tools/call is over the key's per-minute limit: seconds until the window resets. */
      toolRetryIn?: number;
    }
  }
}

/** How many protocol messages a key may send per minute for each tool call it may make (the flood ceiling). */
export const FLOOD_FACTOR = 10;

const isToolCall = (body: unknown): boolean =>
  (Array.isArray(body) ? body : [body]).some((m) => m !== null && typeof m === 'object' && (m as { method?: unknown }).method === 'tools/call');

/** What a tools/call spends of the budget: one point, or one per item for update_tasks (as REST's bulk call). */
function toolCallPoints(body: unknown): number {
  const call = (Array.isArray(body) ? body : [body]).find((m) => m !== null && typeof m === 'object' && (m as { method?: unknown }).method === 'tools/call');
  const params = (call as { params?: { name?: unknown; arguments?: unknown } } | undefined)?.params;
  return params?.name === 'update_tasks' ? tasks.bulkPoints(params.arguments) : 1;
}

/**
 * The key's budget on /mcp. A tools/call spends the key's per-minute budget, the same one as REST (x-ratelimit-* and
 * RateLimit headers say what is left); over it, the call is still served, as a tool result with `isError` that names
 * the wait (`retry in 12 s`), which an agent reads and waits out, where an HTTP 429 breaks its client's connection.
 * Protocol traffic (initialize, notifications, server/discover, the lists, reads) spends nothing of it, only a
 * ceiling FLOOD_FACTOR times larger per key, over which it gets HTTP 429 with Retry-After.
 */
export function mcpLimits(limiter: RateLimiter, flood: RateLimiter, keyOf: (req: Request) => string): RequestHandler {
  return async (req, res, next) => {
    try {
      const key = keyOf(req);
      if (isToolCall(req.body)) {
        const r = await limiter.consume(key, toolCallPoints(req.body));
        res.setHeader('x-ratelimit-limit', String(limiter.limit));
        res.setHeader('x-ratelimit-remaining', String(r.remaining));
        res.setHeader('x-ratelimit-reset', String(r.resetSeconds));
        for (const [name, value] of Object.entries(rateLimitFields(limiter.limit, r.remaining, r.resetSeconds))) res.setHeader(name, value);
        if (!r.allowed) req.toolRetryIn = r.resetSeconds;
        return next();
      }
      const r = await flood.consume(`mcp-flood:${key}`);
      if (!r.allowed) {
        res.setHeader('retry-after', String(r.resetSeconds));
        return sendRpcError(res, 429, `rate_limited: more than ${flood.limit} MCP protocol messages per minute from this key; retry in ${r.resetSeconds} s`, -32000, rpcIdOf(req.body));
      }
      next();
    } catch (e) {
      next(e);
    }
  };
}
