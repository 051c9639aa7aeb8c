#!/usr/bin/env node
// Rolling restart under load: the production topology (2 api behind the proxy, 2 mcp behind a proxy of their own,
// worker; built output, PostgreSQL + Redis, a fresh database; the proxies follow each replica's /ready, as a
// Kubernetes Service does) with a steady open-loop load of REST reads and writes and MCP tool calls; then api-1,
// api-2, mcp-1, mcp-2 and the worker in turn get SIGTERM, are waited for (they drain: /ready 503 at once, serving for
// SHUTDOWN_DRAIN_MS, then close) and started again on the same port until ready. Reports the requests that failed in
// each phase, the stopped processes' exit codes and drain timings, and lost or duplicated notifications and webhook
// deliveries. Exit code 1 when any request or tool call failed, a process exited other than 0, or something was lost
// or doubled.
//
//   node scripts/soak/rolling-restart.mjs --rate 20
//   (build first: npx -y pnpm@12.21.0 run build; --help for the options)
/* global AbortSignal */
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import {
  Tally, checkDeliveries, createLedger, deliveryProblems, deliveryTable, env, MIX, openLoop, round1, runKind,
  setUpFixtures, startReceiver, startSoakTopology, weightedPicker,
} from './common.mjs';

const { values } = parseArgs({
  options: {
    rate: { type: 'string', default: '20' },
    'steady-seconds': { type: 'string', default: '10' },
    'settle-seconds': { type: 'string', default: '5' },
    'drain-ms': { type: 'string', default: '5000' },
    'database-url': { type: 'string', default: env('DATABASE_URL', 'postgres://postgres@127.0.0.1:5432/postgres') },
    'redis-url': { type: 'string', default: env('REDIS_URL', 'redis://127.0.0.1:6379') },
    keep: { type: 'boolean', default: false },
    help: { type: 'boolean', default: false },
  },
});
if (values.help) {
  console.log(`usage: node scripts/soak/rolling-restart.mjs [options]   (after npx -y pnpm@12.21.0 run build)
  --rate R             requests per second during the whole run, open loop (20)
  --steady-seconds S   load before the first restart (10)
  --settle-seconds S   load after each restart before the next one (5)
  --drain-ms MS        SHUTDOWN_DRAIN_MS of api and mcp (5000, the production default)
  --database-url URL   PostgreSQL whose user may create databases (DATABASE_URL, else postgres://postgres@127.0.0.1:5432/postgres)
  --redis-url URL      Redis (REDIS_URL, else redis://127.0.0.1:6379); the run uses its own queue prefix and deletes its keys
  --keep               keep the database and the Redis keys`);
  process.exit(0);
}
const rate = Number(values.rate);
const ORDER = ['api-1', 'api-2', 'mcp-1', 'mcp-2', 'worker'];

const receiver = await startReceiver();
const ledger = createLedger();
console.log('starting the topology (2 api behind the proxy, 2 mcp behind theirs, worker)');
const run = await startSoakTopology({
  databaseUrl: values['database-url'], redisUrl: values['redis-url'], env: { SHUTDOWN_DRAIN_MS: values['drain-ms'] }, mcpReplicas: 2,
});
const { topo } = run;
let exitCode = 0;

/** Watches one process's /ready while it stops: when it first answered 503 and when it first refused connections. */
function watchStop(url, t0) {
  const seen = { draining: undefined, refused: undefined, status: undefined };
  let on = true;
  const loop = (async () => {
    while (on && seen.refused === undefined) {
      try {
        const res = await fetch(`${url}/ready`, { signal: AbortSignal.timeout(1_000) });
        if (res.status === 503 && seen.draining === undefined) {
          seen.draining = Math.round(performance.now() - t0);
          seen.status = (await res.json().catch(() => ({}))).status;
        } else await res.arrayBuffer();
      } catch (err) {
        // Refused, or a connection cut as the server closed: it no longer serves.
        if (err.name !== 'TimeoutError') seen.refused = Math.round(performance.now() - t0);
      }
      await sleep(50);
    }
  })();
  return async () => {
    on = false;
    await loop;
    return seen;
  };
}

