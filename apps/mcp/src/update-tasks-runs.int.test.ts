import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CreateTaskResultV2Schema, GetTaskResultV2Schema } from '@modelcontextprotocol/ext-tasks/core/v2';
import { type Actor, keys, people, projects, type ProjectWithBoards, type Scope, SCOPES, tasks } from '@tt/domain';
import { startMcp } from './index.js';
import { mcpFixture, type McpFixture } from './test/fixture.js';

/** An acknowledgement as the extension defines it: `resultType` alone, beside the server's `_meta` stamp. */
const ack = (result: Record<string, unknown> | undefined) => {
  const { _meta: _stamp, ...rest } = result ?? {};
  return rest;
};

/**
 * update_tasks as an MCP task (extension io.modelcontextprotocol/tasks), on the 2026-07-28 wire: a long call answers a
 * task, tasks/get follows it to its results, tasks/cancel stops it between batches, only its key sees it.
 */
describe('update_tasks as an MCP task', () => {
  let fx: McpFixture;
  let actor: Actor;
  let project: ProjectWithBoards;
  let token: string;
  let other: string;
  let url: string;

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
    url = `${(await fx.start()).url}/mcp`;
  }, 60_000);
  afterAll(() => fx?.close());

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

  it('more than 25 items answer a task; tasks/get follows it to the per-item results', async () => {
    const made = await makeTasks(30, 'run');
    const items = [...made.map((t) => ({ task: t.key, priority: 'high' })), { task: 'WEB-9999', title: 'missing' }];
    const created = await update(items);
    expect(created.error).toBeUndefined();
    const task = CreateTaskResultV2Schema.parse(created.result);
    expect(task).toMatchObject({ resultType: 'task', ttlMs: 3_600_000 });
    const end = await settle(task.taskId);
    GetTaskResultV2Schema.parse(end.result);
    expect(end.result).toMatchObject({ status: 'completed', taskId: task.taskId, statusMessage: 'Updated 30 of 31 tasks' });
    const results = end.result.result.structuredContent.results as Array<{ task: string; status: number }>;
    expect(results.map((r) => [r.task, r.status])).toEqual([...made.map((t) => [t.key, 200]), ['WEB-9999', 404]]);
    expect(end.result.result.content[0].text).toMatch(/^Updated 30 of 31 tasks\./);
    for (const t of made) expect((await tasks.getTask(actor, t.key, fx.runtime.deps)).priority).toBe('high');
  });

  it('the server says it honours the extension; 25 items, or a client without it, answer at once', async () => {
    expect((await rpc('server/discover', {})).result.capabilities.extensions).toEqual({ 'io.modelcontextprotocol/tasks': {} });
    const made = await makeTasks(26, 'now');
    const at25 = await update(made.slice(0, 25).map((t) => ({ task: t.key, priority: 'low' })));
    expect(at25.result.resultType).not.toBe('task');
    expect(at25.result.structuredContent.results).toHaveLength(25);
    const plain = await update(made.map((t) => ({ task: t.key, priority: 'urgent' })), { ext: false });
    expect(plain.result.resultType).not.toBe('task');
    expect(plain.result.structuredContent.results).toHaveLength(26);
  });

  it('another key, an unknown id and an expired task answer -32602 alike', async () => {
    const made = await makeTasks(26, 'mine');
    const created = await update(made.map((t) => ({ task: t.key, priority: 'low' })));
    const { taskId } = created.result;
    await settle(taskId);
    for (const r of [await get(taskId, other), await rpc('tasks/cancel', { taskId }, { key: other }), await get('run_nope')]) {
      expect(r.error?.code).toBe(-32602);
    }
    // Past its time to live (one hour after it ended) it is gone.
    await fx.runtime.db('bulk_runs').where({ id: taskId }).update({ expires_at: Date.now() - 1 });
    expect((await get(taskId)).error?.code).toBe(-32602);
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
    let cancelled: any;
    const { run, running, moved } = await driven(40, 'cancel', async (r, taskId) => {
      // Cancelled over the wire once the second batch is in.
      if (r.results.length === 20) cancelled = await rpc('tasks/cancel', { taskId });
    });
    await running;
    // The acknowledgement is empty (the extension's rule): the state is read with tasks/get.
    expect(ack(cancelled.result)).toEqual({ resultType: 'complete' });
    const end = (await get(run.id)).result;
    expect(end.status).toBe('cancelled');
    const keys = await moved();
    expect(keys).toHaveLength(20);
    expect(end.statusMessage).toBe(`Cancelled after 20 of 40 items done; applied: ${keys.join(', ')}`);
  }, 60_000);

  it('a cancel while a batch commits lands after that batch, through the tool on a live gateway', async () => {
    const made = await makeTasks(60, 'live');
    const { taskId } = (await update(made.map((t) => ({ task: t.key, column: 'progress' })))).result;
    expect(ack((await rpc('tasks/cancel', { taskId })).result)).toEqual({ resultType: 'complete' });
    const cancelled = (await get(taskId)).result;
    // Wherever it stopped, it stopped at a batch's end, and the message names exactly what was applied.
    expect(['cancelled', 'completed']).toContain(cancelled.status);
    const keys = [];
    for (const t of made) if ((await tasks.getTask(actor, t.key, fx.runtime.deps)).status.category === 'progress') keys.push(t.key);
    expect(keys.length % 10).toBe(0);
    if (cancelled.status === 'cancelled') expect(cancelled.statusMessage).toBe(`Cancelled after ${keys.length} of 60 items done; applied: ${keys.join(', ') || 'none'}`);
    else expect(keys).toHaveLength(60);
  }, 60_000);

  it('a task whose replica went away mid-run (lease lapsed) ends failed, readable from the gateway, with what it applied', async () => {
    // The replica applies one batch and then hangs forever, as a process stopped between batches: it renews no lease.
    const { run, moved } = await driven(30, 'lost', () => new Promise<void>(() => undefined));
    for (let i = 0; i < 200 && (await fx.runtime.db('bulk_runs').where({ id: run.id }).first()).results.length === 0; i++) await new Promise((f) => setTimeout(f, 10));
    expect((await get(run.id)).result.status).toBe('working');
    await fx.runtime.db('bulk_runs').where({ id: run.id }).update({ lease_until: Date.now() - 1 });
    const end = (await get(run.id)).result;
    const keys = await moved();
    expect(keys).toHaveLength(10);
    expect(end).toMatchObject({ status: 'failed', error: { code: -32603 } });
    expect(end.error.data.results.map((r: { task: string }) => r.task)).toEqual(keys);
    expect(end.statusMessage).toBe(`Stopped: the server running it went away after 10 of 30 items done; applied: ${keys.join(', ')}`);
    // A second gateway on the same database agrees, and a late batch of the lost one finds it ended and applies nothing.
    const second = await startMcp({ port: 0, host: '127.0.0.1', logLevel: 'silent' }, fx.runtime);
    try {
      expect((await rpc('tasks/get', { taskId: run.id }, { at: `${second.url}/mcp` })).result).toMatchObject({ status: 'failed', statusMessage: end.statusMessage });
    } finally {
      // Closed without stop(): stop drains the runtime the two gateways share.
      second.server.closeAllConnections();
      await new Promise((f) => second.server.close(f));
    }
    expect(await tasks.runBulk(actor, run.id, fx.runtime.deps)).toBeUndefined();
    expect(await moved()).toHaveLength(10);
  });

  /** Opens a listen stream and hands back its messages as they come. */
  async function listen(params: Record<string, unknown>, key = token) {
    const ac = new AbortController();
    const res = await fetch(url, {
      method: 'POST', signal: ac.signal,
      headers: {
        'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${key}`,
        'mcp-protocol-version': '2026-07-28', 'mcp-method': 'subscriptions/listen',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'subscriptions/listen', params: { ...params, _meta: caps(true) } }),
    });
    // A refusal is a plain JSON-RPC answer, not a stream.
    if (res.headers.get('content-type')?.includes('application/json')) {
      const body = await res.json();
      return { next: async () => body, close: () => undefined, type: res.headers.get('content-type') };
    }
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let buffer = '';
    const queue: any[] = [];
    const next = async (): Promise<any> => {
      while (!queue.length) {
        const { value, done } = await reader.read();
        if (done) return undefined;
        buffer += decoder.decode(value, { stream: true });
        let at;
        while ((at = buffer.indexOf('\n\n')) >= 0) {
          const frame = buffer.slice(0, at);
          buffer = buffer.slice(at + 2);
          const data = frame.split('\n').find((l) => l.startsWith('data:'));
          if (data) queue.push(JSON.parse(data.slice(5)));
        }
      }
      return queue.shift();
    };
    return { next, close: () => ac.abort(), type: res.headers.get('content-type') };
  }

  it('subscriptions/listen with taskIds sends the current state at once, then each change, to the key that started it', async () => {
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
    expect((await listen({ notifications: { taskIds: [run.id] } }, other).then((l) => l.next())).error?.code).toBe(-32602);
    const stream = await listen({ notifications: { taskIds: [run.id] } });
    expect(stream.type).toContain('text/event-stream');
    expect(await stream.next()).toMatchObject({ method: 'notifications/subscriptions/acknowledged', params: { notifications: { taskIds: [run.id] } } });
    const now = await stream.next();
    expect(now).toMatchObject({ method: 'notifications/tasks', params: { taskId: run.id, status: 'working', statusMessage: '10 of 30 items done' } });
    open();
    const heard = [];
    for (let m = await stream.next(); m; m = m.params.status === 'working' ? await stream.next() : undefined) heard.push(m.params);
    stream.close();
    expect(heard.map((p) => p.statusMessage)).toEqual(['20 of 30 items done', 'Updated 30 of 30 tasks']);
    expect(heard.at(-1)).toMatchObject({ status: 'completed', result: { structuredContent: { results: expect.any(Array) } } });
    expect(heard.at(-1).result.structuredContent.results).toHaveLength(30);
  });
});
