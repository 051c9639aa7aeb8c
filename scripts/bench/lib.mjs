// Shared pieces of the benchmarks: a throwaway PostgreSQL database, the built API as a child process,
// an operator/REST client and an autocannon runner that prints one table.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { openDatabase } from '../../packages/store/src/index.ts';
import { nodeFlagsFor } from '../service-node-flags.mjs';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const ADMIN_TOKEN = 'bench-operator-token-0123456789';

/** The server URL (from BENCH_DATABASE_URL, default the local PostgreSQL) pointed at another database. */
export function databaseUrl(name) {
  const u = new URL(process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres');
  u.pathname = `/${name}`;
  return u.toString();
}

/** Creates an empty database (dropping a leftover one of the same name) and returns a drop function. */
export async function freshDatabase(name) {
  if (!/^tt_bench/.test(name)) throw new Error('benchmark databases are named tt_bench*');
  const admin = openDatabase({ databaseUrl: databaseUrl('postgres'), poolMax: 1 });
  try {
    await admin.raw(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.raw(`CREATE DATABASE ${name}`);
  } finally {
    await admin.destroy();
  }
  return async () => {
    const a = openDatabase({ databaseUrl: databaseUrl('postgres'), poolMax: 1 });
    try {
      await a.raw(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    } finally {
      await a.destroy();
    }
  };
}

/** A port free on 127.0.0.1 at the moment of asking. */
export function freePort() {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

/**
 * Node options for the servers a benchmark starts (the API, its floor, the worker): the services' own flags, as in
 * production, then BENCH_NODE_ARGS (e.g. "--cpu-prof --cpu-prof-dir=prof").
 */
export const nodeArgs = (app = 'api') => [...nodeFlagsFor(app), ...(process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean)];

/**
 * Starts the built API (apps/api/dist/main.js of `root`: this tree, or another commit's for an A/B) on the database,
 * with the rate limit out of the way.
 */
export async function startBuiltApi(dbName, root = ROOT) {
  const main = join(root, 'apps', 'api', 'dist', 'main.js');
  if (!existsSync(main)) throw new Error('apps/api/dist/main.js is missing: build first (pnpm run build)');
  const port = await freePort();
  const env = {
    ...process.env, DATABASE_URL: databaseUrl(dbName), PORT: String(port), HOST: '127.0.0.1', ADMIN_TOKEN,
    RATE_LIMIT_PER_MINUTE: '100000000', LOG_LEVEL: process.env.LOG_LEVEL ?? 'info',
  };
  if (process.env.BENCH_REDIS_URL) env.REDIS_URL = process.env.BENCH_REDIS_URL;
  else delete env.REDIS_URL;
  const child = spawn(process.execPath, [...nodeArgs(), main], { env, stdio: ['ignore', process.env.BENCH_API_STDOUT ? 'inherit' : 'ignore', 'inherit'] });
  const exited = new Promise((resolve) => child.once('exit', (code) => resolve(code)));
  const base = `http://127.0.0.1:${port}`;
  for (let i = 0; ; i++) {
    const ok = await fetch(`${base}/ready`).then((r) => r.ok, () => false);
    if (ok) break;
    if (child.exitCode !== null) throw new Error(`the API exited with ${child.exitCode} before it was ready`);
    if (i > 300) throw new Error('the API did not become ready in 30 s');
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    base,
    pid: child.pid,
    async stop() {
      child.kill('SIGTERM');
      await exited;
    },
  };
}

/** JSON request; throws on an unexpected status so a broken setup is never benchmarked. */
export async function call(base, token, method, path, body, expected = [200, 201]) {
  const res = await fetch(base + path, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (!expected.includes(res.status)) throw new Error(`${method} ${path} -> ${res.status} ${text}`);
  return text ? JSON.parse(text) : undefined;
}

export const BENCH_SCOPES = ['tasks:read', 'tasks:write', 'projects:write', 'time:read', 'time:write', 'docs:read', 'docs:write', 'meetings:read'];

/** A workspace, an admin user with an all-rights key, and `users` more members. */
export async function benchWorkspace(base, users) {
  const ws = (await call(base, ADMIN_TOKEN, 'POST', '/admin/v1/workspaces', { name: 'Bench', plan: 'business' })).data;
  const admin = (await call(base, ADMIN_TOKEN, 'POST', `/admin/v1/workspaces/${ws.id}/users`, { name: 'Bench Admin', login: 'bench', isAdmin: true })).data;
  const members = [admin.id];
  for (let i = 1; i < users; i++) {
    members.push((await call(base, ADMIN_TOKEN, 'POST', `/admin/v1/workspaces/${ws.id}/users`, { name: `Member ${i}`, login: `member${i}` })).data.id);
  }
  const key = (await call(base, ADMIN_TOKEN, 'POST', `/admin/v1/users/${admin.id}/keys`, { scopes: BENCH_SCOPES })).data;
  return { workspaceId: ws.id, userIds: members, token: key.token };
}

const DURATION = Number(process.env.BENCH_DURATION ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);

/** Runs one autocannon scenario; a scenario with any error or unexpected status is reported as failed. */
export async function measure(name, base, token, request, opts = {}) {
  const result = await autocannon({
    url: base,
    connections: opts.connections ?? CONNECTIONS,
    duration: DURATION,
    timeout: opts.timeout ?? 10,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    requests: [request],
  });
  // Requests still running when the clock stopped would slow the next scenario: wait until the server is free.
  await fetch(`${base}/health`);
  const bad = result.errors + result.timeouts + result.non2xx;
  return {
    scenario: opts.connections ? `${name} [${opts.connections} conn.]` : name,
    'req/s': Number(result.requests.average.toFixed(result.requests.average < 10 ? 1 : 0)),
    'p50 ms': result.latency.p50,
    'p99 ms': result.latency.p99,
    requests: result.requests.total,
    failed: bad,
  };
}

export function printTable(title, rows) {
  console.log(`\n${title} (${CONNECTIONS} connections, ${DURATION} s each)`);
  console.table(rows);
  console.log('| scenario | req/s | p50 ms | p99 ms |\n| --- | ---: | ---: | ---: |');
  for (const r of rows) console.log(`| ${r.scenario} | ${r['req/s']} | ${r['p50 ms']} | ${r['p99 ms']} |`);
}

export { openDatabase };

/** Measures each scenario `[name, request, opts?]` in turn, prints the table, and fails the run when requests failed. */
export async function runScenarios(title, base, token, scenarios) {
  const rows = [];
  for (const [name, request, opts] of scenarios) {
    rows.push(await measure(name, base, token, request, opts));
    console.log(`  ${name}: ${rows.at(-1)['req/s']} req/s, p99 ${rows.at(-1)['p99 ms']} ms`);
  }
  printTable(title, rows);
  if (rows.some((r) => r.failed > 0)) {
    process.exitCode = 1;
    console.error('some requests failed; see the failed column');
  }
}

/** Stops the api and closes the database; drops it unless BENCH_KEEP is set. */
export async function finish(api, db, name, drop) {
  await api?.stop();
  await db.destroy();
  if (process.env.BENCH_KEEP) console.log(`kept the database ${name}`);
  else await drop();
}

/** An autocannon request for GET /v1<path>. */
export const get = (path) => ({ method: 'GET', path: `/v1${path}` });

/** CPU time (user + system, ms) a process has used so far; 0 for one that is gone. */
export function cpuMs(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(f[11]) + Number(f[12])) * 10;
  } catch {
    return 0;
  }
}
