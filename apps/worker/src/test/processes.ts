import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';

export const REPO_ROOT = fileURLToPath(new URL('../../../../', import.meta.url));

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const addr = s.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      s.close(() => resolve(port));
    });
  });
}

async function until(check: () => Promise<boolean>, what: string, tries = 200): Promise<void> {
  for (let i = 0; i < tries; i++) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`gave up waiting for ${what}`);
}

/**
 * A redis-server of the test's own that it may stop and start; the shared Redis is never touched. With `dir` it keeps
 * an append-only file there (as production Redis must), so a restart after a kill finds its queue again.
 */
export class PrivateRedis {
  private proc: ChildProcess | undefined;
  constructor(readonly port: number, private readonly o: { dir?: string } = {}) {}

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  private async ping(): Promise<boolean> {
    const r = new Redis(this.url, { lazyConnect: true, maxRetriesPerRequest: 0, enableOfflineQueue: false, retryStrategy: () => null });
    r.on('error', () => undefined);
    try {
      await r.connect();
      return (await r.ping()) === 'PONG';
    } catch {
      return false;
    } finally {
      r.disconnect();
    }
  }

  async start(): Promise<void> {
    const persistence = this.o.dir ? ['--appendonly', 'yes', '--appendfsync', 'always', '--dir', this.o.dir] : ['--appendonly', 'no'];
    this.proc = spawn('redis-server', ['--port', String(this.port), '--bind', '127.0.0.1', '--save', '', ...persistence], { stdio: 'ignore' });
    await until(() => this.ping(), `redis-server on ${this.port}`);
  }

  /** Stops it hard, as a crash would; its data is gone unless it keeps an append-only file. */
  async stop(): Promise<void> {
    const p = this.proc;
    this.proc = undefined;
    if (!p || p.exitCode !== null) return;
    const exited = once(p, 'exit');
    p.kill('SIGKILL');
    await exited;
  }
}

export interface ServiceProcess {
  proc: ChildProcess;
  port: number;
  url: string;
  /** Everything it printed (pino JSON lines). */
  output(): string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/**
 * An app's production entry (`apps/<app>/src/main.ts`) in a child process through tsx, as production runs its build;
 * resolves once /health answers. `portVariable` names the variable its port is read from.
 */
export async function spawnService(entry: string, portVariable: string, env: Record<string, string>): Promise<ServiceProcess> {
  const port = await freePort();
  const proc = spawn(process.execPath, ['--import', 'tsx', entry], {
    cwd: REPO_ROOT,
    env: { ...process.env, LOG_LEVEL: 'info', HOST: '127.0.0.1', [portVariable]: String(port), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  proc.stdout!.on('data', (d) => (out += d));
  proc.stderr!.on('data', (d) => (out += d));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    proc.once('exit', (code, signal) => resolve({ code, signal })),
  );
  await until(
    () => fetch(`http://127.0.0.1:${port}/health`).then((r) => r.ok, () => false),
    `${entry} on ${port} (output: ${out.slice(-2000)})`,
    600,
  );
  return { proc, port, url: `http://127.0.0.1:${port}`, output: () => out, exited };
}

export interface WorkerProcess {
  proc: ChildProcess;
  port: number;
  /** Everything it printed (pino JSON lines). */
  output(): string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  kill(signal: NodeJS.Signals): void;
}

/** The worker's main.ts in a child process (through tsx), as production runs it. */
export async function spawnWorker(env: Record<string, string>): Promise<WorkerProcess> {
  const service = await spawnService('apps/worker/src/main.ts', 'WORKER_PORT', env);
  return { ...service, kill: (signal) => service.proc.kill(signal) };
}
