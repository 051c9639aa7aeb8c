import { AsyncLocalStorage } from 'node:async_hooks';
import type { ServerEvent, ServerEventBus } from '@modelcontextprotocol/server';
import type { Response } from 'express';
import type { Actor } from '@tt/domain';
import { gateValue } from '../answer/gate.js';

/** One open `subscriptions/listen` stream: who listens (the key, its credentials) and to what. */
export interface Stream {
  actor: Actor;
  /** The request's Authorization header and address, to check the credentials again when access changes. */
  authorization: string | undefined;
  ip: string | undefined;
  grantId: string | undefined;
  /** Canonical URI -> the URI as the client sent it. */
  watched: Map<string, string>;
  res: Response;
  /** The SDK's per-stream listener (writes the notification on the stream); set when the stream opens. */
  listener?: (event: ServerEvent) => void;
  /**
   * A 2025-era session's GET stream (sessions/): its subscriptions change while it is open, and a resource it no
   * longer sees is only not notified (the stream carries the session's other subscriptions).
   */
  sessionId?: string;
}

/**
 * The open streams of this process, by key and by watched URI, and the bus the SDK's listen router subscribes each
 * stream to. The router calls `subscribe` while it opens a stream, inside the request that asked for it: the
 * request's Stream rides along in an AsyncLocalStorage (see `scope`), so every listener is tied to its key and
 * resources and hears only changes it may see, instead of every change of that URI in every workspace.
 */
export class StreamRegistry implements ServerEventBus {
  private readonly current = new AsyncLocalStorage<Stream>();
  private readonly all = new Set<Stream>();
  private readonly byKey = new Map<string, Set<Stream>>();
  private readonly byUri = new Map<string, Set<Stream>>();
  private readonly bySession = new Map<string, Set<Stream>>();
  /** Listeners opened outside a registered request (none today): they hear what `publish` sends. */
  private readonly others = new Set<(event: ServerEvent) => void>();

  /** Registers a stream before it opens (its slot counts against the key's bound at once); removed when its response closes. */
  add(s: Stream): void {
    this.all.add(s);
    add(this.byKey, s.actor.key.id, s);
    for (const uri of s.watched.keys()) add(this.byUri, uri, s);
    if (s.sessionId) add(this.bySession, s.sessionId, s);
    s.res.once('close', () => this.remove(s));
  }

  remove(s: Stream): void {
    if (!this.all.delete(s)) return;
    drop(this.byKey, s.actor.key.id, s);
    for (const uri of s.watched.keys()) drop(this.byUri, uri, s);
    if (s.sessionId) drop(this.bySession, s.sessionId, s);
    s.listener = undefined;
  }

  /** An open stream starts watching `canonical` (a session's subscribe); `sent` is what its notifications carry. */
  watch(s: Stream, canonical: string, sent: string): void {
    if (!this.all.has(s)) return;
    s.watched.set(canonical, sent);
    add(this.byUri, canonical, s);
  }

  unwatch(s: Stream, canonical: string): void {
    if (!s.watched.delete(canonical)) return;
    drop(this.byUri, canonical, s);
  }

  /** The open GET streams of a 2025-era session. */
  ofSession(sessionId: string): Stream[] {
    return [...(this.bySession.get(sessionId) ?? [])];
  }

  /** Runs `serve` with `s` as the stream the SDK's next subscribe belongs to. */
  scope<T>(s: Stream, serve: () => Promise<T>): Promise<T> {
    return this.current.run(s, serve);
  }

  countForKey(keyId: string): number {
    return this.byKey.get(keyId)?.size ?? 0;
  }

  get size(): number {
    return this.all.size;
  }

  /** Streams watching `uri` (canonical). */
  watching(uri: string): Stream[] {
    return [...(this.byUri.get(uri) ?? [])];
  }

  streams(): Stream[] {
    return [...this.all];
  }

  /** Sends `resources/updated` on one stream, with the URI as that client wrote it. */
  deliver(s: Stream, canonical: string): void {
    const sent = s.watched.get(canonical);
    if (sent !== undefined) s.listener?.({ kind: 'resource_updated', uri: sent });
  }

  /** Ends a stream without a completion result (its credentials or its view of the resource are gone). */
  cut(s: Stream): void {
    this.remove(s);
    s.res.destroy();
  }

  publish(event: ServerEvent): void {
    for (const listener of this.others) listener(event);
  }

  subscribe(sdkListener: (event: ServerEvent) => void): () => void {
    // Every event a stream hears leaves through the answer gate, whoever publishes it (answer/gate.ts).
    const listener = (event: ServerEvent) => sdkListener(gateValue(event));
    const s = this.current.getStore();
    if (s && this.all.has(s)) {
      s.listener = listener;
      return () => this.remove(s);
    }
    this.others.add(listener);
    return () => void this.others.delete(listener);
  }
}

function add<K, V>(map: Map<K, Set<V>>, k: K, v: V): void {
  let set = map.get(k);
  if (!set) map.set(k, (set = new Set()));
  set.add(v);
}

function drop<K, V>(map: Map<K, Set<V>>, k: K, v: V): void {
  const set = map.get(k);
  if (!set) return;
  set.delete(v);
  if (!set.size) map.delete(k);
}
