import type { PageRequest, PageResult } from '../shared/index.js';
import type { WebhookPolicy } from './rules.js';
import type { WebhookDeliveryStatus, WebhookEventType } from './schema.js';

/** A subscription as stored; the secrets never leave the store except to sign and in the create/rotate answers. */
export interface WebhookRecord {
  id: string;
  workspaceId: string;
  url: string;
  events: WebhookEventType[];
  projectIds: string[] | null;
  active: boolean;
  secret: string;
  previousSecret: string | null;
  previousSecretExpiresAt: number | null;
  failingSince: number | null;
  disabledAt: number | null;
  disabledReason: string | null;
  createdAt: number;
  updatedAt: number;
}

export type WebhookPatch = Partial<Omit<WebhookRecord, 'id' | 'workspaceId' | 'createdAt'>>;

/** An event recorded with the change that caused it; `data` is the body's data as it was at that moment. */
export interface WebhookEventRecord {
  id: string;
  workspaceId: string;
  projectId: string | null;
  type: WebhookEventType;
  data: Record<string, unknown>;
  createdAt: number;
}

export interface WebhookDeliveryRecord {
  id: string;
  webhookId: string;
  eventId: string;
  eventType: WebhookEventType;
  status: WebhookDeliveryStatus;
  attempts: number;
  lastStatusCode: number | null;
  lastError: string | null;
  durationMs: number | null;
  createdAt: number;
  lastAttemptAt: number | null;
  nextAttemptAt: number | null;
  succeededAt: number | null;
  redeliveryOf: string | null;
}

export type NewDelivery = Pick<WebhookDeliveryRecord, 'id' | 'webhookId' | 'eventId' | 'createdAt' | 'redeliveryOf'>;

/** What one attempt changes on a delivery. */
export type AttemptPatch = Pick<WebhookDeliveryRecord, 'status' | 'lastStatusCode' | 'lastError' | 'durationMs' | 'lastAttemptAt' | 'nextAttemptAt' | 'succeededAt'>;

export interface WebhookRepo {
  create(input: Omit<WebhookRecord, 'id'>): Promise<WebhookRecord>;
  get(id: string): Promise<WebhookRecord | undefined>;
  /** A workspace's subscriptions in creation order. */
  list(workspaceId: string): Promise<WebhookRecord[]>;
  update(id: string, patch: WebhookPatch): Promise<WebhookRecord | undefined>;
  delete(id: string): Promise<boolean>;
  /** Active subscriptions of the workspace taking this event type for this project (null: events of no project). */
  matching(workspaceId: string, type: WebhookEventType, projectId: string | null): Promise<WebhookRecord[]>;
  addEvent(event: WebhookEventRecord): Promise<void>;
  addDeliveries(rows: NewDelivery[]): Promise<void>;
  /** A delivery with its event and subscription (the subscription undefined once deleted). */
  delivery(id: string): Promise<{ delivery: WebhookDeliveryRecord; event: WebhookEventRecord; webhook: WebhookRecord } | undefined>;
  /** A subscription's deliveries, newest first. */
  deliveries(webhookId: string, filter: { status?: WebhookDeliveryStatus | undefined }, page: PageRequest): Promise<PageResult<WebhookDeliveryRecord>>;
  /**
   * Records an attempt on a delivery still pending or retrying (attempts + 1 unless `counted` is false, for a delivery
   * settled without sending); false when it was already settled.
   */
  recordAttempt(id: string, patch: AttemptPatch, counted?: boolean): Promise<boolean>;
  /** Deletes events (and their deliveries) made before `at`; returns how many events. */
  prune(at: number): Promise<number>;
}

export interface WebhookRequest {
  url: string;
  /** The checked address the request connects to (the host's name still goes in Host and TLS SNI). */
  address: string;
  headers: Record<string, string>;
  body: string;
  timeoutMs: number;
}

/** An HTTP answer's status, or why there was none (timeout, refused connection, ...). */
export type WebhookResponse = { status: number; excerpt: string; durationMs: number } | { error: string; durationMs: number };

/** How one delivery attempt ended, for metrics. */
export type WebhookOutcome = 'succeeded' | 'failed' | 'gave_up' | 'skipped';

/** The network side of webhooks, given to the use cases by the process that runs them. */
export interface WebhookPorts {
  policy: WebhookPolicy;
  /** WEBHOOK_ALLOW_PRIVATE: loopback, private and link-local addresses are allowed (tests, embedded demos). */
  allowPrivate: boolean;
  /** Every address of a host name (A and AAAA); rejects when it does not resolve. */
  resolve(host: string): Promise<string[]>;
  /** One POST; never throws for network faults, which come back as `error`. */
  send(request: WebhookRequest): Promise<WebhookResponse>;
  /** Told of every attempt's outcome (the metrics counter). */
  observe?(outcome: WebhookOutcome): void;
}

declare module '../shared/store.js' {
  interface Repos {
    webhooks: WebhookRepo;
  }
  interface Deps {
    /** Webhook network side (DNS, HTTP, policy); needed by subscription writes and deliveries only. */
    webhooks?: WebhookPorts | undefined;
  }
}
