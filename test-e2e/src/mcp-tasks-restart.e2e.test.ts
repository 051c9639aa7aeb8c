import { createRequire } from 'node:module';
import { OperatorClient, TaskTrackerClient } from '@tt/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDatabase, startTopology, type Topology } from '../../scripts/topology/index.mjs';
import { connectTasks, type TasksClient } from '../../apps/mcp/src/test/tasks-client.js';

/*
 * An MCP task (the tasks extension) whose replica dies: two built mcp processes on PostgreSQL and Redis. A client starts
 * a long update_tasks task on mcp-1 through the extension's own client; mcp-1 is killed (SIGKILL) in the middle of a
 * batch; the client follows the task through mcp-2, where it ends as docs/mcp.md says (the lease lapses: failed, with
 * the items applied so far), and the database agrees: the batches committed before the crash applied once each, the
 * batch in flight not at all.
 */
const PG = process.env.TEST_DATABASE_URL;
const REDIS = process.env.TEST_REDIS_URL;

interface PgClient {
  connect(): Promise<void>;
  query<R = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<{ rows: R[] }>;
  end(): Promise<void>;
}
const pg = createRequire(new URL('../../packages/store/package.json', import.meta.url))('pg') as { Client: new (o: { connectionString: string }) => PgClient };

const ITEMS = 100;
/** The item whose row is held locked: the sixth batch of ten stops on it, five batches in. */
const HELD = 54;

