import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { ApiError, OperatorClient, TaskTrackerClient } from '@tt/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPrism } from '../../scripts/contract/prism.mjs';
import { createDatabase, startTopology, type Topology } from '../../scripts/topology/index.mjs';

/*
 * The platform as it runs in production: a one-shot migration, two api replicas behind a proxy, the mcp
 * server and the worker, each its own process from built output, on the machine's PostgreSQL and Redis.
 * Every REST call goes through Stoplight Prism, which checks each response against /v1/openapi.json.
 */
const PG = process.env.TEST_DATABASE_URL;
const REDIS = process.env.TEST_REDIS_URL;
const LIMIT = 400;

let db: Awaited<ReturnType<typeof createDatabase>>;
let topo: Topology;
let prism: Awaited<ReturnType<typeof startPrism>>;
let op: OperatorClient;
const mcpClients: Client[] = [];

/** Waits until `check` returns a value that is not undefined, or fails after `ms` with the last value seen. */
async function eventually<T>(what: string, check: () => Promise<T | undefined>, ms = 30_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

async function mcp(token: string): Promise<Client> {
  const client = new Client({ name: 'e2e-agent', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(topo.mcpUrl), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
  mcpClients.push(client);
  return client;
}

async function tool(client: Client, name: string, args: Record<string, unknown> = {}): Promise<CallToolResult & { text: string }> {
  const r = (await client.callTool({ name, arguments: args })) as CallToolResult;
  const first = r.content[0];
  return { ...r, text: first?.type === 'text' ? first.text : '' };
}

const client = (apiKey: string, baseUrl = `${prism.url}/v1`) => new TaskTrackerClient({ baseUrl, apiKey, maxRetries: 0 });

describe.skipIf(!PG || !REDIS)('the platform end to end (api x2, mcp, worker)', () => {
  let workspaceId: string;
  let alice: { id: string; login: string; token: string; keyId: string };
  let bob: { id: string; login: string; token: string; keyId: string };
  let a: TaskTrackerClient;
  let b: TaskTrackerClient;
  let projectId: string;
  let boardId: string;
  let columns: Array<{ id: string; name: string; category: string }>;
  let taskKey: string;

  beforeAll(async () => {
    db = await createDatabase(PG!);
    topo = await startTopology({
      databaseUrl: db.url, redisUrl: REDIS!, apiReplicas: 2, ports: { proxy: 0, mcp: 0, worker: 0, api: 0 },
      env: { RATE_LIMIT_PER_MINUTE: String(LIMIT), QUEUE_PREFIX: `tt-e2e-${db.name}`, LOG_LEVEL: 'warn' },
    });
    prism = await startPrism({ upstream: topo.apiUrl });
    op = new OperatorClient({ baseUrl: `${topo.apiUrl}/admin/v1`, adminToken: topo.adminToken, maxRetries: 0 });
    const ws = await op.workspaces.create({ name: 'E2E Corp', plan: 'business' });
    workspaceId = ws.id;
    const mkUser = async (login: string, name: string, isAdmin: boolean) => {
      const u = await op.users.create(ws.id, { name, login, role: 'Engineer', isAdmin });
      const key = await op.keys.issue(u.id, {
        scopes: ['tasks:read', 'tasks:write', 'projects:write', 'time:read', 'time:write', 'docs:read', 'docs:write', 'meetings:read'],
      });
      return { id: u.id, login: u.login, token: key.token, keyId: key.id };
    };
    alice = await mkUser('alice', 'Alice Lead', true);
    bob = await mkUser('bob', 'Bob Builder', false);
    a = client(alice.token);
    b = client(bob.token);
  });

  afterAll(async () => {
    for (const c of mcpClients) await c.close().catch(() => undefined);
    if (prism) {
      const stats = prism.stats();
      // The count goes into the run's log so the contract coverage is visible.
      console.log(`prism: ${stats.validated} responses validated against the OpenAPI document, ${stats.bypassed} bypassed, ${stats.violations.length} violations`);
    }
    await prism?.stop();
    await topo?.stop();
    await db?.drop();
  });

  it('a team sets up a project and board, and automations run on new tasks', async () => {
    const project = await a.projects.create({ name: 'Launch', key: 'LCH', template: 'scrum' });
    projectId = project.id;
    boardId = project.boards[0]!.id;
    columns = project.boards[0]!.statuses;
    await op.boards.addAutomation(boardId, {
      trigger: 'task_created',
      actions: [
        { type: 'add_labels', labels: ['triage'] },
        { type: 'add_checklist', items: [{ text: 'Write a test', done: false }] },
        { type: 'comment', text: 'Thanks, the team will look at it.' },
      ],
      ownerId: alice.id,
    });
    const task = await a.tasks.create({ projectId, title: 'Landing page', assigneeIds: [bob.id], priority: 'high', labels: ['web'] });
    taskKey = task.key;
    expect(task).toMatchObject({ key: 'LCH-1', boardId, statusId: columns[0]!.id, reporterId: alice.id, assigneeId: bob.id });
    const automated = await eventually('the automation', async () => {
      const t = await a.tasks.get(taskKey);
      return t.labels.includes('triage') && t.checklist.length === 1 ? t : undefined;
    });
    expect(automated.labels.sort()).toEqual(['triage', 'web']);
    const comments = await a.tasks.listComments(taskKey);
    expect(comments.data.map((c) => c.text)).toEqual(['Thanks, the team will look at it.']);
    expect(comments.data[0]!.authorId).toBe(alice.id);
  });

  it('bob is notified of the assignment; lists, filters, moves and paging work', async () => {
    const inbox = await eventually('the assignment notification', async () => {
      const page = await b.notifications.list({ unread: true });
      return page.data.some((n) => n.kind === 'assigned') ? page : undefined;
    });
    expect(inbox.data.find((n) => n.kind === 'assigned')).toMatchObject({ actorId: alice.id, read: false });
    for (let i = 2; i <= 6; i++) await a.tasks.create({ projectId, title: `Task ${i}`, type: i % 2 ? 'bug' : 'task' });
    const bugs = await a.tasks.list({ projectId, type: ['bug'] });
    expect(bugs.total).toBe(2);
    const all: string[] = [];
    for await (const t of a.tasks.iterate({ projectId, limit: 2 })) all.push(t.key);
    expect(all).toEqual(['LCH-1', 'LCH-2', 'LCH-3', 'LCH-4', 'LCH-5', 'LCH-6']);
    const progress = columns.find((c) => c.category === 'progress')!;
    const moved = await b.tasks.move(taskKey, { statusId: progress.id, position: 0 });
    expect(moved).toMatchObject({ statusId: progress.id, position: 0 });
    const done = columns.find((c) => c.category === 'done')!;
    const finished = await b.tasks.update('LCH-2', { statusId: done.id });
    expect(finished.doneAt).toEqual(expect.any(Number));
  });

  it('comments with mentions and replies notify the right people, once each', async () => {
    const carol = await op.users.create(workspaceId, { name: 'Carol', login: 'carol', role: 'QA', isAdmin: false });
    const first = await b.tasks.addComment(taskKey, { text: 'Draft is up, @carol please check' });
    expect(first.mentionIds).toEqual([carol.id]);
    await a.tasks.addComment(taskKey, { text: 'Looks good', replyTo: first.id });
    const carolInbox = await eventually('the mention', async () => {
      const list = await op.users.notifications(carol.id);
      return list.some((n) => n.kind === 'mention') ? list : undefined;
    });
    expect(carolInbox.filter((n) => n.commentId === first.id).map((n) => n.kind)).toEqual(['mention']);
    const bobInbox = await eventually('the reply', async () => {
      const page = await b.notifications.list();
      return page.data.some((n) => n.kind === 'reply') ? page : undefined;
    });
    expect(bobInbox.data.filter((n) => n.kind === 'reply')).toHaveLength(1);
    // Alice wrote the task: bob's comment reaches her as `comment`.
    const aliceInbox = await eventually('the comment', async () => {
      const page = await a.notifications.list();
      return page.data.some((n) => n.kind === 'comment' && n.commentId === first.id) ? page : undefined;
    });
    expect(aliceInbox.data.filter((n) => n.commentId === first.id)).toHaveLength(1);
    const marked = await b.notifications.markRead({ all: true });
    expect(marked.marked).toBeGreaterThanOrEqual(2);
    expect((await b.notifications.list({ unread: true })).total).toBe(0);
  });

  it('time is logged and reported', async () => {
    await b.tasks.logTime(taskKey, { minutes: 90, date: '2026-11-02', note: 'layout' });
    await a.tasks.logTime(taskKey, { seconds: 1800, date: '2026-11-03' });
    const report = await a.time.report({ from: '2026-11-01', to: '2026-11-30', groupBy: ['user', 'day'] });
    expect(report.totalSeconds).toBe(7200);
    expect(report.data.map((r) => [r.day?.date, r.user?.name, r.seconds])).toEqual([
      ['2026-11-02', 'Bob Builder', 5400],
      ['2026-11-03', 'Alice Lead', 1800],
    ]);
    const entries = await a.time.entries({ from: '2026-11-01', to: '2026-11-30' });
    expect(entries.data.map((e) => e.date)).toEqual(['2026-11-03', '2026-11-02']);
    expect((await a.tasks.get(taskKey)).timeSpentSeconds).toBe(7200);
  });

  it('docs and meetings connect to the task context', async () => {
    const space = await op.docSpaces.create(workspaceId, { name: 'Handbook' });
    const doc = await a.docs.create({ spaceId: space.id, title: 'Launch plan', text: 'Ship on Monday', taskIds: [taskKey] });
    const updated = await a.docs.update(doc.id, { content: '<p>Ship on <b>Tuesday</b></p>' });
    expect(updated.text).toBe('Ship on Tuesday');
    expect(await a.docs.getMarkdown(doc.id)).toBe('# Launch plan\n\nShip on **Tuesday**\n');
    const folder = await op.meetingFolders.create(workspaceId, { name: 'Weekly' });
    const meeting = await op.meetings.create(workspaceId, {
      title: 'Launch sync', folderId: folder.id, projectId, createdBy: alice.id, startedAt: Date.UTC(2026, 10, 4, 9),
      summary: { overview: 'Launch date moved', actionItems: [{ text: 'Update the landing copy', owner: 'Bob', taskId: taskKey }] },
      transcript: [{ speaker: 'Alice', start: '00:00:01', end: '00:00:04', text: 'Tuesday it is' }],
    });
    expect((await b.meetings.list({ q: 'launch' })).data.map((m) => m.id)).toEqual([meeting.id]);
    expect(await b.meetings.transcriptText(meeting.id)).toBe('[00:00:01] Alice: Tuesday it is\n');
    const context = await b.tasks.context(taskKey);
    expect(context).toContain('Ship on **Tuesday**');
    expect(context).toContain('Update the landing copy (owner Bob');
    expect((await b.tasks.get(taskKey)).docIds).toEqual([doc.id]);
  });

  it("an agent's MCP session does the same work as the key's user", async () => {
    const agent = await mcp(bob.token);
    const names = (await agent.listTools()).tools.map((t) => t.name);
    expect(names).toHaveLength(21);
    expect(names).toContain('list_activity');
    const mine = await tool(agent, 'search_tasks');
    expect(mine.text).toContain(`${taskKey}`);
    const task = await tool(agent, 'get_task', { task: taskKey });
    expect(task.text).toContain('## Meeting agreements (1)');
    const comment = await tool(agent, 'add_comment', { task: taskKey, text: 'Copy updated, @alice' });
    expect(comment.isError).toBeFalsy();
    expect((await tool(agent, 'log_time', { task: taskKey, minutes: 15, date: '2026-11-05' })).isError).toBeFalsy();
    expect((await tool(agent, 'move_task', { task: taskKey, column: 'done' })).isError).toBeFalsy();
    const created = await tool(agent, 'create_task', { title: 'Follow-up from the agent', project: 'LCH', description: '**Check** analytics', assignees: ['me'] });
    expect(created.isError).toBeFalsy();
    const report = await tool(agent, 'time_report', { from: '2026-11-01', to: '2026-11-30', groupBy: ['people'] });
    expect(report.text).toContain('total 2.25h');
    const t = await b.tasks.get(taskKey);
    expect(t.status.category).toBe('done');
    const aliceInbox = await eventually('the agent mention', async () => {
      const page = await a.notifications.list({ unread: true });
      return page.data.some((n) => n.kind === 'mention' && n.actorId === bob.id) ? page : undefined;
    });
    expect(aliceInbox.data.filter((n) => n.kind === 'mention')).toHaveLength(1);
    const denied = await tool(agent, 'update_task', { task: taskKey, title: 'x'.repeat(600) });
    expect(denied.isError).toBe(true);
    expect(denied.text).toMatch(/^invalid_request/);
  });

  it('one rate-limit budget per key, shared by both api replicas and the mcp server', async () => {
    const key = await op.keys.issue(alice.id, { scopes: ['tasks:read'] });
    const direct = topo.apiReplicaUrls.map((u) => new TaskTrackerClient({ baseUrl: `${u}/v1`, apiKey: key.token, maxRetries: 0 }));
    let ok = 0;
    for (let i = 0; i < LIMIT - 10; i++) {
      await direct[i % 2]!.me();
      ok++;
    }
    const agent = await mcp(key.token);
    for (let i = 0; i < 4; i++) await agent.listTools();
    // One tool call: it spends the same budget as REST.
    expect((await tool(agent, 'whoami')).isError).toBeFalsy();
    let limited: ApiError | undefined;
    for (let i = 0; i < 20 && !limited; i++) {
      try {
        await direct[i % 2]!.me();
        ok++;
      } catch (e) {
        if (e instanceof ApiError) limited = e;
        else throw e;
      }
    }
    expect(limited?.status).toBe(429);
    expect(limited?.code).toBe('rate_limited');
    expect(limited?.retryAfter).toBeGreaterThan(0);
    // Protocol traffic (initialize, initialized, tools/list x4) spent nothing of the budget, the tool call one.
    expect(ok).toBe(LIMIT - 1);
    // A tool call over the budget is a tool error naming the wait, not an HTTP 429 that breaks the client.
    const over = (await agent.callTool({ name: 'whoami', arguments: {} })) as CallToolResult;
    expect(over.isError).toBe(true);
    expect(over.content[0]).toMatchObject({ type: 'text', text: expect.stringMatching(/^rate_limited: .*retry in \d+ s$/) });
  });

  it('a revoked key stops at once in both api replicas and the mcp server', async () => {
    const key = await op.keys.issue(bob.id, { scopes: ['tasks:read'] });
    const replicas = topo.apiReplicaUrls.map((u) => new TaskTrackerClient({ baseUrl: `${u}/v1`, apiKey: key.token, maxRetries: 0 }));
    for (const r of replicas) expect((await r.me()).key.id).toBe(key.id);
    const agent = await mcp(key.token);
    await agent.listTools();
    await op.keys.revoke(key.id);
    for (const r of replicas) {
      const err = await r.me().catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ApiError);
      expect((err as ApiError).code).toBe('invalid_key');
    }
    const res = await fetch(topo.mcpUrl, {
      method: 'POST', headers: { authorization: `Bearer ${key.token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(res.status).toBe(401);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('invalid_key');
  });

  it('every process restarts with nothing lost; jobs queued while the worker is down arrive once', async () => {
    await topo.stopProcess('worker');
    const created: string[] = [];
    for (let i = 0; i < 5; i++) created.push((await a.tasks.create({ projectId, title: `While the worker sleeps ${i}`, assigneeIds: [bob.id] })).id);
    await topo.restart();
    const after = client(bob.token);
    for (const id of created) expect((await after.tasks.get(id)).assigneeIds).toEqual([bob.id]);
    const inbox = await eventually('the queued notifications', async () => {
      const list = await op.users.notifications(bob.id);
      const mine = list.filter((n) => n.kind === 'assigned' && created.includes(n.taskId));
      return mine.length >= created.length ? mine : undefined;
    });
    // Let any duplicate delivery land before counting.
    await new Promise((r) => setTimeout(r, 1500));
    const final = (await op.users.notifications(bob.id)).filter((n) => n.kind === 'assigned' && created.includes(n.taskId));
    expect(final).toHaveLength(created.length);
    expect(inbox).toHaveLength(created.length);
    expect((await after.tasks.get(taskKey)).timeSpentSeconds).toBe(8100);
  });

  it('every response matched the OpenAPI document', () => {
    const stats = prism.stats();
    expect(stats.validated).toBeGreaterThan(40);
    prism.assertClean();
  });
});
