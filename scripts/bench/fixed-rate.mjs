// An open-loop load at a fixed rate: request i is due at start + i / rate, whatever happened to the ones before, and
// its latency is counted from when it was due, so time spent waiting for a free connection is part of it (no
// coordinated omission). autocannon's overallRate is not that: each connection sends its whole per-second budget
// back to back at the top of each second, then idles, and its correction for omitted samples assumes a 1 ms interval.
import { fork } from 'node:child_process';
import http from 'node:http';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';

function send(agent, url, path, headers, open) {
  return new Promise((resolve) => {
    const req = http.request({ agent, host: url.hostname, port: url.port, path, method: 'GET', headers }, (res) => {
      res.resume();
      res.on('end', () => {
        open?.delete(req);
        resolve(res.statusCode >= 200 && res.statusCode < 300);
      });
      res.on('error', () => resolve(false));
    });
    req.on('error', () => resolve(false));
    open?.add(req);
    req.end();
  });
}

const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];

/**
 * Sends GET `path()` to `base` at `rate` req/s for `duration` s over at most `connections` keep-alive connections.
 * Returns the rate answered, latency percentiles in ms (from each request's due time) and the failed count. A server
 * slower than the rate falls behind without end: what is unanswered `timeout` s after the last request was due is
 * abandoned and counted failed, with an infinite latency.
 */
export async function fixedRate({ base, token, rate, duration, connections, path, timeout = 10 }) {
  const url = new URL(base);
  const agent = new http.Agent({ keepAlive: true, maxSockets: connections });
  const headers = { authorization: `Bearer ${token}` };
  try {
    // Open the connections first, so their handshakes are not measured.
    await Promise.all(Array.from({ length: connections }, () => send(agent, url, path(), headers)));
    const total = Math.round(rate * duration);
    const latencies = new Float64Array(total).fill(Infinity);
    const inFlight = [];
    // Requests not answered yet, some of them still queued in the agent for a free connection.
    const open = new Set();
    let bad = 0;
    const start = performance.now() + 20;
    for (let i = 0; i < total; i++) {
      const due = start + (i * 1000) / rate;
      const wait = due - performance.now();
      if (wait > 0) await sleep(wait);
      inFlight.push(send(agent, url, path(), headers, open).then((ok) => {
        latencies[i] = performance.now() - due;
        if (!ok) bad++;
      }));
    }
    let timer;
    const late = new Promise((resolve) => (timer = setTimeout(resolve, timeout * 1000)));
    await Promise.race([Promise.all(inFlight), late]);
    clearTimeout(timer);
    const elapsed = (performance.now() - start) / 1000;
    const answered = latencies.filter(Number.isFinite).length;
    bad += total - answered;
    const sorted = Array.from(latencies).sort((a, b) => a - b);
    // Abandoned: destroyed one by one, so the agent does not send its queue on new connections once these close.
    for (const req of open) req.destroy();
    const ms = (x) => (Number.isFinite(x) ? Math.round(x * 10) / 10 : Infinity);
    return {
      rps: answered / elapsed, p50: ms(percentile(sorted, 50)), p90: ms(percentile(sorted, 90)),
      p99: ms(percentile(sorted, 99)), max: ms(sorted.at(-1)), bad,
    };
  } finally {
    agent.destroy();
  }
}

/**
 * The load generator's own process: a young generation of 64 MB per semi-space, so a turn of a few thousand requests
 * collects garbage a few times at most and never runs a mark-compact. Run in the benchmark's process, a mark-compact
 * of its own (its database pool, the previous turns' garbage) stopped it for 10 to 15 ms while responses waited
 * unread, and those pauses were counted as the server's latency: they made the 1 000 000-task p99s.
 */
const LOAD_NODE_ARGS = ['--max-semi-space-size=64', '--min-semi-space-size=64'];

/**
 * fixedRate in a child process of its own (see LOAD_NODE_ARGS). `path()` is called here for every request of the turn
 * beforehand and the list handed over; resolves to fixedRate's result.
 */
export function fixedRateApart({ path, ...options }) {
  const paths = Array.from({ length: Math.round(options.rate * options.duration) + options.connections }, () => path());
  const child = fork(fileURLToPath(import.meta.url), [], { execArgv: LOAD_NODE_ARGS, serialization: 'advanced', stdio: 'inherit' });
  return new Promise((resolve, reject) => {
    let result;
    child.once('message', (r) => (result = r));
    child.once('error', reject);
    child.once('exit', (code) => (result ? resolve(result) : reject(new Error(`the load generator exited with ${code} and no result`))));
    child.send({ ...options, paths });
  });
}

// Started by fixedRateApart: one turn, its result sent back, then exit.
if (process.send && process.argv[1] === fileURLToPath(import.meta.url)) {
  process.once('message', async ({ paths, ...options }) => {
    let i = 0;
    const result = await fixedRate({ ...options, path: () => paths[i++ % paths.length] });
    process.send(result, () => process.disconnect());
  });
}
