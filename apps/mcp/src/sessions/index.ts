import { randomUUID } from 'node:crypto';
import type { Request, Response } from 'express';
import type { Change, Deps } from '@tt/domain';
import type { JSONRPCMessage } from '@modelcontextprotocol/server';
import { gateValue } from '../answer/gate.js';
import { sendRpcError } from '../edge/host-guard.js';
import type { ToolContext } from '../tool.js';
import type { Stream, StreamRegistry } from '../subscriptions/streams.js';
import { type SessionClaims, sessionTokens } from './token.js';

export { SESSION_TTL_MS, type SessionClaims } from './token.js';

/**
 * 2025-era sessions (Mcp-Session-Id), with no replica keeping one:
 *
 * - the id is a signed token (sessions/token.ts) any replica checks alone; it names the key that opened it;
 * - a server-to-client request (sampling, elicitation) goes out on the call's own SSE response with an id that is a
 *   routing token (`RELAY_ID_PREFIX` + a random UUID); the client's answer comes in a new POST, which any replica
 *   may receive: that replica relays it on the bus, and the replica whose call waits hands it to its server;
 * - resources/subscribe is kept in the store (any replica may serve the GET stream) and relayed on the bus to the
 *   replica holding the session's GET stream, which hears changes from the change feed like a listen stream;
 * - DELETE records the end in the store and relays it: every replica remembers ended sessions (loaded from the store
 *   once, then kept from the bus) until their tokens would have expired anyway, so a request never waits on a lookup.
 *
 * The bus is the change feed (Redis pub/sub across processes, in-process when embedded): delivery is at most once,
 * so an answer lost with Redis down fails its call at the timeout, never silently.
 */
export const RELAY_ID_PREFIX = 'tt-ask:';

/** How long a call waits for the client's answer to its server-to-client request, by default. */
export const ASK_TIMEOUT_MS = 60_000;
/** The error code of a request that got no answer in time (JSON-RPC's request timeout, as the SDK uses it). */
export const ASK_TIMEOUT_CODE = -32001;

/** How often a process deletes the rows of expired sessions, at most. */
const PRUNE_EVERY_MS = 3_600_000;

type Relay = Extract<Change, { kind: 'relay' }>;

export interface LegacySessionOptions {
  deps: Deps;
  registry: StreamRegistry;
  /** Open streams per key (shared with the listen streams' bound). */
  perKey: number;
  /** Resources one session may subscribe to. */
  perSession: number;
  /** Starts hearing the bus (called before the first session is opened or checked). */
  follow: () => void;
  /** How long a call waits for the client's answer (default ASK_TIMEOUT_MS). */
  askTimeoutMs?: number | undefined;
  /** Open streams per process (shared with the listen streams' bound). */
  perProcess: number;
  /** While the process drains, a GET stream is refused (the client opens it on another replica). */
  draining: () => boolean;
}

