#!/usr/bin/env node
// Runs the official MCP conformance suite (server scenarios, at 2026-07-28 and at 2025-11-25) against a running MCP endpoint,
// with a real API key added by auth-preload.mjs and the expected failures of expected-failures-<version>.yml.
// The gateway must run with MCP_CONFORMANCE_FIXTURES=1 (the suite's fixtures; test only), as the contract checks start it.
// CLI: MCP_URL=http://127.0.0.1:3001/mcp MCP_TOKEN=tt_... node scripts/conformance/run.mjs
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/**
 * Pinned. From 0.2 the suite needs Node 22 (it imports fs.globSync), so npx runs it with the `node` package at 22
 * on its PATH, whatever Node runs this script (CI and production stay on Node 20).
 */
export const CONFORMANCE = '@modelcontextprotocol/conformance@0.2.0-alpha.12';
export const SUITE_NODE = 'node@22';
const HERE = path.dirname(fileURLToPath(import.meta.url));
/** The revisions the gateway is checked at, each with its baseline of expected failures. */
export const SPEC_VERSIONS = ['2026-07-28', '2025-11-25'];
export const baselineOf = (specVersion) => path.join(HERE, `expected-failures-${specVersion}.yml`);
export const BASELINE = baselineOf(SPEC_VERSIONS[0]);
const PRELOAD = pathToFileURL(path.join(HERE, 'auth-preload.mjs')).href;

/**
 * Runs the suite and resolves {exitCode, summary, output}: exitCode 0 when every failure is in the baseline
 * and no baseline entry passes; `summary` is the suite's "Total: ..." line.
 */
export function runConformance({ url, token, specVersion = SPEC_VERSIONS[0], baseline = baselineOf(specVersion), echo = true }) {
  if (!url || !token) throw new Error('runConformance: url and token are required');
  // 2026-07-28: exactly the scenarios that revision requires (server-stateless, caching, http-header-validation, ...
  // are not in the default active suite); 2025-11-25: the active suite at that revision.
  const selection = specVersion === '2026-07-28' ? ['--requirements', specVersion] : ['--spec-version', specVersion];
  const args = ['-y', '-p', SUITE_NODE, '-p', CONFORMANCE, 'conformance', 'server', '--url', url, ...selection, '--expected-failures', baseline];
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
      const unlisted = unlistedFailures(plain, baseline);
      if (unlisted.length) console.error(`[conformance] failing scenarios the suite's own baseline check leaves out, not in ${path.basename(baseline)}: ${unlisted.join(', ')}`);
      resolve({ exitCode: code || (unlisted.length ? 1 : 0), summary, output: plain, unlisted });
    });
  });
}

/**
 * Scenarios that failed (the suite's "✗ name: N passed, M failed" lines) and that the baseline does not name at all.
 * The suite's baseline check skips extension scenarios (tasks-*: "not on the spec timeline") though it runs them under
 * --requirements, so without this their failures would pass unnoticed.
 */
function unlistedFailures(plain, baseline) {
  const listed = new Set(
    readFileSync(baseline, 'utf8').split('\n').map((l) => l.match(/^\s*-\s+([\w.-]+)/)?.[1]).filter(Boolean),
  );
  return [...plain.matchAll(/^✗ ([\w.-]+): \d+ passed, \d+ failed$/gm)].map((m) => m[1]).filter((name) => !listed.has(name));
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { MCP_URL, MCP_TOKEN } = process.env;
  if (!MCP_URL || !MCP_TOKEN) {
    console.error('usage: MCP_URL=http://127.0.0.1:3001/mcp MCP_TOKEN=<api key> node scripts/conformance/run.mjs');
    process.exit(2);
  }
  let failed = 0;
  for (const specVersion of SPEC_VERSIONS) {
    const { exitCode, summary } = await runConformance({ url: MCP_URL, token: MCP_TOKEN, specVersion });
    console.log(`\nconformance at ${specVersion}: ${summary} (exit ${exitCode})`);
    failed ||= exitCode;
  }
  process.exit(failed);
}
