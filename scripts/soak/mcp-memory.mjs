#!/usr/bin/env -S npx tsx
// The mcp process's memory under a mixed agent load (built output, PostgreSQL; Redis when BENCH_REDIS_URL is set):
// every read tool, tools/list, prompts (list, get), resources (list, templates, read), completions and
// server/discover or initialize, in both eras, and subscriptions/listen streams opened and closed, at a fixed rate.
//
// It reports, per minute: requests, errors, the highest resident set size (VmRSS, sampled every second), and the live
// heap after the last full collection (V8's own figure from --trace-gc-nvp); before the soak, the bytes each request
// promotes into the old space, per era (the sum of the scavenges' `promoted` over a calibration run, less an idle
// baseline, divided by its requests). The verdict counts in the exit code: after the settling minutes, every
// minute's highest RSS stays under --limit-mb, and no minute's highest is more than --rise-mb above the first
// settled minute's (the ceiling does not rise). Any failed request fails the run too.
//
//   pnpm run build && pnpm run soak:mcp-memory --minutes 10 --rate 120
//   (--help for the options; BENCH_DATABASE_URL names the PostgreSQL server, default the local one; MCP_NODE runs the mcp
//   process on another node binary, MCP_MAIN runs another build's apps/mcp/dist/main.js, for an A/B)
/* global AbortSignal */
import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { clearInterval, setInterval } from 'node:timers';
import { parseArgs } from 'node:util';
import { ADMIN_TOKEN, benchWorkspace, call, freshDatabase, startBuiltApi } from '../bench/lib.mjs';
import { startBuiltMcp } from '../bench/mcp-process.mjs';

const { values } = parseArgs({
  options: {
    minutes: { type: 'string', default: '10' },
    rate: { type: 'string', default: '120' },
    'settle-minutes': { type: 'string', default: '2' },
    'limit-mb': { type: 'string', default: '200' },
    'rise-mb': { type: 'string', default: '15' },
    calibrate: { type: 'string', default: '3000' },
    only: { type: 'string' },
    era: { type: 'string', default: 'both' },
    help: { type: 'boolean', default: false },
  },
});
if (values.help) {
  console.log('node scripts/soak/mcp-memory.mjs [--minutes 10] [--rate 120] [--settle-minutes 2] [--limit-mb 200] [--rise-mb 15] [--calibrate 3000] [--only op,op] [--era 2025|2026|both]');
  process.exit(0);
}
const minutes = Number(values.minutes);
const rate = Number(values.rate);
const settle = Math.min(Number(values['settle-minutes']), Math.max(0, minutes - 1));
const limitMb = Number(values['limit-mb']);
const riseMb = Number(values['rise-mb']);
const calibrate = Number(values.calibrate);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const round1 = (x) => Math.round(x * 10) / 10;

// ---------------------------------------------------------------- the mcp process, with V8's GC trace on its stdout

/**
 * GC events of the process, from --trace-gc-nvp lines (name=value pairs up to Node.js 24, a JSON object after "GC:" on
 * 26): scavenges' promoted bytes, full collections' live heap.
 */
const gc = { promoted: 0, scavenges: 0, liveAfterFull: [], fulls: 0 };
function readGcTrace(line) {
  let kind;
  let promoted;
  let after;
  const json = line.indexOf('GC: {');
  if (json >= 0) {
    let e;
    try {
      e = JSON.parse(line.slice(json + 4));
    } catch {
      return;
    }
    kind = e.gc;
    promoted = e.promoted;
    after = e.end_object_size ?? e.total_size_after;
  } else {
    if (!line.includes('pause=')) return;
    kind = / gc=(\w+)/.exec(line)?.[1];
    promoted = Number(/ promoted=(\d+)/.exec(line)?.[1] ?? 0);
    after = Number(/ total_size_after=(\d+)/.exec(line)?.[1] ?? NaN);
  }
  if (typeof promoted === 'number' && Number.isFinite(promoted)) gc.promoted += promoted;
  if (kind === 's') gc.scavenges++;
  if (kind === 'mc' || kind === 'mmc') {
    if (Number.isFinite(after)) gc.liveAfterFull.push({ t: Date.now(), bytes: after });
    gc.fulls++;
  }
}

const startMcp = (dbName) => startBuiltMcp(dbName, process.env.MCP_MAIN ?? undefined, { node: process.env.MCP_NODE, args: ['--trace-gc-nvp'], onLine: readGcTrace });

