import type { JobSignal } from './outbox.js';

/**
 * The repositories the store implements, one property per repository. The kernel names no feature: each feature
 * adds its own repositories to this interface from its `ports.ts` (declaration merging), so a feature's port lives
 * in its folder and the kernel imports none of them.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- filled by the features' ports.ts
export interface Repos {}

/** The store: repositories plus a transaction boundary. Jobs added inside a transaction commit with it. */
export interface Store extends Repos {
  /** Runs `fn` in a transaction; its store opens nested transactions as savepoints, so use cases compose atomically. */
  transaction<T>(fn: (repos: Store) => Promise<T>): Promise<T>;
}

/** What the use cases need from the outside world; features add their own optional ports (webhooks: the network). */
export interface Deps {
  store: Store;
  now: () => number;
  newId: (prefix: string) => string;
  /** Told after a commit that wrote jobs to the outbox. */
  jobs: JobSignal;
  rateLimitPerMinute: number;
}
