// Shared pieces of the soak and rolling-restart runs: the topology on a fresh database with its own queue prefix, the
// fixtures (workspace, users, key, project, tasks), a webhook receiver, the mixed request kinds, an open-loop
// scheduler, latency and error tallies, RSS sampling from /proc, and the end checks (notifications and webhook
// deliveries, lost or doubled). Plain Node ESM on the built output; no test runner.
/* global AbortSignal */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import { createRequire } from 'node:module';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { createDatabase, startTopology } from '../topology/index.mjs';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const storeRequire = createRequire(path.join(ROOT, 'packages/store/package.json'));
const jobsRequire = createRequire(path.join(ROOT, 'packages/jobs/package.json'));

export const SCOPES = ['tasks:read', 'tasks:write', 'projects:write', 'time:read', 'time:write', 'docs:read', 'docs:write', 'meetings:read'];
export const WEBHOOK_EVENTS = ['task.created', 'task.updated', 'comment.created', 'time.logged'];
/** The webhook event each write kind makes (one per acknowledged write). */
export const EVENT_OF = { create_task: 'task.created', patch_task: 'task.updated', comment: 'comment.created', log_time: 'time.logged' };
const REQUEST_TIMEOUT_MS = 10_000;

// ---------------------------------------------------------------- topology

/**
 * A fresh database (`tt_soak_test_*`), its own QUEUE_PREFIX on the shared Redis, and the topology on free ports:
 * 2 api behind the proxy, mcp, worker. `env` adds variables for every app process.
 */
export async function startSoakTopology({ databaseUrl, redisUrl, env = {}, onLog, mcpReplicas = 1 }) {
  const db = await createDatabase(databaseUrl, `tt_soak_test_${randomBytes(4).toString('hex')}`);
  const queuePrefix = `tt-soak-${db.name}`;
  let topo;
  try {
    topo = await startTopology({
      databaseUrl: db.url, redisUrl, apiReplicas: 2, mcpReplicas, ports: { proxy: 0, mcp: 0, worker: 0, api: 0 }, queuePrefix, onLog,
      env: {
        // The soak measures the processes, not the per-key budget (120/min by default).
        RATE_LIMIT_PER_MINUTE: '10000000',
        // The receiver is on 127.0.0.1: the api and worker refuse private addresses unless told.
        WEBHOOK_ALLOW_PRIVATE: 'true',
        LOG_LEVEL: 'warn',
        ...env,
      },
    });
  } catch (err) {
    await db.drop().catch(() => undefined);
    throw err;
  }
  const pool = new (storeRequire('pg').Pool)({ connectionString: db.url, max: 2 });
  return {
    topo, db, queuePrefix, pool,
    /** Stops the processes; unless `keep`, drops the database and deletes the run's Redis keys (its prefix only). */
    async close({ keep = false } = {}) {
      await topo.stop().catch((err) => console.error(`stopping the topology: ${err.message}`));
      await pool.end().catch(() => undefined);
      if (keep) {
        console.log(`kept database ${db.name} and Redis keys ${queuePrefix}:*`);
        return;
      }
      await db.drop().catch((err) => console.error(`dropping ${db.name}: ${err.message}`));
      await deleteRedisKeys(redisUrl, `${queuePrefix}:*`).catch((err) => console.error(`deleting Redis keys: ${err.message}`));
    },
  };
}

/** Deletes the keys matching `pattern` (the run's own prefix: never anything shared). */
async function deleteRedisKeys(redisUrl, pattern) {
  if (!/^tt-soak-tt_soak_test_[0-9a-f]+:\*$/.test(pattern)) throw new Error(`refusing to delete ${pattern}`);
  const Redis = jobsRequire('ioredis');
  const redis = new (Redis.default ?? Redis)(redisUrl, { lazyConnect: true, maxRetriesPerRequest: 1 });
  await redis.connect();
  try {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', 500);
      cursor = next;
      if (keys.length) await redis.del(...keys);
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
}

// ---------------------------------------------------------------- fixtures

async function call(base, token, method, p, body) {
  const res = await fetch(base + p, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
  });
  const text = await res.text();
  if (res.status < 200 || res.status > 299) throw new Error(`${method} ${p} -> ${res.status} ${text}`);
  return text ? JSON.parse(text) : undefined;
}

