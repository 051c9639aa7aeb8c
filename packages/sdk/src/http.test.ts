import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ApiError, ConnectionError, isApiError, TaskTrackerClient, TimeoutError, type RetryInfo } from './index.js';

type Handler = (req: IncomingMessage, res: ServerResponse, n: number) => void;

/** A small local server whose behaviour each test sets; it counts requests and can hold them open. */
let server: Server;
let base: string;
let handler: Handler;
let requests: Array<{ method: string; url: string; headers: IncomingMessage['headers'] }> = [];
const held: ServerResponse[] = [];
let arrived: () => void = () => {};

beforeAll(async () => {
  server = createServer((req, res) => {
    requests.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers });
    arrived();
    req.resume();
    handler(req, res, requests.length);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterEach(() => {
  requests = [];
  for (const res of held.splice(0)) res.destroy();
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const json = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
};
const limited = (res: ServerResponse, retryAfter: string) =>
  json(res, 429, { error: { code: 'rate_limited', message: 'slow down' } }, {
    'retry-after': retryAfter, 'x-ratelimit-limit': '3', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': retryAfter,
  });
const hold = (res: ServerResponse) => void held.push(res);
const nextArrival = () => new Promise<void>((resolve) => (arrived = resolve));
const client = (extra: Partial<ConstructorParameters<typeof TaskTrackerClient>[0]> = {}) =>
  new TaskTrackerClient({ baseUrl: base, apiKey: 'tt_test', ...extra });
const me = { user: { id: 'u1' }, workspace: { id: 'w1', name: 'W' }, key: { id: 'k1', scopes: [], projectIds: null }, rateLimitPerMinute: 3 };

describe('429 retries', () => {
  it('waits retry-after and retries, then returns the answer', async () => {
    handler = (_req, res, n) => (n === 1 ? limited(res, '1') : json(res, 200, { data: me }));
    const retries: RetryInfo[] = [];
    const got = await client({ onRetry: (r) => retries.push(r) }).me();
    expect(got.key.id).toBe('k1');
    expect(requests).toHaveLength(2);
    expect(retries).toHaveLength(1);
    expect(retries[0]).toMatchObject({ attempt: 1, delayMs: 1000, method: 'GET', path: '/v1/me' });
    expect(retries[0]!.error.code).toBe('rate_limited');
  });

  it('gives up after maxRetries with the 429 ApiError', async () => {
    handler = (_req, res) => limited(res, '0');
    const err = await client({ maxRetries: 2 }).me().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ status: 429, code: 'rate_limited', retryAfter: 0, rateLimit: { limit: 3, remaining: 0, resetSeconds: 0 } });
    expect(requests).toHaveLength(3);
  });

  it('does not retry with maxRetries 0, per client or per call', async () => {
    handler = (_req, res) => limited(res, '0');
    await expect(client({ maxRetries: 0 }).me()).rejects.toMatchObject({ code: 'rate_limited' });
    expect(requests).toHaveLength(1);
    await expect(client().me({ maxRetries: 0 })).rejects.toMatchObject({ code: 'rate_limited' });
    expect(requests).toHaveLength(2);
  });

  it('fails at once when retry-after is longer than maxRetryDelayMs', async () => {
    handler = (_req, res) => limited(res, '120');
    await expect(client({ maxRetryDelayMs: 5_000 }).me()).rejects.toMatchObject({ code: 'rate_limited', retryAfter: 120 });
    expect(requests).toHaveLength(1);
  });

  it('stops waiting when the caller aborts during the pause', async () => {
    handler = (_req, res) => limited(res, '30');
    const controller = new AbortController();
    const err = await client({ onRetry: () => controller.abort() }).me({ signal: controller.signal }).catch((e: unknown) => e);
    expect((err as Error).name).toBe('AbortError');
    expect(requests).toHaveLength(1);
  });
});

describe('timeouts and aborts', () => {
  it('throws TimeoutError when the server does not answer in time', async () => {
    handler = (_req, res) => hold(res);
    const err = await client({ timeoutMs: 200 }).me().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TimeoutError);
    expect(err).toMatchObject({ timeoutMs: 200, method: 'GET', path: '/v1/me' });
  });

  it('applies the timeout to reading the body too, and per call', async () => {
    handler = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"data":');
      hold(res);
    };
    await expect(client({ timeoutMs: 0 }).me({ timeoutMs: 200 })).rejects.toBeInstanceOf(TimeoutError);
  });

  it('rejects with the reason of the caller signal once the request is under way', async () => {
    handler = (_req, res) => hold(res);
    const controller = new AbortController();
    const reason = new Error('user left the page');
    const underway = nextArrival();
    const call = client().me({ signal: controller.signal });
    await underway;
    controller.abort(reason);
    await expect(call).rejects.toBe(reason);
  });

  it('sends nothing when the signal is already aborted', async () => {
    handler = (_req, res) => json(res, 200, { data: me });
    const controller = new AbortController();
    controller.abort();
    await expect(client().me({ signal: controller.signal })).rejects.toMatchObject({ name: 'AbortError' });
    expect(requests).toHaveLength(0);
  });

  it('reports an unreachable server as ConnectionError', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const err = await new TaskTrackerClient({ baseUrl: `http://127.0.0.1:${port}`, apiKey: 'k' }).me().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConnectionError);
  });
});

