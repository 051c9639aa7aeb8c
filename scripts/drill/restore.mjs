#!/usr/bin/env node
// The restore drill (`npm run drill:restore`, docs/operations.md "Backups and point-in-time recovery"): a base backup
// taken under writes, with WAL archiving, restored to a named moment into a new cluster, and the restored service
// checked through its API and SQL. Plain Node ESM on the built output (build first); PostgreSQL's own tools only.
//
//  1. A throwaway cluster (initdb in a temporary directory, a free port, archive_mode on, archive_command copying each
//     WAL segment into a temporary archive); migrations; the api on it (no Redis); a workspace, user and key through
//     the operator API; a project through REST.
//  2. Task creates through REST flow while pg_basebackup takes a base backup (checked with pg_verifybackup).
//  3. The moment: the writers pause (no create in flight, each one before it answered 201), the state the creates
//     wrote is read, pg_create_restore_point names the moment (--target time: the server's clock_timestamp() is
//     read instead), the writers go on.
//  4. More creates, every one acknowledged 201; pg_switch_wal and a wait until the last segment is archived.
//  5. The source api and cluster stop. Restore: the base backup copied into a new data directory, restore_command
//     from the archive, recovery_target_name the moment (--target time: recovery_target_time), recovery_target_action
//     promote, recovery.signal; started on another free port, and waited for until promoted.
//  6. Migrations (none missing) and the api on the restored cluster; every task acknowledged before the moment is
//     there (REST and SQL), none after it; each has its task.created activity entry and the outbox rows its create
//     wrote, exactly as at the moment; the restored service takes a new create.
//  7. The restore time (from the copy of the base backup to the restored api answering /ready); everything is
//     stopped and removed, on failure too. Exit 0 only when every check passed.
//
// Options: --target name|time (a restore point, the default, or the server's clock). --without-target restores
// without the recovery target (replays the whole archive): the drill must then fail, since the creates after the
// moment come back. --without-archive restores from an empty archive (the base backup alone): the drill must fail
// too, since the target lies in WAL the backup does not hold. --keep leaves the temporary directory (printed) in place.
// Env: DRILL_PG_BIN (directory of initdb, pg_ctl, pg_basebackup; found by itself otherwise), DRILL_PG_USER (the user
// the server runs as when the drill runs as root; postgres).
/* global AbortSignal */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { appendFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { SERVICE_NODE_FLAGS } from '../service-node-flags.mjs';
import { freePort } from '../topology/index.mjs';
import { cluster, handOver, logTail, pgBinDir, pgRun, pgUser, runAs } from './cluster.mjs';
import { compareMoment, restoreFailures } from './checks.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const pg = createRequire(path.join(ROOT, 'packages/store/package.json'))('pg');
const { values: opts } = parseArgs({
  options: {
    target: { type: 'string', default: 'name' },
    'without-target': { type: 'boolean', default: false },
    'without-archive': { type: 'boolean', default: false },
    keep: { type: 'boolean', default: false },
  },
});
if (!['name', 'time'].includes(opts.target)) throw new Error(`--target is name (a restore point) or time, not ${opts.target}`);

const WRITERS = 4;
const BEFORE_BACKUP = 20; // creates acknowledged before the base backup starts
const AFTER_BACKUP = 20; // ... after it ends and before the moment
const AFTER_MOMENT = 30; // ... after the moment
const SCOPES = ['tasks:read', 'tasks:write', 'projects:write'];
const CREATE_WRITES = { outbox: ['automations.task_created', 'notify.assigned'], activity: 'task.created' };

const started = performance.now();
const log = (msg) => console.log(`[drill ${((performance.now() - started) / 1000).toFixed(1).padStart(5)}s] ${msg}`);
const cleanups = [];

// ---------------------------------------------------------------- processes

function startApi(name, databaseUrl, port, adminToken) {
  const file = path.join(ROOT, 'apps/api/dist/main.js');
  if (!existsSync(file)) throw new Error(`${file} is missing: build first (npx -y pnpm@12.21.0 run build)`);
  const env = {
    ...process.env, DATABASE_URL: databaseUrl, PORT: String(port), HOST: '127.0.0.1', ADMIN_TOKEN: adminToken,
    MIGRATE_ON_START: 'false', LOG_LEVEL: 'warn', RATE_LIMIT_PER_MINUTE: '10000000', SHUTDOWN_DRAIN_MS: '0',
  };
  delete env.REDIS_URL; // the api serves without Redis (the outbox keeps its jobs): the drill is about PostgreSQL
  const child = spawn(process.execPath, [...SERVICE_NODE_FLAGS, file], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  const tail = [];
  for (const s of [child.stdout, child.stderr]) {
    s.setEncoding('utf8');
    s.on('data', (chunk) => {
      tail.push(...chunk.split('\n').filter(Boolean));
      tail.splice(0, Math.max(0, tail.length - 100));
    });
  }
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve(code ?? signal)));
  const alive = () => child.exitCode === null && child.signalCode === null;
  const api = {
    name, url: `http://127.0.0.1:${port}`, tail,
    async ready(timeoutMs = 60_000) {
      const deadline = Date.now() + timeoutMs;
      let last = 'no answer';
      while (Date.now() < deadline) {
        if (!alive()) throw new Error(`${name} exited (${child.exitCode ?? child.signalCode}) before it was ready:\n${tail.slice(-30).join('\n')}`);
        try {
          const res = await fetch(`${api.url}/ready`, { signal: AbortSignal.timeout(2_000) });
          if (res.ok) return;
          last = `${res.status} ${await res.text()}`;
        } catch (err) {
          last = err.cause?.code ?? err.message;
        }
        await sleep(50);
      }
      throw new Error(`${name} not ready after ${timeoutMs} ms (last: ${last}):\n${tail.slice(-30).join('\n')}`);
    },
    async stop(signal = 'SIGTERM') {
      if (!alive()) return;
      child.kill(signal);
      const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      await exited;
      clearTimeout(timer);
    },
  };
  cleanups.push(() => api.stop());
  return api;
}

