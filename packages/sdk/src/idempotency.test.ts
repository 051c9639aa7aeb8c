import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ApiError, ConnectionError, TaskTrackerClient, type ResponseInfo } from './index.js';

type Handler = (req: IncomingMessage, res: ServerResponse, n: number) => void;

/** A small local server whose behaviour each test sets; it records the requests. */
let server: Server;
let base: string;
let handler: Handler;
let requests: Array<{ method: string; url: string; headers: IncomingMessage['headers'] }> = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    requests.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers });
    req.resume();
    handler(req, res, requests.length);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterEach(() => {
  requests = [];
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const json = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
};
const failing = (res: ServerResponse) => json(res, 503, { error: { code: 'internal', message: 'try again' } });
const created = { data: { id: 't1', key: 'WEB-1' } };
const client = (extra: Partial<ConstructorParameters<typeof TaskTrackerClient>[0]> = {}) =>
  new TaskTrackerClient({ baseUrl: base, apiKey: 'tt_test', ...extra });
const keysSent = () => requests.map((r) => r.headers['idempotency-key']);

describe('Idempotency-Key on POST', () => {
  it('sends a generated key and resends a 5xx with the same key', async () => {
    handler = (_req, res, n) => (n === 1 ? failing(res) : json(res, 201, created));
    const task = await client().tasks.create({ title: 'Once' });
    expect(task.id).toBe('t1');
    expect(requests).toHaveLength(2);
    const [first, second] = keysSent();
    expect(first).toMatch(/^[0-9a-f-]{32,36}$/);
    expect(second).toBe(first);
    // Another call is another request: a new key.
    await client().tasks.create({ title: 'Twice' });
    expect(keysSent()[2]).not.toBe(first);
  });

  it('resends after a lost connection and after 409 idempotency_conflict, reporting the replay', async () => {
    handler = (_req, res, n) => {
      if (n === 1) return void res.socket?.destroy();
      if (n === 2) return json(res, 409, { error: { code: 'idempotency_conflict', message: 'still running' } });
      json(res, 201, created, { 'idempotent-replayed': 'true' });
    };
    const seen: ResponseInfo[] = [];
    const task = await client({ onResponse: (r) => seen.push(r) }).tasks.create({ title: 'x' }, { idempotencyKey: 'order-7' });
    expect(task.key).toBe('WEB-1');
    expect(keysSent()).toEqual(['order-7', 'order-7', 'order-7']);
    expect(seen.map((r) => [r.status, r.replayed])).toEqual([[409, false], [201, true]]);
  });

  it('gives up after maxRetries with the last error', async () => {
    handler = (_req, res) => failing(res);
    const err = await client({ maxRetries: 1 }).tasks.create({ title: 'x' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).status).toBe(503);
    expect(requests).toHaveLength(2);
  });

  it('does not resend without a key: GET, idempotencyKeys false, or maxRetries 0', async () => {
    handler = (_req, res) => failing(res);
    await expect(client().me()).rejects.toMatchObject({ status: 503 });
    await expect(client({ idempotencyKeys: false }).tasks.create({ title: 'x' })).rejects.toMatchObject({ status: 503 });
    await expect(client({ maxRetries: 0 }).tasks.create({ title: 'x' })).rejects.toMatchObject({ status: 503 });
    expect(requests).toHaveLength(3);
    expect(keysSent()).toEqual([undefined, undefined, undefined]);
    handler = (_req, res) => void res.socket?.destroy();
    await expect(client({ idempotencyKeys: false }).tasks.create({ title: 'x' })).rejects.toBeInstanceOf(ConnectionError);
    expect(requests).toHaveLength(4);
  });

  it("sends one header when the caller's headers already name a key, and resends with it", async () => {
    handler = (_req, res, n) => (n === 1 ? failing(res) : json(res, 201, created));
    await client().tasks.create({ title: 'x' }, { headers: { 'Idempotency-Key': 'mine-1' } });
    expect(keysSent()).toEqual(['mine-1', 'mine-1']);
  });
});
