import type { JobSignal, Store } from './ports.js';
import type { WebhookPorts } from './webhook-ports.js';

/** What the use cases need from the outside world. */
export interface Deps {
  store: Store;
  now: () => number;
  newId: (prefix: string) => string;
  /** Told after a commit that wrote jobs to the outbox. */
  jobs: JobSignal;
  rateLimitPerMinute: number;
  /** Webhook network side (DNS, HTTP, policy); needed by subscription writes and deliveries only. */
  webhooks?: WebhookPorts | undefined;
}
