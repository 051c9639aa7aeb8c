#!/usr/bin/env node
// Smoke test of the built service on a given Node.js binary (.ci/run runs it on each of CI_NODE_VERSIONS):
// starts apps/api/dist/embedded.js (what `npm start` serves) with the services' V8 flags on free ports and a fresh
// DATA_DIR, waits for 200 on the REST /ready and the MCP /health, then stops it with SIGTERM and expects exit 0.
//   node scripts/start-check.mjs [path/to/node]   (default: the node running this script; build first)
/* global AbortSignal */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { SERVICE_NODE_FLAGS } from './service-node-flags.mjs';
import { freePort } from './topology/index.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const ENTRY = path.join(ROOT, 'apps/api/dist/embedded.js');
const TIMEOUT_MS = 120_000;
const node = process.argv[2] ?? process.execPath;
if (!existsSync(ENTRY)) {
  console.error(`start-check: ${path.relative(ROOT, ENTRY)} is missing; build first (npx -y pnpm@12.21.0 run build)`);
  process.exit(2);
}

const dataDir = mkdtempSync(path.join(os.tmpdir(), 'tt-start-check-'));
const [port, mcpPort] = [await freePort(), await freePort()];
const started = Date.now();
const child = spawn(node, [...SERVICE_NODE_FLAGS, ENTRY], {
  cwd: ROOT,
  env: { ...process.env, PORT: String(port), MCP_PORT: String(mcpPort), DATA_DIR: dataDir, HOST: '127.0.0.1', LOG_LEVEL: 'warn' },
  stdio: ['ignore', 'pipe', 'pipe'],
});
const output = [];
child.stdout.on('data', (d) => output.push(String(d)));
child.stderr.on('data', (d) => output.push(String(d)));
const exited = new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));

const ok = async (url) => (await fetch(url, { signal: AbortSignal.timeout(2_000) }).catch(() => undefined))?.status === 200;
let failure;
const version = execFileSync(node, ['--version'], { encoding: 'utf8' }).trim();
try {
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`exited (${child.exitCode ?? child.signalCode}) before it was ready`);
    if (Date.now() - started > TIMEOUT_MS) throw new Error(`not ready after ${TIMEOUT_MS} ms`);
    if ((await ok(`http://127.0.0.1:${port}/ready`)) && (await ok(`http://127.0.0.1:${mcpPort}/health`))) break;
    await new Promise((r) => setTimeout(r, 200));
  }
  const readyMs = Date.now() - started;
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
  const { code, signal } = await exited;
  clearTimeout(timer);
  if (code !== 0) throw new Error(`exited with ${code ?? signal} on SIGTERM`);
  console.log(`start-check: Node.js ${version}: ready in ${(readyMs / 1000).toFixed(1)} s (/ready, MCP /health), stopped on SIGTERM with exit 0`);
} catch (err) {
  failure = err;
  child.kill('SIGKILL');
  await exited;
} finally {
  rmSync(dataDir, { recursive: true, force: true });
}
if (failure) {
  console.error(`start-check: Node.js ${version}: ${failure.message}\n${output.join('').split('\n').slice(-30).join('\n')}`);
  process.exit(1);
}
