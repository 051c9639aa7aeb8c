/** `replies`: only what the server sends back is delayed (a statement reaches the server at once). */
export type FaultMode = 'pass' | 'hold' | 'drop' | { delayMs: number; replies?: boolean };

export interface FaultProxy {
  readonly port: number;
  readonly mode: FaultMode;
  /** Open proxied connections. */
  readonly connections: number;
  /** Connections accepted since the start (a client that gave up on one and opened another counts twice). */
  readonly accepted: number;
  set(mode: FaultMode): void;
  close(): Promise<void>;
}

/** A TCP proxy to `target` whose faults a test switches: delay per chunk, a blackhole that holds, one that drops. */
export function startFaultProxy(target: { port: number; host?: string }, o?: { port?: number }): Promise<FaultProxy>;
