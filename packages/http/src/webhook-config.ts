import { z } from 'zod';
import { DEFAULT_WEBHOOK_POLICY, type WebhookPolicy } from '@tt/domain';

const ms = (fallback: number, min: number) => z.coerce.number().int().min(min).max(30 * 86_400_000).default(fallback);
const flag = z.enum(['true', 'false', '1', '0']).optional();

/**
 * Webhook variables (every process that writes subscriptions or delivers). The timings exist so tests can run the
 * whole schedule in milliseconds; production keeps the defaults.
 */
export const WebhookConfigShape = {
  /** true: loopback, private and link-local receivers are allowed (tests, embedded demos); metadata addresses never. */
  WEBHOOK_ALLOW_PRIVATE: flag,
  WEBHOOK_TIMEOUT_MS: ms(DEFAULT_WEBHOOK_POLICY.timeoutMs, 100),
  WEBHOOK_RETRY_BASE_MS: ms(DEFAULT_WEBHOOK_POLICY.retryBaseMs, 1),
  WEBHOOK_RETRY_MAX_DELAY_MS: ms(DEFAULT_WEBHOOK_POLICY.retryMaxDelayMs, 1),
  WEBHOOK_RETRY_FOR_MS: ms(DEFAULT_WEBHOOK_POLICY.retryForMs, 1),
  WEBHOOK_DISABLE_AFTER_MS: ms(DEFAULT_WEBHOOK_POLICY.disableAfterMs, 1),
};

export interface WebhookSettings {
  policy: WebhookPolicy;
  allowPrivate: boolean;
}

export const DEFAULT_WEBHOOK_SETTINGS: WebhookSettings = { policy: DEFAULT_WEBHOOK_POLICY, allowPrivate: false };

type WebhookEnv = z.infer<z.ZodObject<typeof WebhookConfigShape>>;

/** Settings from parsed variables; `allowPrivateByDefault` is embedded mode's default when the variable is unset. */
export function webhookSettings(c: WebhookEnv, allowPrivateByDefault = false): WebhookSettings {
  const allowPrivate = c.WEBHOOK_ALLOW_PRIVATE === undefined ? allowPrivateByDefault : c.WEBHOOK_ALLOW_PRIVATE === 'true' || c.WEBHOOK_ALLOW_PRIVATE === '1';
  return {
    allowPrivate,
    policy: {
      ...DEFAULT_WEBHOOK_POLICY,
      timeoutMs: c.WEBHOOK_TIMEOUT_MS,
      retryBaseMs: c.WEBHOOK_RETRY_BASE_MS,
      retryMaxDelayMs: c.WEBHOOK_RETRY_MAX_DELAY_MS,
      retryForMs: c.WEBHOOK_RETRY_FOR_MS,
      disableAfterMs: c.WEBHOOK_DISABLE_AFTER_MS,
    },
  };
}
