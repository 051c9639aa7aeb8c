// A throwaway PostgreSQL cluster for the restore drill, driven by the machine's own binaries (initdb, pg_ctl,
// pg_basebackup, pg_verifybackup): no backup tool of our own. As root, every PostgreSQL command runs as an ordinary
// user (`postgres` unless DRILL_PG_USER says otherwise) through runuser, since PostgreSQL refuses to run as root.
import { execFile } from 'node:child_process';
import { chownSync, existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/**
 * The directory of the server's binaries: DRILL_PG_BIN, else `pg_config --bindir` when it holds initdb, else the
 * newest /usr/lib/postgresql/<version>/bin (Debian's layout, where pg_config may belong to another version).
 */
export async function pgBinDir() {
  const has = (dir) => dir && existsSync(path.join(dir, 'initdb')) && existsSync(path.join(dir, 'pg_basebackup'));
  if (process.env.DRILL_PG_BIN) {
    if (!has(process.env.DRILL_PG_BIN)) throw new Error(`DRILL_PG_BIN=${process.env.DRILL_PG_BIN} holds no initdb and pg_basebackup`);
    return process.env.DRILL_PG_BIN;
  }
  try {
    const { stdout } = await run('pg_config', ['--bindir']);
    if (has(stdout.trim())) return stdout.trim();
  } catch {
    // no pg_config on PATH: look for Debian's layout
  }
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root) ? readdirSync(root).filter((v) => has(path.join(root, v, 'bin'))).sort((a, b) => Number(b) - Number(a)) : [];
  if (!versions.length) throw new Error('no PostgreSQL server binaries found (set DRILL_PG_BIN to the directory of initdb and pg_ctl)');
  return path.join(root, versions[0], 'bin');
}

/** Who runs the server: the current user, or (as root) DRILL_PG_USER, default postgres. */
export async function pgUser() {
  if (process.getuid?.() !== 0) return undefined;
  const name = process.env.DRILL_PG_USER ?? 'postgres';
  const id = async (flag) => Number((await run('id', [flag, name])).stdout.trim());
  try {
    return { name, uid: await id('-u'), gid: await id('-g') };
  } catch {
    throw new Error(`running as root, and there is no user ${name} to run PostgreSQL as (set DRILL_PG_USER)`);
  }
}

/** Runs one of the server's binaries (as `user` when given); rejects with its output on a non-zero exit. */
export async function pgRun(bin, binary, args, user, { timeoutMs = 120_000 } = {}) {
  const file = path.join(bin, binary);
  const [cmd, argv] = user ? ['runuser', ['-u', user.name, '--', file, ...args]] : [file, args];
  try {
    return await run(cmd, argv, { timeout: timeoutMs, maxBuffer: 16 * 1024 * 1024 });
  } catch (err) {
    throw new Error(`${binary} ${args.join(' ')} failed (${err.code ?? err.signal}):\n${err.stdout ?? ''}${err.stderr ?? ''}`, { cause: err });
  }
}

/** Runs a command on PATH as the server's user (`user`, when given). */
export async function runAs(user, cmd, args) {
  const [file, argv] = user ? ['runuser', ['-u', user.name, '--', cmd, ...args]] : [cmd, args];
  try {
    return await run(file, argv, { timeout: 120_000 });
  } catch (err) {
    throw new Error(`${cmd} ${args.join(' ')} failed (${err.code ?? err.signal}):\n${err.stdout ?? ''}${err.stderr ?? ''}`, { cause: err });
  }
}

/** Gives a directory made by this process to the server's user. */
export function handOver(dir, user) {
  if (user) chownSync(dir, user.uid, user.gid);
}

/** The last lines of a server log, for an error message. */
export function logTail(file, lines = 30) {
  try {
    return readFileSync(file, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '(no log)';
  }
}

/**
 * A cluster in `dataDir` on `port` (127.0.0.1 only, its socket in `socketDir`): start() and stop() through pg_ctl, and
 * the URL of its `postgres` database. `stop()` is safe to call on a cluster that is not running.
 */
export function cluster({ bin, user, dataDir, port, socketDir, logFile }) {
  let started = false;
  return {
    dataDir, port, logFile,
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    async start() {
      started = true;
      // -w waits until the server accepts connections (a server in recovery accepts them once consistent).
      await pgRun(bin, 'pg_ctl', ['-D', dataDir, '-l', logFile, '-w', '-t', '60', '-o', `-p ${port} -k ${socketDir}`, 'start'], user).catch((err) => {
        throw new Error(`${err.message}\n-- server log (${logFile}):\n${logTail(logFile)}`);
      });
    },
    async stop(mode = 'fast') {
      if (!started || !existsSync(path.join(dataDir, 'postmaster.pid'))) return;
      await pgRun(bin, 'pg_ctl', ['-D', dataDir, '-m', mode, '-w', '-t', '30', 'stop'], user);
      started = false;
    },
  };
}
