import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JsonRpcResponseError, resultFromTaskOutcome, type TaskExecutionEvent, type TaskOutcome, type TaskView } from '@modelcontextprotocol/ext-tasks/client';
import { taskId as id } from '@modelcontextprotocol/ext-tasks/core';
import { type Actor, keys, people, projects, type ProjectWithBoards, type Scope, SCOPES, tasks } from '@tt/domain';
import { startMcp } from './index.js';
import { mcpFixture, type McpFixture } from './test/fixture.js';
import { connectTasks, type TasksClient } from './test/tasks-client.js';

/** An acknowledgement as the extension defines it: `resultType` alone, beside the server's `_meta` stamp. */
const ack = (result: Record<string, unknown> | undefined) => {
  const { _meta: _stamp, ...rest } = result ?? {};
  return rest;
};

/**
 * update_tasks as an MCP task (extension io.modelcontextprotocol/tasks), followed by the extension's own client
 * (@modelcontextprotocol/ext-tasks on the SDK's v2 Client, test/tasks-client.ts): a long call answers a task, the client
 * follows it to its results (tasks/get, and notifications/tasks on a listen), cancels it between batches, and only its
 * key sees it. What the client does not exercise (a client without the extension, the Mcp-Name check, the v1 methods)
 * is checked on the 2026-07-28 wire.
 */
