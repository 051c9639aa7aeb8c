import { Client, type McpSubscription, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { OperatorClient, TaskTrackerClient } from '@tt/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDatabase, startTopology, type Topology } from '../../scripts/topology/index.mjs';

/*
 * Live subscriptions across the production topology: two api processes behind the proxy, two mcp processes behind
 * theirs, the worker, on PostgreSQL and Redis. A client listens (2026-07-28 subscriptions/listen) on one mcp
 * process; changes made through an api process, through the other mcp process and by the worker's automation reach it
 * within a second, through the Redis change feed.
 */
const PG = process.env.TEST_DATABASE_URL;
const REDIS = process.env.TEST_REDIS_URL;

describe.skipIf(!PG || !REDIS)('subscriptions across processes (api x2, mcp x2, worker)', () => {
  let db: Awaited<ReturnType<typeof createDatabase>>;
  let topo: Topology;
  let token: string;
  let api1: TaskTrackerClient;
  let api2: TaskTrackerClient;
  let projectId: string;
  let boardId: string;
  let columns: Array<{ id: string; name: string }>;
  const clients: Client[] = [];

  const mcpUrl = (name: string) => `${topo.processes().find((p) => p.name === name)!.url}/mcp`;
  async function connect(url: string): Promise<Client> {
    const c = new Client({ name: 'e2e-listener', version: '1' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
    await c.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
    clients.push(c);
    return c;
  }
  /** Listens on mcp-2 to `uri`; `next()` resolves with the ms until the next update, or fails after a second. */
  async function listen(uri: string): Promise<{ sub: McpSubscription; count(): number; next(): Promise<number> }> {
    const c = await connect(mcpUrl('mcp-2'));
    let count = 0;
    c.setNotificationHandler('notifications/resources/updated', (n) => {
      if (n.params.uri === uri) count++;
    });
    const sub = await c.listen({ resourceSubscriptions: [uri] });
    return {
      sub,
      count: () => count,
      async next() {
        const before = count;
        const start = Date.now();
        while (count === before) {
          if (Date.now() - start > 1000) throw new Error(`no update of ${uri} on mcp-2 within 1000 ms`);
          await new Promise((r) => setTimeout(r, 5));
        }
        return Date.now() - start;
      },
    };
  }

  beforeAll(async () => {
    db = await createDatabase(PG!);
    topo = await startTopology({
      databaseUrl: db.url, redisUrl: REDIS!, apiReplicas: 2, mcpReplicas: 2, ports: { proxy: 0, mcp: 0, worker: 0, api: 0 },
      queuePrefix: `tt-e2e-sub-${db.name}`, env: { LOG_LEVEL: 'warn', RATE_LIMIT_PER_MINUTE: '1000' },
    });
    const op = new OperatorClient({ baseUrl: `${topo.apiUrl}/admin/v1`, adminToken: topo.adminToken, maxRetries: 0 });
    const ws = await op.workspaces.create({ name: 'Sub Corp', plan: 'business' });
    const alice = await op.users.create(ws.id, { name: 'Alice', login: 'alice', role: 'Lead', isAdmin: true });
    token = (await op.keys.issue(alice.id, { scopes: ['tasks:read', 'tasks:write', 'projects:write', 'time:read', 'time:write', 'docs:read', 'docs:write', 'meetings:read'] })).token;
    api1 = new TaskTrackerClient({ baseUrl: `${topo.apiReplicaUrls[0]}/v1`, apiKey: token, maxRetries: 0 });
    api2 = new TaskTrackerClient({ baseUrl: `${topo.apiReplicaUrls[1]}/v1`, apiKey: token, maxRetries: 0 });
    const project = await api1.projects.create({ name: 'Launch', key: 'LCH', template: 'simple' });
    projectId = project.id;
    boardId = project.boards[0]!.id;
    columns = project.boards[0]!.statuses;
    await op.boards.addAutomation(boardId, { trigger: 'task_created', actions: [{ type: 'add_labels', labels: ['triage'] }], ownerId: alice.id });
  }, 120_000);

  afterAll(async () => {
    for (const c of clients) await c.close().catch(() => undefined);
    await topo?.stop();
    await db?.drop();
  });

  it('a change through either api process or the other mcp process reaches a listener on mcp-2 within a second', async () => {
    const task = await api1.tasks.create({ projectId, title: 'Landing page' });
    const s = await listen(`task://${task.key}`);
    const took: Record<string, number> = {};
    let p = s.next();
    await api1.tasks.update(task.key, { priority: 'high' });
    took.fieldsViaApi1 = await p;
    p = s.next();
    await api2.tasks.addComment(task.key, { text: 'Looks good' });
    took.commentViaApi2 = await p;
    p = s.next();
    await api1.tasks.move(task.key, { statusId: columns[1]!.id });
    took.moveViaApi1 = await p;
    p = s.next();
    await api2.tasks.logTime(task.key, { minutes: 15 });
    took.timeViaApi2 = await p;
    const other = await connect(mcpUrl('mcp-1'));
    p = s.next();
    const r = await other.callTool({ name: 'update_task', arguments: { task: task.key, labels: ['web'] } });
    expect(r.isError).toBeFalsy();
    took.toolViaMcp1 = await p;
    console.log(`subscription latency across processes (ms): ${JSON.stringify(took)}`);
    for (const ms of Object.values(took)) expect(ms).toBeLessThan(1000);
  });

  it("the worker's automation reaches the listener too", async () => {
    // The worker is stopped while the task is made, so the automation's change comes after the listen.
    await topo.stopProcess('worker');
    const task = await api2.tasks.create({ projectId, title: 'Footer' });
    const s = await listen(`task://${task.key}`);
    expect(s.count()).toBe(0);
    await topo.startProcess('worker');
    const start = Date.now();
    while (s.count() === 0 && Date.now() - start < 30_000) await new Promise((r) => setTimeout(r, 20));
    expect(s.count()).toBeGreaterThan(0);
    const t = await api1.tasks.get(task.key);
    expect(t.labels).toContain('triage');
  });
});
