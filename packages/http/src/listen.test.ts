import { Agent, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { KEEP_ALIVE_MS, listen } from './listen.js';

afterEach(() => vi.restoreAllMocks());

/** Serves one app that answers JSON, counting the prototype changes Express makes on requests and responses. */
async function serve(how: 'listen' | 'app.listen') {
  const app = express();
  app.get('/x/:id', (req, res) => void res.json({ id: req.params.id, ip: req.ip, same: Object.getPrototypeOf(req) === app.request }));
  const changed: string[] = [];
  const setPrototypeOf = Object.setPrototypeOf;
  vi.spyOn(Object, 'setPrototypeOf').mockImplementation((o: object, proto: object | null) => {
    if ((proto === app.request || proto === app.response) && Object.getPrototypeOf(o) !== proto) changed.push(proto === app.request ? 'request' : 'response');
    return setPrototypeOf(o, proto);
  });
  const server = how === 'listen' ? await listen(app, 0, '127.0.0.1') : await new Promise<ReturnType<typeof app.listen>>((r) => { const s = app.listen(0, '127.0.0.1', () => r(s)); });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const body = await (await fetch(`${url}/x/7`)).json();
  await new Promise((r) => server.close(r));
  return { body, changed };
}

describe('listen', () => {
  it('serves the app with requests and responses born with its prototypes, so Express changes none', async () => {
    const { body, changed } = await serve('listen');
    expect(body).toEqual({ id: '7', ip: '127.0.0.1', same: true });
    expect(changed).toEqual([]);
  });

  it('(what app.listen does instead: two prototype changes per request)', async () => {
    const { body, changed } = await serve('app.listen');
    expect(body).toEqual({ id: '7', ip: '127.0.0.1', same: true });
    expect(changed).toEqual(['request', 'response']);
  });

  it('keeps an idle keep-alive connection past Node\'s default 5 s, and says for how long', async () => {
    const app = express();
    app.post('/x', (_req, res) => void res.json({ ok: true }));
    const server = await listen(app, 0, '127.0.0.1');
    const port = (server.address() as AddressInfo).port;
    // node:http's agent, like nginx's upstream keep-alive, ignores the Keep-Alive header and reuses what is open. Node
    // 20 closes an idle connection 1 to 2 s after its keepAliveTimeout; 7 s is past that with the default.
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const post = () => new Promise<{ reused: boolean; keepAlive: string | undefined }>((resolve, reject) => {
      const req = request({ port, host: '127.0.0.1', method: 'POST', path: '/x', agent }, (res) => {
        res.resume();
        res.on('end', () => resolve({ reused: req.reusedSocket, keepAlive: res.headers['keep-alive'] as string | undefined }));
      });
      req.on('error', reject);
      req.end();
    });
    try {
      expect(await post()).toEqual({ reused: false, keepAlive: `timeout=${KEEP_ALIVE_MS / 1000}` });
      await new Promise((r) => setTimeout(r, 7_000));
      expect(await post()).toMatchObject({ reused: true });
      expect(server.headersTimeout).toBeGreaterThan(server.keepAliveTimeout);
    } finally {
      agent.destroy();
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    }
  });

  it('rejects when the port is taken', async () => {
    const first = await listen(express(), 0, '127.0.0.1');
    const port = (first.address() as AddressInfo).port;
    await expect(listen(express(), port, '127.0.0.1')).rejects.toMatchObject({ code: 'EADDRINUSE' });
    await new Promise((r) => first.close(r));
  });
});
