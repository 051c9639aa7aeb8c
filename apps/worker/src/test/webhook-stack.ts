import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import { DEFAULT_WEBHOOK_POLICY, type WebhookPolicy } from '@tt/domain';
import { createLogger, createRuntime, type Runtime } from '@tt/http';
import { createTestDatabaseUrl, dropTestDatabase } from '../../../../packages/store/src/testing.js';
import type { ApiServer } from '../../../api/src/server.js';
import { apiOn, dropQueue, team, uniquePrefix, type Res } from './stack.js';

/** A webhook receiver on 127.0.0.1: records every request; `answer` decides each reply (a status, or 'hang'). */
export class Receiver {
  readonly requests: Array<{ headers: IncomingHttpHeaders; body: string; at: number }> = [];
  answer: (n: number, delivery: string) => number | 'hang' = () => 200;
  private server: Server | undefined;
  private readonly hung: ServerResponse[] = [];
  port = 0;
  onRequest: (() => void) | undefined;

  get url(): string {
    return `http://127.0.0.1:${this.port}/hook`;
  }

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        this.requests.push({ headers: req.headers, body, at: Date.now() });
        this.onRequest?.();
        const a = this.answer(this.requests.length, String(req.headers['x-tracker-delivery']));
        if (a === 'hang') this.hung.push(res);
        else res.writeHead(a, { 'content-type': 'text/plain' }).end(a >= 300 ? `receiver says ${a}` : 'ok');
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    const addr = this.server.address();
    this.port = typeof addr === 'object' && addr ? addr.port : 0;
  }

  /** Requests answered 2xx, by delivery id. */
  deliveryIds(): string[] {
    return this.requests.map((r) => String(r.headers['x-tracker-delivery']));
  }

  async stop(): Promise<void> {
    for (const r of this.hung) r.destroy();
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}

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
  const databaseUrl = await createTestDatabaseUrl();
  const prefix = uniquePrefix();
  const runtime = await createRuntime({
    databaseUrl, redisUrl: o.redisUrl, rateLimitPerMinute: 100_000, logger: createLogger('silent', 'test'), consumeJobs: o.consume,
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
      await dropTestDatabase(databaseUrl);
    },
  };
}

export { team };
