#!/usr/bin/env node
// Soak run: the production topology (2 api behind the proxy, mcp, worker; built output, PostgreSQL + Redis, a fresh
// database) under a mixed open-loop load at a fixed rate for a set time. Every 60 s and at the end: requests,
// errors (with codes) and p50/p99 per kind, and the RSS of each process; at the end notifications and webhook
// deliveries expected against delivered, and whether RSS grew after the warm-up. Exit code 1 on any failed request,
// lost or duplicated notification or delivery.
//
//   node scripts/soak/soak.mjs --minutes 30 --rate 40
//   (build first: npx -y pnpm@12.21.0 run build; --help for the options)
import { clearInterval, setInterval as every } from 'node:timers';
import { parseArgs } from 'node:util';
import {
  Tally, checkDeliveries, createLedger, deliveryProblems, deliveryTable, env, median, MIX, openLoop, round1, runKind,
  sampleRss, setUpFixtures, startReceiver, startSoakTopology, weightedPicker,
} from './common.mjs';

const { values } = parseArgs({
  options: {
    minutes: { type: 'string', default: '30' },
    rate: { type: 'string', default: '40' },
    'warmup-minutes': { type: 'string' },
    'window-minutes': { type: 'string' },
    'report-seconds': { type: 'string', default: '60' },
    'database-url': { type: 'string', default: env('DATABASE_URL', 'postgres://postgres@127.0.0.1:5432/postgres') },
    'redis-url': { type: 'string', default: env('REDIS_URL', 'redis://127.0.0.1:6379') },
    keep: { type: 'boolean', default: false },
    help: { type: 'boolean', default: false },
  },
});
if (values.help) {
  console.log(`usage: node scripts/soak/soak.mjs [options]   (after npx -y pnpm@12.21.0 run build)
  --minutes M          length of the load (30)
  --rate R             requests per second, open loop (40)
  --warmup-minutes W   minutes left out of the RSS comparison (default: 2, at most a fifth of the run)
  --window-minutes N   RSS medians compared: the first N minutes after the warm-up against the last N (default: 5,
                       at most half of what follows the warm-up)
  --report-seconds S   interval of the progress reports (60)
  --database-url URL   PostgreSQL whose user may create databases (DATABASE_URL, else postgres://postgres@127.0.0.1:5432/postgres);
                       the run makes its own tt_soak_test_* database and drops it
  --redis-url URL      Redis (REDIS_URL, else redis://127.0.0.1:6379); the run uses its own queue prefix and deletes its keys
  --keep               keep the database and the Redis keys
Exit code 1 on any failed request (non-2xx, tool error, network error), lost or duplicated notification or webhook delivery.`);
  process.exit(0);
}
const minutes = Number(values.minutes);
const rate = Number(values.rate);
if (!(minutes > 0) || !(rate > 0)) {
  console.error('--minutes and --rate must be positive numbers');
  process.exit(2);
}
const warmupMin = values['warmup-minutes'] !== undefined ? Number(values['warmup-minutes']) : Math.min(2, minutes / 5);
const windowMin = values['window-minutes'] !== undefined ? Number(values['window-minutes']) : Math.min(5, (minutes - warmupMin) / 2);
const reportMs = Number(values['report-seconds']) * 1000;
const fmt = (x) => (Number.isFinite(x) ? String(x) : '-');

const receiver = await startReceiver();
const ledger = createLedger();
console.log(`starting the topology (2 api behind the proxy, mcp, worker) on ${values['database-url'].replace(/\/\/[^@]*@/, '//…@')} and ${values['redis-url']}`);
const run = await startSoakTopology({ databaseUrl: values['database-url'], redisUrl: values['redis-url'] });
const { topo } = run;
let stopping = false;
const interrupt = () => {
  if (stopping) return;
  stopping = true;
  console.error('interrupted: stopping');
};
process.on('SIGINT', interrupt);
process.on('SIGTERM', interrupt);

