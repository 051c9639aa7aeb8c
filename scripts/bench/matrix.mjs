#!/usr/bin/env -S npx tsx
// The whole matrix against the floor (scripts/bench/floor-server.mjs), in one run per size: GET /v1/tasks/{key},
// GET /v1/tasks with every filter and order the spec offers, MCP search_tasks (the mcp process against the floor's
// list of the same filter), and the writes, each with its history row on both sides: POST /v1/tasks (on a board, by
// project, with a parent), PATCH /v1/tasks/{key}, a move and a comment; each scenario
// alternating API, floor, floor, API, with the worker on (PostgreSQL + Redis) draining what both sides queue. Prints
// req/s, p50/p99 and the ratio API / floor per row, and the CPU each request cost (the server's Node process and the
// worker, and this database's PostgreSQL backends) with its ratio floor / API, which the machine's other load moves
// far less than throughput. A report, not a test: it fails only when requests fail.
//   pnpm run build && pnpm run bench:matrix                          # 20 000 tasks
//   BENCH_SIZES=20000,100000,1000000 BENCH_KEEP=1 pnpm run bench:matrix # the figures of docs/performance.md
// Env: BENCH_SIZES (comma list, 20000), BENCH_ROUNDS (2), BENCH_DURATION (s per turn, 5), BENCH_WARMUP (s, 3),
// BENCH_SETTLE (s, 40: the longest a read's warm-up goes on while the server's CPU per request still falls; 0 = none),
// BENCH_WRITE_SETTLE (s, 20 or BENCH_SETTLE if less: the same for a write),
// BENCH_CONNECTIONS (10), BENCH_ONLY (a regular expression naming the scenarios), BENCH_VERBOSE=1 (each turn's figures), BENCH_KEEP=1 / BENCH_REUSE=1 (keep or
// reuse the seeded database of each size, <BENCH_DB_PREFIX>_<size>), BENCH_DB_PREFIX (tt_bench_matrix: another name for
// the databases, so that runs side by side on one server do not share them), BENCH_REDIS_URL (redis://127.0.0.1:6379),
// BENCH_DATABASE_URL, BENCH_NODE_ARGS.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { Redis } from 'ioredis';
import { ADMIN_TOKEN, BENCH_SCOPES, call, cpuMs, databaseUrl, freePort, nodeArgs, ROOT } from './lib.mjs';
import { startBuiltMcp, toolCallRequest } from './mcp-process.mjs';
import { withSeededApi } from './seed.mjs';

const SIZES = (process.env.BENCH_SIZES ?? '20000').split(',').map(Number);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const DURATION = Number(process.env.BENCH_DURATION ?? 5);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 3);
const SETTLE = Number(process.env.BENCH_SETTLE ?? 40);
const WRITE_SETTLE = Number(process.env.BENCH_WRITE_SETTLE ?? Math.min(SETTLE, 20));
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);
const ONLY = process.env.BENCH_ONLY ? new RegExp(process.env.BENCH_ONLY) : undefined;
const VERBOSE = Boolean(process.env.BENCH_VERBOSE);
const dbName = (size) => `${process.env.BENCH_DB_PREFIX ?? 'tt_bench_matrix'}_${size}`;
const WRITE_TITLE = 'Matrix write';
const WRITE_COMMENT = 'Matrix comment';
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
/** A scenario whose sides each work on their own half of `items` (`make(half)` gives a side's request). */
const perSide = (items, make) => ({ sides: { api: make(items.filter((_, i) => i % 2 === 0)), floor: make(items.filter((_, i) => i % 2 === 1)) } });

process.env.BENCH_REDIS_URL ??= 'redis://127.0.0.1:6379';
// A queue of its own, so nothing else on this Redis is touched; the API and the worker read it from the environment.
process.env.QUEUE_PREFIX = `tt-bench-${randomBytes(4).toString('hex')}`;

