import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMcp } from '@tt/mcp';
import { ArbitraryBuilder, operationsOf, sometimes, type FuzzRequest, type Pools } from '../../../scripts/fuzz/openapi-arbitrary.js';
import { startHarness, type Harness, type TestResponse, type TestWorkspace } from './test/harness.js';

/**
 * Property-based fuzzing over the OpenAPI documents of /v1 and of the operator API: every operation gets requests
 * mixing plausible and hostile values (fixed seed, so a failure reproduces). The properties: no answer is a 5xx,
 * and a refused write (4xx) leaves every table as it was. FUZZ_RUNS scales the number of requests per document.
 */
const SEED = 20261123;
const RUNS = Number(process.env.FUZZ_RUNS ?? 1200);

let h: Harness;
let ws: TestWorkspace;
let pools: Pools;
let cursors: string[];

/** Every table's row count and an order-independent hash of its rows, but for idempotency records (kept refusals). */
let fingerprintSql: string | undefined;
async function fingerprint(): Promise<string> {
  const { db } = h.runtime;
  if (!fingerprintSql) {
    // The tables do not change during the run: list them once.
    const tables = (await db('information_schema.tables')
      .where({ table_schema: db.raw('current_schema()'), table_type: 'BASE TABLE' })
      .whereNotIn('table_name', ['knex_migrations', 'knex_migrations_lock', 'idempotency_keys'])
      .orderBy('table_name')
      .pluck('table_name')) as string[];
    fingerprintSql = tables.map((t) => `select '${t}' as t, count(*) as n, coalesce(sum(hashtext(x::text)::bigint), 0) as h from "${t}" x`).join(' union all ');
  }
  const rows = (await db.raw(fingerprintSql)).rows as Array<{ t: string; n: unknown; h: unknown }>;
  return rows.map((r) => `${r.t}:${String(r.n)}:${String(r.h)}`).join(' ');
}

async function seed(): Promise<void> {
  ws = await h.workspace();
  const other = await h.workspace();
  const bob = await ws.user({ login: 'bob', name: 'Bob Builder' });
  const call = async (method: string, path: string, body?: unknown, token = ws.token) => {
    const r = await h.call(token, method, path, body);
    if (r.status >= 300) throw new Error(`${method} ${path}: ${r.status} ${r.text}`);
    return r.body.data;
  };
  const p = await call('POST', '/projects', { name: 'Web', key: 'WEB' });
  const hidden = await call('POST', '/projects', { name: 'Other', key: 'OTH' }, other.token);
  const b2 = await call('POST', '/boards', { projectId: p.id, name: 'Bugs', template: 'bugs' });
  const t1 = await call('POST', '/tasks', { title: 'First', projectId: p.id, assigneeIds: [bob.id], labels: ['ui'], dueDate: '2026-12-01', checklist: [{ text: 'a', done: false }] });
  const t2 = await call('POST', '/tasks', { title: 'Child', projectId: p.id, parentId: t1.id });
  const tHidden = await call('POST', '/tasks', { title: 'Hidden', projectId: hidden.id }, other.token);
  for (let i = 0; i < 4; i++) await call('POST', '/tasks', { title: `Filler ${i}`, boardId: b2.id });
  const c = await call('POST', `/tasks/${t1.key}/comments`, { text: 'hello @bob' });
  await call('POST', `/tasks/${t1.key}/time`, { minutes: 30, date: '2026-11-20', note: 'x' });
  const space = (await h.op('POST', `/workspaces/${ws.id}/doc-spaces`, { name: 'Handbook' })).body.data;
  const closed = (await h.op('POST', `/workspaces/${ws.id}/doc-spaces`, { name: 'Closed', memberIds: [bob.id] })).body.data;
  const d = await call('POST', '/docs', { spaceId: space.id, title: 'Onboarding', text: 'Welcome', taskIds: [t1.id] });
  const folder = (await h.op('POST', `/workspaces/${ws.id}/meeting-folders`, { name: 'Syncs' })).body.data;
  const m = (await h.op('POST', `/workspaces/${ws.id}/meetings`, {
    title: 'Planning', createdBy: ws.adminUser.id, folderId: folder.id, projectId: p.id, startedAt: Date.parse('2026-11-20T10:00:00Z'),
    summary: { overview: 'o', actionItems: [{ text: 'Do it', owner: 'Bob Builder' }] },
    transcript: [{ speaker: 'Bob', start: '00:00:01', end: '00:00:05', text: 'hi' }],
  })).body.data;
  const team = (await h.op('POST', `/workspaces/${ws.id}/teams`, { name: 'Core', memberIds: [bob.id] })).body.data;
  const key = (await h.op('POST', `/users/${bob.id}/keys`, { scopes: ['tasks:read'] })).body.data;
  const auto = (await h.op('POST', `/boards/${b2.id}/automations`, { trigger: 'task_created', actions: [{ type: 'add_labels', labels: ['auto'] }] })).body.data;
  pools = {
    task: [t1.id, t1.key, t2.id, t2.key, tHidden.id, tHidden.key, 'WEB-999'],
    project: [p.id, p.key, hidden.id],
    board: [p.boards[0].id, b2.id, hidden.boards[0].id],
    status: [...p.boards[0].statuses.map((s: { id: string }) => s.id), b2.statuses[0].id, hidden.boards[0].statuses[0].id],
    space: [space.id, closed.id],
    folder: [folder.id, 'personal'],
    meeting: [m.id],
    comment: [c.id],
    team: [team.id],
    user: [ws.adminUser.id, bob.id, other.adminUser.id, 'me', 'none'],
    workspace: [ws.id, other.id],
    key: [key.id],
    automation: [auto?.id].filter(Boolean),
    doc: [d.id, 'doc_nope'],
    any: [d.id],
  };
  // MCP tools also take people by login or name and columns by name or category.
  pools.user!.push('bob', 'Bob Builder', 'Bob', 'nobody');
  pools.status!.push('To do', 'done', 'progress', 'Nope');
  pools.project!.push('WEB', 'web');
  const page = await h.call(ws.token, 'GET', '/tasks?limit=1');
  const time = await h.call(ws.token, 'GET', '/time/entries?from=2026-11-01&to=2026-11-30&limit=1');
  cursors = [page.body.nextCursor, time.body.nextCursor].filter(Boolean);
}