function runNode(entry, env) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(ROOT, entry)], { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (c) => (out += c));
    child.stderr.on('data', (c) => (out += c));
    child.once('exit', (code) => (code === 0 ? resolve(out) : reject(new Error(`${entry} exited ${code}:\n${out.slice(-3000)}`))));
  });
}

async function sql(url, text, params = []) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(text, params)).rows;
  } finally {
    await client.end();
  }
}

// ---------------------------------------------------------------- REST

async function call(base, token, method, p, body) {
  const res = await fetch(base + p, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(10_000),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

async function ok(base, token, method, p, body, want = [200, 201]) {
  const res = await call(base, token, method, p, body);
  if (!want.includes(res.status)) throw new Error(`${method} ${p} -> ${res.status} ${JSON.stringify(res.body)}`);
  return res.body?.data;
}

/**
 * WRITERS loops of task creates. Each create answered 201 is acknowledged (id, key, phase); anything else fails the
 * drill. pause() resolves once no create is in flight, so every create is either acknowledged before it or sent after resume().
 */
function startWriters(apiUrl, token, projectId, assigneeId) {
  const acked = [];
  let phase = 'before';
  let paused = null; // {promise, release} while paused
  let stopped = false;
  let inFlight = 0;
  let failure;
  let n = 0;
  const idle = [];
  const settle = () => {
    if (inFlight === 0) idle.splice(0).forEach((r) => r());
  };
  const loop = async () => {
    while (!stopped && !failure) {
      if (paused) {
        await paused.promise;
        continue;
      }
      inFlight++;
      const title = `Drill ${++n}`;
      try {
        const t = await ok(`${apiUrl}/v1`, token, 'POST', '/tasks', { projectId, title, assigneeIds: [assigneeId] }, [201]);
        acked.push({ id: t.id, key: t.key, phase });
      } catch (err) {
        failure ??= err;
      } finally {
        inFlight--;
        settle();
      }
    }
  };
  const loops = Array.from({ length: WRITERS }, loop);
  const check = () => {
    if (failure) throw new Error(`a create was not acknowledged: ${failure.message}`);
  };
  return {
    acked,
    count: (p) => acked.filter((a) => a.phase === p).length,
    async until(predicate, timeoutMs = 60_000) {
      const deadline = Date.now() + timeoutMs;
      while (!predicate()) {
        check();
        if (Date.now() > deadline) throw new Error(`writers: not there after ${timeoutMs} ms (${acked.length} acknowledged)`);
        await sleep(10);
      }
      check();
    },
    async pause() {
      let release;
      paused = { promise: new Promise((r) => (release = r)), release: () => release() };
      if (inFlight > 0) await new Promise((r) => idle.push(r));
      check();
    },
    resume(nextPhase) {
      phase = nextPhase;
      const p = paused;
      paused = null;
      p?.release();
    },
    async stop() {
      stopped = true;
      paused?.release();
      await Promise.all(loops);
      check();
    },
  };
}

// ---------------------------------------------------------------- what the creates wrote

/** The rows a task create writes, read by SQL: the project's tasks, their task.created entries, the create's outbox jobs. */
async function createWrites(url, projectId) {
  const tasks = await sql(url, 'select id, key from tasks where project_id = $1 order by id', [projectId]);
  const activity = await sql(url, 'select id, task_id, task_key from activity where action = $1 and project_id = $2 order by id', [CREATE_WRITES.activity, projectId]);
  const outbox = await sql(url, 'select id::text, name, payload from outbox where name = any($1) order by id', [CREATE_WRITES.outbox]);
  return { tasks, activity, outbox: outbox.map((r) => ({ id: r.id, name: r.name, taskId: r.payload.taskId, payload: JSON.stringify(r.payload) })) };
}

// ---------------------------------------------------------------- the drill

async function main() {
  const bin = await pgBinDir();
  const user = await pgUser();
  const { stdout: version } = await pgRun(bin, 'postgres', ['--version'], user);
  log(`PostgreSQL binaries: ${bin} (${version.trim()})${user ? `, run as ${user.name}` : ''}`);

  const tmp = mkdtempSync(path.join(os.tmpdir(), 'tt-drill-'));
  cleanups.push(() => {
    if (opts.keep) console.log(`kept ${tmp}`);
    else rmSync(tmp, { recursive: true, force: true });
  });
  handOver(tmp, user);
  const dir = (name) => {
    const d = path.join(tmp, name);
    mkdirSync(d);
    handOver(d, user);
    return d;
  };
  const archive = dir('archive');
  const base = path.join(tmp, 'base');
  const adminToken = randomBytes(24).toString('base64url');

  // 1. The source cluster: WAL archiving into the archive directory.
  const source = cluster({ bin, user, dataDir: path.join(tmp, 'source'), port: await freePort(), socketDir: tmp, logFile: path.join(tmp, 'source.log') });
  cleanups.push(() => source.stop('immediate'));
  await pgRun(bin, 'initdb', ['-D', source.dataDir, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync'], user);
  appendFileSync(path.join(source.dataDir, 'postgresql.conf'), [
    '', '# restore drill',
    "listen_addresses = '127.0.0.1'",
    'wal_level = replica',
    'archive_mode = on',
    // The documented form: never overwrite a segment already archived.
    `archive_command = 'test ! -f ${archive}/%f && cp %p ${archive}/%f'`,
    // A throwaway cluster: durability of its own files is not what the drill tests (the archive and backup are).
    'fsync = off',
    'shared_buffers = 32MB',
    '',
  ].join('\n'));
  await source.start();
  log(`source cluster on port ${source.port}, archiving to ${archive}`);
  await runNode('apps/api/dist/migrate.js', { DATABASE_URL: source.url, LOG_LEVEL: 'warn' });
  const api = startApi('api (source)', source.url, await freePort(), adminToken);
  await api.ready();
  const op = (method, p, body) => ok(`${api.url}/admin/v1`, adminToken, method, p, body);
  const ws = await op('POST', '/workspaces', { name: 'Drill Corp', plan: 'business' });
  const alice = await op('POST', `/workspaces/${ws.id}/users`, { name: 'Alice Drill', login: 'alice', isAdmin: true });
  const bob = await op('POST', `/workspaces/${ws.id}/users`, { name: 'Bob Drill', login: 'bob' });
  const key = await op('POST', `/users/${alice.id}/keys`, { scopes: SCOPES });
  const project = await ok(`${api.url}/v1`, key.token, 'POST', '/projects', { name: 'Drill', key: 'DRILL' });
  log(`api on ${api.url}: workspace ${ws.id}, project ${project.key}`);

  // 2. A base backup while creates flow.
  const writers = startWriters(api.url, key.token, project.id, bob.id);
  cleanups.push(() => writers.stop().catch(() => undefined));
  await writers.until(() => writers.acked.length >= BEFORE_BACKUP);
  const atBackupStart = writers.acked.length;
  const backupStart = performance.now();
  await pgRun(bin, 'pg_basebackup', ['-h', '127.0.0.1', '-p', String(source.port), '-U', 'postgres', '-D', base, '-X', 'stream', '-c', 'fast', '--no-sync'], user);
  const duringBackup = writers.acked.length - atBackupStart;
  log(`base backup in ${((performance.now() - backupStart) / 1000).toFixed(1)} s, ${duringBackup} creates acknowledged while it ran`);
  await pgRun(bin, 'pg_verifybackup', [base], user);
  log('pg_verifybackup: the base backup matches its manifest');

  // 3. The moment: no create in flight, the state the creates wrote, then the restore point (or the server's clock:
  // every create acknowledged before committed before it was read, every one after commits after).
  const afterBackup = writers.acked.length;
  await writers.until(() => writers.acked.length >= afterBackup + AFTER_BACKUP);
  await writers.pause();
  const atMoment = await createWrites(source.url, project.id);
  let target;
  let recoveryTarget;
  if (opts.target === 'time') {
    [{ target }] = await sql(source.url, 'select clock_timestamp()::text as target');
    recoveryTarget = `recovery_target_time = '${target}'`;
    log(`target time ${target}`);
  } else {
    target = `drill-${randomBytes(4).toString('hex')}`;
    const [{ lsn }] = await sql(source.url, 'select pg_create_restore_point($1) as lsn', [target]);
    recoveryTarget = `recovery_target_name = '${target}'`;
    log(`restore point ${target} at ${lsn}`);
  }
  const before = writers.acked.filter((a) => a.phase === 'before');
  writers.resume('after');
  log(`${before.length} creates acknowledged before the moment`);
  const momentFailures = compareMoment(before, atMoment);
  if (momentFailures.length) throw new Error(`the source at the moment does not hold what was acknowledged:\n  ${momentFailures.join('\n  ')}`);

  // 4. More creates, then the last segment archived.
  await writers.until(() => writers.count('after') >= AFTER_MOMENT);
  await writers.stop();
  const after = writers.acked.filter((a) => a.phase === 'after');
  const [{ wal }] = await sql(source.url, 'select pg_walfile_name(pg_switch_wal()) as wal');
  const archivedBy = Date.now() + 30_000;
  while (!existsSync(path.join(archive, wal))) {
    if (Date.now() > archivedBy) throw new Error(`WAL segment ${wal} not archived after 30 s:\n${logTail(source.logFile)}`);
    await sleep(50);
  }
  log(`${after.length} creates acknowledged after the moment; WAL archived up to ${wal} (${readdirSync(archive).length} files)`);

  // The source is lost.
  await api.stop('SIGKILL');
  await source.stop('immediate');

  // 5. Restore into a new cluster.
  const restoreStart = performance.now();
  const restored = cluster({ bin, user, dataDir: path.join(tmp, 'restored'), port: await freePort(), socketDir: tmp, logFile: path.join(tmp, 'restored.log') });
  cleanups.push(() => restored.stop('immediate'));
  await runAs(user, 'cp', ['-a', base, restored.dataDir]); // as the server's user, mode 0700 kept
  appendFileSync(path.join(restored.dataDir, 'postgresql.conf'), [
    '', '# restore drill: point-in-time recovery',
    // --without-archive: an empty archive, so only the WAL inside the base backup replays.
    `restore_command = 'cp ${opts['without-archive'] ? dir('empty-archive') : archive}/%f %p'`,
    ...(opts['without-target'] ? [] : [recoveryTarget]),
    "recovery_target_action = 'promote'",
    // The restored cluster must not archive into the source's archive.
    'archive_mode = off',
    '',
  ].join('\n'));
  const copied = performance.now();
  writeFileSync(path.join(restored.dataDir, 'recovery.signal'), '');
  if (user) handOver(path.join(restored.dataDir, 'recovery.signal'), user);
  await restored.start();
  const promotedBy = Date.now() + 60_000;
  for (;;) {
    const rows = await sql(restored.url, 'select pg_is_in_recovery() as r').catch(() => undefined);
    if (rows?.[0].r === false) break;
    // pg_ctl -w returns once a server in recovery takes read-only connections: recovery may still fail after that.
    if (!existsSync(path.join(restored.dataDir, 'postmaster.pid'))) throw new Error(`the restored cluster stopped during recovery:\n${logTail(restored.logFile)}`);
    if (Date.now() > promotedBy) throw new Error(`the restored cluster was not promoted after 60 s:\n${logTail(restored.logFile)}`);
    await sleep(50);
  }
  const promoted = performance.now();
  // As in a deploy (docs/operations.md): the release's migrations, which apply only what the moment lacks.
  await runNode('apps/api/dist/migrate.js', { DATABASE_URL: restored.url, LOG_LEVEL: 'warn' });
  const restoredApi = startApi('api (restored)', restored.url, await freePort(), adminToken);
  await restoredApi.ready();
  const restoreSeconds = (performance.now() - restoreStart) / 1000;
  const phases = `copy ${((copied - restoreStart) / 1000).toFixed(1)} s, recovery and promotion ${((promoted - copied) / 1000).toFixed(1)} s, migrations and api ${((performance.now() - promoted) / 1000).toFixed(1)} s`;
  log(`restored${opts['without-target'] ? ' WITHOUT a recovery target' : ` to ${target}`}${opts['without-archive'] ? ' WITHOUT the archive' : ''} on port ${restored.port}; api ready on ${restoredApi.url}`);
  const recoveryLines = logTail(restored.logFile, 200).split('\n').filter((l) => /recovery stopping|archive recovery complete|redo done/.test(l));
  for (const l of recoveryLines) log(`  server: ${l.replace(/^.*?(LOG|FATAL):\s*/, '')}`);

  // 6. Checks.
  const v1 = (method, p, body, want) => call(`${restoredApi.url}/v1`, key.token, method, p, body).then((r) => {
    if (want && !want.includes(r.status)) throw new Error(`${method} ${p} -> ${r.status} ${JSON.stringify(r.body)}`);
    return r;
  });
  const listed = [];
  for (let cursor; ;) {
    const page = (await v1('GET', `/tasks?projectId=${project.id}&limit=100${cursor ? `&cursor=${cursor}` : ''}`, undefined, [200])).body;
    listed.push(...page.data.map((t) => ({ id: t.id, key: t.key })));
    cursor = page.nextCursor;
    if (!cursor) break;
  }
  const gets = {};
  for (const a of [...before, ...after]) gets[a.id] = (await v1('GET', `/tasks/${a.key}`)).status;
  const activityOf = {};
  for (const a of before.slice(0, 5)) {
    const page = (await v1('GET', `/tasks/${a.key}/activity`, undefined, [200])).body;
    activityOf[a.id] = page.data.map((e) => e.action);
  }
  const restoredWrites = await createWrites(restored.url, project.id);
  const failures = restoreFailures({ before, after, atMoment, restored: restoredWrites, listed, gets, activityOf });
  // The restored cluster is promoted: it takes writes, and the project's numbering goes on after the last kept key.
  const fresh = await v1('POST', '/tasks', { projectId: project.id, title: 'After the restore', assigneeIds: [bob.id] });
  const lastNumber = Math.max(...before.map((a) => Number(a.key.split('-')[1])));
  if (fresh.status !== 201) failures.push(`a create on the restored service answered ${fresh.status} ${JSON.stringify(fresh.body)}`);
  else if (fresh.body.data.key !== `${project.key}-${lastNumber + 1}`) failures.push(`a create on the restored service got ${fresh.body.data.key}, not ${project.key}-${lastNumber + 1}`);

  // 7. The verdict.
  console.log(`
restore drill: base backup under writes (${duringBackup} creates during it), ${recoveryTarget}
  acknowledged before the moment: ${before.length}, after it: ${after.length}
  restored: ${restoredWrites.tasks.length} tasks, ${restoredWrites.activity.length} task.created entries, ${restoredWrites.outbox.length} create outbox rows
  restore time: ${restoreSeconds.toFixed(1)} s from the copy of the base backup to the restored api's /ready (${phases})`);
  if (failures.length) {
    console.log(`FAILED: ${failures.length} check(s)\n  ${failures.join('\n  ')}`);
    return 1;
  }
  console.log('every check passed: the moment restored exactly (REST, SQL, activity, outbox), and the restored service takes writes');
  return 0;
}

async function cleanup() {
  for (const fn of cleanups.reverse()) await Promise.resolve().then(fn).catch((err) => console.error(`cleanup: ${err.message}`));
  cleanups.length = 0;
}

for (const signal of ['SIGINT', 'SIGTERM']) {
  process.once(signal, () => {
    console.error(`${signal}: cleaning up`);
    cleanup().finally(() => process.exit(1));
  });
}

let code = 1;
try {
  code = await main();
} catch (err) {
  console.error(`restore drill failed: ${err.stack ?? err}`);
} finally {
  await cleanup();
}
log(`done (exit ${code})`);
process.exit(code);
