import type { Request, Response } from 'express';
import type { Logger } from 'pino';
import { type Change, type ChangeFeed, changeUri, type Deps, DomainError, keys, oauth } from '@tt/domain';
import type { Drain } from '@tt/http';
import { rpcIdOf, sendRpcError } from '../edge/host-guard.js';
import type { ToolContext } from '../tool.js';
import { type Stream, StreamRegistry } from './streams.js';
import { visibleUri } from './watch.js';
import { taskListens } from './tasks.js';
import { legacySessions } from '../sessions/index.js';

/**
 * Live subscriptions (2026-07-28 `subscriptions/listen` with `resourceSubscriptions: ["task://KEY", "doc://ID"]`).
 * The SDK's listen router owns the wire (acknowledgement, subscription ids, keep-alives, the completion result when
 * the gateway drains); this module decides who may listen to what, and feeds each stream the changes its key may
 * see, from the change feed every process publishes on (Redis pub/sub; in-process when embedded). 2025-era
 * sessions' GET streams (src/sessions/) hang off the same registry and hear the same changes.
 */
export interface SubscriptionOptions {
  deps: Deps;
  changes: ChangeFeed;
  drain?: Pick<Drain, 'draining'> | undefined;
  logger: Logger;
  /** Open streams per key (default 10), and per process (default 2000). */
  perKey?: number;
  perProcess?: number;
  /** Resources one stream (or 2025-era session) may watch (default 100). */
  perStream?: number;
  /** How long a call waits for a 2025 client's answer to a server-to-client request (default 60 s). */
  askTimeoutMs?: number;
}

