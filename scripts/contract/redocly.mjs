// Lints an OpenAPI document with Redocly CLI (recommended rules); a non-zero exit means errors.
import { spawn } from 'node:child_process';

/** Pinned: the 2.x line still runs on Node 20 (it warns that later releases will not). */
export const REDOCLY = '@redocly/cli@2.77.0';

/** Runs `redocly lint` on `file` with the output echoed; resolves the exit code. */
export function lintOpenApi(file) {
  return new Promise((resolve, reject) => {
    const child = spawn('npx', ['-y', REDOCLY, 'lint', file], {
      stdio: 'inherit',
      env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
    });
    child.once('error', reject);
    child.once('close', (code) => resolve(code ?? 1));
  });
}
