#!/usr/bin/env -S npx tsx
// tools/call through MCP against REST by key, A/B in one run, in both protocol eras: the built API and the built mcp
// process on one PostgreSQL database, the same task read three ways in alternating rounds:
//   REST            GET /v1/tasks/{key}/context (BENCH_PAIR below)
//   MCP 2025-11-25  POST /mcp tools/call get_task (no envelope: the 2025-era leg, JSON answer)
//   MCP 2026-07-28  POST /mcp tools/call get_task with the _meta envelope and the standard headers
// and prints each MCP rate against REST's (goal: at least 0.9). BENCH_PAIR: `context` (default) pairs get_task with its REST
// twin GET /v1/tasks/{key}/context (the same read: properties, description, checklist, subtasks, discussion, links);
// `task` with the bare GET /v1/tasks/{key}; `me` pairs whoami with GET /v1/me (the protocol's own cost); `search` pairs
// search_tasks (the caller's tasks in progress) with its REST list GET /v1/tasks?assigneeId=me&category=progress.
//   pnpm run build && npx tsx scripts/bench/mcp-vs-rest.mjs
// Env: BENCH_ROUNDS (3), BENCH_DURATION (s per scenario, 10), BENCH_CONNECTIONS (10), BENCH_DATABASE_URL, BENCH_REDIS_URL.
import { benchWorkspace, call, freshDatabase, measure, openDatabase, databaseUrl, startBuiltApi } from './lib.mjs';
import { progressTasks, startBuiltMcp, toolCallRequest } from './mcp-process.mjs';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
// Its own database per run (freshDatabase drops one of the same name WITH (FORCE), under any other run using it).
const NAME = `tt_bench_mcp_rest_${process.pid}`;
const drop = await freshDatabase(NAME);
const db = openDatabase({ databaseUrl: databaseUrl(NAME), poolMax: 1 });
const api = await startBuiltApi(NAME);
let mcp;
try {
  const { token, userIds } = await benchWorkspace(api.base, 5);
  const project = (await call(api.base, token, 'POST', '/v1/projects', { name: 'Bench', key: 'BEN', template: 'scrum' })).data;
  const task = (await call(api.base, token, 'POST', '/v1/tasks', { title: 'Read me', projectId: project.id, description: 'A task read three ways.' })).data;
  const SEARCH = ['search_tasks', { assignee: 'me', category: 'progress' }];
  await progressTasks(api.base, token, project, userIds[0]);
  mcp = await startBuiltMcp(NAME);
  const toolCall = (modern, name = 'get_task', args = { task: task.key }) => toolCallRequest(modern, name, args);
  // Each way answers before it is measured (a wrong setup is never benchmarked).
  for (const modern of [false, true]) {
    const r = toolCall(modern);
    const res = await fetch(`${mcp.base}/mcp`, { method: 'POST', headers: { ...r.headers, authorization: `Bearer ${token}` }, body: r.body });
    const text = await res.text();
    if (res.status !== 200 || !text.includes(task.key) || text.includes('"isError":true')) throw new Error(`MCP get_task (${modern ? '2026' : '2025'}): ${res.status} ${text.slice(0, 300)}`);
  }
  // PAIR=me: whoami against GET /v1/me (the protocol's own cost, little tool work); default get_task against the task.
  const pair = process.env.BENCH_PAIR ?? 'context';
  const me = pair === 'me';
  const restPath = {
    me: '/v1/me', task: `/v1/tasks/${task.key}`, context: `/v1/tasks/${task.key}/context`, search: '/v1/tasks?assigneeId=me&category=progress',
  }[pair];
  if (!restPath) throw new Error(`BENCH_PAIR: one of task, context, me, search (not ${pair})`);
  const restRequest = { method: 'GET', path: restPath };
  const [tool, toolArgs] = me ? ['whoami', {}] : pair === 'search' ? SEARCH : ['get_task', { task: task.key }];
  console.log(`REST ${restRequest.path} against MCP tools/call ${tool}`);
  const sums = { rest: 0, legacy: 0, modern: 0 };
  const rows = [];
  for (let round = 1; round <= ROUNDS; round++) {
    const rest = await measure(`REST ${restRequest.path}`, api.base, token, restRequest);
    const legacy = await measure(`MCP tools/call ${tool}, 2025-11-25`, mcp.base, token, toolCall(false, tool, toolArgs));
    const modern = await measure(`MCP tools/call ${tool}, 2026-07-28`, mcp.base, token, toolCall(true, tool, toolArgs));
    for (const r of [rest, legacy, modern]) if (r.failed > 0) throw new Error(`${r.scenario}: ${r.failed} failed requests`);
    sums.rest += rest['req/s'];
    sums.legacy += legacy['req/s'];
    sums.modern += modern['req/s'];
    rows.push({ round, rest: rest['req/s'], legacy: legacy['req/s'], modern: modern['req/s'], 'p99 ms (rest/2025/2026)': `${rest['p99 ms']} / ${legacy['p99 ms']} / ${modern['p99 ms']}` });
    console.log(`  round ${round}: REST ${rest['req/s']} req/s, MCP 2025 ${legacy['req/s']}, MCP 2026 ${modern['req/s']}`);
  }
  console.log('\n| round | REST req/s | MCP 2025-11-25 req/s | MCP 2026-07-28 req/s | p99 ms (REST / 2025 / 2026) |\n| ---: | ---: | ---: | ---: | ---: |');
  for (const r of rows) console.log(`| ${r.round} | ${r.rest} | ${r.legacy} | ${r.modern} | ${r['p99 ms (rest/2025/2026)']} |`);
  console.log(`\nMCP / REST by key: 2025-11-25 ${(sums.legacy / sums.rest).toFixed(2)}x, 2026-07-28 ${(sums.modern / sums.rest).toFixed(2)}x (goal 0.9x)`);
} finally {
  await mcp?.stop();
  await api.stop();
  await db.destroy();
  await drop();
}