interface Outcome {
  cases: number;
  byStatus: Record<string, number>;
  fiveHundreds: string[];
  dirtyRefusals: string[];
}

async function fuzz(doc: Record<string, any>, send: (r: FuzzRequest) => Promise<{ status: number; text: string }>, runs: number): Promise<Outcome> {
  const builder = new ArbitraryBuilder(doc, pools);
  const ops = operationsOf(doc);
  const requests = fc.oneof(...ops.map((op) => builder.request(op, cursors)));
  const out: Outcome = { cases: 0, byStatus: {}, fiveHundreds: [], dirtyRefusals: [] };
  // fc.assert runs the property over `runs` generated requests; the property records instead of stopping at the
  // first failure, so the test reports every distinct fault at once.
  await fc.assert(
    fc.asyncProperty(requests, async (req) => {
      const write = req.method !== 'GET';
      if (write) await h.runtime.jobs.drain();
      const before = write ? await fingerprint() : '';
      const res = await send(req);
      out.cases++;
      out.byStatus[res.status] = (out.byStatus[res.status] ?? 0) + 1;
      const label = `${req.method} ${req.template} -> ${res.status}`;
      if (res.status >= 500) out.fiveHundreds.push(`${label}: ${req.url} ${JSON.stringify(req.body)?.slice(0, 300)} => ${res.text.slice(0, 200)}`);
      if (write && res.status >= 400 && res.status < 500) {
        await h.runtime.jobs.drain();
        if ((await fingerprint()) !== before) out.dirtyRefusals.push(`${label}: ${req.url} ${JSON.stringify(req.body)?.slice(0, 300)}`);
      }
      return true;
    }),
    { seed: SEED, numRuns: runs, endOnFailure: true },
  );
  return out;
}

/** JSON text nested `depth` levels deep, as arrays, objects or both by turns: JSON.stringify itself would overflow. */
function deepText(depth: number, shape: 'array' | 'object' | 'mixed'): string {
  let open = '';
  let close = '';
  for (let i = 0; i < depth; i++) {
    const array = shape === 'array' || (shape === 'mixed' && i % 2 === 0);
    open += array ? '[' : '{"a":';
    close = (array ? ']' : '}') + close;
  }
  return `${open}1${close}`;
}

