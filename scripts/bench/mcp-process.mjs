// The built mcp process (apps/mcp/dist/main.js) for the benchmarks, on a bench database, beside the built API.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, call, databaseUrl, freePort, nodeArgs } from './lib.mjs';

/**
 * Starts the built mcp process (`main`: another build's, for an A/B) on database `dbName` (REDIS_URL from
 * BENCH_REDIS_URL, when set); resolves once ready. `o.node` runs it on another node binary, `o.args` adds node options
 * after the services' own, and `o.onLine` reads its standard output line by line (otherwise ignored).
 */
export async function startBuiltMcp(dbName, main = join(ROOT, 'apps', 'mcp', 'dist', 'main.js'), o = {}) {
  if (!existsSync(main)) throw new Error('apps/mcp/dist/main.js is missing: build first (pnpm run build)');
  const port = await freePort();
  const env = {
    ...process.env, DATABASE_URL: databaseUrl(dbName), MCP_PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn',
    RATE_LIMIT_PER_MINUTE: '100000000', MIGRATE_ON_START: 'false',
  };
  if (process.env.BENCH_REDIS_URL) env.REDIS_URL = process.env.BENCH_REDIS_URL;
  else delete env.REDIS_URL;
  const child = spawn(o.node ?? process.execPath, [...nodeArgs('mcp'), ...(o.args ?? []), main], { env, stdio: ['ignore', o.onLine ? 'pipe' : 'ignore', 'inherit'] });
  if (o.onLine) {
    let buffer = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk) => {
      buffer += chunk;
      let end;
      while ((end = buffer.indexOf('\n')) >= 0) {
        o.onLine(buffer.slice(0, end));
        buffer = buffer.slice(end + 1);
      }
    });
  }
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const base = `http://127.0.0.1:${port}`;
  for (let i = 0; !(await fetch(`${base}/ready`).then((r) => r.ok, () => false)); i++) {
    if (child.exitCode !== null) throw new Error(`the mcp process exited with ${child.exitCode} before it was ready`);
    if (i > 300) throw new Error('the mcp process did not become ready in 30 s');
    await new Promise((r) => setTimeout(r, 100));
  }
  return { base, pid: child.pid, stop: async () => (child.kill('SIGTERM'), await exited) };
}

/** The 2026-07-28 `_meta` envelope of a bench client. */
const META = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientInfo': { name: 'bench', version: '1' }, 'io.modelcontextprotocol/clientCapabilities': {} };

/**
 * An autocannon request for `tools/call name(args)` on /mcp: 2026-07-28 (`modern`: the `_meta` envelope and the
 * standard headers) or the 2025-era leg (neither). The caller adds the authorization header.
 */
export function toolCallRequest(modern, name, args) {
  return {
    method: 'POST',
    path: '/mcp',
    headers: {
      'content-type': 'application/json', accept: 'application/json, text/event-stream',
      ...(modern ? { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': name } : {}),
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args, ...(modern ? { _meta: META } : {}) } }),
  };
}

/** One 2026-07-28 request (the `_meta` envelope and standard headers) to the mcp process; returns the JSON-RPC answer. */
export async function modernCall(base, token, method, params) {
  const res = await fetch(`${base}/mcp`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${token}`,
      'mcp-protocol-version': '2026-07-28', 'mcp-method': method,
    },
    body: JSON.stringify({
      jsonrpc: '2.0', id: 1, method,
      params: { ...params, _meta: META },
    }),
  });
  const text = await res.text();
  const data = text.startsWith('event:') || text.startsWith('data:') ? text.split('\n').find((l) => l.startsWith('data:')).slice(5) : text;
  return JSON.parse(data);
}

/**
 * Ten tasks of `project` in its first in-progress column, assigned to `userId`: the page both sides of the `search`
 * pair list (search_tasks assignee me, category progress; GET /v1/tasks?assigneeId=me&category=progress).
 */
export async function progressTasks(base, token, project, userId) {
  const column = project.boards[0].statuses.find((s) => s.category === 'progress');
  for (let i = 0; i < 10; i++) {
    await call(base, token, 'POST', '/v1/tasks', { title: `In progress ${i}`, projectId: project.id, statusId: column.id, assigneeIds: [userId], description: 'Listed by search.' });
  }
}