/**
 * A business workspace; alice (admin, the key's user: every scope), bob and carol (the assignees: each created
 * task notifies its assignee, each comment by alice notifies it too); a project; `tasks` seed tasks; a webhook
 * subscription to the receiver for WEBHOOK_EVENTS (its secret given to the receiver before any write). Seed writes count towards the expectations (`ledger`).
 */
export async function setUpFixtures({ apiUrl, adminToken, receiver, ledger, tasks = 20 }) {
  const op = (method, p, body) => call(`${apiUrl}/admin/v1`, adminToken, method, p, body).then((r) => r?.data);
  const ws = await op('POST', '/workspaces', { name: 'Soak Corp', plan: 'business' });
  const alice = await op('POST', `/workspaces/${ws.id}/users`, { name: 'Alice Soak', login: 'alice', isAdmin: true });
  const bob = await op('POST', `/workspaces/${ws.id}/users`, { name: 'Bob Soak', login: 'bob' });
  const carol = await op('POST', `/workspaces/${ws.id}/users`, { name: 'Carol Soak', login: 'carol' });
  const key = await op('POST', `/users/${alice.id}/keys`, { scopes: SCOPES });
  const hook = await op('POST', `/workspaces/${ws.id}/webhooks`, { url: receiver.url, events: WEBHOOK_EVENTS, projectIds: null });
  receiver.setSecret(hook.secret);
  const v1 = (method, p, body) => call(`${apiUrl}/v1`, key.token, method, p, body).then((r) => r?.data);
  const project = await v1('POST', '/projects', { name: 'Soak', key: 'SOAK' });
  const fx = {
    workspaceId: ws.id, token: key.token, projectId: project.id, webhookId: hook.id, secret: hook.secret,
    users: { alice: alice.id, bob: bob.id, carol: carol.id }, assignees: [bob.id, carol.id],
    /** Keys of the tasks made so far (reads, patches, comments and time logs pick among them). */
    taskKeys: [],
    seq: 0,
  };
  for (let i = 0; i < tasks; i++) {
    const t = await v1('POST', '/tasks', { projectId: fx.projectId, title: `Seed ${i}`, assigneeIds: [fx.assignees[i % 2]] });
    fx.taskKeys.push(t.key);
    ledger.ack('create_task', t.id);
  }
  return fx;
}

// ---------------------------------------------------------------- webhook receiver

