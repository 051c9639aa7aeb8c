import { Writable } from 'node:stream';
import { listen } from '@tt/http';
import { createMcpApp } from './app.js';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keys, people, SCOPES } from '@tt/domain';
import { createRuntime, type Runtime } from '@tt/http';
import { createTestDatabaseUrl, dropTestDatabase } from '../../../packages/store/src/testing.js';
import { startMcp, type McpServerHandle } from './index.js';
import { callTool } from './test/fixture.js';
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from '@modelcontextprotocol/client';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

/*
 * Issue 30 part 6 over the SDK clients, with a budget of 5 tool calls a minute: a call over it is a tool result the
 * model reads ("retry in N s"), never a transport failure; the handshake, server/discover and the lists spend none of
 * it (they have a ceiling of their own, 10x, answered 429). And a 2026-07-28 traceparent reaches the logs.
 */

const LIMIT = 5;
let databaseUrl: string | undefined;
let runtime: Runtime;
let mcp: McpServerHandle;
let deps: Runtime['deps'];
let userId = '';

const newKey = async () => (await keys.issueKey(userId, { scopes: [...SCOPES], projectIds: null, expiresAt: null, allowedIps: [] }, deps)).token;
const headers = (token: string) => ({ requestInit: { headers: { Authorization: `Bearer ${token}` } } });

beforeAll(async () => {
  databaseUrl = await createTestDatabaseUrl();
  runtime = await createRuntime({ databaseUrl, rateLimitPerMinute: LIMIT, logger: pino({ level: 'silent' }) });
  deps = runtime.deps;
  const ws = await people.createWorkspace({ name: 'Limits', plan: 'business', timezone: 'UTC' }, deps);
  userId = (await people.createUser(ws.id, { name: 'Ann', login: 'ann', role: '', isAdmin: true }, deps)).id;
  mcp = await startMcp({ port: 0, host: '127.0.0.1', logLevel: 'silent' }, runtime);
}, 60_000);

afterAll(async () => {
  await mcp?.stop();
  await runtime?.close();
  await dropTestDatabase(databaseUrl);
});

describe('the tool-call budget on /mcp', () => {
  it('connecting, discovering and listing spend nothing: 10 connects (30 messages, 6x the budget), then the whole budget is left', async () => {
    const token = await newKey();
    for (let i = 0; i < 5; i++) {
      const v1 = new Client({ name: 'v1', version: '1' });
      await v1.connect(new StreamableHTTPClientTransport(new URL(`${mcp.url}/mcp`), headers(token)));
      await v1.listTools();
      await v1.listResources();
      await v1.close();
      const v2 = new ClientV2({ name: 'v2', version: '2' }, { versionNegotiation: { mode: 'auto' } });
      await v2.connect(new TransportV2(new URL(`${mcp.url}/mcp`), headers(token)));
      await v2.listTools();
      await v2.close();
    }
    const client = new ClientV2({ name: 'v2', version: '2' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
    await client.connect(new TransportV2(new URL(`${mcp.url}/mcp`), headers(token)));
    for (let i = 0; i < LIMIT; i++) expect((await callTool(client, 'whoami')).isError, `call ${i + 1}`).toBeFalsy();
    await client.close();
  }, 60_000);

  for (const kind of ['v1', 'v2'] as const) {
    it(`${kind}: a call over the budget is a tool error naming the wait, and the client keeps working`, async () => {
      const token = await newKey();
      const client = kind === 'v1' ? new Client({ name: 'v1', version: '1' }) : new ClientV2({ name: 'v2', version: '2' }, { versionNegotiation: { mode: 'auto' } });
      const transport = kind === 'v1' ? new StreamableHTTPClientTransport(new URL(`${mcp.url}/mcp`), headers(token)) : new TransportV2(new URL(`${mcp.url}/mcp`), headers(token));
      await (client as Client).connect(transport as StreamableHTTPClientTransport);
      for (let i = 0; i < LIMIT; i++) expect((await callTool(client, 'whoami')).isError).toBeFalsy();
      const over = await callTool(client, 'whoami');
      expect(over.isError).toBe(true);
      expect(over.text).toMatch(/^rate_limited: .*retry in \d+ s$/);
      const wait = Number(/retry in (\d+) s/.exec(over.text)![1]);
      expect(wait).toBeGreaterThan(0);
      expect(wait).toBeLessThanOrEqual(60);
      // Still connected: protocol traffic goes on.
      expect((await client.listTools()).tools.length).toBeGreaterThan(0);
      await client.close();
    });
  }

  it('protocol traffic has a ceiling of its own (10x), answered 429 with Retry-After and the request id', async () => {
    const token = await newKey();
    let res: Response | undefined;
    for (let i = 0; i <= LIMIT * 10; i++) {
      res = await fetch(`${mcp.url}/mcp`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${token}` },
        body: JSON.stringify({ jsonrpc: '2.0', id: i, method: 'tools/list' }),
      });
      if (i < LIMIT * 10) expect(res.status, `message ${i + 1}`).toBe(200);
    }
    expect(res!.status).toBe(429);
    expect(Number(res!.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await res!.json()).toMatchObject({ id: LIMIT * 10, error: { code: -32000 } });
  });
});

describe('trace context', () => {
  it('a traceparent in a 2026-07-28 request\'s _meta is carried into the request\'s log lines', async () => {
    const lines: string[] = [];
    const sink = new Writable({ write: (chunk, _enc, done) => void (lines.push(String(chunk)), done()) });
    const app = createMcpApp({ runtime, logger: pino({ level: 'debug' }, sink), trustProxy: false, allowedHosts: ['127.0.0.1', 'localhost'], metrics: false });
    const server = await listen(app, 0, '127.0.0.1');
    try {
      const port = (server.address() as { port: number }).port;
      const traceparent = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
      const res = await fetch(`http://127.0.0.1:${port}/mcp`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${await newKey()}`,
          'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/list',
        },
        body: JSON.stringify({
          jsonrpc: '2.0', id: 1, method: 'tools/list',
          params: { _meta: {
            'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
            'io.modelcontextprotocol/clientCapabilities': {}, traceparent,
          } },
        }),
      });
      expect(res.status).toBe(200);
      const traced = lines.map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => l.traceparent === traceparent);
      expect(traced.length).toBeGreaterThan(0);
      expect(traced[0]).toMatchObject({ traceId: '4bf92f3577b34da6a3ce929d0e0e4736', method: 'tools/list' });
    } finally {
      await new Promise((resolve) => server.close(resolve));
      await app.closeMcp();
    }
  });
});
