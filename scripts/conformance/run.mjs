#!/usr/bin/env node
// Runs the official MCP conformance suite (server scenarios, active suite) against a running MCP endpoint,
// with a real API key added by auth-preload.mjs and the expected failures of expected-failures.yml.
// CLI: MCP_URL=http://127.0.0.1:3001/mcp MCP_TOKEN=tt_... node scripts/conformance/run.mjs
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/** Pinned: 0.1.13 is the last release that runs on Node 20. */
export const CONFORMANCE = '@modelcontextprotocol/conformance@0.1.13';
const HERE = path.dirname(fileURLToPath(import.meta.url));
export const BASELINE = path.join(HERE, 'expected-failures.yml');
const PRELOAD = pathToFileURL(path.join(HERE, 'auth-preload.mjs')).href;

/**
 * Runs the suite and resolves {exitCode, summary, output}: exitCode 0 when every failure is in the baseline
 * and no baseline entry passes; `summary` is the suite's "Total: ..." line.
 */
export function runConformance({ url, token, baseline = BASELINE, echo = true }) {
  if (!url || !token) throw new Error('runConformance: url and token are required');
  const args = ['-y', CONFORMANCE, 'server', '--url', url, '--expected-failures', baseline];
  const env = {
    ...process.env,
    NODE_OPTIONS: [process.env.NODE_OPTIONS, `--import=${PRELOAD}`].filter(Boolean).join(' '),
    MCP_CONFORMANCE_URL: url,
    MCP_CONFORMANCE_TOKEN: token,
    NO_COLOR: '1',
  };
  return new Promise((resolve, reject) => {
    const child = spawn('npx', args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    // Echoed lines get a prefix: the suite's own "N passed, N failed" lines count checks, expected failures
    // included, and must not read as this run's test result.
    const collect = (stream, sink) => {
      let rest = '';
      stream.setEncoding('utf8');
      stream.on('data', (chunk) => {
        output += chunk;
        if (!echo) return;
        const lines = (rest + chunk).split('\n');
        rest = lines.pop() ?? '';
        for (const line of lines) sink.write(`[conformance] ${line}\n`);
      });
      stream.on('end', () => {
        if (echo && rest) sink.write(`[conformance] ${rest}\n`);
      });
    };
    collect(child.stdout, process.stdout);
    collect(child.stderr, process.stderr);
    child.once('error', reject);
    child.once('close', (code) => {
      // eslint-disable-next-line no-control-regex
      const plain = output.replace(/\x1b\[[0-9;]*m/g, '');
      const summary = plain.match(/^Total: .*$/m)?.[0] ?? '(no summary line)';
      resolve({ exitCode: code ?? 1, summary, output: plain });
    });
  });
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { MCP_URL, MCP_TOKEN } = process.env;
  if (!MCP_URL || !MCP_TOKEN) {
    console.error('usage: MCP_URL=http://127.0.0.1:3001/mcp MCP_TOKEN=<api key> node scripts/conformance/run.mjs');
    process.exit(2);
  }
  const { exitCode, summary } = await runConformance({ url: MCP_URL, token: MCP_TOKEN });
  console.log(`\nconformance: ${summary} (exit ${exitCode})`);
  process.exit(exitCode);
}
