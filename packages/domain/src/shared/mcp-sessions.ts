/**
 * What the MCP gateway keeps of a 2025-era session (Mcp-Session-Id) in the shared store: the session itself is a
 * signed token any replica checks alone; only what outlives one request and must be seen by every replica is kept
 * here, each row until the session's token would have expired anyway.
 */
export interface McpSessionSubscription {
  /** The canonical URI changes are matched on (`task://KEY`, `doc://ID`). */
  uri: string;
  /** The URI as the client wrote it: what its notifications carry. */
  sent: string;
}

export interface McpSessionRepo {
  /** Records a resources/subscribe of the session (again: no change). */
  subscribe(sessionId: string, s: McpSessionSubscription, expiresAt: number): Promise<void>;
  unsubscribe(sessionId: string, uri: string): Promise<void>;
  subscriptions(sessionId: string): Promise<McpSessionSubscription[]>;
  /** How many resources the session watches. */
  countSubscriptions(sessionId: string): Promise<number>;
  /** Records that the session was ended (DELETE) and drops its subscriptions. */
  end(sessionId: string, expiresAt: number): Promise<void>;
  /** Sessions ended whose tokens have not expired yet at `now`; expired rows are deleted on the way. */
  ended(now: number): Promise<string[]>;
  /** Deletes the rows of sessions whose tokens expired before `now` (subscriptions and ends); how many went. */
  prune(now: number): Promise<number>;
}

declare module './store.js' {
  interface Repos {
    /** The MCP gateway's 2025-era sessions: their subscriptions and their ends. */
    mcpSessions: McpSessionRepo;
  }
}
