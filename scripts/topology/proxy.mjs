#!/usr/bin/env node
// A tiny round-robin reverse proxy (node:http only) standing in for nginx in front of the api replicas
// when the topology runs without containers. Not a production load balancer.
import http from 'node:http';
import { pathToFileURL } from 'node:url';

const HOP_BY_HOP = new Set([
  'connection', 'keep-alive', 'proxy-authenticate', 'proxy-authorization', 'te', 'trailer', 'transfer-encoding', 'upgrade',
]);
// An upstream that refused a connection is skipped for this long, then tried again.
const DOWN_FOR_MS = 2_000;
const MAX_BODY = 10 * 1024 * 1024;

function readBody(req) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    let size = 0;
    req.on('data', (c) => {
      size += c.length;
      if (size > MAX_BODY) {
        reject(Object.assign(new Error('request body too large'), { status: 413 }));
        req.destroy();
        return;
      }
      chunks.push(c);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

function forwardHeaders(req) {
  const headers = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (!HOP_BY_HOP.has(name)) headers[name] = value;
  }
  const client = req.socket.remoteAddress ?? '';
  headers['x-forwarded-for'] = req.headers['x-forwarded-for'] ? `${req.headers['x-forwarded-for']}, ${client}` : client;
  headers['x-forwarded-proto'] = 'http';
  headers['x-forwarded-host'] = req.headers.host ?? '';
  return headers;
}

/** GETs `url` with a short timeout: whether it answered 200. */
function probe(url, timeoutMs) {
  return new Promise((resolve) => {
    const req = http.get(url, { timeout: timeoutMs, agent: false }, (res) => {
      res.resume();
      resolve(res.statusCode === 200);
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', () => resolve(false));
  });
}

/**
 * Starts a round-robin proxy on `port` (0 = any free port) over `upstreams` (base URLs like
 * http://127.0.0.1:3010). Request bodies are buffered, so a request whose upstream refuses the
 * connection (a replica restarting) is retried on the next one. With `readyPath` (e.g. /ready) each upstream is
 * probed every `readyIntervalMs` and one that does not answer 200 (a replica draining before a deploy stops it)
 * gets no new requests, like a Kubernetes Service over readiness probes. Returns {url, port, stats(), close()}.
 */
export async function startProxy({ upstreams, port = 0, host = '127.0.0.1', readyPath, readyIntervalMs = 250 }) {
  if (!upstreams?.length) throw new Error('startProxy: at least one upstream is needed');
  const targets = upstreams.map((u) => ({ url: new URL(u), downUntil: 0, ready: true, requests: 0 }));
  let next = 0;
  let total = 0;

  let probing;
  if (readyPath) {
    const round = () => Promise.all(targets.map(async (t) => {
      t.ready = await probe(new URL(readyPath, t.url), Math.max(readyIntervalMs * 2, 500));
    }));
    const loop = async () => {
      await round();
      if (probing) probing.timer = setTimeout(loop, readyIntervalMs);
    };
    probing = { timer: undefined };
    await round();
    probing.timer = setTimeout(loop, readyIntervalMs);
  }

  const pick = (tried) => {
    const now = Date.now();
    for (let i = 0; i < targets.length; i++) {
      const t = targets[(next + i) % targets.length];
      if (!tried.has(t) && t.ready && t.downUntil <= now) {
        next = (targets.indexOf(t) + 1) % targets.length;
        return t;
      }
    }
    // Every upstream looks down or not ready: try one that is up, then any not yet tried, rather than failing at once.
    return targets.find((t) => !tried.has(t) && t.downUntil <= now) ?? targets.find((t) => !tried.has(t));
  };

  const attempt = (target, req, body, res, tried) => {
    tried.add(target);
    const upstream = http.request(
      {
        protocol: target.url.protocol, hostname: target.url.hostname, port: target.url.port,
        method: req.method, path: req.url, headers: { ...forwardHeaders(req), 'content-length': String(body.length) },
      },
      (up) => {
        target.requests++;
        const headers = {};
        for (const [name, value] of Object.entries(up.headers)) if (!HOP_BY_HOP.has(name)) headers[name] = value;
        res.writeHead(up.statusCode ?? 502, headers);
        up.pipe(res);
      },
    );
    upstream.on('error', (err) => {
      if (err.code === 'ECONNREFUSED' || err.code === 'ECONNRESET') target.downUntil = Date.now() + DOWN_FOR_MS;
      // Only a refused connection is safe to retry: the request never reached a replica.
      const other = err.code === 'ECONNREFUSED' ? pick(tried) : undefined;
      if (other) return attempt(other, req, body, res, tried);
      if (!res.headersSent) {
        res.writeHead(502, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { code: 'bad_gateway', message: `upstream unavailable: ${err.code ?? err.message}` } }));
      } else {
        res.destroy(err);
      }
    });
    upstream.end(body);
  };

  const server = http.createServer((req, res) => {
    total++;
    readBody(req).then(
      (body) => {
        const tried = new Set();
        attempt(pick(tried), req, body, res, tried);
      },
      (err) => {
        res.writeHead(err.status ?? 400, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { code: 'invalid_request', message: err.message } }));
      },
    );
  });
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, resolve);
  });
  const actualPort = server.address().port;
  return {
    url: `http://${host}:${actualPort}`,
    port: actualPort,
    /** Requests received, and requests answered by each upstream. */
    stats: () => ({ total, upstreams: targets.map((t) => ({ url: t.url.origin, requests: t.requests, ready: t.ready })) }),
    close: () =>
      new Promise((resolve) => {
        if (probing) {
          clearTimeout(probing.timer);
          probing = undefined;
        }
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

// CLI: node scripts/topology/proxy.mjs PORT UPSTREAM_URL...
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const [port, ...upstreams] = process.argv.slice(2);
  if (!port || upstreams.length === 0) {
    console.error('usage: node scripts/topology/proxy.mjs PORT UPSTREAM_URL [UPSTREAM_URL...]');
    process.exit(2);
  }
  const proxy = await startProxy({ port: Number(port), upstreams, host: process.env.HOST ?? '127.0.0.1' });
  console.log(`proxy ${proxy.url} -> ${upstreams.join(', ')}`);
  const stop = () => proxy.close().then(() => process.exit(0));
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}
