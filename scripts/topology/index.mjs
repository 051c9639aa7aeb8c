#!/usr/bin/env node
// The production topology without containers: a one-shot migration, N api replicas behind a round-robin
// proxy, one mcp (or M behind a proxy of their own) and one worker, each a separate `node apps/*/dist/*.js` process on PostgreSQL + Redis.
// Used as a library by the end-to-end tests and as a CLI (`npm run topology`).
/* global AbortSignal */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import net from 'node:net';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { nodeFlagsFor } from '../service-node-flags.mjs';
import { startProxy } from './proxy.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const ENTRIES = {
  migrate: 'apps/api/dist/migrate.js',
  api: 'apps/api/dist/main.js',
  mcp: 'apps/mcp/dist/main.js',
  worker: 'apps/worker/dist/main.js',
};
const TAIL_LINES = 300;

/** A free TCP port on `host`, found by binding port 0 (another process could take it before use). */
export function freePort(host = '127.0.0.1') {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, host, () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

/**
 * Creates a fresh PostgreSQL database next to `adminUrl` (a URL whose user may CREATE DATABASE) and returns
 * its URL and a drop() that removes it. The name must say test, so nothing else is ever dropped.
 */
export async function createDatabase(adminUrl, name = `tt_test_topology_${randomBytes(4).toString('hex')}`) {
  if (!/^[a-z0-9_]*test[a-z0-9_]*$/.test(name)) throw new Error(`createDatabase: name ${name} must be lower-case and contain "test"`);
  // pg is a dependency of the store package; resolve it from there (the root has no runtime dependencies).
  const pg = createRequire(path.join(ROOT, 'packages/store/package.json'))('pg');
  const query = async (sql) => {
    const client = new pg.Client({ connectionString: adminUrl });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  };
  await query(`CREATE DATABASE "${name}"`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return { url: url.toString(), name, drop: () => query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`) };
}

function spawnNode(name, entry, env, onLog) {
  const file = path.join(ROOT, entry);
  if (!existsSync(file)) throw new Error(`${file} is missing: build first (npx -y pnpm@12.21.0 run build)`);
  const child = spawn(process.execPath, [...nodeFlagsFor(entry.split('/')[1]), file], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  const tail = [];
  const onData = (stream) => {
    let rest = '';
    stream.setEncoding('utf8');
    stream.on('data', (chunk) => {
      const lines = (rest + chunk).split('\n');
      rest = lines.pop() ?? '';
      for (const line of lines) {
        tail.push(line);
        if (tail.length > TAIL_LINES) tail.shift();
        onLog?.(name, line);
      }
    });
  };
  onData(child.stdout);
  onData(child.stderr);
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  return { name, child, tail, exited, alive: () => child.exitCode === null && child.signalCode === null };
}

async function waitReady(proc, url, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  let last = 'no answer';
  while (Date.now() < deadline) {
    if (!proc.alive()) {
      throw new Error(`${proc.name} exited (${proc.child.exitCode ?? proc.child.signalCode}) before it was ready:\n${proc.tail.slice(-30).join('\n')}`);
    }
    try {
      const res = await fetch(`${url}/ready`, { signal: AbortSignal.timeout(2_000) });
      if (res.ok) return;
      last = `${res.status} ${await res.text()}`;
    } catch (err) {
      last = err.cause?.code ?? err.message;
    }
    await sleep(150);
  }
  throw new Error(`${proc.name} at ${url} not ready after ${timeoutMs} ms (last: ${last}):\n${proc.tail.slice(-30).join('\n')}`);
}

async function terminate(proc, signal = 'SIGTERM', graceMs = 20_000) {
  if (!proc.alive()) return proc.exited;
  proc.child.kill(signal);
  const timer = setTimeout(() => proc.child.kill('SIGKILL'), graceMs);
  const result = await proc.exited;
  clearTimeout(timer);
  return result;
}

const portOr = async (value, fallback, host) => {
  const p = value ?? fallback;
  return p === 0 ? freePort(host) : p;
};

/**
 * Starts the topology and resolves once every process answers 200 on /ready.
 *
 * Options: databaseUrl and redisUrl (required); host (127.0.0.1); apiReplicas (2); mcpReplicas (1: one process
 * named mcp on the mcp port; more: mcp-1, mcp-2, ... on free ports behind a second proxy on the mcp port);
 * ports {proxy 3000, mcp 3001, worker 3002, api 3010 (first replica; the next ones follow)}, where 0 picks
 * a free port; adminToken (generated when absent); env (extra variables for every app process, e.g.
 * RATE_LIMIT_PER_MINUTE, LOG_LEVEL); queuePrefix (QUEUE_PREFIX of every process; give tests their own);
 * onLog(name, line) for the processes' output; readyTimeoutMs (60000).
 */
export async function startTopology(options) {
  const o = { host: '127.0.0.1', apiReplicas: 2, mcpReplicas: 1, readyTimeoutMs: 60_000, env: {}, ports: {}, ...options };
  if (!o.databaseUrl) throw new Error('startTopology: databaseUrl is required (production mode runs on PostgreSQL)');
  if (!o.redisUrl) throw new Error('startTopology: redisUrl is required (production mode shares limits and jobs through Redis)');
  const adminToken = o.adminToken ?? randomBytes(24).toString('base64url');
  const ports = {
    proxy: await portOr(o.ports.proxy, 3000, o.host),
    mcp: await portOr(o.ports.mcp, 3001, o.host),
    worker: await portOr(o.ports.worker, 3002, o.host),
    api: [],
    mcpReplicas: [],
  };
  for (let i = 0; i < o.apiReplicas; i++) {
    ports.api.push(o.ports.api === 0 ? await freePort(o.host) : (o.ports.api ?? 3010) + i);
  }
  if (o.mcpReplicas > 1) for (let i = 0; i < o.mcpReplicas; i++) ports.mcpReplicas.push(await freePort(o.host));

  const baseEnv = {
    ...process.env,
    LOG_LEVEL: 'info',
    ...o.env,
    DATABASE_URL: o.databaseUrl,
    REDIS_URL: o.redisUrl,
    ADMIN_TOKEN: adminToken,
    HOST: o.host,
    MIGRATE_ON_START: 'false',
    // One prefix for every process of this topology, so parallel runs on one Redis never share a queue.
    ...(o.queuePrefix ? { QUEUE_PREFIX: o.queuePrefix } : {}),
  };
  const specs = new Map();
  ports.api.forEach((port, i) => {
    // Behind the proxy: trust X-Forwarded-For from loopback only, so per-address limits see the real client.
    specs.set(`api-${i + 1}`, { entry: ENTRIES.api, url: `http://${o.host}:${port}`, env: { TRUST_PROXY: 'loopback', ...o.env, PORT: String(port) } });
  });
  if (o.mcpReplicas > 1) {
    ports.mcpReplicas.forEach((port, i) => {
      specs.set(`mcp-${i + 1}`, { entry: ENTRIES.mcp, url: `http://${o.host}:${port}`, env: { TRUST_PROXY: 'loopback', MCP_PORT: String(port) } });
    });
  } else specs.set('mcp', { entry: ENTRIES.mcp, url: `http://${o.host}:${ports.mcp}`, env: { MCP_PORT: String(ports.mcp) } });
  specs.set('worker', { entry: ENTRIES.worker, url: `http://${o.host}:${ports.worker}`, env: { WORKER_PORT: String(ports.worker) } });

  const procs = new Map();
  let proxy;
  let mcpProxy;
  const killAll = () => {
    for (const p of procs.values()) if (p.alive()) p.child.kill('SIGKILL');
  };
  // A test runner that dies must not leave servers behind.
  process.once('exit', killAll);

  const startProcess = async (name) => {
    const spec = specs.get(name);
    if (!spec) throw new Error(`unknown process ${name}; known: ${[...specs.keys()].join(', ')}`);
    if (procs.get(name)?.alive()) throw new Error(`${name} is already running`);
    const proc = spawnNode(name, spec.entry, { ...baseEnv, ...spec.env }, o.onLog);
    procs.set(name, proc);
    await waitReady(proc, spec.url, o.readyTimeoutMs);
    return proc;
  };
  const stopProcess = async (name, signal = 'SIGTERM') => {
    const proc = procs.get(name);
    return proc ? terminate(proc, signal) : undefined;
  };
  const stop = async () => {
    process.removeListener('exit', killAll);
    await proxy?.close();
    await mcpProxy?.close();
    // Servers first (they stop taking work), the worker last (it drains what they queued).
    await Promise.all([...procs.keys()].filter((n) => n !== 'worker').map((n) => stopProcess(n)));
    await stopProcess('worker');
  };

  try {
    const migration = spawnNode('migrate', ENTRIES.migrate, baseEnv, o.onLog);
    const { code, signal } = await migration.exited;
    if (code !== 0) throw new Error(`migrations failed (${code ?? signal}):\n${migration.tail.slice(-30).join('\n')}`);
    await Promise.all([...specs.keys()].map(startProcess));
    // Like a Kubernetes Service over readiness probes: a replica whose /ready says 503 (draining) gets no new requests.
    proxy = await startProxy({ upstreams: ports.api.map((p) => `http://${o.host}:${p}`), port: ports.proxy, host: o.host, readyPath: '/ready' });
    if (o.mcpReplicas > 1) {
      mcpProxy = await startProxy({ upstreams: ports.mcpReplicas.map((p) => `http://${o.host}:${p}`), port: ports.mcp, host: o.host, readyPath: '/ready' });
    }
  } catch (err) {
    await stop().catch(() => undefined);
    throw err;
  }

  const appNames = [...specs.keys()];
  return {
    /** Base URL of the REST API behind the proxy (append /v1 or /admin/v1). */
    apiUrl: proxy.url,
    /** Base URLs of the api replicas, bypassing the proxy. */
    apiReplicaUrls: ports.api.map((p) => `http://${o.host}:${p}`),
    /** The MCP endpoint (behind the mcp proxy when there are several mcp processes). */
    mcpUrl: `${mcpProxy ? mcpProxy.url : specs.get('mcp').url}/mcp`,
    workerUrl: specs.get('worker').url,
    adminToken,
    names: appNames,
    processes: () => appNames.map((n) => ({ name: n, url: specs.get(n).url, pid: procs.get(n)?.child.pid, running: procs.get(n)?.alive() ?? false })),
    /** Requests seen by the api proxy, in total and per replica. */
    proxyStats: () => proxy.stats(),
    /** The same for the mcp proxy (undefined with one mcp process). */
    mcpProxyStats: () => mcpProxy?.stats(),
    /** The last lines a process printed (pino JSON). */
    logs: (name) => [...(procs.get(name)?.tail ?? [])],
    /** Stops one process (SIGTERM = graceful; SIGKILL = a crash). */
    stopProcess,
    /** Starts a stopped process again on the same port and waits until it is ready. */
    startProcess,
    /** Restarts the named processes (default: every one), stopping all first, then waiting until all are ready. */
    async restart(names = appNames, signal = 'SIGTERM') {
      await Promise.all(names.map((n) => stopProcess(n, signal)));
      await Promise.all(names.map((n) => startProcess(n)));
    },
    /** Stops the proxy and every process. */
    stop,
  };
}

async function main() {
  const { values } = parseArgs({
    options: {
      'api-replicas': { type: 'string', default: '2' },
      'mcp-replicas': { type: 'string', default: '1' },
      port: { type: 'string', default: process.env.PORT ?? '3000' },
      'mcp-port': { type: 'string', default: process.env.MCP_PORT ?? '3001' },
      'worker-port': { type: 'string', default: process.env.WORKER_PORT ?? '3002' },
      'api-port': { type: 'string', default: '3010' },
      host: { type: 'string', default: '127.0.0.1' },
      quiet: { type: 'boolean', default: false },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) {
    console.log(`usage: DATABASE_URL=postgres://... REDIS_URL=redis://... node scripts/topology/index.mjs [options]
  --api-replicas N  api processes behind the proxy (2)
  --mcp-replicas N  mcp processes; more than one run behind a proxy of their own on the MCP port (1)
  --port P          proxy port, the REST entry point (3000)
  --mcp-port P      MCP port (3001)
  --worker-port P   worker health port (3002)
  --api-port P      first api replica port; the next replicas use P+1... (3010)
  --host H          bind address (127.0.0.1)
  --quiet           do not print the processes' logs
Ports of 0 pick free ones. ADMIN_TOKEN is generated when unset. Ctrl+C stops everything.`);
    return;
  }
  const { DATABASE_URL, REDIS_URL } = process.env;
  if (!DATABASE_URL || !REDIS_URL) {
    console.error('DATABASE_URL and REDIS_URL must be set, e.g.\n  DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres REDIS_URL=redis://127.0.0.1:6379 npm run topology');
    process.exit(2);
  }
  const topology = await startTopology({
    databaseUrl: DATABASE_URL,
    redisUrl: REDIS_URL,
    host: values.host,
    apiReplicas: Number(values['api-replicas']),
    mcpReplicas: Number(values['mcp-replicas']),
    adminToken: process.env.ADMIN_TOKEN || undefined,
    ports: { proxy: Number(values.port), mcp: Number(values['mcp-port']), worker: Number(values['worker-port']), api: Number(values['api-port']) },
    onLog: values.quiet ? undefined : (name, line) => process.stdout.write(`[${name}] ${line}\n`),
  });
  console.log(`Topology is running (production mode: PostgreSQL + Redis, built output, migrations applied once)
  REST API:       ${topology.apiUrl}/v1   (round-robin over ${topology.apiReplicaUrls.join(', ')})
  OpenAPI:        ${topology.apiUrl}/v1/openapi.json
  Operator API:   ${topology.apiUrl}/admin/v1
  MCP endpoint:   ${topology.mcpUrl}
  Worker:         ${topology.workerUrl}/ready
  Operator token: ${topology.adminToken}
Ctrl+C stops every process.`);
  let stopping = false;
  const shutdown = (signal) => {
    if (stopping) return;
    stopping = true;
    console.log(`${signal}: stopping`);
    topology.stop().then(
      () => process.exit(0),
      (err) => {
        console.error(err);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', () => shutdown('SIGINT'));
  process.on('SIGTERM', () => shutdown('SIGTERM'));
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((err) => {
    console.error(err.message ?? err);
    process.exit(1);
  });
}
