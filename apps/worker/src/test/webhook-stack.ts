import { DEFAULT_WEBHOOK_POLICY, type WebhookPolicy } from '@tt/domain';
import { createLogger, createRuntime, type Runtime } from '@tt/http';
import { createTestDatabase } from '../../../../packages/store/src/testing.js';
import type { ApiServer } from '../../../api/src/server.js';
import { apiOn, dropQueue, team, uniquePrefix, type Res } from './stack.js';

export { Receiver } from './receiver.js';

export interface WebhookStack {
  runtime: Runtime;
  api: ApiServer;
  databaseUrl: string | undefined;
  prefix: string;
  /** The clock the use cases read; tests move it to cross days without waiting. */
  clock: { offset: number };
  call(token: string, method: string, path: string, body?: unknown): Promise<Res>;
  op(method: string, path: string, body?: unknown): Promise<Res>;
  close(): Promise<void>;
}

/** Fast timings for tests: retries after milliseconds, the rest of the rules unchanged. */
export const FAST: Partial<WebhookPolicy> = { retryBaseMs: 20, retryMaxDelayMs: 200, timeoutMs: 2000 };

/** The REST API with its outbox relay and (when `consume`) the job handlers, on a fresh database. */
export async function startWebhookStack(o: {
  redisUrl?: string | undefined; consume: boolean; allowPrivate: boolean; policy?: Partial<WebhookPolicy>;
}): Promise<WebhookStack> {
  const { databaseUrl, pglite, drop } = await createTestDatabase();
  const prefix = uniquePrefix();
  const runtime = await createRuntime({
    databaseUrl, pglite, redisUrl: o.redisUrl, rateLimitPerMinute: 100_000, logger: createLogger('silent', 'test'), consumeJobs: o.consume,
    queuePrefix: prefix, jobConcurrency: 4, webhookConcurrency: 4,
    webhooks: { allowPrivate: o.allowPrivate, policy: { ...DEFAULT_WEBHOOK_POLICY, ...o.policy } },
  });
  const clock = { offset: 0 };
  runtime.deps.now = () => Date.now() + clock.offset;
  const { api, call, op } = await apiOn(runtime);
  return {
    runtime, api, databaseUrl, prefix, clock, call, op,
    async close() {
      await api.stop();
      await runtime.close();
      if (o.redisUrl) await Promise.all(['jobs', 'webhooks'].map((name) => dropQueue(o.redisUrl!, prefix, name)));
      await drop();
    },
  };
}

export { team };