describe('errors and headers', () => {
  it('carries status, code, message, request id and rate limit of an error answer', async () => {
    handler = (_req, res) =>
      json(res, 409, { error: { code: 'archived', message: 'Task WEB-1 is archived' } }, { 'x-request-id': 'req-42', 'x-ratelimit-limit': '120', 'x-ratelimit-remaining': '7', 'x-ratelimit-reset': '31' });
    const err = await client().tasks.update('WEB-1', { title: 'x' }).catch((e: unknown) => e);
    expect(isApiError(err)).toBe(true);
    expect(err).toMatchObject({
      status: 409, code: 'archived', message: 'Task WEB-1 is archived', requestId: 'req-42', retryAfter: null,
      method: 'PATCH', path: '/v1/tasks/WEB-1', rateLimit: { limit: 120, remaining: 7, resetSeconds: 31 },
    });
  });

  it('derives the code from the status when the answer has no error body', async () => {
    handler = (_req, res) => {
      res.writeHead(502, { 'content-type': 'text/html' });
      res.end('<h1>Bad gateway</h1>');
    };
    await expect(client().me()).rejects.toMatchObject({ status: 502, code: 'internal', message: '502 Bad Gateway' });
    handler = (_req, res) => json(res, 404, {});
    await expect(client().me()).rejects.toMatchObject({ status: 404, code: 'not_found' });
  });

  it('sends the key, JSON headers, a request id, and keeps the last rate-limit state', async () => {
    handler = (_req, res) => json(res, 201, { data: { id: 't1' } }, { 'x-ratelimit-limit': '120', 'x-ratelimit-remaining': '119', 'x-ratelimit-reset': '60' });
    const seen: number[] = [];
    const c = new TaskTrackerClient({ baseUrl: `${base}/v1/`, apiKey: 'tt_secret', headers: { 'x-client': 'tests' }, onResponse: (r) => seen.push(r.status) });
    expect(c.lastRateLimit).toBeNull();
    await c.tasks.create({ title: 'Write tests' }, { requestId: 'trace-1' });
    expect(requests[0]).toMatchObject({ method: 'POST', url: '/v1/tasks' });
    expect(requests[0]!.headers).toMatchObject({
      authorization: 'Bearer tt_secret', accept: 'application/json', 'content-type': 'application/json', 'x-client': 'tests', 'x-request-id': 'trace-1',
    });
    expect(c.lastRateLimit).toEqual({ limit: 120, remaining: 119, resetSeconds: 60 });
    expect(seen).toEqual([201]);
  });

  it('builds query strings from lists, dates and numbers, leaving out undefined', async () => {
    handler = (_req, res) => json(res, 200, { data: [], nextCursor: null, total: 0 });
    await client().tasks.list({ type: ['bug', 'story'], label: 'a,b', updatedSince: new Date(Date.UTC(2026, 0, 2)), limit: 5, q: undefined });
    const url = new URL(requests[0]!.url, base);
    expect(url.pathname).toBe('/v1/tasks');
    expect(Object.fromEntries(url.searchParams)).toEqual({ type: 'bug,story', label: 'a,b', updatedSince: '2026-01-02T00:00:00.000Z', limit: '5' });
  });

  it('returns Markdown endpoints as strings and escapes path parameters', async () => {
    handler = (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/markdown; charset=utf-8' });
      res.end('# WEB-1 Title\n');
    };
    expect(await client().tasks.context('WEB/1')).toBe('# WEB-1 Title\n');
    expect(requests[0]!.url).toBe('/v1/tasks/WEB%2F1/context?format=markdown');
    expect(requests[0]!.headers.accept).toBe('text/markdown');
  });
});
