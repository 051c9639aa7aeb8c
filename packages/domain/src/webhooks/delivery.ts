import { type Deps, type JobPayload, RetryLaterError } from '../shared/index.js';
import type { WebhookPorts, WebhookRecord, WebhookResponse } from './ports.js';
import {
  failedTooLong, nextRetry, parseWebhookUrl, refusedAddress, signatureHeader, signingSecrets, subscriptionTakes,
  WEBHOOK_HEADERS,
} from './rules.js';

/** Events (and their deliveries) are kept this long for the delivery log and redelivery. */
export const WEBHOOK_RETENTION_MS = 30 * 86_400_000;
const PRUNE_EVERY_MS = 600_000;
// Per process: pruning is housekeeping, once in a while is enough and any process may do it.
let nextPruneAt = 0;

/** The webhook side of the deps, or a clear fault when the process was started without it. */
export function webhookPorts(deps: Deps): WebhookPorts {
  if (!deps.webhooks) throw new Error('this process has no webhook ports (deps.webhooks)');
  return deps.webhooks;
}

export interface DeliveryResult {
  result: 'succeeded' | 'failed' | 'skipped' | 'gone' | 'already_settled';
  status?: number;
}

const describe = (r: WebhookResponse): string =>
  'status' in r ? `HTTP ${r.status}${r.excerpt ? `: ${r.excerpt}` : ''}`.slice(0, 500) : r.error.slice(0, 500);

/** Where the request may go: the host's resolved addresses, checked again at send time; the first one is pinned. */
async function target(url: string, ports: WebhookPorts): Promise<{ address: string } | { refused: string }> {
  const t = parseWebhookUrl(url);
  const addresses = t.literal ? [t.host] : await ports.resolve(t.host).catch(() => []);
  const refused = refusedAddress(t.host, addresses, ports.allowPrivate);
  return refused ? { refused } : { address: addresses[0]! };
}

/** Signed request: the body as sent, a fresh timestamp per attempt, one v1 per secret that signs now. */
function request(webhook: WebhookRecord, deliveryId: string, type: string, body: string, now: number): Record<string, string> {
  return {
    'content-type': 'application/json',
    'user-agent': 'task-tracker-webhooks/1.0',
    [WEBHOOK_HEADERS.delivery]: deliveryId,
    [WEBHOOK_HEADERS.event]: type,
    [WEBHOOK_HEADERS.signature]: signatureHeader(Math.floor(now / 1000), body, signingSecrets(webhook, now)),
  };
}

/**
 * Job `webhooks.deliver`: one attempt of one delivery. Idempotent: a settled delivery is left alone, so a job run
 * again (a killed worker's, a relay's double) sends nothing more. A 2xx settles it; any other answer, a timeout or a
 * refused address records the attempt and throws RetryLaterError with the next wait of the backoff, until the retry
 * window ends (the delivery fails) or the subscription has failed for `disableAfterMs` (it is switched off).
 */
export async function deliver(p: JobPayload<'webhooks.deliver'>, deps: Deps): Promise<DeliveryResult> {
  const ports = webhookPorts(deps);
  const policy = ports.policy;
  const found = await deps.store.webhooks.delivery(p.deliveryId);
  if (!found) return { result: 'gone' };
  const { delivery, event, webhook } = found;
  if (delivery.status === 'succeeded' || delivery.status === 'failed') return { result: 'already_settled' };

  const skip = !webhook.active
    ? 'the subscription is switched off'
    : !subscriptionTakes(webhook, event.type, event.projectId) ? 'the subscription no longer takes this event' : null;
  if (skip) {
    await deps.store.webhooks.recordAttempt(
      delivery.id,
      { status: 'failed', lastError: skip, lastStatusCode: null, durationMs: null, lastAttemptAt: deps.now(), nextAttemptAt: null, succeededAt: null },
      false,
    );
    ports.observe?.('skipped');
    return { result: 'skipped' };
  }

  const body = JSON.stringify({ id: event.id, type: event.type, createdAt: event.createdAt, workspaceId: event.workspaceId, data: event.data });
  const where = await target(webhook.url, ports);
  const response: WebhookResponse =
    'refused' in where
      ? { error: `refused: ${where.refused}`, durationMs: 0 }
      : await ports.send({ url: webhook.url, address: where.address, headers: request(webhook, delivery.id, event.type, body, deps.now()), body, timeoutMs: policy.timeoutMs });
  const now = deps.now();
  const ok = 'status' in response && response.status >= 200 && response.status < 300;
  const attempt = {
    lastStatusCode: 'status' in response ? response.status : null,
    lastError: ok ? null : describe(response),
    durationMs: Math.round(response.durationMs),
    lastAttemptAt: now,
  };

  if (ok) {
    await deps.store.transaction(async (repos) => {
      await repos.webhooks.recordAttempt(delivery.id, { ...attempt, status: 'succeeded', nextAttemptAt: null, succeededAt: now });
      const current = await repos.webhooks.get(webhook.id);
      if (current?.failingSince != null) await repos.webhooks.update(webhook.id, { failingSince: null });
    });
    ports.observe?.('succeeded');
    await prune(deps, now);
    return { result: 'succeeded', status: attempt.lastStatusCode! };
  }

  const delay = await deps.store.transaction(async (repos) => {
    const current = await repos.webhooks.get(webhook.id);
    const failingSince = current?.failingSince ?? now;
    const switchOff = Boolean(current?.active) && failedTooLong(failingSince, now, policy);
    if (current && switchOff) {
      const days = Math.round((policy.disableAfterMs / 86_400_000) * 10) / 10;
      await repos.webhooks.update(webhook.id, {
        failingSince, active: false, disabledAt: now, updatedAt: now,
        disabledReason: `every attempt failed for ${days} days; last: ${attempt.lastError}`.slice(0, 500),
      });
    } else if (current && current.failingSince === null) {
      await repos.webhooks.update(webhook.id, { failingSince });
    }
    const wait = switchOff ? null : nextRetry(delivery.attempts + 1, delivery.createdAt, now, policy);
    await repos.webhooks.recordAttempt(delivery.id, {
      ...attempt, status: wait === null ? 'failed' : 'retrying', nextAttemptAt: wait === null ? null : now + wait, succeededAt: null,
    });
    return wait;
  });
  if (delay === null) {
    ports.observe?.('gave_up');
    await prune(deps, now);
    return { result: 'failed', ...(attempt.lastStatusCode !== null ? { status: attempt.lastStatusCode } : {}) };
  }
  ports.observe?.('failed');
  throw new RetryLaterError(delay, `webhook delivery ${delivery.id} failed (${attempt.lastError}); next attempt in ${delay} ms`);
}

async function prune(deps: Deps, now: number): Promise<void> {
  if (now < nextPruneAt) return;
  nextPruneAt = now + PRUNE_EVERY_MS;
  await deps.store.webhooks.prune(now - WEBHOOK_RETENTION_MS);
}