/** The seams McpAppOptions takes (`bus`, `maxSubscriptions`, `beforeListen`), and the registry for tests and figures. */
export function liveSubscriptions(o: SubscriptionOptions) {
  const perKey = o.perKey ?? 10;
  const perStream = o.perStream ?? 100;
  const registry = new StreamRegistry();
  let unsubscribe: (() => void) | undefined;
  const log = o.logger.child({ component: 'subscriptions' });
  const taskStreams = taskListens({ deps: o.deps, perStream });
  const sessions = legacySessions({ deps: o.deps, registry, perKey, perSession: perStream, follow: () => follow(), askTimeoutMs: o.askTimeoutMs,
    perProcess: o.perProcess ?? 2000, draining: () => o.drain?.draining ?? false,
  });
  const follow = () => {
    unsubscribe ??= o.changes.subscribe((c) => void onChange(c).catch((err: Error) => log.warn({ err: err.message }, 'change delivery failed')));
  };

  /** A change of a watched resource: streams in its workspace that still see it hear it; the others end. */
  async function onChange(c: Change): Promise<void> {
    if (c.kind === 'access') return recheck(c);
    if (c.kind === 'run') return taskStreams.changed(c.workspaceId, c.id);
    if (c.kind === 'relay') return sessions.onRelay(c);
    const uri = changeUri(c)!;
    const streams = registry.watching(uri).filter((s) => s.actor.workspace.id === c.workspaceId);
    if (!streams.length) return;
    // One look per way of seeing (the user, for closed boards; the key's projects and rights), however many keys
    // and streams share it: a thousand streams of one person cost one query.
    const byView = new Map<string, Stream[]>();
    for (const s of streams) {
      const view = `${s.actor.user.id}|${JSON.stringify(s.actor.key.projectIds)}|${[...s.actor.key.scopes].sort().join(',')}`;
      byView.set(view, [...(byView.get(view) ?? []), s]);
    }
    await Promise.all([...byView.values()].map(async (group) => {
      const first = group[0]!;
      const sees = (await visibleUri(first.actor, undefined, uri, o.deps)) === uri;
      for (const s of group) {
        if (sees) registry.deliver(s, uri);
        else if (!s.sessionId) registry.cut(s);
      }
    }));
  }

  /** Credentials may have stopped working: the streams concerned check theirs, one check per credential. */
  async function recheck(c: Extract<Change, { kind: 'access' }>): Promise<void> {
    const concerned = registry.streams().filter((s) =>
      (c.keyId === undefined && c.userId === undefined && c.grantId === undefined) ||
      s.actor.key.id === c.keyId || s.actor.user.id === c.userId || (c.grantId !== undefined && s.grantId === c.grantId));
    const byCredential = new Map<string, Stream[]>();
    for (const s of concerned) byCredential.set(`${s.authorization}|${s.ip}`, [...(byCredential.get(`${s.authorization}|${s.ip}`) ?? []), s]);
    await Promise.all([...byCredential.values()].map(async (group) => {
      const s = group[0]!;
      const ok = await authenticate(s).then(() => true, (e: unknown) => (e instanceof DomainError && e.status < 500 ? false : Promise.reject(e)));
      if (!ok) for (const g of group) registry.cut(g);
    }));
  }

  const authenticate = (s: Stream) => (oauth.isAccessToken(s.authorization)
    ? oauth.authenticateAccess({ authorization: s.authorization, ip: s.ip }, o.deps)
    : keys.authenticate({ authorization: s.authorization, ip: s.ip, surface: 'mcp' }, o.deps));

  /** A listen refused while this process drains: the client opens it again on another replica. */
  const shuttingDown = (res: Response, id: ReturnType<typeof rpcIdOf>) =>
    sendRpcError(res, 503, 'This server is shutting down: send subscriptions/listen again (another replica answers)', -32603, id);

  async function beforeListen(req: Request, res: Response, ctx: ToolContext) {
    const id = rpcIdOf(req.body);
    const filter = (req.body as { params?: { notifications?: { resourceSubscriptions?: unknown; taskIds?: unknown } } }).params?.notifications;
    // Tasks (the tasks extension) are followed on a stream of their own, which this module serves (subscriptions/tasks.ts).
    if (filter?.taskIds !== undefined) {
      if (o.drain?.draining) return shuttingDown(res, id);
      if (Object.keys(filter).some((k) => k !== 'taskIds')) {
        return sendRpcError(res, 200, 'Invalid params: notifications: listen to taskIds on a stream of their own', -32602, id);
      }
      follow();
      return void (await taskStreams.serve(req, res, ctx.actor, filter.taskIds));
    }
    const wanted = filter?.resourceSubscriptions;
    // A listen the SDK will refuse (no filter, a malformed one) goes on to get the SDK's answer.
    if (wanted !== undefined && (!Array.isArray(wanted) || wanted.some((u) => typeof u !== 'string'))) return undefined;
    const uris = [...new Set((wanted ?? []) as string[])];
    if (o.drain?.draining) return shuttingDown(res, id);
    if (uris.length > perStream) {
      return sendRpcError(res, 200, `Invalid params: resourceSubscriptions: at most ${perStream} resources per stream, not ${uris.length}`, -32602, id);
    }
    const watched = new Map<string, string>();
    for (const uri of uris) {
      const canonical = await visibleUri(ctx.actor, ctx.session, uri, o.deps);
      // Missing and invisible answer alike (the spec's resource-not-found), so nothing leaks about what exists.
      if (!canonical) return sendRpcError(res, 200, 'Resource not found', -32602, id, { uri });
      watched.set(canonical, uri);
    }
    // Counted and registered with no wait in between, so concurrent listens of one key cannot pass the bound together.
    if (registry.countForKey(ctx.actor.key.id) >= perKey) {
      return sendRpcError(res, 200, `Subscription limit reached: this key has ${perKey} open streams, the most it may have; close one first`, -32603, id, { limit: perKey });
    }
    follow();
    const stream: Stream = {
      actor: ctx.actor, authorization: req.headers.authorization, ip: req.ip, grantId: req.oauthGrant?.id, watched, res,
    };
    registry.add(stream);
    return <T>(serve: () => Promise<T>) => registry.scope(stream, serve);
  }

  return {
    bus: registry,
    maxSubscriptions: o.perProcess ?? 2000,
    beforeListen,
    registry,
    /**
     * 2025-era sessions (sessions/): their GET streams hang off this registry and their messages between replicas
     * off the same feed, followed from the first session this process sees on.
     */
    sessions,
    /** Ends the task streams and the sessions' GET streams, which this module serves itself (the SDK ends the others). */
    closeListens: () => {
      taskStreams.closeAll();
      sessions.closeAll();
    },
    /** Stops following the feed (the streams themselves end with the gateway's drain). */
    close() {
      unsubscribe?.();
      unsubscribe = undefined;
    },
  };
}

export type LiveSubscriptions = ReturnType<typeof liveSubscriptions>;
