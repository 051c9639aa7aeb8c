import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { createLogger, createRuntime, type Runtime } from '@tt/http';
import { createTestDatabaseUrl, dropTestDatabase } from '../../../../packages/store/src/testing.js';
import { startMcp, type McpServerHandle } from '../index.js';

/** A runtime on a fresh database (PGlite, or a PostgreSQL clone with TEST_DATABASE_URL) and an MCP server on it. */
export interface McpFixture {
  runtime: Runtime;
  /** Starts the MCP server once the test data is in place. */
  start(): Promise<McpServerHandle>;
  /** An SDK client connected over Streamable HTTP with the key. */
  connect(token: string): Promise<Client>;
  close(): Promise<void>;
}

export async function mcpFixture(): Promise<McpFixture> {
  const databaseUrl = await createTestDatabaseUrl();
  const runtime = await createRuntime({ databaseUrl, rateLimitPerMinute: 1000, logger: createLogger('silent', 'test') });
  const clients: Client[] = [];
  let mcp: McpServerHandle | undefined;
  return {
    runtime,
    async start() {
      mcp = await startMcp({ port: 0, host: '127.0.0.1', logLevel: 'silent' }, runtime);
      return mcp;
    },
    async connect(token) {
      if (!mcp) throw new Error('start() the server first');
      const client = new Client({ name: 'mcp-int-test', version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(new URL(`${mcp.url}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
      clients.push(client);
      return client;
    },
    async close() {
      for (const c of clients) await c.close().catch(() => undefined);
      await mcp?.stop();
      await runtime.close();
      await dropTestDatabase(databaseUrl);
    },
  };
}

/** Calls a tool and returns its result with the first text block as `text`. */
export async function callTool(client: Client, name: string, args: Record<string, unknown> = {}): Promise<CallToolResult & { text: string }> {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  const first = result.content[0];
  return { ...result, text: first && first.type === 'text' ? first.text : '' };
}
