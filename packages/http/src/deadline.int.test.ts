import type { AddressInfo } from 'node:net';
import express from 'express';
import type { Knex } from 'knex';
import { afterEach, describe, expect, it } from 'vitest';
import { startFaultProxy } from '../../../scripts/topology/fault-proxy.mjs';
import { openDatabase } from '@tt/store';
import { openTestPglite } from '../../store/src/testing.js';
import { requestDeadline } from './deadline.js';
import { errorHandler } from './errors.js';

/*
 * The request deadline over HTTP: a route whose database does not answer (real PostgreSQL behind a proxy that holds
 * every byte, no reset), and a route that waits on something else, both answer 503 service_unavailable with
 * Retry-After; a route that finishes in time answers as usual, on PostgreSQL and on embedded PGlite.
 */
const PG = process.env.TEST_DATABASE_URL;
const cleanup: (() => Promise<unknown> | unknown)[] = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

async function serve(db: Knex | undefined, ms: number) {
  const app = express();
  app.use(requestDeadline({ ms }));
  app.get('/db', async (_req, res, next) => {
    try {
      res.json({ n: (await db!.raw('select 1 as n')).rows[0].n });
    } catch (e) {
      next(e);
    }
  });
  app.get('/stuck', () => undefined);
  // An answer built and then held back, as the Idempotency-Key layer holds one while its record commits: res.json has
  // set its Content-Length, ETag and content type when the deadline comes.
  app.get('/held', (_req, res) => {
    res.end = (() => res) as never;
    res.status(201).json({ data: { title: 'a body much longer than the answer the deadline gives in its place, '.repeat(8) } });
  });
  app.use(errorHandler);
  const server = app.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  cleanup.push(() => new Promise((r) => server.close(r)), () => server.closeAllConnections());
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return async (path: string) => {
    const r = await fetch(`${base}${path}`);
    return { status: r.status, retryAfter: r.headers.get('retry-after'), body: (await r.json()) as { n?: number; error?: { code: string } } };
  };
}

describe.skipIf(!PG)('requestDeadline on PostgreSQL', () => {
  it('answers 503 with Retry-After when the database holds the request, and serves again once it answers', async () => {
    const target = new URL(PG!);
    const proxy = await startFaultProxy({ port: Number(target.port || 5432), host: target.hostname });
    const url = new URL(PG!);
    url.hostname = '127.0.0.1';
    url.port = String(proxy.port);
    const db = openDatabase({ databaseUrl: url.toString(), poolMax: 2 });
    cleanup.push(() => proxy.close(), () => db.destroy());
    const get = await serve(db, 400);
    expect(await get('/db')).toEqual({ status: 200, retryAfter: null, body: { n: 1 } });
    proxy.set('hold');
    const held = await get('/db');
    expect(held).toMatchObject({ status: 503, body: { error: { code: 'service_unavailable' } } });
    expect(Number(held.retryAfter)).toBeGreaterThan(0);
    proxy.set('pass');
    expect(await get('/db')).toEqual({ status: 200, retryAfter: null, body: { n: 1 } });
  });
});

describe.skipIf(!PG)('DATABASE_MAX_WAITING on PostgreSQL', () => {
  it('answers 503 with Retry-After at once, not at the deadline, to the requests past the waiting limit on a silent database', async () => {
    const target = new URL(PG!);
    const proxy = await startFaultProxy({ port: Number(target.port || 5432), host: target.hostname });
    const url = new URL(PG!);
    url.hostname = '127.0.0.1';
    url.port = String(proxy.port);
    // One connection and one waiting request at most: the third request finds the queue full.
    const db = openDatabase({ databaseUrl: url.toString(), poolMax: 1, maxWaiting: 1 });
    cleanup.push(() => proxy.close(), () => db.destroy());
    const deadlineMs = 3000;
    const get = await serve(db, deadlineMs);
    expect((await get('/db')).status).toBe(200);
    proxy.set('hold');
    const onTheConnection = get('/db');
    await new Promise((r) => setTimeout(r, 100));
    const waiting = get('/db');
    await new Promise((r) => setTimeout(r, 100));
    const started = Date.now();
    const refused = await get('/db');
    const refusedMs = Date.now() - started;
    expect(refused).toMatchObject({ status: 503, body: { error: { code: 'service_unavailable' } } });
    expect(Number(refused.retryAfter)).toBeGreaterThan(0);
    // Refused without joining the queue: well before the deadline the other two wait for.
    expect(refusedMs).toBeLessThan(deadlineMs / 2);
    for (const r of await Promise.all([onTheConnection, waiting])) expect(r.status).toBe(503);
    proxy.set('pass');
    expect((await get('/db')).status).toBe(200);
  });
});

describe('requestDeadline', () => {
  it('answers 503 with Retry-After for a request stuck on something else than the database', async () => {
    const get = await serve(undefined, 100);
    const stuck = await get('/stuck');
    expect(stuck).toMatchObject({ status: 503, body: { error: { code: 'service_unavailable' } } });
    expect(Number(stuck.retryAfter)).toBeGreaterThan(0);
  });

  it('answers 503 whole when the request had built an answer it held back: none of that answer\'s headers go with it', async () => {
    const held = await serve(undefined, 100);
    const r = await held('/held');
    expect(r).toMatchObject({ status: 503, body: { error: { code: 'service_unavailable' } } });
  });

  it('leaves a request that finishes in time alone (embedded PGlite)', async () => {
    const db = openDatabase({ pglite: await openTestPglite() }); // the run's migrated snapshot, or a new PGlite
    cleanup.push(() => db.destroy());
    const get = await serve(db, 60_000);
    expect(await get('/db')).toEqual({ status: 200, retryAfter: null, body: { n: 1 } });
  });
});
