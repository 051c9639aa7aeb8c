import { lookup } from 'node:dns/promises';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import type { WebhookOutcome, WebhookPolicy, WebhookPorts, WebhookRequest, WebhookResponse } from '@tt/domain';

const EXCERPT_BYTES = 300;

/**
 * One POST to an address already checked by the use case. The connection goes to that address only (a lookup that
 * answers it whatever the name), so a DNS answer that changes between the check and the connection (rebinding)
 * cannot redirect the request; the host name still goes in the Host header and TLS SNI and certificate check.
 * Redirects are not followed. Never throws: network faults and the time limit come back as `error`.
 */
export function sendWebhook(r: WebhookRequest): Promise<WebhookResponse> {
  const started = performance.now();
  const elapsed = () => performance.now() - started;
  const family = r.address.includes(':') ? 6 : 4;
  const pinned = ((_host: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) => {
    if (options?.all) callback(null, [{ address: r.address, family }]);
    else callback(null, r.address, family);
  }) as unknown as LookupFunction;
  const url = new URL(r.url);
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve) => {
    let settled = false;
    const finish = (answer: WebhookResponse) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(answer);
    };
    const req = send(url, {
      method: 'POST',
      headers: { ...r.headers, 'content-length': String(Buffer.byteLength(r.body)) },
      lookup: pinned,
      agent: false,
    });
    const timer = setTimeout(() => {
      finish({ error: `timed out after ${r.timeoutMs} ms`, durationMs: elapsed() });
      req.destroy();
    }, r.timeoutMs);
    req.on('error', (err: NodeJS.ErrnoException) => finish({ error: err.code ? `${err.code}: ${err.message}` : err.message, durationMs: elapsed() }));
    req.on('response', (res: IncomingMessage) => {
      const status = res.statusCode ?? 0;
      const chunks: Buffer[] = [];
      let size = 0;
      // A short excerpt of the answer for the delivery log; the rest is not waited for.
      const done = () => {
        finish({ status, excerpt: Buffer.concat(chunks).toString('utf8').slice(0, EXCERPT_BYTES).replace(/\s+/g, ' ').trim(), durationMs: elapsed() });
        res.destroy();
      };
      res.on('data', (c: Buffer) => {
        chunks.push(c);
        size += c.length;
        if (size >= EXCERPT_BYTES) done();
      });
      res.on('end', done);
      res.on('error', done);
    });
    req.end(r.body);
  });
}

/** Every address of a host name, IPv4 and IPv6, in the resolver's order. */
export async function resolveHost(host: string): Promise<string[]> {
  return (await lookup(host, { all: true, verbatim: true })).map((a) => a.address);
}

export interface WebhookPortsOptions {
  policy: WebhookPolicy;
  allowPrivate: boolean;
  /** Told of each attempt's outcome (the `tt_webhook_deliveries_total` counter). */
  observe?: ((outcome: WebhookOutcome) => void) | undefined;
}

/** The real network side of webhooks: system DNS and node:http(s). */
export function createWebhookPorts(o: WebhookPortsOptions): WebhookPorts {
  return { policy: o.policy, allowPrivate: o.allowPrivate, resolve: resolveHost, send: sendWebhook, ...(o.observe ? { observe: o.observe } : {}) };
}
