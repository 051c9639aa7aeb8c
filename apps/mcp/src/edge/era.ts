import { toNodeHandler } from '@modelcontextprotocol/node';
import {
  type AuthInfo,
  classifyInboundRequest,
  createMcpHandler,
  isJSONRPCNotification,
  isJSONRPCRequest,
  type JSONRPCMessage,
  PROTOCOL_VERSION_META_KEY,
  type ServerEventBus,
  SUPPORTED_PROTOCOL_VERSIONS,
  UnsupportedProtocolVersionError,
} from '@modelcontextprotocol/server';
import type { Request, Response } from 'express';
import type { ServerPool } from '../server.js';
import type { ToolContext } from '../tool.js';
import { carried, carrier } from './context.js';
import { rpcIdOf, sendRpcError } from './host-guard.js';
import { type ClientAsks, serveJsonExchange } from './json-exchange.js';
import { type LegacySessions, RELAY_ID_PREFIX } from '../sessions/index.js';
import { serveWebExchange } from './web-exchange.js';

/** The revisions the gateway speaks, newest first: 2026-07-28 and every 2025-era revision the SDK serves. */
export const MODERN_VERSIONS = ['2026-07-28'] as const;
export const PROTOCOL_VERSIONS: readonly string[] = [...MODERN_VERSIONS, ...SUPPORTED_PROTOCOL_VERSIONS];


/** The method of a single JSON-RPC message (undefined for a batch or a response). */
const methodOf = (body: unknown): string | undefined => {
  const m = body !== null && typeof body === 'object' && !Array.isArray(body) ? (body as { method?: unknown }).method : undefined;
  return typeof m === 'string' ? m : undefined;
};

const isPlain = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/**
 * The era of an ordinary request decided from its shape, as the SDK's classifyInboundRequest would decide it, or
 * undefined when only that function can tell (it then decides). `requested` is the MCP-Protocol-Version header, trimmed.
 *
 * classifyInboundRequest first tries the body against both response schemas, and a request fails both with the full
 * cost of a failed zod parse (its issues built), on every call. A single message naming a method and holding neither
 * `result` nor `error` is no response; then the envelope claim (the protocol-version key of `params._meta`) decides: a
 * claim is never the 2025 side unless the method is `initialize` (left to the SDK), and without a claim a valid request
 * or notification is the 2025 side unless the header names a revision that is not a 2025-era one (left to the SDK).
 * A test holds this to classifyInboundRequest's answers (era.test.ts).
 */
export function quickRoute(body: unknown, requested: string | undefined): 'legacy' | 'modern' | undefined {
  if (!isPlain(body) || typeof body.method !== 'string' || 'result' in body || 'error' in body) return undefined;
  const meta = isPlain(body.params) ? body.params._meta : undefined;
  if (isPlain(meta) && PROTOCOL_VERSION_META_KEY in meta) return body.method === 'initialize' ? undefined : 'modern';
  if (requested !== undefined && !LEGACY_VERSIONS.includes(requested)) return undefined;
  return isJSONRPCRequest(body) || isJSONRPCNotification(body) ? 'legacy' : undefined;
}

const LEGACY_VERSIONS: readonly string[] = SUPPORTED_PROTOCOL_VERSIONS.filter((v) => !(MODERN_VERSIONS as readonly string[]).includes(v));

/** The messages of a body that holds only answers to routed server-to-client requests, or undefined. */
function answersIn(body: unknown): JSONRPCMessage[] | undefined {
  const all: unknown[] = Array.isArray(body) ? body : [body];
  const routed = (m: unknown) => m !== null && typeof m === 'object' && !('method' in m) && typeof (m as { id?: unknown }).id === 'string' &&
    (m as { id: string }).id.startsWith(RELAY_ID_PREFIX) && ('result' in m || 'error' in m);
  return all.length > 0 && all.every(routed) ? (all as JSONRPCMessage[]) : undefined;
}

export interface EraOptions {
  /** The servers that answer requests (one pool for both eras). */
  pool: ServerPool;
  /** The change-event bus of `subscriptions/listen` (default: in the process). */
  bus?: ServerEventBus | undefined;
  /** Open listen streams at most, per process. */
  maxSubscriptions?: number | undefined;
  /** 2025-era sessions (Mcp-Session-Id); none: the 2025 side stays stateless, as before. */
  sessions?: LegacySessions | undefined;
  onerror: (err: Error) => void;
}

export interface EraEndpoint {
  /** Serves one authenticated POST (body parsed) in the era it speaks. */
  serve(req: Request, res: Response, ctx: ToolContext): Promise<void>;
  /** Ends the 2026-07-28 side: open listen streams get their completion result, in-flight exchanges end. */
  close(): Promise<void>;
  bus: ServerEventBus;
}