/** A JSON object whose field `key` (a real one when the body has fields) holds `value`, the others as generated. */
function objectText(body: unknown, value: string): string {
  const entries = body !== null && typeof body === 'object' && !Array.isArray(body) ? Object.entries(body) : [];
  const key = entries[0]?.[0] ?? 'deep';
  const rest = entries.slice(1).map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v)}`);
  return `{${[`${JSON.stringify(key)}:${value}`, ...rest].join(',')}}`;
}

const NOT_OBJECTS: Array<[string, string]> = [['null', 'null'], ['[]', 'an array'], ['[{}]', 'an array'], ['"text"', 'a string'], ['7', 'a number'], ['true', 'a boolean']];

/**
 * For every operation with a JSON body: a body nested deeper than 64 levels (anywhere from 65 to 20 000, arrays,
 * objects or both, under one of the body's own fields) or a body that is not an object (null first) must answer 400
 * invalid_request naming the problem, and write nothing. Path parameters stay plausible, so the body is the only fault.
 */
async function shapeFaults(doc: Record<string, any>, send: (method: string, url: string, text: string) => Promise<TestResponse>, runsPerOp: number) {
  const plausible = new ArbitraryBuilder(doc, pools, 0);
  const faults: string[] = [];
  let cases = 0;
  for (const op of operationsOf(doc).filter((o) => o.body)) {
    const path = op.params.filter((p) => p.in === 'path');
    const url = fc.tuple(...path.map((p) => plausible.plausible(p.schema, p.name))).map((values) => {
      let u = op.path;
      path.forEach((p, i) => (u = u.replace(`{${p.name}}`, encodeURIComponent(String(values[i])))));
      return u;
    });
    const deep = fc
      .tuple(fc.integer({ min: 65, max: 20_000 }), fc.constantFrom('array', 'object', 'mixed') as fc.Arbitrary<'array' | 'object' | 'mixed'>, plausible.plausible(op.body!, 'body'))
      .map(([depth, shape, body]) => ({ text: objectText(body, deepText(depth - 1, shape)), message: 'body: nested deeper than 64 levels' }));
    const notObject = fc.constantFrom(...NOT_OBJECTS).map(([text, kind]) => ({ text, message: `body: must be a JSON object, not ${kind}` }));
    await fc.assert(
      fc.asyncProperty(url, fc.oneof(deep, notObject), async (u, body) => {
        await h.runtime.jobs.drain();
        const before = await fingerprint();
        const res = await send(op.method.toUpperCase(), u, body.text);
        cases++;
        const label = `${op.method.toUpperCase()} ${u} ${body.text.slice(0, 40)}`;
        if (res.status !== 400 || res.body?.error?.code !== 'invalid_request' || res.body.error.message !== body.message) {
          faults.push(`${label} -> ${res.status} ${res.text.slice(0, 200)}`);
        }
        await h.runtime.jobs.drain();
        if ((await fingerprint()) !== before) faults.push(`${label}: wrote`);
        return true;
      }),
      { seed: SEED, numRuns: runsPerOp },
    );
  }
  return { cases, faults };
}

const report = (name: string, o: Outcome) =>
  console.log(`fuzz ${name}: ${o.cases} requests; by status ${JSON.stringify(o.byStatus)}; 5xx: ${o.fiveHundreds.length}; refused writes that wrote: ${o.dirtyRefusals.length}`);

describe('fuzzing every operation', () => {
  beforeAll(async () => {
    h = await startHarness();
    await seed();
  });
  afterAll(() => h.close());

  it('/v1: no 5xx for any request, and a refused write writes nothing', { timeout: 600_000 }, async () => {
    const doc = (await h.call(ws.token, 'GET', '/openapi.json')).body;
    const send = (r: FuzzRequest) => h.call(ws.token, r.method, r.url.replace(/^\/v1/, ''), r.body, r.headers);
    const o = await fuzz(doc, send, RUNS);
    report('/v1', o);
    expect(o.cases).toBe(RUNS);
    expect(o.fiveHundreds).toEqual([]);
    expect(o.dirtyRefusals).toEqual([]);
  });

  it('/v1 and operator API: a body nested deeper than 64 levels or not an object is 400 naming it, on every body operation', { timeout: 600_000 }, async () => {
    const runs = Math.max(4, Math.ceil(RUNS / 100));
    const v1 = await shapeFaults((await h.call(ws.token, 'GET', '/openapi.json')).body, (m, u, t) => h.call(ws.token, m, u.replace(/^\/v1/, ''), t), runs);
    const op = await shapeFaults((await h.op('GET', '/openapi.json')).body, (m, u, t) => h.op(m, u.replace(/^\/admin\/v1/, ''), t), runs);
    console.log(`fuzz body shape: ${v1.cases} /v1 and ${op.cases} operator requests; faults: ${v1.faults.length + op.faults.length}`);
    expect(v1.cases).toBeGreaterThan(10 * runs);
    expect([...v1.faults, ...op.faults]).toEqual([]);
  });

  it('MCP: no tool call fails inside the server or breaks its output schema', { timeout: 600_000 }, async () => {
    const mcp = await startMcp({ port: 0, host: '127.0.0.1', logLevel: 'silent' }, h.runtime);
    const client = new Client({ name: 'fuzz', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${mcp.url}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${ws.token}` } } }));
    try {
      const { tools } = await client.listTools();
      const builder = new ArbitraryBuilder({}, pools, 0);
      const calls = fc.oneof(...tools.map((t) => builder.plausible(t.inputSchema as Record<string, unknown>, 'arguments').map((args) => ({ name: t.name, args }))));
      const faults: string[] = [];
      const outcomes: Record<string, number> = {};
      const runs = Math.ceil(RUNS / 2);
      await fc.assert(
        fc.asyncProperty(fc.tuple(calls, sometimes(fc.constantFrom('\u0000', '\ud800', '0000-01-01', 'x'.repeat(30_000)), 5)), async ([call, poison]) => {
          const args = { ...(call.args as Record<string, unknown>) };
          const keys = Object.keys(args);
          if (poison !== undefined && keys.length) args[keys[0]!] = poison;
          try {
            // The SDK client checks structured content against the tool's outputSchema and throws when it does not fit.
            const r = (await client.callTool({ name: call.name, arguments: args })) as CallToolResult;
            const text = r.content[0]?.type === 'text' ? r.content[0].text : '';
            const kind = r.isError ? text.split(':')[0]! : 'ok';
            outcomes[kind] = (outcomes[kind] ?? 0) + 1;
                  if (kind === 'internal') faults.push(`${call.name} ${JSON.stringify(args).slice(0, 300)} => ${text.slice(0, 200)}`);
          } catch (e) {
            faults.push(`${call.name} ${JSON.stringify(args).slice(0, 300)} => threw ${String(e).slice(0, 300)}`);
          }
          return true;
        }),
        { seed: SEED, numRuns: runs },
      );
      console.log(`fuzz mcp: ${runs} tool calls over ${tools.length} tools; outcomes ${JSON.stringify(outcomes)}; faults: ${faults.length}`);
      expect(faults).toEqual([]);
    } finally {
      await client.close();
      await mcp.stop();
    }
  });

  it('MCP: arguments nested deeper than 64 levels or not an object are refused naming it, on every tool', { timeout: 600_000 }, async () => {
    const mcp = await startMcp({ port: 0, host: '127.0.0.1', logLevel: 'silent' }, h.runtime);
    const client = new Client({ name: 'fuzz', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${mcp.url}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${ws.token}` } } }));
    try {
      const { tools } = await client.listTools();
      const builder = new ArbitraryBuilder({}, pools, 0);
      const faults: string[] = [];
      for (const tool of tools) {
        const args = builder.plausible(tool.inputSchema as Record<string, unknown>, 'arguments') as fc.Arbitrary<Record<string, unknown>>;
        // The SDK client serializes with JSON.stringify, which overflows a few thousand levels down: 3 000 at most here.
        const deep = fc.tuple(args, fc.integer({ min: 64, max: 3_000 }), fc.boolean()).map(([a, depth, arrays]) => {
          let v: unknown = 'x';
          for (let i = 0; i < depth; i++) v = arrays ? [v] : { a: v };
          const key = Object.keys(a)[0] ?? 'deep';
          return { args: { ...a, [key]: v } as unknown, expected: 'invalid_request: arguments: nested deeper than 64 levels' };
        });
        const notObject = fc.constantFrom<Array<[unknown, string]>>([null, 'null'], [[], 'an array'], ['text', 'a string'], [7, 'a number'])
          // A JSON-RPC error with HTTP 400 (carrying the request's id), like a bad X-MCP-Toolsets header: the SDK client
          // throws with the answer in its message.
          .map(([v, kind]) => ({ args: v, expected: `"error":{"code":-32602,"message":"arguments: must be a JSON object, not ${kind}"}` }));
        await fc.assert(
          fc.asyncProperty(fc.oneof(deep, notObject), async ({ args: a, expected }) => {
            let got: string;
            try {
              const r = (await client.callTool({ name: tool.name, arguments: a as Record<string, unknown> })) as CallToolResult;
              got = r.isError && r.content[0]?.type === 'text' ? r.content[0].text : `not refused: ${JSON.stringify(r).slice(0, 200)}`;
            } catch (e) {
              got = (e as Error).message;
            }
            if (got !== expected && !got.endsWith(`: ${expected}`) && !got.includes(expected)) faults.push(`${tool.name} -> ${got.slice(0, 200)}`);
            return true;
          }),
          { seed: SEED, numRuns: Math.max(4, Math.ceil(RUNS / 200)) },
        );
      }
      expect(faults).toEqual([]);
    } finally {
      await client.close();
      await mcp.stop();
    }
  });

  it('operator API: no 5xx for any request, and a refused write writes nothing', { timeout: 600_000 }, async () => {
    const doc = (await h.op('GET', '/openapi.json')).body;
    const send = (r: FuzzRequest) => h.op(r.method, r.url.replace(/^\/admin\/v1/, ''), r.body);
    const runs = Math.ceil(RUNS / 2);
    const o = await fuzz(doc, send, runs);
    report('operator', o);
    expect(o.cases).toBe(runs);
    expect(o.fiveHundreds).toEqual([]);
    expect(o.dirtyRefusals).toEqual([]);
  });
});
