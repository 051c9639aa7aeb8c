#!/usr/bin/env node
// Contract checks on the production topology (built output, PostgreSQL + Redis), run by .ci/run:
//   topology   two api replicas behind the round-robin proxy share the load and survive one crashing
//   redocly    the served /v1/openapi.json passes `redocly lint`
//   prism      a tour of the REST API through Prism (proxy --errors): no response breaks the document
//   conformance the MCP conformance suite against the mcp process, with its baseline of expected failures
// Usage: node scripts/contract/check.mjs [--only topology,redocly,prism,conformance]
// Env: CONTRACT_DATABASE_URL (a URL allowed to CREATE DATABASE; default the local postgres), REDIS_URL.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { runConformance, SPEC_VERSIONS } from '../conformance/run.mjs';
import { createDatabase, startTopology } from '../topology/index.mjs';
import { startPrism } from './prism.mjs';
import { lintOpenApi } from './redocly.mjs';
import { seedWorkspace } from './seed.mjs';
import { restTour } from './tour.mjs';

const CHECKS = ['topology', 'redocly', 'prism', 'conformance'];
const { values } = parseArgs({ options: { only: { type: 'string', default: CHECKS.join(',') } } });
const only = new Set(values.only.split(',').map((s) => s.trim()));
for (const c of only) if (!CHECKS.includes(c)) throw new Error(`unknown check ${c}; known: ${CHECKS.join(', ')}`);

const adminUrl = process.env.CONTRACT_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const results = [];
const tmp = mkdtempSync(path.join(os.tmpdir(), 'tt-contract-'));
const step = (name) => console.log(`\n== contract: ${name}`);

async function checkTopology(t) {
  const before = t.proxyStats().upstreams.map((u) => u.requests);
  for (let i = 0; i < 6; i++) {
    const res = await fetch(`${t.apiUrl}/ready`);
    if (res.status !== 200) throw new Error(`proxy /ready answered ${res.status}`);
  }
  const spread = t.proxyStats().upstreams.map((u, i) => u.requests - (before[i] ?? 0));
  if (spread.some((n) => n === 0)) throw new Error(`round-robin did not reach every replica: ${spread.join(', ')}`);
  // One replica crashes: the proxy skips it and every request still succeeds.
  await t.stopProcess('api-1', 'SIGKILL');
  for (let i = 0; i < 6; i++) {
    const res = await fetch(`${t.apiUrl}/health`);
    if (res.status !== 200) throw new Error(`with api-1 down the proxy answered ${res.status}`);
  }
  await t.startProcess('api-1');
  return `requests per replica ${spread.join('/')}; survived api-1 crash and restart`;
}

async function checkRedocly(t) {
  const res = await fetch(`${t.apiUrl}/v1/openapi.json`);
  if (!res.ok) throw new Error(`GET /v1/openapi.json answered ${res.status}`);
  const file = path.join(tmp, 'openapi.json');
  writeFileSync(file, await res.text());
  const code = await lintOpenApi(file);
  if (code !== 0) throw new Error(`redocly lint exited ${code}`);
  return 'valid';
}

async function checkPrism(t, seed) {
  const prism = await startPrism({ upstream: t.apiUrl });
  try {
    const count = await restTour(prism.url, seed.token);
    const s = prism.stats();
    console.log(`prism: ${s.requests} requests, ${s.validated} responses validated, ${s.bypassed} without a key sent around Prism, ${s.violations.length} violations`);
    prism.assertClean();
    return `${count} requests, ${s.validated} responses validated against the document, 0 violations`;
  } finally {
    await prism.stop();
  }
}

async function checkConformance(t, seed) {
  const results = [];
  for (const specVersion of SPEC_VERSIONS) {
    const { exitCode, summary } = await runConformance({ url: t.mcpUrl, token: seed.token, specVersion });
    if (exitCode !== 0) throw new Error(`conformance suite at ${specVersion} failed (${summary}); see the unexpected failures above`);
    results.push(`${specVersion}: ${summary}`);
  }
  return `${results.join('; ')}; every failure is in scripts/conformance/expected-failures-<version>.yml`;
}

const db = await createDatabase(adminUrl);
let topology;
let failed = false;
try {
  step('starting the topology (migrate, 2 x api + proxy, mcp, worker)');
  topology = await startTopology({
    databaseUrl: db.url, redisUrl, ports: { proxy: 0, mcp: 0, worker: 0, api: 0 }, queuePrefix: db.name,
    // The conformance suite calls its own fixtures (tools, resources, prompts); the mcp process serves them beside
    // ours only with this switch, which production never sets (docs/mcp.md).
    env: { LOG_LEVEL: 'warn', RATE_LIMIT_PER_MINUTE: '100000', MCP_CONFORMANCE_FIXTURES: '1' },
  });
  const seed = await seedWorkspace(topology.apiUrl, topology.adminToken);
  const run = { topology: checkTopology, redocly: checkRedocly, prism: checkPrism, conformance: checkConformance };
  for (const name of CHECKS.filter((c) => only.has(c))) {
    step(name);
    try {
      results.push([name, 'ok', await run[name](topology, seed)]);
    } catch (err) {
      failed = true;
      results.push([name, 'FAILED', err.message]);
    }
  }
} catch (err) {
  failed = true;
  results.push(['start', 'FAILED', err.message]);
} finally {
  if (failed && topology) for (const n of topology.names) console.log(`--- last log lines of ${n}\n${topology.logs(n).slice(-15).join('\n')}`);
  await topology?.stop();
  await db.drop();
  rmSync(tmp, { recursive: true, force: true });
}
console.log('\n== contract summary');
for (const [name, status, detail] of results) console.log(`${status === 'ok' ? 'ok    ' : 'FAILED'} ${name}: ${detail}`);
process.exit(failed ? 1 : 0);