export function legacySessions(o: LegacySessionOptions) {
  const { deps, registry } = o;
  const tokens = sessionTokens(deps);
  /** Calls waiting for a client's answer in this process, by routing token. */
  const waiting = new Map<string, { keyId: string; deliver: (m: JSONRPCMessage) => void }>();
  /** Sessions ended (id -> expiry), as the store and the bus tell; loaded once. */
  const ended = new Map<string, number>();
  let loaded: Promise<void> | undefined;
  const loadEnds = () => (loaded ??= deps.store.mcpSessions.ended(deps.now()).then(
    (ids) => {
      for (const id of ids) ended.set(id, Number.MAX_SAFE_INTEGER);
    },
    (e: unknown) => {
      loaded = undefined;
      throw e;
    },
  ));
  // Rows of sessions whose tokens expired (clients rarely send DELETE) go at most once an hour per process, on the
  // way of a subscribe: the table holds live sessions only, however long a replica runs.
  let nextPrune = 0;
  const pruneNow = (log: ToolContext['log']) => {
    if (deps.now() < nextPrune) return;
    nextPrune = deps.now() + PRUNE_EVERY_MS;
    deps.store.mcpSessions.prune(deps.now()).catch((err: Error) => log.warn({ err: err.message }, 'pruning expired mcp sessions failed'));
  };
  const relay = (topic: string, to: string, keyId: string, data?: unknown) =>
    deps.store.changes.note({ kind: 'relay', topic, to, keyId, ...(data === undefined ? {} : { data }) });
  const forget = () => {
    const now = deps.now();
    for (const [id, until] of ended) if (until !== Number.MAX_SAFE_INTEGER && until <= now) ended.delete(id);
  };

  const write = (res: Response, message: unknown) => {
    if (!res.writableEnded && !res.destroyed) res.write(`event: message\ndata: ${JSON.stringify(message)}\n\n`);
  };

  return {
    perSession: o.perSession,
    /** Opens a session for the request's key, with what the client declared at initialize; answers its id. */
    async open(ctx: ToolContext, clientCapabilities: unknown): Promise<string> {
      o.follow();
      return (await tokens.issue(ctx.actor.key.id, clientCapabilities)).id;
    },

    /** The session `id` names, if it is valid for this key and not ended; undefined answers 404. */
    async check(id: string, ctx: ToolContext): Promise<SessionClaims | undefined> {
      o.follow();
      const claims = await tokens.verify(id, ctx.actor.key.id);
      if (!claims) return undefined;
      await loadEnds();
      return ended.has(id) ? undefined : claims;
    },

    /** DELETE: the session ends on every replica (its GET streams close, its id answers 404). */
    async end(claims: SessionClaims): Promise<void> {
      await deps.store.mcpSessions.end(claims.id, claims.expiresAt);
      ended.set(claims.id, claims.expiresAt);
      relay('session-ended', claims.id, claims.keyId, { expiresAt: claims.expiresAt });
    },

    /** Records a subscription (canonical URI, checked by the caller) and tells the replica holding the GET stream. */
    async subscribe(claims: SessionClaims, uri: string, sent: string, log: ToolContext['log']): Promise<'ok' | 'full'> {
      pruneNow(log);
      const current = await deps.store.mcpSessions.subscriptions(claims.id);
      if (!current.some((s) => s.uri === uri) && current.length >= o.perSession) return 'full';
      await deps.store.mcpSessions.subscribe(claims.id, { uri, sent }, claims.expiresAt);
      relay('subscribe', claims.id, claims.keyId, { uri, sent });
      return 'ok';
    },

    async unsubscribe(claims: SessionClaims, uri: string): Promise<void> {
      await deps.store.mcpSessions.unsubscribe(claims.id, uri);
      relay('unsubscribe', claims.id, claims.keyId, { uri });
    },

    /**
     * GET with a session: an SSE stream that carries `notifications/resources/updated` for the session's
     * subscriptions (those made before it opened, on any replica, and those made while it is open).
     */
    async stream(req: Request, res: Response, ctx: ToolContext, claims: SessionClaims): Promise<void> {
      if (!(req.get('accept') ?? '').includes('text/event-stream')) {
        return sendRpcError(res, 406, 'Not Acceptable: Client must accept text/event-stream');
      }
      if (o.draining()) return sendRpcError(res, 503, 'This server is shutting down: open the stream again (another replica answers)');
      if (registry.size >= o.perProcess) return sendRpcError(res, 503, 'This server holds the most streams it may: open the stream again later');
      if (registry.countForKey(ctx.actor.key.id) >= o.perKey) {
        return sendRpcError(res, 429, `Stream limit reached: this key has ${o.perKey} open streams, the most it may have; close one first`);
      }
      const stream: Stream = {
        actor: ctx.actor, authorization: req.headers.authorization, ip: req.ip, grantId: req.oauthGrant?.id, watched: new Map(), res, sessionId: claims.id,
      };
      // Registered before the subscriptions are read, so one made meanwhile (relayed) is not lost.
      registry.add(stream);
      stream.listener = (event) => {
        if (event.kind === 'resource_updated') write(res, { jsonrpc: '2.0', method: 'notifications/resources/updated', params: gateValue({ uri: event.uri }) });
      };
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache, no-transform', 'x-accel-buffering': 'no', 'mcp-session-id': claims.id });
      res.flushHeaders();
      const alive = setInterval(() => !res.writableEnded && res.write(': keep-alive\n\n'), 25_000);
      alive.unref();
      res.once('close', () => clearInterval(alive));
      try {
        for (const s of await deps.store.mcpSessions.subscriptions(claims.id)) registry.watch(stream, s.uri, s.sent);
      } catch (e) {
        registry.cut(stream);
        throw e;
      }
    },

    /**
     * A server-to-client request of a call served here: its routing token (the id the client sees), and the function
     * that stops waiting. `deliver` gets the client's answer, whichever replica it reached.
     */
    ask(keyId: string, deliver: (m: JSONRPCMessage) => void): { token: string; cancel: () => void } {
      const token = `${RELAY_ID_PREFIX}${randomUUID()}`;
      const timeoutMs = o.askTimeoutMs ?? ASK_TIMEOUT_MS;
      // No answer in time (the client never answers, or the answer was lost on the bus): the call gets an error answer.
      const timer = setTimeout(() => {
        waiting.delete(token);
        deliver({ jsonrpc: '2.0', id: token, error: { code: ASK_TIMEOUT_CODE, message: `Request timed out: no answer within ${Math.round(timeoutMs / 1000)} s` } });
      }, timeoutMs);
      timer.unref();
      waiting.set(token, { keyId, deliver });
      return {
        token,
        cancel: () => {
          clearTimeout(timer);
          waiting.delete(token);
        },
      };
    },

    /** A client's answer (a JSON-RPC response whose id is a routing token), posted by `keyId`: to the waiting call. */
    answer(message: JSONRPCMessage, keyId: string): boolean {
      const id = (message as { id?: unknown }).id;
      if (typeof id !== 'string' || !id.startsWith(RELAY_ID_PREFIX)) return false;
      relay('answer', id, keyId, message);
      return true;
    },

    /** A relay message from the bus (any replica's, this one's included). */
    onRelay(c: Relay): void {
      switch (c.topic) {
        case 'answer': {
          const w = waiting.get(c.to);
          // Only the key whose call asked may answer it; another key's post is dropped.
          if (!w || w.keyId !== c.keyId) return;
          waiting.delete(c.to);
          w.deliver(c.data as JSONRPCMessage);
          return;
        }
        case 'subscribe':
        case 'unsubscribe': {
          const d = c.data as { uri: string; sent?: string };
          for (const s of registry.ofSession(c.to)) {
            if (s.actor.key.id !== c.keyId) continue;
            if (c.topic === 'subscribe') registry.watch(s, d.uri, d.sent ?? d.uri);
            else registry.unwatch(s, d.uri);
          }
          return;
        }
        case 'session-ended': {
          forget();
          ended.set(c.to, (c.data as { expiresAt?: number } | undefined)?.expiresAt ?? Number.MAX_SAFE_INTEGER);
          for (const s of registry.ofSession(c.to)) registry.cut(s);
          return;
        }
      }
    },

    /** Ends the GET streams of this process (the gateway drains: clients open them again on another replica). */
    closeAll(): void {
      for (const s of registry.streams()) if (s.sessionId) s.res.end();
    },
  };
}

export type LegacySessions = ReturnType<typeof legacySessions>;
