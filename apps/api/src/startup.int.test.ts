import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { networkInterfaces, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../../..');

/** Runs an entry under tsx until it exits (or `until` matches its stdout, then stops it). */
function run(entry: string, env: Record<string, string>, until?: RegExp): Promise<{ code: number | null; stdout: string; stderr: string; stop: () => Promise<void> }> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, entry)], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  const exited = new Promise<number | null>((done) => child.on('exit', (code) => done(code)));
  const stop = async () => {
    child.kill('SIGTERM');
    await exited;
  };
  return new Promise((done, fail) => {
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString();
      if (until?.test(stdout)) done({ code: null, stdout, stderr, stop });
    });
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    void exited.then((code) => (until?.test(stdout) ? undefined : code === null ? fail(new Error(stderr)) : done({ code, stdout, stderr, stop })));
  });
}

/** A non-loopback IPv4 address of this machine, if it has one. */
const lanAddress = Object.values(networkInterfaces())
  .flat()
  .find((i) => i && i.family === 'IPv4' && !i.internal)?.address;

const reachable = (host: string, port: number) =>
  new Promise<boolean>((done) => {
    const s = connect({ host, port }, () => {
      s.destroy();
      done(true);
    });
    s.on('error', () => done(false));
  });

describe('start-up', () => {
  const dirs: string[] = [];
  afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

  it.each([
    ['apps/api/src/main.ts', 'api'],
    ['apps/mcp/src/main.ts', 'mcp'],
    ['apps/worker/src/main.ts', 'worker'],
  ])('%s: a bad variable is one line naming it, exit code 1, no stack trace', async (entry, name) => {
    const r = await run(entry, { LOG_LEVEL: 'loud', ADMIN_TOKEN: 'short', WORKER_CONCURRENCY: '0' });
    expect(r.code).toBe(1);
    const lines = r.stderr.trim().split('\n');
    expect(lines).toContain(`${name}: bad configuration: LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent`);
    if (name === 'api') expect(lines).toContain('api: bad configuration: ADMIN_TOKEN must be at least 16 characters');
    if (name === 'worker') expect(lines).toContain('worker: bad configuration: WORKER_CONCURRENCY must be at least 1');
    expect(r.stderr).not.toMatch(/^\s+at /m);
  });

  it('an unreachable database is one line too', async () => {
    const r = await run('apps/api/src/main.ts', { DATABASE_URL: 'postgres://postgres@127.0.0.1:1/none', PORT: '0' });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^api: could not start: .*ECONNREFUSED/m);
    expect(r.stderr).not.toMatch(/^\s+at /m);
  });

  it('embedded mode listens on 127.0.0.1 only unless HOST opens it', { timeout: 120_000 }, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tt-embedded-'));
    dirs.push(dir);
    const env = { DATA_DIR: dir, PORT: '0', MCP_PORT: '0', LOG_LEVEL: 'warn' };
    const local = await run('apps/api/src/embedded.ts', env, /Demo API key/);
    try {
      const port = Number(/REST API: +http:\/\/127\.0\.0\.1:(\d+)/.exec(local.stdout)?.[1]);
      expect(await reachable('127.0.0.1', port)).toBe(true);
      if (lanAddress) expect(await reachable(lanAddress, port)).toBe(false);
      expect(local.stdout).not.toContain('reachable from the network');
    } finally {
      await local.stop();
    }
    const open = await run('apps/api/src/embedded.ts', { ...env, HOST: '0.0.0.0' }, /Demo API key/);
    try {
      const port = Number(/REST API: +http:\/\/127\.0\.0\.1:(\d+)/.exec(open.stdout)?.[1]);
      if (lanAddress) expect(await reachable(lanAddress, port)).toBe(true);
      expect(open.stdout).toContain('listening on 0.0.0.0: reachable from the network');
    } finally {
      await open.stop();
    }
  });
});
