#!/usr/bin/env node
// MCP Inspector's own OAuth sign-in against the embedded service, headless: the Inspector's CLI (pinned below; it
// needs Node.js 22.19 or later, brought through npx when this node is older) registers itself (RFC 7591), prints the
// authorization URL and waits on its loopback callback; headless Chromium opens that URL, signs in on the consent page
// with the demo key and approves; the Inspector then exchanges the code and calls get_task on WEB-1.
//   node scripts/oauth/inspector-check.mjs        (no build needed: the service runs from source through tsx)
// Needs the npm registry (the Inspector and, on Node.js 20, node@24) and Chromium (scripts/browser/ensure-chromium.mjs).
import { execFileSync, spawn } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { CHROMIUM_ARGS, ensureChromium } from '../browser/ensure-chromium.mjs';
import { freePort } from '../topology/index.mjs';

export const INSPECTOR = '@modelcontextprotocol/inspector@2.12.0';
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const TIMEOUT_MS = 180_000;
const log = (line) => console.log(`inspector-check: ${line}`);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** A node binary of 22.19 or later: this one, or node@24 through npx (as .ci/run brings its Node.js versions). */
function modernNode() {
  const [major, minor] = process.versions.node.split('.').map(Number);
  if (major > 22 || (major === 22 && minor >= 19)) return process.execPath;
  return execFileSync('npx', ['-y', 'node@24', '-p', 'process.execPath'], { encoding: 'utf8' }).trim();
}

function started(child, name, group = false) {
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  const exited = new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
  return { child, name, group, output: () => out, exited };
}

async function until(what, check) {
  const deadline = Date.now() + TIMEOUT_MS;
  for (;;) {
    const v = await check();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${what}`);
    await sleep(100);
  }
}

const dir = mkdtempSync(path.join(os.tmpdir(), 'tt-inspector-check-'));
const procs = [];
let browser;
let failure;
try {
  const chromiumPath = ensureChromium({ log }).path;
  if (!chromiumPath) throw new Error('no Chromium (see scripts/browser/ensure-chromium.mjs)');
  const node = modernNode();

  const [port, mcpPort, callbackPort] = [await freePort(), await freePort(), await freePort()];
  const svc = started(spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'apps/api/src/embedded.ts')], {
    cwd: ROOT,
    env: { ...process.env, PORT: String(port), MCP_PORT: String(mcpPort), DATA_DIR: path.join(dir, 'data'), HOST: '127.0.0.1', LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'pipe', 'pipe'],
  }), 'service');
  procs.push(svc);
  const demoKey = await until('the embedded service', () => {
    if (svc.child.exitCode !== null) throw new Error(`the service exited:\n${svc.output()}`);
    return /Demo API key: +(tt_\S+)/.exec(svc.output())?.[1];
  });
  const mcpUrl = `http://127.0.0.1:${mcpPort}/mcp`;
  log(`service up, MCP at ${mcpUrl}`);

  // Without a TTY the Inspector signs in only with MCP_AUTO_OPEN_ENABLED; "opening a browser" then runs $BROWSER,
  // here a script that does nothing: the URL is read from the Inspector's "Please navigate to:" line.
  const home = path.join(dir, 'home');
  mkdirSync(home);
  const noBrowser = path.join(dir, 'no-browser.sh');
  writeFileSync(noBrowser, '#!/bin/sh\nexit 0\n');
  chmodSync(noBrowser, 0o755);
  const inspector = started(spawn('npx', [
    '-y', INSPECTOR, '--cli', '--server-url', mcpUrl, '--callback-url', `http://127.0.0.1:${callbackPort}/oauth/callback`,
    '--method', 'tools/call', '--tool-name', 'get_task', '--tool-arg', 'task=WEB-1', '--format', 'json',
  ], {
    cwd: dir,
    env: {
      ...process.env, HOME: home, PATH: `${path.dirname(node)}${path.delimiter}${process.env.PATH}`,
      MCP_AUTO_OPEN_ENABLED: 'true', BROWSER: noBrowser, MCP_INSPECTOR_SECRET_STORE: 'memory', NO_COLOR: '1',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
    // Its own process group: npx runs the Inspector as a child, and a stop must reach both.
    detached: true,
  }), 'inspector', true);
  procs.push(inspector);
  const authorizeUrl = await until('the Inspector to print the authorization URL', () => {
    if (inspector.child.exitCode !== null) throw new Error(`the Inspector exited (${inspector.child.exitCode}):\n${inspector.output()}`);
    return /Please navigate to: (\S+)/.exec(inspector.output())?.[1];
  });
  const asked = new URL(authorizeUrl);
  log(`the Inspector registered as ${asked.searchParams.get('client_id')} and sends the person to ${asked.origin}${asked.pathname}`);

  browser = await chromium.launch({ executablePath: chromiumPath, headless: true, args: CHROMIUM_ARGS });
  const page = await browser.newPage();
  const res = await page.goto(authorizeUrl, { waitUntil: 'load' });
  if (res?.status() !== 200) throw new Error(`the consent page answered ${res?.status()}`);
  await page.locator('input[name="api_key"]').fill(demoKey);
  await Promise.all([page.waitForNavigation({ waitUntil: 'load' }), page.locator('button[name="decision"][value="approve"]').click()]);
  const landed = new URL(page.url());
  if (landed.port !== String(callbackPort) || !landed.searchParams.get('code')) throw new Error(`the consent did not reach the Inspector's callback: ${page.url()}`);
  log(`approved in Chromium; the Inspector's callback page says: ${(await page.locator('body').innerText()).trim().slice(0, 80)}`);

  const timer = setTimeout(() => process.kill(-inspector.child.pid, 'SIGKILL'), 60_000);
  const { code } = await inspector.exited;
  clearTimeout(timer);
  const stdout = inspector.output().split('\n').find((l) => l.startsWith('{"result"'));
  if (code !== 0 || !stdout) throw new Error(`the Inspector exited with ${code}:\n${inspector.output().slice(-3000)}`);
  const text = JSON.parse(stdout).result.content?.[0]?.text ?? '';
  if (!text.includes('Set up the landing page')) throw new Error(`get_task answered something else:\n${text.slice(0, 1000)}`);
  log(`the Inspector called get_task with its token: WEB-1 "Set up the landing page" (${INSPECTOR}, Node.js ${execFileSync(node, ['--version'], { encoding: 'utf8' }).trim()})`);
} catch (err) {
  failure = err;
} finally {
  await browser?.close().catch(() => undefined);
  for (const p of procs.reverse()) {
    if (p.child.exitCode === null && p.child.signalCode === null) {
      const kill = (signal) => (p.group ? process.kill(-p.child.pid, signal) : p.child.kill(signal));
      kill('SIGTERM');
      await Promise.race([p.exited, sleep(15_000).then(() => kill('SIGKILL'))]);
    }
  }
  rmSync(dir, { recursive: true, force: true });
}
if (failure) {
  console.error(`inspector-check: FAILED: ${failure.message}`);
  process.exit(1);
}
log('passed');
