#!/usr/bin/env -S npx tsx
// Node CPU per request of the mcp process against the API's, read from /proc (user + system time of each process
// over N requests at 4 connections), in interleaved rounds with the median per case: less sensitive to a busy machine
// than req/s, since it counts the process's own work and not the wait for a core. Cases: REST /context, /me and
// /tasks?assigneeId=me&category=progress, and tools/call get_task, whoami and search_tasks in both eras;
// OLD_MCP=<path to another build's apps/mcp/dist/main.js> adds the same calls against that build on the same database
// (an A/B of a change to the gateway).
//   pnpm run build && npx tsx scripts/bench/mcp-cpu.mjs
// Env: N (1500 requests per case and round), ROUNDS (5), OLD_MCP, CASES, BENCH_DATABASE_URL. Linux only (/proc).
import autocannon from 'autocannon';
import { readFileSync } from 'node:fs';
import { benchWorkspace, call, freshDatabase, startBuiltApi } from './lib.mjs';
import { progressTasks, startBuiltMcp, toolCallRequest } from './mcp-process.mjs';
// Its own database per run (freshDatabase drops one of the same name WITH (FORCE), under any other run using it).
const NAME = `tt_bench_mcp_cpu_${process.pid}`;
const drop = await freshDatabase(NAME);
const api = await startBuiltApi(NAME);
const { token, userIds } = await benchWorkspace(api.base, 5);
const project = (await call(api.base, token, 'POST', '/v1/projects', { name: 'Bench', key: 'BEN', template: 'scrum' })).data;
const task = (await call(api.base, token, 'POST', '/v1/tasks', { title: 'Read me', projectId: project.id, description: 'A task read three ways.' })).data;
await progressTasks(api.base, token, project, userIds[0]);
let mcp;
let old;
try {
  mcp = await startBuiltMcp(NAME);
  old = process.env.OLD_MCP ? await startBuiltMcp(NAME, process.env.OLD_MCP) : undefined;
  /** User + system CPU time of process `pid`, in ms (clock ticks of 10 ms). */
  const cpu = (pid) => { const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' '); return (Number(f[11]) + Number(f[12])) * 10; };
  const N = Number(process.env.N ?? 1500);
  const cases = [
    ['REST /context', api, { method: 'GET', path: `/v1/tasks/${task.key}/context` }],
    ['REST /me', api, { method: 'GET', path: '/v1/me' }],
    ['REST /tasks?progress', api, { method: 'GET', path: '/v1/tasks?assigneeId=me&category=progress' }],
  ];
  for (const [tag, proc] of [['new', mcp], ...(old ? [['old', old]] : [])]) cases.push(
    [`${tag} get_task 2025`, proc, toolCallRequest(false, 'get_task', { task: task.key })],
    [`${tag} get_task 2026`, proc, toolCallRequest(true, 'get_task', { task: task.key })],
    [`${tag} whoami 2025`, proc, toolCallRequest(false, 'whoami', {})],
    [`${tag} whoami 2026`, proc, toolCallRequest(true, 'whoami', {})],
    [`${tag} search_tasks 2025`, proc, toolCallRequest(false, 'search_tasks', { assignee: 'me', category: 'progress' })],
    [`${tag} search_tasks 2026`, proc, toolCallRequest(true, 'search_tasks', { assignee: 'me', category: 'progress' })]);
  // CASES: a regular expression; only the cases whose label matches run (e.g. `whoami|/me`), for a longer A/B of a few.
  const only = new RegExp(process.env.CASES ?? '');
  const picked = cases.filter(([label]) => only.test(label));
  const got = new Map();
  for (let round = 0; round < Number(process.env.ROUNDS ?? 5); round++) for (const [label, proc, req] of picked) {
    const opts = { url: proc.base, connections: 4, headers: { authorization: `Bearer ${token}` }, requests: [req] };
    await autocannon({ ...opts, amount: 200 });
    const c0 = cpu(proc.pid); const r = await autocannon({ ...opts, amount: N }); const c1 = cpu(proc.pid);
    if (r.non2xx) throw new Error(`${label}: ${r.non2xx} non-2xx`);
    got.set(label, [...(got.get(label) ?? []), (c1 - c0) / N * 1000]);
  }
  const med = (a) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)];
  for (const [label, a] of got) console.log(label.padEnd(20), String(Math.round(med(a))).padStart(5), 'µs node CPU/request (median)', a.map(Math.round).join(' '));
} finally {
  await old?.stop(); await mcp?.stop(); await api.stop(); await drop();
}