describe.skipIf(!PG || !REDIS)('an MCP task across a replica crash (mcp x2)', () => {
  let db: Awaited<ReturnType<typeof createDatabase>>;
  let topo: Topology;
  let token: string;
  let keys: string[];
  let sql: PgClient;
  const clients: TasksClient[] = [];

  const replica = (name: string) => topo.processes().find((p) => p.name === name)!.url;

  beforeAll(async () => {
    db = await createDatabase(PG!);
    topo = await startTopology({
      databaseUrl: db.url, redisUrl: REDIS!, apiReplicas: 1, mcpReplicas: 2, ports: { proxy: 0, mcp: 0, worker: 0, api: 0 },
      queuePrefix: `tt-e2e-tasks-${db.name}`, env: { LOG_LEVEL: 'warn', RATE_LIMIT_PER_MINUTE: '100000' },
    });
    const op = new OperatorClient({ baseUrl: `${topo.apiUrl}/admin/v1`, adminToken: topo.adminToken, maxRetries: 0 });
    const ws = await op.workspaces.create({ name: 'Crash Corp', plan: 'business' });
    const ann = await op.users.create(ws.id, { name: 'Ann', login: 'ann', role: 'Lead', isAdmin: true });
    token = (await op.keys.issue(ann.id, { scopes: ['tasks:read', 'tasks:write', 'projects:write'] })).token;
    const api = new TaskTrackerClient({ baseUrl: `${topo.apiUrl}/v1`, apiKey: token, maxRetries: 0 });
    const project = await api.projects.create({ name: 'Crash', key: 'CR', template: 'simple' });
    keys = [];
    for (let i = 0; i < ITEMS; i++) keys.push((await api.tasks.create({ projectId: project.id, title: `Item ${i}`, priority: 'low' })).key);
    sql = new pg.Client({ connectionString: db.url });
    await sql.connect();
  }, 300_000);

  afterAll(async () => {
    for (const c of clients) await c.close();
    await sql?.end().catch(() => undefined);
    await topo?.stop();
    await db?.drop();
  });

  it('mcp-1 killed mid-batch: the client follows the task on mcp-2 to failed with the items applied, each once', async () => {
    const first = await connectTasks(replica('mcp-1'), token);
    clients.push(first);
    // Another connection holds one task's row, so mcp-1's sixth batch waits on it, five batches committed.
    await sql.query('BEGIN');
    await sql.query('SELECT id FROM tasks WHERE key = $1 FOR UPDATE', [keys[HELD]]);
    const execution = await first.session.callTool('update_tasks', { items: keys.map((task) => ({ task, priority: 'high' })) });
    if (execution.kind !== 'task') throw new Error(`update_tasks answered ${execution.kind}, not a task`);
    const { taskId } = execution.handle;
    const waiting = async () => (await sql.query<{ n: number }>("SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'")).rows[0]!.n;
    for (let i = 0; (await waiting()) === 0; i++) {
      if (i > 200) {
        const state = await sql.query('SELECT status, status_message, jsonb_array_length(results) AS n, results->0 AS r0, results->54 AS r54 FROM bulk_runs WHERE id = $1', [taskId]);
        const act = await sql.query("SELECT state, wait_event_type, wait_event, left(query, 120) AS q FROM pg_stat_activity WHERE datname = current_database()");
        throw new Error(`the task never reached the held row: ${JSON.stringify(state.rows)} ${JSON.stringify(act.rows)}`);
      }
      await new Promise((r) => setTimeout(r, 50));
    }
    const before = (await sql.query<{ results: unknown[]; status: string }>('SELECT status, results FROM bulk_runs WHERE id = $1', [taskId])).rows[0]!;
    expect(before).toMatchObject({ status: 'working' });
    expect(before.results).toHaveLength(50);

    // The client hands the task over, mcp-1 crashes in the middle of its batch, and the row is let go.
    let reference!: Parameters<TasksClient['session']['resumeTask']>[0];
    await execution.handoff((r) => void (reference = r));
    expect(await topo.stopProcess('mcp-1', 'SIGKILL')).toMatchObject({ signal: 'SIGKILL' });
    await sql.query('ROLLBACK');

    const second = await connectTasks(replica('mcp-2'), token);
    clients.push(second);
    const followed = await second.session.resumeTask(reference);
    // Until the lease lapses the run is working, as far as it got, readable on mcp-2.
    const now = await second.session.task(reference.taskId).snapshot();
    expect(now).toMatchObject({ status: 'working', statusMessage: `50 of ${ITEMS} items done` });
    const started = Date.now();
    const { outcome, lastTask } = await followed.settle();
    console.log(`the run ended ${Date.now() - started} ms after the crash`);
    if (outcome.status !== 'failed') throw new Error(`the task ended ${outcome.status}`);
    const applied = keys.slice(0, 50);
    expect(outcome.error.code).toBe(-32603);
    expect((outcome.error.data as { results: Array<{ task: string; status: number }> }).results.map((r) => [r.task, r.status])).toEqual(applied.map((k) => [k, 200]));
    expect(lastTask).toMatchObject({ status: 'failed', statusMessage: `Stopped: the server running it went away after 50 of ${ITEMS} items done; applied: ${applied.join(', ')}` });

    // The database agrees: the run failed with fifty entries; the fifty applied once each (one change each in the
    // activity log), the batch in flight and the rest not at all.
    const run = (await sql.query<{ results: unknown[]; status: string; lease_until: string | null }>('SELECT status, results, lease_until FROM bulk_runs WHERE id = $1', [taskId])).rows[0]!;
    expect(run).toMatchObject({ status: 'failed', lease_until: null });
    expect(run.results).toHaveLength(50);
    const rows = (await sql.query<{ key: string; priority: string; changes: number }>(
      `SELECT t.key, t.priority, (SELECT count(*)::int FROM activity a WHERE a.task_id = t.id AND a.channel = 'mcp') AS changes
       FROM tasks t WHERE t.key = ANY($1)`, [keys],
    )).rows;
    const byKey = new Map(rows.map((r) => [r.key, r]));
    expect(keys.map((k) => [k, byKey.get(k)!.priority, byKey.get(k)!.changes])).toEqual(keys.map((k, i) => (i < 50 ? [k, 'high', 1] : [k, 'low', 0])));
  }, 120_000);
});
