import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from '@modelcontextprotocol/client';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { createLogger, createRuntime, type Runtime } from '@tt/http';
import { createTestDatabase } from '../../../../packages/store/src/testing.js';
import { startMcp, type McpServerHandle } from '../index.js';

/** A runtime on a fresh database (PGlite, or a PostgreSQL clone with TEST_DATABASE_URL) and an MCP server on it. */
export interface McpFixture {
  runtime: Runtime;
  /** Starts the MCP server once the test data is in place. */
  start(): Promise<McpServerHandle>;
  /** An SDK client (the 1.x line: 2025-era protocol) connected over Streamable HTTP with the key. */
  connect(token: string): Promise<Client>;
  /** The SDK's v2 client, pinned to 2026-07-28 or negotiating (`auto`), on /mcp or another path. */
  connectV2(token: string, mode: 'pinned' | 'auto', path?: string): Promise<ClientV2>;
  close(): Promise<void>;
}

/** `conformanceFixtures`: serve the conformance suite's fixtures too (MCP_CONFORMANCE_FIXTURES). */
export async function mcpFixture(o: { conformanceFixtures?: boolean } = {}): Promise<McpFixture> {
  const { databaseUrl, pglite, drop } = await createTestDatabase();
  const runtime = await createRuntime({ databaseUrl, pglite, rateLimitPerMinute: 1000, logger: createLogger('silent', 'test') });
  const clients: Array<{ close(): Promise<void> }> = [];
  let mcp: McpServerHandle | undefined;
  return {
    runtime,
    async start() {
      mcp = await startMcp({ port: 0, host: '127.0.0.1', logLevel: 'silent', conformanceFixtures: o.conformanceFixtures ?? false }, runtime);
      return mcp;
    },
    async connect(token) {
      if (!mcp) throw new Error('start() the server first');
      const client = new Client({ name: 'mcp-int-test', version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(new URL(`${mcp.url}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
      clients.push(client);
      return client;
    },
    async connectV2(token, mode, path = '/mcp') {
      if (!mcp) throw new Error('start() the server first');
      const client = new ClientV2({ name: 'mcp-int-test-v2', version: '2.0.0' }, { versionNegotiation: { mode: mode === 'pinned' ? { pin: '2026-07-28' } : 'auto' } });
      await client.connect(new TransportV2(new URL(`${mcp.url}${path}`), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
      clients.push(client);
      return client;
    },
    async close() {
      for (const c of clients) await c.close().catch(() => undefined);
      await mcp?.stop();
      await runtime.close();
      await drop();
    },
  };
}

/** Calls a tool and returns its result with the first text block as `text`. */
export async function callTool(client: Client | ClientV2, name: string, args: Record<string, unknown> = {}): Promise<CallToolResult & { text: string }> {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  const first = result.content[0];
  return { ...result, text: first && first.type === 'text' ? first.text : '' };
}
