#!/usr/bin/env node
// The README's two commands: `npm start` and `npm test`. Needs only Node.js (20.19 or later, any newer version: no
// upper bound here or in `engines`): pnpm comes through npx.
import { spawnSync } from 'node:child_process';

const PNPM = ['-y', 'pnpm@12.21.0'];
const run = (args, env = {}) => {
  const r = spawnSync('npx', [...PNPM, ...args], { stdio: 'inherit', env: { ...process.env, ...env } });
  if (r.status !== 0) process.exit(r.status ?? 1);
};

const [cmd] = process.argv.slice(2);
if (cmd === 'start') {
  run(['install', '--frozen-lockfile']);
  run(['--filter', '@tt/api', 'run', 'build']);
  run(['run', 'serve']);
} else if (cmd === 'test') {
  run(['install', '--frozen-lockfile']);
  run(['exec', 'vitest', 'run']);
} else {
  console.error('usage: node scripts/run.mjs start|test');
  process.exit(2);
}
