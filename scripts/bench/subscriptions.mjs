#!/usr/bin/env -S npx tsx
// Live subscriptions on one mcp process (built output, PostgreSQL + Redis): opens BENCH_STREAMS (1000)
// subscriptions/listen streams on one task, then changes the task through the API process BENCH_CHANGES (5) times
// and reports how long until every stream heard each change (p50, p99, all), and the mcp process's memory per open
// stream (resident set size before and after opening them).
//   pnpm run build && npx tsx scripts/bench/subscriptions.mjs
// Env: BENCH_DATABASE_URL (server to create tt_bench_subs on; default the local PostgreSQL), BENCH_REDIS_URL
// (default redis://127.0.0.1:6379), BENCH_STREAMS (1000), BENCH_CHANGES (5).
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { performance } from 'node:perf_hooks';
import { ADMIN_TOKEN, BENCH_SCOPES, benchWorkspace, call, freshDatabase, startBuiltApi } from './lib.mjs';
import { startBuiltMcp } from './mcp-process.mjs';

const DB = 'tt_bench_subs';
const STREAMS = Number(process.env.BENCH_STREAMS ?? 1000);
const CHANGES = Number(process.env.BENCH_CHANGES ?? 5);
const PER_KEY = 10; // the gateway's bound of open streams per key
process.env.BENCH_REDIS_URL ??= 'redis://127.0.0.1:6379';
// A queue and change feed of their own, so nothing else on this Redis is touched.
process.env.QUEUE_PREFIX = `tt-bench-${randomBytes(4).toString('hex')}`;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
const rssMb = (pid) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))[1]) / 1024;

/** Opens one listen stream; resolves once acknowledged. `heard` gets the time of every resources/updated. */
function openStream(base, token, uri, id) {
  const body = JSON.stringify({
    jsonrpc: '2.0', id, method: 'subscriptions/listen',
    params: {
      _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientInfo': { name: 'bench', version: '1' }, 'io.modelcontextprotocol/clientCapabilities': {} },
      notifications: { resourceSubscriptions: [uri] },
    },
  });
  const stream = { heard: [], req: undefined };
  return new Promise((resolve, reject) => {
    const req = request(`${base}/mcp`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${token}`,
        'mcp-protocol-version': '2026-07-28', 'mcp-method': 'subscriptions/listen',
      },
    }, (res) => {
      let buffer = '';
      res.setEncoding('utf8');
      res.on('data', (chunk) => {
        buffer += chunk;
        let end;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const frame = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const data = frame.split('\n').find((l) => l.startsWith('data:'));
          if (!data) continue;
          const msg = JSON.parse(data.slice(5));
          if (msg.method === 'notifications/subscriptions/acknowledged') resolve(stream);
          else if (msg.method === 'notifications/resources/updated') stream.heard.push(performance.now());
          else if (msg.error) reject(new Error(`listen refused: ${JSON.stringify(msg.error)}`));
        }
      });
      if (res.statusCode !== 200 || !String(res.headers['content-type']).startsWith('text/event-stream')) {
        res.on('end', () => reject(new Error(`listen answered ${res.statusCode}: ${buffer}`)));
      }
    });
    req.on('error', reject);
    req.end(body);
    stream.req = req;
  });
}

async function main() {
  const drop = await freshDatabase(DB);
  let api;
  let mcp;
  const streams = [];
  try {
    api = await startBuiltApi(DB);
    mcp = await startBuiltMcp(DB);
    const { userIds, token } = await benchWorkspace(api.base, 1);
    const project = (await call(api.base, token, 'POST', '/v1/projects', { name: 'Bench', key: 'BEN', template: 'simple' })).data;
    const task = (await call(api.base, token, 'POST', '/v1/tasks', { projectId: project.id, title: 'Watched task' })).data;
    const keys = [];
    for (let i = 0; i < Math.ceil(STREAMS / PER_KEY); i++) {
      keys.push((await call(api.base, ADMIN_TOKEN, 'POST', `/admin/v1/users/${userIds[0]}/keys`, { scopes: BENCH_SCOPES })).data.token);
    }
    await sleep(1000);
    const before = rssMb(mcp.pid);
    const opening = performance.now();
    for (let i = 0; i < STREAMS; i += 50) {
      const batch = [];
      for (let j = i; j < Math.min(STREAMS, i + 50); j++) batch.push(openStream(mcp.base, keys[Math.floor(j / PER_KEY)], `task://${task.key}`, j + 1));
      streams.push(...(await Promise.all(batch)));
    }
    const openMs = performance.now() - opening;
    await sleep(2000);
    const after = rssMb(mcp.pid);
    const rows = [];
    for (let c = 0; c < CHANGES; c++) {
      const t0 = performance.now();
      await call(api.base, token, 'PATCH', `/v1/tasks/${task.key}`, { title: `Watched task ${c}` });
      const answered = performance.now() - t0;
      const deadline = t0 + 10_000;
      while (streams.some((s) => s.heard.length <= c) && performance.now() < deadline) await sleep(2);
      const times = streams.map((s) => (s.heard[c] ?? Infinity) - t0).sort((a, b) => a - b);
      rows.push({ change: c + 1, answered, p50: percentile(times, 50), p99: percentile(times, 99), all: times[times.length - 1], missed: times.filter((t) => t === Infinity).length });
      await sleep(300);
    }
    console.log(`\n${STREAMS} listen streams on one mcp process, opened in ${(openMs / 1000).toFixed(1)} s; a REST PATCH of the watched task, ${CHANGES} times`);
    console.log('Times from sending the PATCH: its answer, then the streams hearing the change.');
    console.log('| change | PATCH answered ms | p50 heard ms | p99 heard ms | all heard ms | missed |');
    console.log('| --- | --- | --- | --- | --- | --- |');
    for (const r of rows) console.log(`| ${r.change} | ${r.answered.toFixed(0)} | ${r.p50.toFixed(0)} | ${r.p99.toFixed(0)} | ${r.all.toFixed(0)} | ${r.missed} |`);
    console.log(`mcp process RSS: ${before.toFixed(1)} MB before, ${after.toFixed(1)} MB with ${STREAMS} streams: ${(((after - before) * 1024) / STREAMS).toFixed(1)} KB per stream`);
  } finally {
    for (const s of streams) s.req?.destroy();
    await mcp?.stop();
    await api?.stop();
    await drop();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