async function startProcess(script, env, ready) {
  const child = spawn(process.execPath, [...nodeArgs(), script], { env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'inherit'] });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  for (let i = 0; ready && !(await fetch(ready).then((r) => r.ok, () => false)); i++) {
    if (i > 300) throw new Error(`${script} did not start`);
    await sleep(100);
  }
  return { pid: child.pid, stop: async () => (child.kill('SIGTERM'), await exited) };
}

/**
 * CPU used so far by the Node processes `pids` and by every PostgreSQL backend of this database. Throughput on a
 * machine shared with other work moves with that work; the CPU a request costs mostly does not, so the matrix reports
 * both: CPU per request is the load-independent comparison (it needs /proc, so Linux, and the servers on this host).
 */
async function cpu(db, pids) {
  const backends = (await db.raw('select pid from pg_stat_activity where datname = current_database()')).rows.map((r) => r.pid);
  const pg = new Map(backends.map((pid) => [pid, cpuMs(pid)]));
  return { node: pids.reduce((s, pid) => s + cpuMs(pid), 0), worker: cpuMs(pids.at(-1)), pg };
}
const cpuSpent = (before, after) => ({
  node: after.node - before.node,
  worker: after.worker - before.worker,
  pg: [...after.pg].reduce((s, [pid, ms]) => s + ms - (before.pg.get(pid) ?? 0), 0),
});

async function closedLoop(base, token, request, duration) {
  const r = await autocannon({
    url: base, connections: CONNECTIONS, duration, timeout: 10, requests: [request],
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
  });
  await fetch(`${base}/health`);
  return { rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, bad: r.errors + r.timeouts + r.non2xx, n: r.requests.total };
}

/**
 * A side's warm-up before its first turn: WARMUP seconds; then, for a read, 4-s windows for as long as the Node CPU a
 * request costs that process still falls (a window more than 3 % under the best before it), SETTLE seconds at most. A
 * long-running server is warm: V8 optimizes a request's code only after thousands of calls, and the mcp process,
 * which serves one scenario only, took 20-30 s at 150 calls a second to settle (9.7 ms of Node per call at first,
 * 4.5-5.2 once warm; the floor's simpler code settles within the fixed warm-up). A write settles the same way, for
 * WRITE_SETTLE seconds at most, since every request adds a task: the API's create path (validation, the domain's
 * checks, the activity entry, the outbox, the change feed) took 15-20 s at 250 creates a second to settle, 2.0-2.7 ms
 * of Node a create in the first 5 s and 1.2-1.4 after 20, while the floor's settled in its first seconds.
 */
async function warmUp(base, token, request, pid, read) {
  await closedLoop(base, token, request, WARMUP);
  let best = Infinity;
  for (let spent = 0; spent < (read ? SETTLE : WRITE_SETTLE); spent += 4) {
    const before = cpuMs(pid);
    const t = await closedLoop(base, token, request, 4);
    const per = (cpuMs(pid) - before) / Math.max(1, t.n);
    if (per > 0.97 * best) return;
    best = per;
  }
}

/**
 * What the database did: commits in this database (the server's, the relay's and the worker's), and WAL writes and
 * flushes (fsyncs) of the whole server, which other work on the machine adds to. Read before and after a write turn
 * and its drain, so a write's cost includes the jobs it queued.
 */
async function dbWork(db) {
  const [x] = (await db.raw('select xact_commit::bigint as commits from pg_stat_database where datname = current_database()')).rows;
  const wal = await db.raw('select wal_write::bigint as writes, wal_sync::bigint as syncs from pg_stat_wal').then((r) => r.rows[0], () => ({ writes: NaN, syncs: NaN }));
  return { commits: Number(x.commits), writes: Number(wal.writes), syncs: Number(wal.syncs) };
}

