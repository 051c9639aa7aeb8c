#!/usr/bin/env node
// Finds a headless-capable Chromium for the browser tests, installing Debian's `chromium` package when it is missing
// and this machine allows it (root with apt-get). Used as a library by the tests and runnable on its own:
//   node scripts/browser/ensure-chromium.mjs
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { pathToFileURL } from 'node:url';

/** Debian's chromium package puts its launcher here. */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH || '/usr/bin/chromium';

/** Flags for a headless run that never talks to Google's services or leaves files behind in the user's profile. */
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

const hasAptGet = () => spawnSync('apt-get', ['--version'], { stdio: 'ignore' }).status === 0;
const isRoot = () => typeof process.getuid === 'function' && process.getuid() === 0;

function apt(args, log) {
  log(`ensure-chromium: apt-get ${args.join(' ')}`);
  const r = spawnSync('apt-get', args, { stdio: ['ignore', 'inherit', 'inherit'], env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
  return r.status === 0;
}

/**
 * Resolves `{ path }` of a Chromium binary, installing it with apt-get when absent; or `{ skip }` with the reason
 * when no browser can be had here (not root, no apt-get, or the install failed).
 */
export function ensureChromium({ log = (line) => process.stderr.write(line + '\n') } = {}) {
  if (existsSync(CHROMIUM_PATH)) return { path: CHROMIUM_PATH };
  if (!hasAptGet()) return { skip: `no browser at ${CHROMIUM_PATH} and no apt-get to install Debian's chromium package` };
  if (!isRoot()) return { skip: `no browser at ${CHROMIUM_PATH}; install it as root: apt-get install -y chromium` };
  // A fresh container has empty package lists: try as is first, then once more after an update.
  const install = ['install', '-y', '--no-install-recommends', 'chromium'];
  if (!apt(install, log) && !(apt(['update'], log) && apt(install, log))) {
    return { skip: `apt-get install chromium failed; install it by hand (apt-get install -y chromium)` };
  }
  return existsSync(CHROMIUM_PATH) ? { path: CHROMIUM_PATH } : { skip: `chromium installed but ${CHROMIUM_PATH} is missing` };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const r = ensureChromium();
  if (r.path) {
    const v = spawnSync(r.path, ['--version'], { encoding: 'utf8' });
    process.stdout.write(`chromium ready: ${r.path} (${(v.stdout || '').trim()})\n`);
  } else {
    process.stdout.write(`chromium unavailable: ${r.skip}\n`);
    process.exitCode = 1;
  }
}