/** V8's heap by space and Node's external memory, from the process's Prometheus metrics (prom-client's defaults). */
async function heapSpaces(base) {
  const text = await fetch(`${base}/metrics`).then((r) => r.text(), () => '');
  const mb = (re) => Number(re.exec(text)?.[1] ?? NaN) / 1048576;
  const spaces = [...text.matchAll(/^nodejs_heap_space_size_total_bytes\{space="(\w+)"\} (\d+)/gm)].map(([, name, bytes]) => `${name.replace(/_space$/, '')} ${round1(Number(bytes) / 1048576)}`);
  return `heap ${round1(mb(/^nodejs_heap_size_total_bytes (\d+)/m))} MB (${spaces.join(', ')}), external ${round1(mb(/^nodejs_external_memory_bytes (\d+)/m))} MB`;
}

const rssMb = (pid) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))[1]) / 1024;

// ---------------------------------------------------------------- the requests

const META = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientInfo': { name: 'soak', version: '1' }, 'io.modelcontextprotocol/clientCapabilities': {} };

/** One JSON-RPC request in an era; resolves true when answered without a JSON-RPC error or a tool error. */
async function rpc(base, token, modern, method, params = {}, name = undefined) {
  const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${token}` };
  if (modern) Object.assign(headers, { 'mcp-protocol-version': '2026-07-28', 'mcp-method': method, ...(name ? { 'mcp-name': name } : {}) });
  else if (method !== 'initialize') headers['mcp-protocol-version'] = '2025-11-25';
  const res = await fetch(`${base}/mcp`, {
    method: 'POST', headers, signal: AbortSignal.timeout(10_000),
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: modern ? { ...params, _meta: META } : params }),
  });
  const text = await res.text();
  if (!res.ok) return `http ${res.status}`;
  const data = text.startsWith('event:') || text.startsWith('data:') ? text.split('\n').filter((l) => l.startsWith('data:')).at(-1).slice(5) : text;
  const msg = JSON.parse(data);
  if (msg.error) return `rpc ${msg.error.code}`;
  if (msg.result?.isError) return `tool error: ${msg.result.content?.[0]?.text?.slice(0, 80)}`;
  return true;
}

/** A subscriptions/listen stream opened, held until acknowledged and a little longer, then closed by the client. */
function listen(base, token, uri) {
  const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'subscriptions/listen', params: { _meta: META, notifications: { resourceSubscriptions: [uri] } } });
  return new Promise((resolve) => {
    const timer = setTimeout(() => (req.destroy(), resolve('listen: no acknowledgement in 5 s')), 5_000);
    const req = request(`${base}/mcp`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${token}`,
        'mcp-protocol-version': '2026-07-28', 'mcp-method': 'subscriptions/listen',
      },
    }, (res) => {
      res.setEncoding('utf8');
      res.on('data', (chunk) => {
        if (chunk.includes('notifications/subscriptions/acknowledged')) {
          clearTimeout(timer);
          setTimeout(() => (req.destroy(), resolve(true)), 300);
        } else if (chunk.includes('"error"')) {
          clearTimeout(timer);
          req.destroy();
          resolve(`listen refused: ${chunk.slice(0, 120)}`);
        }
      });
      res.on('error', () => undefined);
    });
    req.on('error', () => undefined);
    req.end(body);
  });
}