/**
 * Both eras on one URL, with no state in a replica. The body decides (SDK's classifyInboundRequest): a request
 * carrying the 2026-07-28 `_meta` envelope goes to the SDK's per-request handler (server/discover, envelope and
 * Mcp-Method / Mcp-Name checks, cache hints, subscriptions/listen); anything else is a 2025-era request, served by a
 * server over a JSON exchange (src/edge/json-exchange.ts; JSON answers, SSE while a call talks back), in the
 * request's 2025-era session when it names one (src/sessions/: a signed token, checked here, so no replica keeps it).
 */
export function eraEndpoint(o: EraOptions): EraEndpoint {
  const modern = createMcpHandler(
    ({ authInfo, era }) => {
      const request = carried(authInfo);
      if (!request) throw new Error('MCP request without an authenticated context');
      // A listen's server only tells its capabilities; the stream itself is the SDK's listen router's.
      return request.method === 'subscriptions/listen' ? o.pool.describe(request.ctx, era) : o.pool.take(request.ctx, era);
    },
    { legacy: 'reject', bus: o.bus, maxSubscriptions: o.maxSubscriptions, onerror: o.onerror },
  );
  const node = toNodeHandler(modern, { onerror: o.onerror });

  return {
    bus: modern.bus,
    close: () => modern.close(),
    async serve(req, res, ctx) {
      const body: unknown = req.body;
      const requested = req.get('mcp-protocol-version')?.trim();
      const quick = quickRoute(body, requested);
      const kind = quick ?? classifyInboundRequest({
        httpMethod: 'POST', body,
        protocolVersionHeader: requested, mcpMethodHeader: req.get('mcp-method'), mcpNameHeader: req.get('mcp-name'),
      }).kind;
      // A 2025-shaped request naming a revision nobody speaks: the spec's error, naming every revision we speak
      // (the SDK's transport would answer a bare -32000 with no id). A 2026-07-28 request naming an unknown revision
      // gets the SDK's answer, which lists what server/discover lists.
      if (kind === 'legacy' && requested !== undefined && !PROTOCOL_VERSIONS.includes(requested)) {
        const err = new UnsupportedProtocolVersionError({ supported: [...PROTOCOL_VERSIONS], requested });
        return sendRpcError(res, 400, err.message, err.code, rpcIdOf(body), err.data);
      }
      const method = methodOf(body);
      const auth = carrier(ctx, method);
      if (kind !== 'legacy') {
        if (method !== 'subscriptions/listen') return serveWebExchange(modern, req, res, body, auth, o.onerror);
        (req as Request & { auth?: AuthInfo }).auth = auth;
        return node(req, res, body);
      }
      const sessions = o.sessions;
      let asks: ClientAsks | undefined;
      if (sessions) {
        const sent = req.get('mcp-session-id');
        if (sent !== undefined) {
          const claims = await sessions.check(sent, ctx);
          // Forged, expired, ended or another key's: the spec's answer for a session the server does not know.
          if (!claims) return sendRpcError(res, 404, 'Session not found: initialize again without Mcp-Session-Id to open a new one', -32001, rpcIdOf(body));
          ctx.mcpSession = claims;
          asks = { ask: (deliver) => sessions.ask(claims.keyId, deliver) };
        }
        // The client's answers to requests a call sent it: to the call, on whichever replica it waits.
        const answers = answersIn(body);
        if (answers) {
          for (const a of answers) sessions.answer(a, ctx.actor.key.id);
          return void res.status(202).end();
        }
        if (method === 'initialize') {
          const params = (body as { params?: { capabilities?: unknown } }).params;
          res.setHeader('mcp-session-id', await sessions.open(ctx, params?.capabilities));
        }
      }
      // An initialize leaves the client's identity and revision on its server, and a batch may hold one: a server of
      // its own, not kept.
      const fresh = method === undefined || method === 'initialize';
      const server = o.pool.take(ctx, 'legacy', { fresh });
      await serveJsonExchange(server, auth, req, res, legacyNotFound, fresh ? undefined : o.pool.release, asks);
    },
  };
}

/**
 * A missing resource is -32002 on 2025-era revisions (their spec's code; clients of those revisions look for it). The
 * SDK answers -32602 with `data: {uri}` on every revision, which is the 2026-07-28 rule, so the 2025 side renames it.
 */
function legacyNotFound(message: JSONRPCMessage): JSONRPCMessage {
  if (!('error' in message) || message.error.code !== -32602) return message;
  const data = message.error.data as Record<string, unknown> | undefined;
  if (!data || typeof data.uri !== 'string' || Object.keys(data).length !== 1) return message;
  return { ...message, error: { ...message.error, code: -32002 } };
}