describe('update_tasks as an MCP task', () => {
  let fx: McpFixture;
  let actor: Actor;
  let project: ProjectWithBoards;
  let token: string;
  let other: string;
  let url: string;
  let base: string;
  let mine: TasksClient;
  let theirs: TasksClient;

  beforeAll(async () => {
    fx = await mcpFixture();
    const deps = fx.runtime.deps;
    const ws = await people.createWorkspace({ name: 'Runs', plan: 'business', timezone: 'UTC' }, deps);
    const ann = await people.createUser(ws.id, { name: 'Ann', login: 'ann', role: 'Lead', isAdmin: true }, deps);
    const key = await keys.issueKey(ann.id, { scopes: [...SCOPES], projectIds: null, expiresAt: null, allowedIps: [] }, deps);
    token = key.token;
    // The same user's second key: a task is its key's, not its user's.
    other = (await keys.issueKey(ann.id, { scopes: [...SCOPES], projectIds: null, expiresAt: null, allowedIps: [] }, deps)).token;
    actor = {
      workspace: { id: ws.id, name: ws.name, plan: ws.plan, timezone: ws.timezone, memberKeysEnabled: true },
      user: { ...ann, workspaceId: ws.id, deletedAt: null },
      key: { id: key.id, scopes: key.scopes as Scope[], projectIds: null },
    };
    project = await projects.createProject(actor, { name: 'Web', key: 'WEB', template: 'scrum' }, deps);
    base = (await fx.start()).url;
    url = `${base}/mcp`;
    mine = await connectTasks(base, token);
    theirs = await connectTasks(base, other);
  }, 60_000);
  afterAll(async () => {
    await mine?.close();
    await theirs?.close();
    await fx?.close();
  });

  /** The client follows a task it did not start (one driven here): the extension's recovery, from the task's id. */
  const follow = (client: TasksClient, taskId: string) =>
    client.session.resumeTask({ endpointId: 'task-tracker-mcp', generation: 'v2', taskId: id(taskId), originalOperation: 'tools/call' });

  /** The tool's answer a completed task carries. */
  type Answer = { content: Array<{ text: string }>; structuredContent: { results: Array<{ task: string; status: number }> } };
  const answerOf = (outcome: TaskOutcome<unknown>) => resultFromTaskOutcome(outcome) as unknown as Answer;

  /** Settles an execution, with the task states the client saw on the way. */
  async function settled(execution: Awaited<ReturnType<typeof follow>>) {
    const seen: TaskView[] = [];
    const { outcome } = await execution.settle({ onEvent: (e: TaskExecutionEvent<unknown>) => void (e.type === 'task' && seen.push(e.task)) });
    return { outcome, seen };
  }

  const makeTasks = async (n: number, title: string) => {
    const made = [];
    for (let i = 0; i < n; i++) made.push(await tasks.createTask(actor, { title: `${title} ${i}`, boardId: project.boards[0]!.id }, fx.runtime.deps));
    return made;
  };

  const caps = (ext: boolean) => ({
    'io.modelcontextprotocol/protocolVersion': '2026-07-28',
    'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
    'io.modelcontextprotocol/clientCapabilities': ext ? { extensions: { 'io.modelcontextprotocol/tasks': {} } } : {},
  });

  /** A raw 2026-07-28 request. */
  async function rpc(method: string, params: Record<string, unknown>, o: { key?: string; ext?: boolean; at?: string; mcpName?: string } = {}) {
    // Mcp-Name mirrors the tool's name, or the task's id on tasks/* (the SDK refuses a request without it).
    const name = o.mcpName ?? (typeof params.name === 'string' ? params.name : typeof params.taskId === 'string' ? params.taskId : undefined);
    const res = await fetch(o.at ?? url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${o.key ?? token}`,
        'mcp-protocol-version': '2026-07-28', 'mcp-method': method, ...(name ? { 'mcp-name': name } : {}),
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 7, method, params: { ...params, _meta: caps(o.ext ?? true) } }),
    });
    const text = await res.text();
    const body = text.startsWith('event:') || text.startsWith('data:') ? JSON.parse(text.split('\n').find((l) => l.startsWith('data:'))!.slice(5)) : JSON.parse(text);
    return body as { result?: any; error?: { code: number; message: string } };
  }

  const update = (items: unknown[], o: { ext?: boolean } = {}) => rpc('tools/call', { name: 'update_tasks', arguments: { items } }, o);
  const get = (taskId: string, key?: string) => rpc('tasks/get', { taskId }, { key });

  async function settle(taskId: string) {
    for (let i = 0; i < 400; i++) {
      const r = await get(taskId);
      if (r.result?.status !== 'working') return r;
      await new Promise((f) => setTimeout(f, 25));
    }
    throw new Error('task still working');
  }

  it('more than 25 items answer a task; the client follows it to the per-item results', async () => {
    const made = await makeTasks(30, 'run');
    const items = [...made.map((t) => ({ task: t.key, priority: 'high' })), { task: 'WEB-9999', title: 'missing' }];
    const execution = await mine.session.callTool('update_tasks', { items });
    expect(execution.kind).toBe('task');
    if (execution.kind !== 'task') return;
    // Its progress, read with tasks/get while it runs (or once it ended).
    const now = await mine.session.task(execution.handle.taskId).snapshot();
    expect(now).toMatchObject({ taskId: execution.handle.taskId, retentionMs: 3_600_000, suggestedPollIntervalMs: 1000 });
    expect(now.statusMessage).toMatch(/^(\d+ of 31 items done|Updated 30 of 31 tasks)$/);
    const { outcome, seen } = await settled(execution);
    expect(outcome.status).toBe('completed');
    expect(seen.at(-1)).toMatchObject({ status: 'completed', statusMessage: 'Updated 30 of 31 tasks' });
    const result = answerOf(outcome);
    expect(result.structuredContent.results.map((r) => [r.task, r.status])).toEqual([...made.map((t) => [t.key, 200]), ['WEB-9999', 404]]);
    expect(result.content[0]!.text).toMatch(/^Updated 30 of 31 tasks\./);
    for (const t of made) expect((await tasks.getTask(actor, t.key, fx.runtime.deps)).priority).toBe('high');
  });

  it('the server says it honours the extension; 25 items, or a client without it, answer at once', async () => {
    expect((await rpc('server/discover', {})).result.capabilities.extensions).toEqual({ 'io.modelcontextprotocol/tasks': {} });
    const made = await makeTasks(26, 'now');
    const at25 = await mine.session.callTool('update_tasks', { items: made.slice(0, 25).map((t) => ({ task: t.key, priority: 'low' })) });
    expect(at25.kind).toBe('immediate');
    const answer = answerOf(await at25.result());
    expect(answer.structuredContent.results).toHaveLength(25);
    const plain = await update(made.map((t) => ({ task: t.key, priority: 'highest' })), { ext: false });
    expect(plain.result.resultType).not.toBe('task');
    expect(plain.result.structuredContent.results).toHaveLength(26);
    // Answered at once and applied: every item, not a task left running.
    expect(plain.result.structuredContent.results.map((r: { status: number }) => r.status)).toEqual(Array(26).fill(200));
    for (const t of made) expect((await tasks.getTask(actor, t.key, fx.runtime.deps)).priority).toBe('highest');
  });

  it('another key, an unknown id and an expired task answer -32602 alike', async () => {
    const made = await makeTasks(26, 'mine');
    const execution = await mine.session.callTool('update_tasks', { items: made.map((t) => ({ task: t.key, priority: 'low' })) });
    if (execution.kind !== 'task') throw new Error('no task');
    const { taskId } = execution.handle;
    expect((await settled(execution)).outcome.status).toBe('completed');
    const refused = (p: Promise<unknown>) => p.then(() => undefined, (e: unknown) => (e instanceof JsonRpcResponseError ? e.code : e));
    // The same user's other key: its client can neither read the task, nor cancel it, nor follow it.
    expect(await refused(theirs.session.task(id(taskId)).snapshot())).toBe(-32602);
    expect(await refused(theirs.session.task(id(taskId)).cancel())).toBe(-32602);
    expect(await refused(theirs.session.task(id('run_nope')).snapshot())).toBe(-32602);
    expect((await mine.session.task(id(taskId)).snapshot()).status).toBe('completed');
    // Past its time to live (one hour after it ended) it is gone.
    await fx.runtime.db('bulk_runs').where({ id: taskId }).update({ expires_at: Date.now() - 1 });
    expect(await refused(mine.session.task(id(taskId)).snapshot())).toBe(-32602);
  });

  it("the extension's methods: -32021 to a client without it, Mcp-Name checked, empty acknowledgements, v1's methods gone", async () => {
    const made = await makeTasks(26, 'proto');
    const { taskId } = (await update(made.map((t) => ({ task: t.key, priority: 'low' })))).result;
    for (const [method, params] of [['tasks/get', { taskId }], ['tasks/update', { taskId, inputResponses: {} }], ['tasks/cancel', { taskId }]] as const) {
      const refused = await rpc(method, params, { ext: false });
      expect(refused.error).toMatchObject({ code: -32021, data: { requiredCapabilities: { extensions: { 'io.modelcontextprotocol/tasks': {} } } } });
    }
    // The header intermediaries route on must name the task the body names.
    expect((await rpc('tasks/get', { taskId }, { mcpName: 'run_other' })).error?.code).toBe(-32020);
    for (const method of ['tasks/result', 'tasks/list']) expect((await rpc(method, method === 'tasks/list' ? {} : { taskId })).error?.code).toBe(-32601);
    // A run that asks nothing takes no answers: acknowledged, and it goes on as it was.
    expect(ack((await rpc('tasks/update', { taskId, inputResponses: { confirm: { action: 'accept', content: {} } } })).result)).toEqual({ resultType: 'complete' });
    expect((await settle(taskId)).result).toMatchObject({ status: 'completed', statusMessage: 'Updated 26 of 26 tasks' });
  });

  /** A run of `n` moves, driven here as the gateway drives it, with `afterBatch` heard after each batch. */
  async function driven(n: number, title: string, afterBatch: (run: tasks.BulkRunRecord, taskId: string) => Promise<void>) {
    const made = await makeTasks(n, title);
    const run = await tasks.startBulkRun(actor, { items: made.map((t) => ({ task: t.key, column: 'progress' })), atomic: false }, fx.runtime.deps);
    const running = tasks.runBulk(actor, run.id, fx.runtime.deps, { onChange: (r) => afterBatch(r, run.id) });
    const moved = async () => {
      const keys = [];
      for (const t of made) if ((await tasks.getTask(actor, t.key, fx.runtime.deps)).status.category === 'progress') keys.push(t.key);
      return keys;
    };
    return { run, running, moved };
  }

  it('tasks/cancel stops it between batches and names the keys applied before', async () => {
    let followed!: (execution: Awaited<ReturnType<typeof follow>>) => void;
    const following = new Promise<Awaited<ReturnType<typeof follow>>>((f) => (followed = f));
    const { run, running, moved } = await driven(40, 'cancel', async (r) => {
      // The client cancels once the second batch is in (the next batch waits for the cancel's acknowledgement).
      if (r.results.length === 20) await (await following).cancel();
    });
    const execution = await follow(mine, run.id);
    followed(execution);
    await running;
    const { outcome } = await settled(execution);
    expect(outcome.status).toBe('cancelled');
    const end = await mine.session.task(id(run.id)).snapshot();
    expect(end.status).toBe('cancelled');
    const keys = await moved();
    expect(keys).toHaveLength(20);
    expect(end.statusMessage).toBe(`Cancelled after 20 of 40 items done; applied: ${keys.join(', ')}`);
  }, 60_000);

  it('a cancel while a batch commits lands after that batch, through the tool on a live gateway', async () => {
    const made = await makeTasks(60, 'live');
    const execution = await mine.session.callTool('update_tasks', { items: made.map((t) => ({ task: t.key, column: 'progress' })) });
    if (execution.kind !== 'task') throw new Error('no task');
    await execution.cancel();
    // The client ends its own wait on the acknowledgement (cancelling is cooperative, unless it saw the end first);
    // the task, read again, says how it ended.
    expect(['cancelled', 'completed']).toContain((await settled(execution)).outcome.status);
    const end = await mine.session.task(execution.handle.taskId).snapshot();
    // Wherever it stopped, it stopped at a batch's end, and the message names exactly what was applied.
    expect(['cancelled', 'completed']).toContain(end.status);
    const keys = [];
    for (const t of made) if ((await tasks.getTask(actor, t.key, fx.runtime.deps)).status.category === 'progress') keys.push(t.key);
    expect(keys.length % 10).toBe(0);
    if (end.status === 'cancelled') expect(end.statusMessage).toBe(`Cancelled after ${keys.length} of 60 items done; applied: ${keys.join(', ') || 'none'}`);
    else expect(keys).toHaveLength(60);
  }, 60_000);

  it('a task whose replica went away mid-run (lease lapsed) ends failed, readable from the gateway, with what it applied', async () => {
    // The replica applies one batch and then hangs forever, as a process stopped between batches: it renews no lease.
    const { run, moved } = await driven(30, 'lost', () => new Promise<void>(() => undefined));
    for (let i = 0; i < 200 && (await fx.runtime.db('bulk_runs').where({ id: run.id }).first()).results.length === 0; i++) await new Promise((f) => setTimeout(f, 10));
    const execution = await follow(mine, run.id);
    expect((await mine.session.task(id(run.id)).snapshot()).status).toBe('working');
    await fx.runtime.db('bulk_runs').where({ id: run.id }).update({ lease_until: Date.now() - 1 });
    const { outcome, seen } = await settled(execution);
    const keys = await moved();
    expect(keys).toHaveLength(10);
    if (outcome.status !== 'failed') throw new Error(`ended ${outcome.status}`);
    expect(outcome.error.code).toBe(-32603);
    expect((outcome.error.data as { results: Array<{ task: string }> }).results.map((r) => r.task)).toEqual(keys);
    const statusMessage = `Stopped: the server running it went away after 10 of 30 items done; applied: ${keys.join(', ')}`;
    expect(seen.at(-1)).toMatchObject({ status: 'failed', statusMessage });
    // A second gateway on the same database agrees, and a late batch of the lost one finds it ended and applies nothing.
    const second = await startMcp({ port: 0, host: '127.0.0.1', logLevel: 'silent' }, fx.runtime);
    const there = await connectTasks(second.url, token);
    try {
      expect(await there.session.task(id(run.id)).snapshot()).toMatchObject({ status: 'failed', statusMessage });
    } finally {
      await there.close();
      // Closed without stop(): stop drains the runtime the two gateways share.
      second.server.closeAllConnections();
      await new Promise((f) => second.server.close(f));
    }
    expect(await tasks.runBulk(actor, run.id, fx.runtime.deps)).toBeUndefined();
    expect(await moved()).toHaveLength(10);
  });

  it('the client hears the task through subscriptions/listen (notifications/tasks), each batch then its end; another key is refused', async () => {
    let open!: () => void;
    const opened = new Promise<void>((f) => (open = f));
    let first!: () => void;
    const firstBatch = new Promise<void>((f) => (first = f));
    const { run } = await driven(30, 'heard', async (r) => {
      if (r.results.length === 10) {
        first();
        await opened;
      }
    });
    await firstBatch;
    const execution = await follow(mine, run.id);
    // The extension's client follows the notifications its Client receives; the host opens the listen.
    const filter = { taskIds: [run.id] } as Parameters<TasksClient['client']['listen']>[0];
    await expect(theirs.client.listen(filter)).rejects.toMatchObject({ code: -32602 });
    const heard = mine.notifications.length;
    const sub = await mine.client.listen(filter);
    const polled = mine.sent.length;
    const settling = settled(execution);
    open();
    const { outcome, seen } = await settling;
    await sub.close();
    // Its state at once, then after each batch; the client settled on what it heard, before its first poll (a second).
    const notes = mine.notifications.slice(heard).filter((n) => n.method === 'notifications/tasks').map((n) => (n.params as TaskView).statusMessage);
    expect(notes).toEqual(['10 of 30 items done', '20 of 30 items done', 'Updated 30 of 30 tasks']);
    expect(mine.sent.slice(polled)).toEqual([]);
    expect(seen.at(-1)).toMatchObject({ status: 'completed', statusMessage: 'Updated 30 of 30 tasks' });
    expect(outcome.status).toBe('completed');
    expect(answerOf(outcome).structuredContent.results).toHaveLength(30);
  });
});
