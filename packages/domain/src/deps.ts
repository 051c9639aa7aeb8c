import type { JobSignal, Store } from './ports.js';

/** What the use cases need from the outside world. */
export interface Deps {
  store: Store;
  now: () => number;
  newId: (prefix: string) => string;
  /** Told after a commit that wrote jobs to the outbox. */
  jobs: JobSignal;
  rateLimitPerMinute: number;
}