/** The mix: each entry runs in both eras (listen only on 2026-07-28, where it exists). */
function operations(fx) {
  const tool = (name, args) => (base, token, modern) => rpc(base, token, modern, 'tools/call', { name, arguments: args }, name);
  const method = (m, params, name) => (base, token, modern) => rpc(base, token, modern, m, params, name);
  const hello = (base, token, modern) => (modern
    ? rpc(base, token, true, 'server/discover')
    : rpc(base, token, false, 'initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'soak', version: '1' } }));
  return [
    ['hello', hello],
    ['tools/list', method('tools/list')],
    ['whoami', tool('whoami', {})],
    ['list_projects', tool('list_projects', {})],
    ['list_users', tool('list_users', {})],
    ['search_tasks', tool('search_tasks', {})],
    ['get_task', tool('get_task', { task: fx.taskKey })],
    ['list_docs', tool('list_docs', {})],
    ['get_doc', tool('get_doc', { doc: fx.docId })],
    ['list_meetings', tool('list_meetings', {})],
    ['time_report', tool('time_report', {})],
    ['list_activity', tool('list_activity', {})],
    ['prompts/list', method('prompts/list')],
    ['prompts/get', method('prompts/get', { name: 'brief_task', arguments: { task: fx.taskKey } }, 'brief_task')],
    ['resources/list', method('resources/list')],
    ['resources/templates/list', method('resources/templates/list')],
    ['resources/read', method('resources/read', { uri: `task://${fx.taskKey}` }, `task://${fx.taskKey}`)],
    ['completion', method('completion/complete', { ref: { type: 'ref/resource', uri: 'task://{key}' }, argument: { name: 'key', value: fx.taskKey.slice(0, 2) } })],
    ['listen', (base, token, modern) => (modern ? listen(base, token, `task://${fx.taskKey}`) : rpc(base, token, false, 'tools/call', { name: 'get_task', arguments: { task: fx.taskKey } }))],
  ];
}

// ---------------------------------------------------------------- run

// Its own database per run: freshDatabase drops a database of the same name WITH (FORCE), so two runs on one server
// (another checkout's, CI's report) would otherwise pull the database from under each other.
const NAME = `tt_bench_mcp_memory_${process.pid}`;
const drop = await freshDatabase(NAME);
const api = await startBuiltApi(NAME);
let mcp;
let exitCode = 0;
try {
  const { token, workspaceId } = await benchWorkspace(api.base, 3);
  const space = (await call(api.base, ADMIN_TOKEN, 'POST', `/admin/v1/workspaces/${workspaceId}/doc-spaces`, { name: 'Soak' })).data;
  const project = (await call(api.base, token, 'POST', '/v1/projects', { name: 'Soak', key: 'SOK', template: 'scrum' })).data;
  let task;
  for (let i = 0; i < 20; i++) task = (await call(api.base, token, 'POST', '/v1/tasks', { title: `Soak task ${i}`, projectId: project.id, description: 'Read by the memory soak. '.repeat(20) })).data;
  await call(api.base, token, 'POST', `/v1/tasks/${task.key}/comments`, { text: 'A comment to read.' });
  const doc = (await call(api.base, token, 'POST', '/v1/docs', { spaceId: space.id, title: 'Soak page', content: '# Soak\n\nA page to read.', taskIds: [task.id] })).data;
  const ops = operations({ taskKey: task.key, docId: doc.id }).filter(([name]) => !values.only || values.only.split(',').includes(name));
  mcp = await startMcp(NAME);
  console.log(`mcp pid ${mcp.pid}; ${ops.length} operations x 2 eras; calibration ${calibrate} requests per era, then ${minutes} min at ${rate} req/s`);

  // Every operation once per era: a failing one stops the run before any figure.
  for (const modern of [false, true]) for (const [name, op] of ops) {
    const r = await op(mcp.base, token, modern);
    if (r !== true) throw new Error(`${name} (${modern ? '2026-07-28' : '2025'}) failed: ${r}`);
  }

  // Bytes promoted per request, per era: a calibration run (4 at a time) against an idle stretch of the same length.
  const promotedOver = async (work) => {
    const p0 = gc.promoted;
    const t0 = Date.now();
    const n = await work();
    return { bytes: gc.promoted - p0, ms: Date.now() - t0, n };
  };
  const perEra = {};
  const eras = values.era === '2025' ? [false] : values.era === '2026' ? [true] : [false, true];
  for (const modern of eras) {
    const run = await promotedOver(async () => {
      let i = 0;
      const worker = async () => { while (i < calibrate) { const [, op] = ops[i++ % ops.length]; await op(mcp.base, token, modern); } };
      await Promise.all([worker(), worker(), worker(), worker()]);
      return calibrate;
    });
    const idle = await promotedOver(async () => (await sleep(Math.min(run.ms, 5_000)), 0));
    const idleBytes = idle.bytes * (run.ms / Math.max(idle.ms, 1));
    perEra[modern ? '2026-07-28' : '2025-11-25'] = (run.bytes - idleBytes) / calibrate / 1024;
  }
  for (const [era, kb] of Object.entries(perEra)) console.log(`promoted per request, ${era}: ${round1(kb)} KB (mix of ${ops.length} operations)`);

  // The soak: an open loop at `rate`, round-robin over operations and eras.
  const perMinute = [];
  const t0 = Date.now();
  let current = { requests: 0, errors: 0, rss: 0, codes: new Map() };
  const sampler = setInterval(() => { current.rss = Math.max(current.rss, rssMb(mcp.pid)); }, 1_000);
  const closeMinute = async () => {
    const live = gc.liveAfterFull.at(-1);
    const row = { minute: perMinute.length + 1, ...current, live: live ? live.bytes / 1048576 : NaN };
    perMinute.push(row);
    const codes = [...row.codes].map(([c, n]) => `${c} x${n}`).join('; ');
    console.log(`[${row.minute} min] ${row.requests} requests, ${row.errors} errors${codes ? ` (${codes})` : ''}; highest RSS ${round1(row.rss)} MB; live heap after the last full GC ${round1(row.live)} MB; ${await heapSpaces(mcp.base)}`);
    current = { requests: 0, errors: 0, rss: 0, codes: new Map() };
  };
  const minuteTimer = setInterval(() => void closeMinute(), 60_000);
  let k = 0;
  const pending = new Set();
  const endAt = t0 + minutes * 60_000;
  const interval = 1000 / rate;
  let next = Date.now();
  while (Date.now() < endAt) {
    const [, op] = ops[Math.floor(k / 2) % ops.length];
    const modern = k % 2 === 1;
    k++;
    const bucket = current;
    const p = op(mcp.base, token, modern).catch((e) => `thrown: ${e.message}`).then((r) => {
      bucket.requests++;
      if (r !== true) { bucket.errors++; bucket.codes.set(r, (bucket.codes.get(r) ?? 0) + 1); }
    });
    pending.add(p);
    p.finally(() => pending.delete(p));
    next += interval;
    const wait = next - Date.now();
    if (wait > 0) await sleep(wait);
  }
  await Promise.all(pending);
  clearInterval(minuteTimer);
  clearInterval(sampler);
  if (current.requests) await closeMinute();

  const settled = perMinute.filter((m) => m.minute > settle);
  const first = settled[0]?.rss ?? NaN;
  const ceiling = Math.max(...settled.map((m) => m.rss));
  const errors = perMinute.reduce((s, m) => s + m.errors, 0);
  const problems = [];
  if (errors) problems.push(`${errors} failed requests`);
  const over = settled.filter((m) => m.rss > limitMb);
  if (over.length) problems.push(`RSS over ${limitMb} MB in minute(s) ${over.map((m) => `${m.minute} (${round1(m.rss)} MB)`).join(', ')}`);
  const rose = settled.filter((m) => m.rss > first + riseMb);
  if (rose.length) problems.push(`the ceiling rose more than ${riseMb} MB above minute ${settle + 1}'s ${round1(first)} MB in minute(s) ${rose.map((m) => `${m.minute} (${round1(m.rss)} MB)`).join(', ')}`);
  const lives = gc.liveAfterFull.filter((x) => x.t >= t0).map((x) => x.bytes / 1048576);

  console.log('\n## mcp memory soak\n');
  console.log(`${round1((Date.now() - t0) / 60_000)} min at ${rate} req/s over ${ops.length} operations x 2 eras; settling ${settle} min; ` +
    `${perMinute.reduce((s, m) => s + m.requests, 0)} requests, ${errors} failed; ${gc.scavenges} scavenges, ${gc.fulls} full collections.\n`);
  console.log('| minute | requests | errors | highest RSS MB | live heap after full GC MB |\n| ---: | ---: | ---: | ---: | ---: |');
  for (const m of perMinute) console.log(`| ${m.minute}${m.minute <= settle ? ' (settling)' : ''} | ${m.requests} | ${m.errors} | ${round1(m.rss)} | ${round1(m.live)} |`);
  console.log(`\nceiling after settling: ${round1(ceiling)} MB (first settled minute ${round1(first)} MB); live heap after full collections: ` +
    `${lives.length ? `${round1(Math.min(...lives))}–${round1(Math.max(...lives))} MB` : 'no full collection'}; ` +
    `promoted per request: ${Object.entries(perEra).map(([e, kb]) => `${e} ${round1(kb)} KB`).join(', ')}`);
  if (problems.length) {
    console.log(`\nFAILED: ${problems.join('; ')}`);
    exitCode = 1;
  } else if (!settled.length) console.log('\nOK: no failed request (no settled minute to judge the RSS by: a calibration only)');
  else console.log(`\nOK: every settled minute's highest RSS under ${limitMb} MB, the ceiling within ${riseMb} MB of its first minute, no failed request`);
} catch (err) {
  console.error(err);
  exitCode = 1;
} finally {
  await mcp?.stop();
  await api.stop();
  await drop();
}
process.exit(exitCode);
