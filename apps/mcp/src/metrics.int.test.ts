import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keys, people, SCOPES } from '@tt/domain';
import { labelValues, sampleValue } from '../../../packages/http/src/metrics-sample.js';
import type { McpServerHandle } from './index.js';
import { callTool, mcpFixture, type McpFixture } from './test/fixture.js';

let fx: McpFixture;
let mcp: McpServerHandle;
let fullKey: string;
let noScopeKey: string;

beforeAll(async () => {
  fx = await mcpFixture();
  const deps = fx.runtime.deps;
  const ws = await people.createWorkspace({ name: 'Metrics', plan: 'business', timezone: 'Europe/Moscow' }, deps);
  const alice = await people.createUser(ws.id, { name: 'Alice', login: 'alice', role: 'Engineer', isAdmin: true }, deps);
  fullKey = (await keys.issueKey(alice.id, { scopes: [...SCOPES], projectIds: null, expiresAt: null, allowedIps: [] }, deps)).token;
  noScopeKey = (await keys.issueKey(alice.id, { scopes: [], projectIds: null, expiresAt: null, allowedIps: [] }, deps)).token;
  mcp = await fx.start();
}, 60_000);
afterAll(() => fx?.close());

const scrape = () => fetch(`${mcp.url}/metrics`).then((r) => r.text());
const calls = (text: string, tool: string, outcome: string) => sampleValue(text, 'tt_mcp_tool_calls_total', { tool, outcome }) ?? 0;

describe('mcp /metrics', () => {
  it('counts and times tool calls by tool and outcome', async () => {
    const before = await scrape();
    const client = await fx.connect(fullKey);
    expect((await callTool(client, 'whoami')).isError).toBeFalsy();
    expect((await callTool(client, 'get_task', { task: 'NOPE-404' })).text).toMatch(/^not_found/);
    expect((await callTool(client, 'get_task', {})).text).toMatch(/^invalid_request/);
    // An unknown tool is -32602 (a protocol error), still counted as denied under the one label `unknown`.
    expect(await callTool(client, 'no_such_tool').then(() => null, (e: { code?: number }) => e.code)).toBe(-32602);
    const restricted = await fx.connect(noScopeKey);
    expect((await callTool(restricted, 'search_tasks')).isError).toBe(true);

    const text = await scrape();
    const delta = (tool: string, outcome: string) => calls(text, tool, outcome) - calls(before, tool, outcome);
    expect(delta('whoami', 'ok')).toBe(1);
    expect(delta('get_task', 'error')).toBe(1);
    expect(delta('get_task', 'invalid')).toBe(1);
    expect(delta('unknown', 'denied')).toBe(1);
    expect(delta('search_tasks', 'denied')).toBe(1);
    // A made-up name never becomes a label value.
    expect(labelValues(text, 'tt_mcp_tool_calls_total', 'tool')).not.toContain('no_such_tool');
    expect(sampleValue(text, 'tt_mcp_tool_call_duration_seconds_count', { tool: 'whoami', outcome: 'ok' })).toBeGreaterThanOrEqual(1);
    expect(sampleValue(text, 'tt_mcp_tool_call_duration_seconds_bucket', { tool: 'whoami', outcome: 'ok', le: '+Inf' })).toBeGreaterThanOrEqual(1);
  });

  it('times /mcp requests by route and status, and shows the queue gauges and process metrics', async () => {
    const client = await fx.connect(fullKey);
    await callTool(client, 'whoami');
    const unauthorized = await fetch(`${mcp.url}/mcp`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(unauthorized.status).toBe(401);

    const text = await scrape();
    expect(sampleValue(text, 'tt_http_request_duration_seconds_count', { server: 'mcp', method: 'POST', route: '/mcp', status: '200' })).toBeGreaterThanOrEqual(1);
    expect(sampleValue(text, 'tt_http_request_duration_seconds_count', { server: 'mcp', method: 'GET', route: '/metrics', status: '200' })).toBeGreaterThanOrEqual(1);
    // /mcp is timed as the mcp server's only (the registry is the process's: other servers of it may share it).
    expect(sampleValue(text, 'tt_http_request_duration_seconds_count', { server: 'api', route: '/mcp' })).toBeUndefined();
    for (const name of ['tt_jobs_waiting', 'tt_jobs_failed', 'tt_outbox_pending']) expect(sampleValue(text, name), name).toBeGreaterThanOrEqual(0);
    expect(sampleValue(text, 'tt_queue_up')).toBe(1);
    expect(sampleValue(text, 'process_resident_memory_bytes')).toBeGreaterThan(0);
  });

  it('carries the IETF draft rate-limit fields on /mcp tool calls', async () => {
    const res = await fetch(`${mcp.url}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${fullKey}` },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'whoami', arguments: {} } }),
    });
    expect(res.headers.get('ratelimit-policy')).toBe('"default";q=1000;w=60');
    const remaining = Number(res.headers.get('x-ratelimit-remaining'));
    expect(res.headers.get('ratelimit')).toBe(`"default";r=${remaining};t=${res.headers.get('x-ratelimit-reset')}`);
  });
});
