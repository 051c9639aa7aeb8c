import { lookup } from 'node:dns/promises';
import { request } from 'node:https';
import type { LookupFunction } from 'node:net';
import type { ClientDocumentPorts } from '@tt/domain';

/**
 * Fetches a client-id metadata document over HTTPS from the address the domain checked (a lookup pinned to it, so
 * a DNS answer that changes between check and connection cannot redirect the request; TLS still checks the name).
 * node:https uses the default CAs plus NODE_EXTRA_CA_CERTS. No redirects; a size and a time limit.
 */
function fetchDocument(url: string, address: string, limits: { timeoutMs: number; maxBytes: number }): Promise<{ status: number; body: string }> {
  const family = address.includes(':') ? 6 : 4;
  const pinned = ((_h: string, o: { all?: boolean }, cb: (...a: unknown[]) => void) =>
    o?.all ? cb(null, [{ address, family }]) : cb(null, address, family)) as unknown as LookupFunction;
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'GET', headers: { accept: 'application/json' }, lookup: pinned, agent: false, timeout: limits.timeoutMs }, (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (c: Buffer) => {
        size += c.length;
        if (size > limits.maxBytes) {
          req.destroy(new Error(`the document is larger than ${limits.maxBytes} bytes`));
          return;
        }
        chunks.push(c);
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    const timer = setTimeout(() => req.destroy(new Error(`timed out after ${limits.timeoutMs} ms`)), limits.timeoutMs);
    req.on('close', () => clearTimeout(timer));
    req.on('error', reject);
    req.end();
  });
}

export const clientDocumentPorts: ClientDocumentPorts = {
  resolve: async (host) => (await lookup(host, { all: true, verbatim: true })).map((a) => a.address),
  fetch: fetchDocument,
};