try {
  const fx = await setUpFixtures({ apiUrl: topo.apiUrl, adminToken: topo.adminToken, receiver, ledger });
  console.log(`database ${run.db.name}; SHUTDOWN_DRAIN_MS ${values['drain-ms']}; load ${rate} req/s (${Object.entries(MIX).map(([k, w]) => `${k} ${w}`).join(', ')} %)`);

  const phases = [];
  let phase;
  const enter = (name) => {
    if (phase) phase.ms = Math.round(performance.now() - phase.started);
    phase = { name, started: performance.now(), tally: new Tally() };
    phases.push(phase);
    console.log(`phase: ${name}`);
  };
  enter('steady');
  let loadDone = false;
  const load = openLoop({
    rate, until: () => loadDone, pick: weightedPicker(MIX),
    exec: (kind) => {
      const p = phase; // the phase the request was sent in
      return runKind(kind, { apiUrl: topo.apiUrl, mcpUrl: topo.mcpUrl, fx, ledger }).then((r) => ({ ...r, p }));
    },
    onResult: (kind, ms, r) => r.p.tally.record(kind, ms, r.ok, r.code),
  });
  await sleep(Number(values['steady-seconds']) * 1000);

  const restarts = [];
  for (const name of ORDER) {
    const before = topo.processes().find((p) => p.name === name);
    enter(`${name} restart`);
    const t0 = performance.now();
    const stopWatch = watchStop(before.url, t0);
    const result = await topo.stopProcess(name, 'SIGTERM');
    const exitedMs = Math.round(performance.now() - t0);
    const seen = await stopWatch();
    await topo.startProcess(name);
    const readyMs = Math.round(performance.now() - t0);
    const after = topo.processes().find((p) => p.name === name);
    restarts.push({ name, oldPid: before.pid, newPid: after.pid, code: result?.code, signal: result?.signal, exitedMs, readyMs, ...seen });
    console.log(`  ${name}: pid ${before.pid} exited ${result?.code ?? result?.signal} after ${exitedMs} ms (/ready ${seen.status ?? '?'} at ${seen.draining ?? '-'} ms, refused at ${seen.refused ?? '-'} ms); pid ${after.pid} ready at ${readyMs} ms`);
    enter(`after ${name}`);
    await sleep(Number(values['settle-seconds']) * 1000);
  }
  loadDone = true;
  await load;
  phase.ms = Math.round(performance.now() - phase.started);

  console.log('\nload done; waiting for the worker to deliver every notification and webhook (at most 60 s)');
  const deliveries = await checkDeliveries({ pool: run.pool, fx, ledger, receiver });

  const isMcp = (kind) => kind.startsWith('mcp_');
  const phaseRows = phases.map((p) => {
    const rows = p.tally.rows();
    const part = (f) => rows.filter((r) => f(r.kind));
    const count = (rs, k) => rs.reduce((s, r) => s + r[k], 0);
    const codes = rows.filter((r) => r.errors).map((r) => `${r.kind}: ${r.codes}`).join('; ');
    return {
      name: p.name, seconds: round1(p.ms / 1000),
      rest: { requests: count(part((k) => !isMcp(k)), 'requests'), failed: count(part((k) => !isMcp(k)), 'errors') },
      mcp: { requests: count(part(isMcp), 'requests'), failed: count(part(isMcp), 'errors') },
      p99: Math.max(...rows.map((r) => r.p99)), codes,
    };
  });

  const problems = [];
  for (const r of phaseRows) {
    if (r.rest.failed) problems.push(`${r.rest.failed} REST requests through the proxy failed in "${r.name}"`);
    if (r.mcp.failed) problems.push(`${r.mcp.failed} MCP calls through the proxy failed in "${r.name}"`);
  }
  for (const r of restarts) if (r.code !== 0) problems.push(`${r.name} exited with ${r.code ?? r.signal}`);
  problems.push(...deliveryProblems(deliveries));

  console.log('\n## Rolling restart summary\n');
  console.log(`${rate} req/s open loop (REST and MCP, each through its proxy), SHUTDOWN_DRAIN_MS ${values['drain-ms']}; ` +
    `each process SIGTERMed, waited for, started again on its port and waited for until ready, one after the other.\n`);
  console.log('| phase | s | REST requests | REST failed | MCP calls | MCP failed | worst p99 ms | failures |\n| --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |');
  for (const r of phaseRows) console.log(`| ${r.name} | ${r.seconds} | ${r.rest.requests} | ${r.rest.failed} | ${r.mcp.requests} | ${r.mcp.failed} | ${r.p99} | ${r.codes || '-'} |`);
  console.log('\n| process | /ready 503 after SIGTERM | refusing after | exited after | exit code | new process ready after |\n| --- | ---: | ---: | ---: | ---: | ---: |');
  for (const r of restarts) {
    console.log(`| ${r.name} | ${r.draining === undefined ? '-' : `${r.draining} ms (${r.status})`} | ${r.refused ?? '-'} ms | ${r.exitedMs} ms | ${r.code ?? r.signal} | ${r.readyMs} ms |`);
  }
  console.log('');
  console.log(deliveryTable(deliveries));
  for (const [name, stats] of [['api proxy', topo.proxyStats()], ['mcp proxy', topo.mcpProxyStats()]]) {
    if (stats) console.log(`${name}: ${stats.total} requests, by upstream ${stats.upstreams.map((u) => `${u.url} ${u.requests}`).join(', ')}`);
  }
  if (problems.length) {
    console.log(`\nFAILED: ${problems.join('; ')}`);
    exitCode = 1;
  } else console.log('\nOK: no failed request or tool call, every exit code 0, nothing lost or duplicated');
} catch (err) {
  console.error(err);
  exitCode = 1;
} finally {
  await run.close({ keep: values.keep });
  await receiver.close();
}
process.exit(exitCode);
