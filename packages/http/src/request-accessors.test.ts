import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import express from 'express';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { listen } from './listen.js';
import { requestLogger } from './logging.js';
import { httpMetrics, metricsRegistry } from './metrics.js';
import { sampleValue } from './metrics-sample.js';

// httpMetrics and requestLogger put their accessors (req.route, req.log) on the app's request prototype, never on a
// request: an accessor defined per request made V8 keep every request's objects through young collections.
describe('httpMetrics and requestLogger', () => {
  it('define no property on the request, and still label routes and bind the request log on use', async () => {
    const lines: any[] = [];
    const sink = new Writable({ write: (chunk, _enc, cb) => (lines.push(JSON.parse(String(chunk))), cb()) });
    const app = express();
    app.use(httpMetrics('accessors-test'), requestLogger(pino({ level: 'info' }, sink)));
    const own: string[][] = [];
    const api = express.Router();
    api.get('/things/:id', (req, res) => {
      req.log?.info({ thing: req.params.id }, 'looked at');
      own.push(Object.getOwnPropertyNames(req).filter((n) => n === 'route' || n === 'log'));
      res.json({ route: (req.route as { path: string }).path });
    });
    api.get('/broken', () => {
      throw new Error('boom');
    });
    app.use('/v9', api);
    app.use((err: Error, _req: express.Request, res: express.Response, _next: express.NextFunction) => void res.status(500).json({ error: err.message }));
    const server = await listen(app, 0, '127.0.0.1');
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const r = await fetch(`${url}/v9/things/7`, { headers: { 'x-request-id': 'req-1' } });
      expect(await r.json()).toEqual({ route: '/things/:id' });
      expect((await fetch(`${url}/v9/broken`)).status).toBe(500);
      expect((await fetch(`${url}/nowhere`)).status).toBe(404);
    } finally {
      await new Promise((r) => server.close(r));
    }
    expect(own).toEqual([[]]);
    expect(lines.find((l) => l.msg === 'looked at')).toMatchObject({ thing: '7', req: { id: 'req-1', method: 'GET', url: '/v9/things/7' } });
    const text = await metricsRegistry.metrics();
    const count = (route: string, status: string) =>
      sampleValue(text, 'tt_http_request_duration_seconds_count', { server: 'accessors-test', route, status });
    expect(count('/v9/things/:id', '200')).toBe(1);
    expect(count('/v9/broken', '500')).toBe(1);
    expect(count('unmatched', '404')).toBe(1);
  });
});