let exitCode = 0;
try {
  const fx = await setUpFixtures({ apiUrl: topo.apiUrl, adminToken: topo.adminToken, receiver, ledger });
  console.log(`database ${run.db.name}, queue prefix ${run.queuePrefix}; processes: ${topo.processes().map((p) => `${p.name} pid ${p.pid}`).join(', ')}`);
  console.log(`load: ${rate} req/s for ${minutes} min, mix ${Object.entries(MIX).map(([k, w]) => `${k} ${w}`).join(', ')} (%)`);

  const total = new Tally();
  let interval = new Tally();
  const rss = [];
  const t0 = Date.now();
  sampleRss(topo, t0, rss);
  const rssTimer = every(() => sampleRss(topo, t0, rss), 10_000);
  const report = () => {
    const elapsed = round1((Date.now() - t0) / 60_000);
    const now = Object.fromEntries(topo.processes().map((p) => [p.name, rss.findLast((s) => s.name === p.name)?.mb]));
    const rows = interval.rows();
    const sum = interval.total();
    if (!sum.requests) return;
    console.log(`\n[${elapsed} min] ${sum.requests} requests, ${sum.errors} errors in the last interval; RSS MB: ${Object.entries(now).map(([n, mb]) => `${n} ${mb}`).join(', ')}`);
    for (const r of rows) console.log(`  ${r.kind.padEnd(17)} ${String(r.requests).padStart(6)} req  p50 ${fmt(r.p50).padStart(7)} ms  p99 ${fmt(r.p99).padStart(7)} ms${r.errors ? `  ERRORS ${r.errors}: ${r.codes}` : ''}`);
    interval = new Tally();
  };
  const reportTimer = every(report, reportMs);
  const endAt = t0 + minutes * 60_000;
  await openLoop({
    rate, until: () => stopping || Date.now() >= endAt, pick: weightedPicker(MIX),
    exec: (kind) => runKind(kind, { apiUrl: topo.apiUrl, mcpUrl: topo.mcpUrl, fx, ledger }),
    onResult: (kind, ms, r) => {
      total.record(kind, ms, r.ok, r.code);
      interval.record(kind, ms, r.ok, r.code);
    },
  });
  clearInterval(reportTimer);
  clearInterval(rssTimer);
  sampleRss(topo, t0, rss);
  report();
  const loadMs = Date.now() - t0;

  console.log('\nload done; waiting for the worker to deliver every notification and webhook (at most 60 s)');
  const deliveries = await checkDeliveries({ pool: run.pool, fx, ledger, receiver });

  // RSS: medians of the first window after the warm-up and of the last window.
  const warmupMs = warmupMin * 60_000;
  const windowMs = windowMin * 60_000;
  const rssRows = topo.names.map((name) => {
    const s = rss.filter((x) => x.name === name);
    const first = s.filter((x) => x.t >= warmupMs && x.t < warmupMs + windowMs).map((x) => x.mb);
    const last = s.filter((x) => x.t >= loadMs - windowMs).map((x) => x.mb);
    const a = median(first);
    const b = median(last);
    const growth = round1(((b - a) / a) * 100);
    return { name, start: s[0]?.mb, first: a, last: b, max: Math.max(...s.map((x) => x.mb)), growth, flagged: growth > 10 };
  });

  const sum = total.total();
  const problems = [];
  if (sum.errors) problems.push(`${sum.errors} failed requests`);
  if (stopping) problems.push('interrupted before the end');
  problems.push(...deliveryProblems(deliveries));
  const grew = rssRows.filter((r) => r.flagged);

  console.log(`\n## Soak summary\n`);
  console.log(`${round1(loadMs / 60_000)} min at ${rate} req/s (open loop; latency from each request's due time), ` +
    `2 api behind the proxy, mcp, worker; ${sum.requests} requests, ${sum.errors} failed; ` +
    `deliveries settled ${round1(deliveries.settledMs / 1000)} s after the load.\n`);
  console.log('| kind | requests | errors | p50 ms | p99 ms |\n| --- | ---: | ---: | ---: | ---: |');
  for (const r of total.rows()) console.log(`| ${r.kind} | ${r.requests} | ${r.errors ? `${r.errors} (${r.codes})` : 0} | ${fmt(r.p50)} | ${fmt(r.p99)} |`);
  console.log(`| **all** | ${sum.requests} | ${sum.errors} | | |\n`);
  console.log(`RSS in MB (/proc/<pid>/status VmRSS every 10 s; warm-up ${round1(warmupMin)} min, windows of ${round1(windowMin)} min):\n`);
  console.log('| process | at start | first window median | last window median | max | growth |\n| --- | ---: | ---: | ---: | ---: | ---: |');
  for (const r of rssRows) console.log(`| ${r.name} | ${fmt(r.start)} | ${fmt(r.first)} | ${fmt(r.last)} | ${fmt(r.max)} | ${fmt(r.growth)} %${r.flagged ? ' **> 10 %**' : ''} |`);
  console.log('');
  console.log(deliveryTable(deliveries));
  console.log(`\nwebhook events received/expected by type: ${Object.entries(deliveries.webhooks.byType).map(([t, v]) => `${t} ${v}`).join(', ')}; ` +
    `delivery log: ${Object.entries(deliveries.webhooks.log).map(([s, n]) => `${s} ${n}`).join(', ')}; ` +
    `notifications of unacknowledged writes: ${deliveries.notifications.unacknowledged}`);
  if (grew.length) console.log(`\nRSS grew more than 10 % after the warm-up: ${grew.map((r) => `${r.name} ${r.growth} %`).join(', ')} (flagged; not counted in the exit code)`);
  if (problems.length) {
    console.log(`\nFAILED: ${problems.join('; ')}`);
    exitCode = 1;
  } else console.log('\nOK: no failed request, nothing lost or duplicated');
} catch (err) {
  console.error(err);
  exitCode = 1;
} finally {
  await run.close({ keep: values.keep });
  await receiver.close();
}
process.exit(exitCode);