async function run(size) {
  await withSeededApi(dbName(size), size, async ({ api, db, workspaceId, userIds, token, columns }) => {
    const port = await freePort();
    const floor = await startProcess(join(ROOT, 'scripts', 'bench', 'floor-server.mjs'), { DATABASE_URL: databaseUrl(dbName(size)), PORT: String(port) }, `http://127.0.0.1:${port}/ready`);
    const worker = await startProcess(join(ROOT, 'apps', 'worker', 'dist', 'main.js'), {
      DATABASE_URL: databaseUrl(dbName(size)), REDIS_URL: process.env.BENCH_REDIS_URL, WORKER_PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'warn',
    });
    // The mcp process too: search_tasks is measured against the floor's list of the same filter.
    const mcp = await startBuiltMcp(dbName(size));
    const sides = { api: api.base, floor: `http://127.0.0.1:${port}` };
    const pids = { api: api.pid, floor: floor.pid };
    const pending = async () => Number((await db('outbox').whereNull('relayed_at').count({ n: '*' }).first()).n);
    /** Until the worker has relayed every job and the database runs nothing else: each turn starts from the same state. */
    const drained = async () => {
      for (let i = 0; i < 1200 && ((await pending()) > 0 || (await active()) > 0); i++) await sleep(100);
    };
    const active = async () => Number((await db.raw(
      "select count(*)::int as n from pg_stat_activity where datname = current_database() and state = 'active' and pid <> pg_backend_pid() and backend_type = 'client backend' and query not ilike '%outbox%'",
    )).rows[0].n);
    try {
      const keys = await db('tasks').where({ workspace_id: workspaceId }).whereNull('archived_at').orderByRaw('random()').limit(1000).pluck('key');
      const boards = [...new Set(columns.map((c) => c.board_id))];
      const projects = [...new Set(columns.map((c) => c.project_id))];
      // 1 000 tasks of the first two columns of the first board (as many as the PATCH row's keys), each with the
      // column it is in now (a move flips it).
      const moveColumns = [columns[0].status_id, columns[1].status_id];
      const movable = (await db('tasks').whereIn('status_id', moveColumns).whereNull('archived_at').orderByRaw('random()').limit(1000).select('key', 'status_id'))
        .map((t) => [t.key, t.status_id]);
      const parents = await db('tasks').where({ workspace_id: workspaceId }).whereNull('archived_at').whereNull('parent_id')
        .orderByRaw('random()').limit(200).select('id', 'board_id');
      let m = 0;
      // A person with the most tasks, and one with none (the seed leaves some members without): "my open tasks" is
      // asked with a key of the busiest member's own, as that member would ask it.
      const load = await db.raw(
        'select u.id, (select count(*) from tasks t where t.assignee_ids @> array[u.id])::int as n from users u where u.workspace_id = ? order by n desc, u.id',
        [workspaceId],
      );
      const busiest = load.rows[0].id;
      const idle = load.rows.find((r) => r.n === 0)?.id;
      const busiestToken = (await call(api.base, ADMIN_TOKEN, 'POST', `/admin/v1/users/${busiest}/keys`, { scopes: BENCH_SCOPES })).data.token;
      const as = (tokenOf) => ({ headers: { authorization: `Bearer ${tokenOf}`, 'content-type': 'application/json' } });
      const since = Date.now() - 86_400_000;
      const project = columns[20].project_id;
      let k = 0;
      let n = 0;
      /** A create placed by `place(n)`, assigned to another member (a notification) and labelled. */
      const create = (place) => ({
        method: 'POST', path: '/v1/tasks',
        setupRequest: (req) => {
          n++;
          return { ...req, body: JSON.stringify({ title: `${WRITE_TITLE} ${n}`, ...place(n), assigneeIds: [userIds[1 + (n % (userIds.length - 1))]], labels: ['perf'] }) };
        },
      });
      const list = (path) => ({ method: 'GET', path: `/v1/tasks?${path}` });
      const scenarios = [
        ['GET /tasks/{key}', { method: 'GET', setupRequest: (req) => ({ ...req, path: `/v1/tasks/${keys[k++ % keys.length]}` }) }],
        ['GET /tasks (no filter)', list('limit=100')],
        ['GET /tasks?projectId', list(`projectId=${project}&limit=100`)],
        ['GET /tasks?projectId&category=todo', list(`projectId=${project}&category=todo&limit=100`)],
        ['GET /tasks?category=progress', list('category=progress&limit=100')],
        ['GET /tasks?assigneeId', list(`assigneeId=${busiest}&limit=100`)],
        ...(idle ? [['GET /tasks?assigneeId (a member with no tasks)', list(`assigneeId=${idle}&limit=100`)]] : []),
        ['GET /tasks?assigneeId=me&category=progress (my open tasks)', { ...list('assigneeId=me&category=progress&limit=100'), ...as(busiestToken) }],
        // The same list through MCP (tools/call, 2026-07-28, the tool's own rendering) against the floor's JSON list.
        ['MCP search_tasks {assignee: me, category: progress, limit: 100} (my open tasks)', {
          sides: {
            api: (() => {
              const r = toolCallRequest(true, 'search_tasks', { assignee: 'me', category: 'progress', limit: 100 });
              return { ...r, headers: { ...r.headers, authorization: `Bearer ${busiestToken}` } };
            })(),
            floor: { ...list('assigneeId=me&category=progress&limit=100'), ...as(busiestToken) },
          },
          base: mcp.base, pid: mcp.pid,
        }],
        ['GET /tasks?label=a,b', list('label=backend,ux&limit=100')],
        ['GET /tasks?statusId&orderBy=position', list(`statusId=${columns[3].status_id}&orderBy=position&limit=50`)],
        ['GET /tasks?dueBefore', list('dueBefore=2025-02-01&limit=100')],
        ['GET /tasks?updatedSince (24 h)', list(`updatedSince=${since}&limit=100`)],
        ['GET /tasks?q=zeppelin', list('q=zeppelin&limit=100')],
        ['GET /tasks?orderBy=priority', list('orderBy=priority&limit=100')],
        ['GET /tasks?projectId&orderBy=dueDate', list(`projectId=${project}&orderBy=dueDate&limit=100`)],
        ['GET /tasks?orderBy=updated', list('orderBy=updated&limit=100')],
        ['POST /tasks', create((i) => ({ boardId: boards[i % boards.length] }))],
        // The writes to existing tasks give each side its own half of the tasks: a side's change would otherwise move
        // the version of the tasks the other side changes next, and the API plans a change on the task as it last had
        // it (docs/performance.md, "Writes planned on memory"), so every API turn would start on tasks changed behind
        // it. What a change made elsewhere costs is described there too.
        ['PATCH /tasks/{key}', perSide(keys, (own) => ({
          method: 'PATCH',
          setupRequest: (req) => ({ ...req, path: `/v1/tasks/${own[k++ % own.length]}`, body: JSON.stringify({ title: `Renamed ${++n}`, priority: n % 2 ? 'high' : 'low' }) }),
        }))],
        // Each request moves its task to the other of two columns of one board, to the top (the spec's position 0).
        ['POST /tasks/{key}/move', perSide(movable, (own) => ({
          method: 'POST',
          setupRequest: (req) => {
            const task = own[m++ % own.length];
            task[1] = task[1] === moveColumns[0] ? moveColumns[1] : moveColumns[0];
            return { ...req, path: `/v1/tasks/${task[0]}/move`, body: JSON.stringify({ statusId: task[1] }) };
          },
        }))],
        ['POST /tasks/{key}/comments', perSide(keys, (own) => ({
          method: 'POST',
          setupRequest: (req) => ({ ...req, path: `/v1/tasks/${own[k++ % own.length]}/comments`, body: JSON.stringify({ text: `${WRITE_COMMENT} ${++n}` }) }),
        }))],
        ['POST /tasks (projectId)', create((i) => ({ projectId: projects[i % projects.length] }))],
        ['POST /tasks (parentId)', perSide(parents, (own) => create((i) => ({ boardId: own[i % own.length].board_id, parentId: own[i % own.length].id })))],
      ];
      // A scenario is one request for both sides, or `sides` (a request each) with the API side on another process.
      const requestOf = (scenario, side) => scenario.sides?.[side] ?? scenario;
      const baseOf = (scenario, side) => (side === 'api' && scenario.base) || sides[side];
      const pidOf = (scenario, side) => (side === 'api' && scenario.pid) || pids[side];
      const isRead = (scenario) => requestOf(scenario, 'floor').method === 'GET';
      // Each MCP scenario answers before it is measured (a wrong setup is never benchmarked).
      for (const [name, scenario] of scenarios) {
        if (!scenario.base || (ONLY && !ONLY.test(name))) continue;
        const r = requestOf(scenario, 'api');
        const res = await fetch(`${baseOf(scenario, 'api')}${r.path}`, { method: r.method, headers: r.headers, body: r.body });
        const text = await res.text();
        if (res.status !== 200 || text.includes('"isError":true')) throw new Error(`${name}: ${res.status} ${text.slice(0, 300)}`);
      }
      // A freshly started server runs unoptimized code and prepares its statements on each pooled connection: first
      // a pass of every scenario, as fast as it goes and not measured, then each scenario's own warm-up before its turns.
      // A write's pass is WARMUP seconds a side, not one: the writes share most of their code (the create path, the
      // outbox and its relay, the worker's notification jobs), so without it the first write row measured (the create
      // on a board) ran on code the rows after it found warm, and its first API turn came right after a fresh start
      // (docs/performance.md, "Writes").
      for (const [name, request] of scenarios) {
        if ((ONLY && !ONLY.test(name)) || WARMUP <= 0) continue;
        for (const side of ['api', 'floor']) await closedLoop(baseOf(request, side), token, requestOf(request, side), isRead(request) ? 1 : WARMUP);
      }
      await drained();
      const rows = [];
      for (const [name, request] of scenarios) {
        if (ONLY && !ONLY.test(name)) continue;
        const turns = { api: [], floor: [] };
        for (let round = 0; round < ROUNDS; round++) {
          // API, floor, floor, API, ...: a machine whose speed drifts during a scenario favours neither side.
          for (const side of round % 2 ? ['floor', 'api'] : ['api', 'floor']) {
            if (round === 0 && WARMUP > 0) {
              await warmUp(baseOf(request, side), token, requestOf(request, side), pidOf(request, side), isRead(request));
              await drained();
            }
            const before = await dbWork(db);
            const cpuBefore = await cpu(db, [pidOf(request, side), worker.pid]);
            const t = await closedLoop(baseOf(request, side), token, requestOf(request, side), DURATION);
            await drained();
            const spent = cpuSpent(cpuBefore, await cpu(db, [pidOf(request, side), worker.pid]));
            t.nodeMs = spent.node / Math.max(1, t.n);
            t.pgMs = spent.pg / Math.max(1, t.n);
            t.workerMs = spent.worker / Math.max(1, t.n);
            // The statistics reach the view within a second of a backend going idle.
            if (!isRead(request)) await sleep(1000);
            const after = await dbWork(db);
            for (const k of ['commits', 'writes', 'syncs']) t[k] = (after[k] - before[k]) / Math.max(1, t.n);
            turns[side].push(t);
            if (VERBOSE) console.log(`    ${name} round ${round + 1} ${side}: ${Math.round(t.rps)} req/s, CPU ms Node ${t.nodeMs.toFixed(2)} (worker ${t.workerMs.toFixed(2)}) + PostgreSQL ${t.pgMs.toFixed(2)}`);
          }
        }
        const mean = (xs) => Math.round(xs.reduce((s, x) => s + x.rps, 0) / xs.length);
        const worst = (xs, p) => Math.max(...xs.map((x) => x[p]));
        const row = {
          size, scenario: name, 'api req/s': mean(turns.api), 'api p50/p99': `${worst(turns.api, 'p50')}/${worst(turns.api, 'p99')}`,
          'floor req/s': mean(turns.floor), 'floor p50/p99': `${worst(turns.floor, 'p50')}/${worst(turns.floor, 'p99')}`,
          failed: [...turns.api, ...turns.floor].reduce((s, x) => s + x.bad, 0),
        };
        row.ratio = Number((row['api req/s'] / row['floor req/s']).toFixed(2));
        const ms = (xs, k) => xs.reduce((s, x) => s + x[k], 0) / xs.length;
        // CPU per request, Node (the server and the worker) + PostgreSQL (this database's backends), and its ratio.
        row['api cpu ms'] = `${ms(turns.api, 'nodeMs').toFixed(2)}+${ms(turns.api, 'pgMs').toFixed(2)}`;
        row['floor cpu ms'] = `${ms(turns.floor, 'nodeMs').toFixed(2)}+${ms(turns.floor, 'pgMs').toFixed(2)}`;
        row['cpu ratio'] = Number(((ms(turns.floor, 'nodeMs') + ms(turns.floor, 'pgMs')) / (ms(turns.api, 'nodeMs') + ms(turns.api, 'pgMs'))).toFixed(2));
        if (!isRead(request)) {
          const per = (xs, k) => (xs.reduce((s, x) => s + x[k], 0) / xs.length).toFixed(2);
          row.work = `per write: api ${per(turns.api, 'commits')} commits, ${per(turns.api, 'syncs')} WAL flushes, worker ${per(turns.api, 'workerMs')} ms of the Node CPU; floor ${per(turns.floor, 'commits')} commits, ${per(turns.floor, 'syncs')} WAL flushes, worker ${per(turns.floor, 'workerMs')} ms`;
        }
        rows.push(row);
        console.log(`  ${size} ${name}: api ${row['api req/s']} req/s | floor ${row['floor req/s']} req/s | ratio ${row.ratio} | cpu ms api ${row['api cpu ms']} floor ${row['floor cpu ms']} ratio ${row['cpu ratio']}${row.failed ? ` | ${row.failed} FAILED` : ''}${row.work ? ` | ${row.work}` : ''}`);
      }
      console.log(`\n${size} tasks, API vs floor, ${CONNECTIONS} connections, ${ROUNDS} x ${DURATION} s per side, alternating, worker on`);
      console.log('| request | API req/s | API p50 / p99 ms | floor req/s | floor p50 / p99 ms | ratio | API CPU ms (Node+PG) | floor CPU ms | CPU ratio |\n| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
      for (const r of rows) {
        console.log(`| ${r.scenario} | ${r['api req/s']} | ${r['api p50/p99'].replace('/', ' / ')} | ${r['floor req/s']} | ${r['floor p50/p99'].replace('/', ' / ')} | ${r.ratio} | ${r['api cpu ms']} | ${r['floor cpu ms']} | ${r['cpu ratio']} |`);
      }
      for (const r of rows) if (r.work) console.log(`${r.scenario}: ${r.work} (WAL flushes are the whole server's)`);
      if (rows.some((r) => r.failed > 0)) {
        process.exitCode = 1;
        console.error('some requests failed; see the failed column');
      }
    } finally {
      await worker.stop();
      await floor.stop();
      await mcp.stop();
      // A kept database is reused by its task count: the tasks this run wrote go (their jobs have run).
      // Then vacuumed, as after seeding: dead rows and a stale visibility map would make the next run's reads dearer.
      if (process.env.BENCH_KEEP) {
        await db('tasks').where('title', 'like', `${WRITE_TITLE} %`).delete();
        await db('comments').where('text', 'like', `${WRITE_COMMENT} %`).delete();
        await db.raw('vacuum analyze');
      }
    }
  });
}

try {
  for (const size of SIZES) await run(size);
} finally {
  const redis = new Redis(process.env.BENCH_REDIS_URL);
  try {
    for await (const keys of redis.scanStream({ match: `${process.env.QUEUE_PREFIX}:*`, count: 1000 })) if (keys.length) await redis.del(...keys);
  } finally {
    redis.disconnect();
  }
}
