/*
 * The change feed: what a watcher (an MCP `subscriptions/listen` stream) hears about. Use cases note a change in the
 * transaction that makes it (one place: the webhook event recorder, which every task, comment, time and page change
 * already goes through, and the revocation use cases); the store publishes the notes only once that transaction
 * commits, so nobody hears of a change that was rolled back or reads the old state after the note.
 */

/** A change someone may watch. `access` means credentials may have stopped working (a key, grant or user revoked). */
export type Change =
  | { kind: 'task'; workspaceId: string; id: string; key: string }
  | { kind: 'doc'; workspaceId: string; id: string }
  /** A bulk run (an MCP task of update_tasks) changed state: its listeners read it again. */
  | { kind: 'run'; workspaceId: string; id: string }
  | { kind: 'access'; keyId?: string | undefined; grantId?: string | undefined; userId?: string | undefined }
  /**
   * Not a change of data: a message between the MCP gateway's replicas (a client's answer to a server-to-client
   * request, a session's subscription or its end), carried by the same bus so any replica can serve any request.
   */
  | { kind: 'relay'; topic: string; to: string; keyId: string; data?: unknown };

/** The repository side: notes made in a transaction go out after its commit (at once outside a transaction). */
export interface ChangeNotes {
  note(change: Change): void;
}

/**
 * The bus the notes go out on: in-process in embedded mode, Redis pub/sub across processes. Delivery is best effort
 * and at most once; a watcher re-reads the resource, so a lost or extra note costs a read, never data.
 */
export interface ChangeFeed {
  publish(changes: readonly Change[]): void;
  /** Registers a listener; returns an idempotent unsubscribe. */
  subscribe(listener: (change: Change) => void): () => void;
}

/** The resource URI a change is about (`task://KEY`, `doc://ID`), or undefined for an access change. */
export function changeUri(c: Change): string | undefined {
  if (c.kind === 'task') return `task://${c.key}`;
  if (c.kind === 'doc') return `doc://${c.id}`;
  return undefined;
}

declare module './store.js' {
  interface Repos {
    changes: ChangeNotes;
  }
}
