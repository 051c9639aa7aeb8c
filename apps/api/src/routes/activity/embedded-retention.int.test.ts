import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createLogger, createRuntime } from '@tt/http';
import { afterAll, describe, expect, it } from 'vitest';
import { seedDemo } from '../../seed.js';

const ROOT = resolve(import.meta.dirname, '../../../../..');
const DAY = 86_400_000;

/** `npm start`'s entry under tsx, until its banner; `stop` ends it with SIGTERM. */
function startEmbedded(env: Record<string, string>): Promise<{ stdout: () => string; stop: () => Promise<void> }> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'apps/api/src/embedded.ts')], {
    cwd: ROOT, env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  const exited = new Promise<void>((done) => child.on('exit', () => done()));
  const stop = async () => {
    child.kill('SIGTERM');
    await exited;
  };
  return new Promise((done, fail) => {
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString();
      if (stdout.includes('Demo API key')) done({ stdout: () => stdout, stop });
    });
    void exited.then(() => fail(new Error(`embedded mode exited before its banner: ${stderr}`)));
  });
}

describe('embedded mode (npm start): ACTIVITY_RETENTION_DAYS', () => {
  const dir = mkdtempSync(join(tmpdir(), 'tt-embedded-retention-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('deletes the entries older than the retention, as the worker process does', { timeout: 120_000 }, async () => {
    // The demo workspace as `npm start` seeds it, but 40 days ago: every activity entry it writes is that old.
    const runtime = await createRuntime({ dataDir: join(dir, 'pg'), rateLimitPerMinute: 1, logger: createLogger('silent', 'test') });
    const { token } = await seedDemo({ ...runtime.deps, now: () => Date.now() - 40 * DAY });
    const before = Number((await runtime.db('activity').count({ n: '*' }).first())?.n);
    await runtime.close();
    expect(before).toBeGreaterThan(0);
    writeFileSync(join(dir, 'embedded.json'), JSON.stringify({ adminToken: 'embedded-retention-operator-token', demoKey: token }));

    const embedded = await startEmbedded({ DATA_DIR: dir, PORT: '0', MCP_PORT: '0', LOG_LEVEL: 'info', ACTIVITY_RETENTION_DAYS: '30' });
    try {
      const base = /REST API: +(http:\/\/\S+\/v1)/.exec(embedded.stdout())![1];
      const since = new Date(Date.now() - 60 * DAY).toISOString();
      const total = async () => {
        const res = await fetch(`${base}/activity?since=${since}`, { headers: { authorization: `Bearer ${token}` } });
        expect(res.status).toBe(200);
        return ((await res.json()) as { total: number }).total;
      };
      // The pass runs at start, beside the servers: wait for it (a few seconds at most).
      await expect.poll(total, { timeout: 20_000, interval: 250 }).toBe(0);
      // The log line follows the last batch's commit: the count may reach 0 before it is read from the pipe.
      await expect.poll(() => embedded.stdout(), { timeout: 5_000, interval: 100 }).toContain('activity retention: old entries deleted');
    } finally {
      await embedded.stop();
    }
  });
});