/** An HTTP receiver on 127.0.0.1 that checks each signature and counts deliveries by id (x-tracker-delivery). */
export async function startReceiver() {
  const byDelivery = new Map(); // delivery id -> {count, type, eventId}
  const stats = { requests: 0, badSignature: 0, byType: {} };
  let secret = '';
  const verify = (header, body) => {
    const parts = Object.fromEntries(String(header ?? '').split(',').map((kv) => kv.split('=')));
    const want = createHmac('sha256', secret).update(`${parts.t}.${body}`).digest();
    const got = Buffer.from(parts.v1 ?? '', 'hex');
    return got.length === want.length && timingSafeEqual(got, want);
  };
  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      stats.requests++;
      const body = Buffer.concat(chunks).toString('utf8');
      if (!verify(req.headers['x-tracker-signature'], body)) stats.badSignature++;
      const id = String(req.headers['x-tracker-delivery']);
      const type = String(req.headers['x-tracker-event']);
      const seen = byDelivery.get(id);
      if (seen) seen.count++;
      else {
        let eventId;
        try {
          eventId = JSON.parse(body).id;
        } catch {
          eventId = undefined;
        }
        byDelivery.set(id, { count: 1, type, eventId });
        stats.byType[type] = (stats.byType[type] ?? 0) + 1;
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}/hooks/tracker`,
    setSecret: (s) => (secret = s),
    received: () => byDelivery.size,
    byType: () => ({ ...stats.byType }),
    /** Delivery ids received more than once, and events received under more than one delivery id. */
    duplicates() {
      let deliveries = 0;
      const events = new Map();
      for (const d of byDelivery.values()) {
        if (d.count > 1) deliveries++;
        events.set(d.eventId, (events.get(d.eventId) ?? 0) + 1);
      }
      return { deliveries, events: [...events.values()].filter((n) => n > 1).length };
    },
    stats: () => ({ ...stats }),
    close: () => new Promise((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    }),
  };
}

// ---------------------------------------------------------------- what the clients did

/** Acknowledged writes: the ids behind the expected notifications and webhook events. */
export function createLedger() {
  const acked = { create_task: [], patch_task: 0, comment: [], log_time: 0 };
  return {
    ack(kind, id) {
      if (Array.isArray(acked[kind])) acked[kind].push(id);
      else acked[kind]++;
    },
    taskIds: () => acked.create_task,
    commentIds: () => acked.comment,
    /** One notification per created task (its assignee) and per comment (the task's assignee; alice acts). */
    expectedNotifications: () => acked.create_task.length + acked.comment.length,
    expectedEvents() {
      const n = (k) => (Array.isArray(acked[k]) ? acked[k].length : acked[k]);
      return Object.fromEntries(Object.entries(EVENT_OF).map(([kind, type]) => [type, n(kind)]));
    },
  };
}

// ---------------------------------------------------------------- request kinds

const PRIORITIES = ['highest', 'high', 'medium', 'low', 'lowest'];
const pickOf = (list) => list[Math.floor(Math.random() * list.length)];
const today = () => new Date().toISOString().slice(0, 10);

/** Weights of the mixed workload: reads, writes (each write makes a webhook event; creates and comments a notification), MCP. */
export const MIX = {
  get_task: 22, list_tasks: 14, create_task: 12, patch_task: 10, comment: 8, log_time: 8, mcp_get_task: 14, mcp_search_tasks: 12,
};

export function weightedPicker(mix) {
  const entries = Object.entries(mix).filter(([, w]) => w > 0);
  const sum = entries.reduce((s, [, w]) => s + w, 0);
  return () => {
    let r = Math.random() * sum;
    for (const [kind, w] of entries) if ((r -= w) < 0) return kind;
    return entries.at(-1)[0];
  };
}

/**
 * One request of `kind`; resolves {ok, code} where code names a failure: `<status> <error code>`, `tool_error ...`,
 * `rpc <code>` or the network error (ECONNREFUSED, ECONNRESET, TimeoutError, ...). Never rejects.
 */
export async function runKind(kind, { apiUrl, mcpUrl, fx, ledger }) {
  const auth = { authorization: `Bearer ${fx.token}` };
  const json = { ...auth, 'content-type': 'application/json' };
  const key = pickOf(fx.taskKeys);
  let req;
  switch (kind) {
    case 'get_task':
      req = [`${apiUrl}/v1/tasks/${key}`, { headers: auth }];
      break;
    case 'list_tasks': {
      const filters = [
        `assigneeId=${pickOf(fx.assignees)}`, `priority=${pickOf(PRIORITIES)},${pickOf(PRIORITIES)}`, 'category=todo,progress',
        'orderBy=updated', 'q=Soak', 'type=task',
      ];
      req = [`${apiUrl}/v1/tasks?projectId=${fx.projectId}&limit=20&${pickOf(filters)}`, { headers: auth }];
      break;
    }
    case 'create_task': {
      const n = ++fx.seq;
      req = [`${apiUrl}/v1/tasks`, { method: 'POST', headers: json, body: JSON.stringify({
        projectId: fx.projectId, title: `Soak task ${n}`, description: `Made by the soak run, request ${n}.`,
        assigneeIds: [fx.assignees[n % 2]], priority: pickOf(PRIORITIES), labels: ['soak'],
      }) }];
      break;
    }
    case 'patch_task':
      // A new title each time, so every PATCH is a change (and a task.updated event).
      req = [`${apiUrl}/v1/tasks/${key}`, { method: 'PATCH', headers: json, body: JSON.stringify({ title: `Soak task edit ${++fx.seq}`, priority: pickOf(PRIORITIES) }) }];
      break;
    case 'comment':
      req = [`${apiUrl}/v1/tasks/${key}/comments`, { method: 'POST', headers: json, body: JSON.stringify({ text: `Soak comment ${++fx.seq}` }) }];
      break;
    case 'log_time':
      req = [`${apiUrl}/v1/tasks/${key}/time`, { method: 'POST', headers: json, body: JSON.stringify({ minutes: 5, date: today(), note: 'soak' }) }];
      break;
    case 'mcp_get_task':
    case 'mcp_search_tasks': {
      const params = kind === 'mcp_get_task'
        ? { name: 'get_task', arguments: { task: key, comments: 5 } }
        : { name: 'search_tasks', arguments: { project: 'SOAK', assignee: pickOf(['bob', 'carol']), openOnly: true, limit: 10 } };
      req = [mcpUrl, { method: 'POST', headers: { ...json, accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: ++fx.seq, method: 'tools/call', params }) }];
      break;
    }
    default:
      throw new Error(`unknown kind ${kind}`);
  }
  try {
    const res = await fetch(req[0], { ...req[1], signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
    const text = await res.text();
    let body;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      body = undefined;
    }
    if (res.status < 200 || res.status > 299) return { ok: false, code: `${res.status} ${body?.error?.code ?? ''}`.trim() };
    if (kind.startsWith('mcp_')) {
      if (body?.error) return { ok: false, code: `rpc ${body.error.code}` };
      if (body?.result?.isError) return { ok: false, code: `tool_error ${String(body.result.content?.[0]?.text ?? '').slice(0, 40)}` };
      return { ok: true };
    }
    if (kind === 'create_task') {
      fx.taskKeys.push(body.data.key);
      ledger.ack(kind, body.data.id);
    } else if (kind === 'comment') ledger.ack(kind, body.data.id);
    else if (kind in EVENT_OF) ledger.ack(kind);
    return { ok: true };
  } catch (err) {
    return { ok: false, code: err.cause?.code ?? err.name ?? 'error' };
  }
}

// ---------------------------------------------------------------- load and tallies

/** Latencies (ms from each request's due time) and failures by kind; `bucket` separates intervals or phases. */
export class Tally {
  constructor() {
    this.kinds = new Map();
  }
  record(kind, ms, ok, code) {
    let k = this.kinds.get(kind);
    if (!k) this.kinds.set(kind, (k = { latencies: [], errors: new Map() }));
    k.latencies.push(ms);
    if (!ok) k.errors.set(code, (k.errors.get(code) ?? 0) + 1);
  }
  rows() {
    return [...this.kinds.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([kind, k]) => {
      const sorted = Float64Array.from(k.latencies).sort();
      const errors = [...k.errors.values()].reduce((s, n) => s + n, 0);
      return {
        kind, requests: sorted.length, errors, codes: [...k.errors.entries()].map(([c, n]) => `${c} x${n}`).join(', '),
        p50: percentile(sorted, 50), p99: percentile(sorted, 99),
      };
    });
  }
  total() {
    const rows = this.rows();
    return { requests: rows.reduce((s, r) => s + r.requests, 0), errors: rows.reduce((s, r) => s + r.errors, 0) };
  }
}

export const percentile = (sorted, p) => (sorted.length ? round1(sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]) : NaN);
export const round1 = (x) => Math.round(x * 10) / 10;

/**
 * Open-loop load: request i is due at start + i / rate whatever happened to the earlier ones, and its latency is
 * counted from when it was due. Runs until `until()` is true (checked before each request); waits for what is in
 * flight. `onResult(kind, ms, result, dueAt)` is called for each.
 */
export async function openLoop({ rate, until, pick, exec, onResult }) {
  const start = performance.now() + 20;
  const inFlight = new Set();
  for (let i = 0; ; i++) {
    const due = start + (i * 1000) / rate;
    const wait = due - performance.now();
    if (wait > 0) await sleep(wait);
    if (until()) break;
    const kind = pick();
    const dueAt = Date.now();
    const p = exec(kind).then((result) => {
      inFlight.delete(p);
      onResult(kind, performance.now() - due, result, dueAt);
    });
    inFlight.add(p);
  }
  await Promise.all(inFlight);
}

// ---------------------------------------------------------------- RSS

/** VmRSS of a pid in MB (from /proc/<pid>/status), or undefined when it is gone. */
export function rssMb(pid) {
  try {
    const m = /^VmRSS:\s+(\d+)\s+kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? round1(Number(m[1]) / 1024) : undefined;
  } catch {
    return undefined;
  }
}

/** Samples of every topology process: {t (ms since start), name, pid, mb}. */
export function sampleRss(topo, t0, samples) {
  for (const p of topo.processes()) {
    const mb = p.pid ? rssMb(p.pid) : undefined;
    if (mb !== undefined) samples.push({ t: Date.now() - t0, name: p.name, pid: p.pid, mb });
  }
}

export const median = (xs) => {
  if (!xs.length) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : round1((s[s.length / 2 - 1] + s[s.length / 2]) / 2);
};

// ---------------------------------------------------------------- end checks

/**
 * Waits (up to `timeoutMs`) until every expected notification and webhook delivery is in, then compares.
 * Notifications: from the database (one per created task for its assignee, one per comment); lost = an
 * acknowledged task or comment without its notification, duplicated = more than one for one of them.
 * Webhooks: distinct delivery ids received by type against the acknowledged writes; duplicates by delivery id
 * and by event id; the delivery log's statuses from the database.
 */
export async function checkDeliveries({ pool, fx, ledger, receiver, timeoutMs = 60_000 }) {
  const expectedEvents = ledger.expectedEvents();
  const expectedHooks = Object.values(expectedEvents).reduce((s, n) => s + n, 0);
  const countNotifications = async () => Number((await pool.query('select count(*)::int as n from notifications where workspace_id = $1', [fx.workspaceId])).rows[0].n);
  const deadline = Date.now() + timeoutMs;
  const settleStart = Date.now();
  while (Date.now() < deadline) {
    if ((await countNotifications()) >= ledger.expectedNotifications() && receiver.received() >= expectedHooks) break;
    await sleep(500);
  }
  const settledMs = Date.now() - settleStart;
  const taskIds = ledger.taskIds();
  const commentIds = ledger.commentIds();
  const q = async (sql, params) => (await pool.query(sql, params)).rows;
  const assigned = await q(
    `select t.id, count(n.id)::int as n from unnest($1::text[]) as t(id)
       left join notifications n on n.task_id = t.id and n.kind = 'assigned' group by t.id`, [taskIds]);
  const commented = await q(
    `select c.id, count(n.id)::int as n from unnest($1::text[]) as c(id)
       left join notifications n on n.comment_id = c.id group by c.id`, [commentIds]);
  const delivered = await countNotifications();
  const notifications = {
    expected: ledger.expectedNotifications(), delivered,
    lost: assigned.filter((r) => r.n === 0).length + commented.filter((r) => r.n === 0).length,
    duplicated: assigned.filter((r) => r.n > 1).length + commented.filter((r) => r.n > 1).length,
  };
  // Notifications of writes the client never saw acknowledged (timed out or cut after the commit).
  notifications.unacknowledged = delivered - (assigned.reduce((s, r) => s + r.n, 0) + commented.reduce((s, r) => s + r.n, 0));
  const log = await q('select status, count(*)::int as n from webhook_deliveries where webhook_id = $1 group by status order by status', [fx.webhookId]);
  const dup = receiver.duplicates();
  const byType = receiver.byType();
  const webhooks = {
    expected: expectedHooks, received: receiver.received(),
    lost: Object.entries(expectedEvents).reduce((s, [type, n]) => s + Math.max(0, n - (byType[type] ?? 0)), 0),
    extra: Object.entries(expectedEvents).reduce((s, [type, n]) => s + Math.max(0, (byType[type] ?? 0) - n), 0),
    duplicatedDeliveries: dup.deliveries, duplicatedEvents: dup.events, badSignatures: receiver.stats().badSignature,
    byType: Object.fromEntries(Object.entries(expectedEvents).map(([type, n]) => [type, `${byType[type] ?? 0}/${n}`])),
    log: Object.fromEntries(log.map((r) => [r.status, r.n])),
  };
  return { notifications, webhooks, settledMs };
}

/** The delivery checks as Markdown table rows. */
export function deliveryTable({ notifications: n, webhooks: w }) {
  return [
    '| check | expected | delivered | lost | duplicated |',
    '| --- | ---: | ---: | ---: | ---: |',
    `| notifications (created tasks' assignees, comments) | ${n.expected} | ${n.delivered} | ${n.lost} | ${n.duplicated} |`,
    `| webhook deliveries (distinct delivery ids) | ${w.expected} | ${w.received} | ${w.lost} | ${w.duplicatedDeliveries} ids, ${w.duplicatedEvents} events |`,
  ].join('\n');
}

/** A failure list for the exit code: errors, losses, duplicates, bad signatures. */
export function deliveryProblems({ notifications: n, webhooks: w }) {
  const problems = [];
  if (n.lost) problems.push(`${n.lost} notifications lost`);
  if (n.duplicated) problems.push(`${n.duplicated} notifications duplicated`);
  if (w.lost) problems.push(`${w.lost} webhook events not received`);
  if (w.duplicatedDeliveries || w.duplicatedEvents) problems.push(`webhook duplicates: ${w.duplicatedDeliveries} delivery ids, ${w.duplicatedEvents} events`);
  if (w.badSignatures) problems.push(`${w.badSignatures} webhook deliveries with a bad signature`);
  return problems;
}

export const env = (name, fallback) => process.env[name] || fallback;
