import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { startProxy, type ProxyHandle } from './proxy.mjs';

interface Upstream {
  url: string;
  /** What GET /ready answers: 200 while true, 503 (draining) once false. */
  ready: boolean;
  close(): Promise<void>;
}

/** A tiny upstream that answers with its name, the request's method, body and forwarding headers. */
async function upstream(name: string): Promise<Upstream> {
  const server = http.createServer((req, res) => {
    if (req.url === '/ready') {
      res.writeHead(u.ready ? 200 : 503).end();
      return;
    }
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      res.writeHead(201, { 'content-type': 'application/json', 'x-upstream': name });
      res.end(JSON.stringify({ name, method: req.method, url: req.url, body: Buffer.concat(chunks).toString(), xff: req.headers['x-forwarded-for'] ?? null }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const u: Upstream = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    ready: true,
    close: () => new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    }),
  };
  return u;
}

const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((o) => o.close()));
});

async function setup(n: number, readyPath?: string): Promise<{ proxy: ProxyHandle; ups: Upstream[] }> {
  const ups = await Promise.all(Array.from({ length: n }, (_v, i) => upstream(`u${i + 1}`)));
  open.push(...ups);
  const proxy = await startProxy({ upstreams: ups.map((u) => u.url), readyPath, readyIntervalMs: 50 });
  open.push(proxy);
  return { proxy, ups };
}

describe('topology proxy', () => {
  it('spreads requests round robin and relays method, path, body, status and headers', async () => {
    const { proxy } = await setup(2);
    const names: string[] = [];
    for (let i = 0; i < 4; i++) {
      const res = await fetch(`${proxy.url}/v1/tasks?x=${i}`, { method: 'POST', body: `{"n":${i}}`, headers: { 'content-type': 'application/json' } });
      expect(res.status).toBe(201);
      const body = (await res.json()) as { name: string; method: string; url: string; body: string; xff: string };
      expect(body).toMatchObject({ method: 'POST', url: `/v1/tasks?x=${i}`, body: `{"n":${i}}`, xff: '127.0.0.1' });
      expect(res.headers.get('x-upstream')).toBe(body.name);
      names.push(body.name);
    }
    expect(names).toEqual(['u1', 'u2', 'u1', 'u2']);
    expect(proxy.stats()).toMatchObject({ total: 4, upstreams: [{ requests: 2 }, { requests: 2 }] });
  });

  it('sends every request to the live replica when one is down, and 502 when all are', async () => {
    const { proxy, ups } = await setup(2);
    await ups[1]!.close();
    for (let i = 0; i < 4; i++) {
      const res = await fetch(`${proxy.url}/health`);
      expect(res.status).toBe(201);
      expect(res.headers.get('x-upstream')).toBe('u1');
    }
    await ups[0]!.close();
    const res = await fetch(`${proxy.url}/health`);
    expect(res.status).toBe(502);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('bad_gateway');
  });

  it('sends no new request to a replica whose /ready says 503 (draining), and takes it back once ready', async () => {
    const { proxy, ups } = await setup(2, '/ready');
    ups[1]!.ready = false;
    await waitFor(() => proxy.stats().upstreams[1]!.ready === false);
    for (let i = 0; i < 4; i++) {
      const res = await fetch(`${proxy.url}/v1/tasks`);
      expect(res.headers.get('x-upstream')).toBe('u1');
    }
    ups[1]!.ready = true;
    await waitFor(() => proxy.stats().upstreams[1]!.ready === true);
    const seen = new Set<string>();
    for (let i = 0; i < 4; i++) seen.add((await fetch(`${proxy.url}/v1/tasks`)).headers.get('x-upstream')!);
    expect([...seen].sort()).toEqual(['u1', 'u2']);
  });

  it('still forwards when every replica says not ready (rather than failing every request)', async () => {
    const { proxy, ups } = await setup(1, '/ready');
    ups[0]!.ready = false;
    await waitFor(() => proxy.stats().upstreams[0]!.ready === false);
    const res = await fetch(`${proxy.url}/v1/tasks`);
    expect(res.status).toBe(201);
  });
});

async function waitFor(cond: () => boolean, ms = 3_000): Promise<void> {
  const until = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > until) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 20));
  }
}
