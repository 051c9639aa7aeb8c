// Stoplight Prism in proxy mode in front of an api process: every response is checked against the OpenAPI
// document, and one that breaks it comes back as a 500 with an `sl-violations` header (--errors).
// A small counting proxy sits in front of Prism so tests can tell how many responses were validated and
// collect every violation, and so requests Prism cannot forward still reach the server (see below).
/* global AbortSignal */
import { spawn } from 'node:child_process';
import http from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort } from '../topology/index.mjs';

/** Pinned: 5.14.2 runs on Node 20 and validates OpenAPI 3.1; later versions need Node 24. */
export const PRISM = '@stoplight/prism-cli@5.14.2';
const PRISM_ERROR = 'https://stoplight.io/prism/errors#';

function readAll(stream) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    stream.on('data', (c) => chunks.push(c));
    stream.on('end', () => resolve(Buffer.concat(chunks)));
    stream.on('error', reject);
  });
}

function relay(target, req, body) {
  return new Promise((resolve, reject) => {
    const headers = { ...req.headers, host: `${target.hostname}:${target.port}`, 'content-length': String(body.length) };
    delete headers.connection;
    delete headers['transfer-encoding'];
    const out = http.request(
      { hostname: target.hostname, port: target.port, method: req.method, path: req.url, headers },
      (res) => readAll(res).then((buf) => resolve({ status: res.statusCode ?? 502, headers: res.headers, body: buf }), reject),
    );
    out.on('error', reject);
    out.end(body);
  });
}

async function waitListening(url, child, tail, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`prism exited (${child.exitCode}):\n${tail.join('\n')}`);
    try {
      // Any HTTP answer (Prism's own 404 for "/") means it is listening.
      await fetch(url, { signal: AbortSignal.timeout(2_000) });
      return;
    } catch {
      await sleep(250);
    }
  }
  throw new Error(`prism did not start within ${timeoutMs} ms:\n${tail.join('\n')}`);
}

/**
 * Starts Prism (`proxy --errors`) for `upstream` (an api base URL such as http://127.0.0.1:3000) with
 * `document` (a file path or URL; default `${upstream}/v1/openapi.json`), and a counting proxy in front.
 * Send requests to the returned `url`. Options:
 *  - validateRequest (false): Prism answers invalid requests itself (422) instead of forwarding them, which
 *    would hide the server's own 400s that tests assert; responses are validated either way.
 *  - bypassUnauthenticated (true): Prism answers requests without an Authorization header with its own 401
 *    and never forwards them; these go straight to the upstream instead and are counted as `bypassed`.
 * Returns {url, prismUrl, stats(), assertClean(), stop()}.
 */
export async function startPrism({
  upstream, document, host = '127.0.0.1', port = 0, prismPort = 0, validateRequest = false, bypassUnauthenticated = true,
  startTimeoutMs = 180_000, onLog,
}) {
  const upstreamUrl = new URL(upstream);
  const doc = document ?? `${upstreamUrl.origin}/v1/openapi.json`;
  const pPort = prismPort || (await freePort(host));
  const args = ['-y', PRISM, 'proxy', '--errors', `--validate-request=${validateRequest}`, '-h', host, '-p', String(pPort), doc, upstreamUrl.origin];
  const child = spawn('npx', args, { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' }, detached: true });
  const tail = [];
  for (const stream of [child.stdout, child.stderr]) {
    stream.setEncoding('utf8');
    stream.on('data', (chunk) => {
      for (const line of chunk.split('\n')) {
        if (!line) continue;
        tail.push(line);
        if (tail.length > 200) tail.shift();
        onLog?.(line);
      }
    });
  }
  const prismUrl = `http://${host}:${pPort}`;
  const stopPrism = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    // npx starts prism as a child: signal the whole process group we created with detached.
    try {
      process.kill(-child.pid, 'SIGTERM');
    } catch {
      child.kill('SIGTERM');
    }
    const timer = setTimeout(() => {
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        /* already gone */
      }
    }, 5_000);
    await exited;
    clearTimeout(timer);
    process.removeListener('exit', killGroup);
  };
  // A test runner that dies must not leave Prism behind (it runs in its own process group).
  const killGroup = () => {
    try {
      process.kill(-child.pid, 'SIGKILL');
    } catch {
      /* already gone */
    }
  };
  process.once('exit', killGroup);
  try {
    await waitListening(prismUrl, child, tail, startTimeoutMs);
  } catch (err) {
    await stopPrism();
    throw err;
  }

  const stats = { requests: 0, validated: 0, bypassed: 0, violations: [], prismErrors: [] };
  const prismTarget = new URL(prismUrl);
  const server = http.createServer(async (req, res) => {
    stats.requests++;
    try {
      const body = await readAll(req);
      const bypass = bypassUnauthenticated && !req.headers.authorization;
      const answer = await relay(bypass ? upstreamUrl : prismTarget, req, body);
      const what = `${req.method} ${req.url}`;
      if (bypass) {
        stats.bypassed++;
      } else if (answer.headers['sl-violations']) {
        stats.validated++;
        let violations = answer.headers['sl-violations'];
        try {
          violations = JSON.parse(String(violations));
        } catch {
          /* keep the raw header */
        }
        stats.violations.push({ request: what, status: answer.status, violations });
      } else if (String(answer.headers['content-type'] ?? '').includes('problem+json') && answer.body.includes(PRISM_ERROR)) {
        // Prism answered itself (no matching path, security, request validation): nothing was validated.
        stats.prismErrors.push({ request: what, status: answer.status, body: answer.body.toString('utf8') });
      } else {
        stats.validated++;
      }
      const headers = { ...answer.headers };
      delete headers['transfer-encoding'];
      delete headers.connection;
      headers['content-length'] = String(answer.body.length);
      res.writeHead(answer.status, headers);
      res.end(answer.body);
    } catch (err) {
      res.writeHead(502, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { code: 'bad_gateway', message: String(err.message ?? err) } }));
    }
  });
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, resolve);
  });
  const url = `http://${host}:${server.address().port}`;

  return {
    /** Send requests here (base URL; append /v1/...). */
    url,
    prismUrl,
    /** Counts so far: requests, validated (answered by the server and checked), bypassed, violations, prismErrors. */
    stats: () => ({ ...stats, violations: [...stats.violations], prismErrors: [...stats.prismErrors] }),
    /** Throws when any response broke the document or Prism could not validate a request. */
    assertClean() {
      if (stats.violations.length || stats.prismErrors.length) {
        throw new Error(`OpenAPI contract broken:\n${JSON.stringify({ violations: stats.violations, prismErrors: stats.prismErrors }, null, 2)}`);
      }
    },
    /** Prism's recent output. */
    logs: () => [...tail],
    async stop() {
      await new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      await stopPrism();
    },
  };
}
