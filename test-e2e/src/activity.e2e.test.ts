import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { OperatorClient, TaskTrackerClient } from '@tt/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { register, signIn } from '../../apps/mcp/src/oauth/test/flow.js';
import { createDatabase, startTopology, type Topology } from '../../scripts/topology/index.mjs';

/*
 * An agent signed in with OAuth changes a task through the mcp process; the change shows in the REST history served
 * by the api processes, as the agent's: channel mcp, the key it signed in with and the client's registered name.
 */
const PG = process.env.TEST_DATABASE_URL;
const REDIS = process.env.TEST_REDIS_URL;

let db: Awaited<ReturnType<typeof createDatabase>>;
let topo: Topology;
let agent: Client | undefined;

describe.skipIf(!PG || !REDIS)('activity end to end (api x2, mcp, worker)', () => {
  beforeAll(async () => {
    db = await createDatabase(PG!);
    topo = await startTopology({
      databaseUrl: db.url, redisUrl: REDIS!, apiReplicas: 2, ports: { proxy: 0, mcp: 0, worker: 0, api: 0 },
      env: { QUEUE_PREFIX: `tt-e2e-${db.name}`, LOG_LEVEL: 'warn' },
    });
  });
  afterAll(async () => {
    await agent?.close().catch(() => undefined);
    await topo?.stop();
    await db?.drop();
  });

  it("an agent's change through MCP shows in REST activity with via.channel mcp and the OAuth client's name", async () => {
    const op = new OperatorClient({ baseUrl: `${topo.apiUrl}/admin/v1`, adminToken: topo.adminToken, maxRetries: 0 });
    const ws = await op.workspaces.create({ name: 'History Corp', plan: 'business' });
    const u = await op.users.create(ws.id, { name: 'Alice Lead', login: 'alice', role: 'Lead', isAdmin: true });
    const key = await op.keys.issue(u.id, { scopes: ['tasks:read', 'tasks:write', 'projects:write'] });
    const rest = new TaskTrackerClient({ baseUrl: `${topo.apiUrl}/v1`, apiKey: key.token, maxRetries: 0 });
    const project = await rest.projects.create({ name: 'Web', key: 'WEB' });
    const task = await rest.tasks.create({ projectId: project.id, title: 'Made over REST' });

    const base = topo.mcpUrl.replace(/\/mcp$/, '');
    const redirectUri = 'https://agent.example/callback';
    const reg = (await (await register(base, { client_name: 'E2E Agent', redirect_uris: [redirectUri] })).json()) as { client_id: string };
    const t = await signIn(base, reg.client_id, redirectUri, key.token);
    expect(t.access_token).toMatch(/^tto_/);
    agent = new Client({ name: 'e2e-agent', version: '1.0.0' });
    await agent.connect(new StreamableHTTPClientTransport(new URL(topo.mcpUrl), { requestInit: { headers: { Authorization: `Bearer ${t.access_token}` } } }));
    const r = (await agent.callTool({ name: 'update_task', arguments: { task: task.key, priority: 'highest', title: 'Changed by the agent' } })) as CallToolResult;
    expect(r.isError).toBeFalsy();

    const page = await rest.tasks.activity(task.key);
    expect(page.data.map((e) => e.action)).toEqual(['task.updated', 'task.created']);
    expect(page.data[0]).toMatchObject({
      actor: { id: u.id, login: 'alice' }, via: { channel: 'mcp', keyId: key.id, clientName: 'E2E Agent', automationId: null },
      task: { id: task.id, key: task.key },
    });
    expect(page.data[0]!.changes).toEqual(expect.arrayContaining([
      { field: 'title', from: 'Made over REST', to: 'Changed by the agent' }, { field: 'priority', from: 'medium', to: 'highest' },
    ]));
    expect(page.data[1]!.via).toMatchObject({ channel: 'rest', keyId: key.id, clientName: null });
    const feed: string[] = [];
    for await (const e of rest.activity.iterate({ projectId: 'WEB' })) feed.push(`${e.via.channel}:${e.action}`);
    expect(feed).toEqual(['mcp:task.updated', 'rest:task.created']);
  });
});
