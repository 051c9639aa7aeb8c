// Post-build check of the package as a consumer sees it: the ESM and CJS builds load and export the
// same names, and a TypeScript project with Node16 resolution type-checks an ESM and a CJS consumer
// against dist/ only (no @tt/domain, no zod in reach).
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import ts from 'typescript';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const fail = (message) => {
  console.error(`check-package: ${message}`);
  process.exit(1);
};

const esm = await import(pathToFileURL(join(root, 'dist/index.js')).href);
const cjs = createRequire(import.meta.url)(join(root, 'dist/index.cjs'));
const names = (m) => Object.keys(m).filter((k) => k !== 'default' && k !== '__esModule').sort().join(',');
if (names(esm) !== names(cjs)) fail(`ESM and CJS exports differ:\n${names(esm)}\n${names(cjs)}`);
if (typeof esm.TaskTrackerClient !== 'function' || Object.keys(esm.operations).length === 0) fail('TaskTrackerClient or operations missing');

const consumer = `
  const client = new TaskTrackerClient({ baseUrl: 'https://tracker.example', apiKey: 'k', maxRetries: 1 });
  export async function run(): Promise<Task['key'][]> {
    const keys: string[] = [];
    for await (const t of client.tasks.iterate({ category: 'todo', priority: ['high'] })) keys.push(t.key);
    const input: CreateTaskInput = { title: 'x', checklist: [{ text: 'a' }] };
    await client.tasks.create(input);
    try { await client.me(); } catch (e) { if (e instanceof ApiError) { const code: ErrorCode = e.code; keys.push(code); } }
    return keys;
  }
`;
const dir = mkdtempSync(join(tmpdir(), 'sdk-consumer-'));
try {
  mkdirSync(join(dir, 'node_modules/@tt'), { recursive: true });
  symlinkSync(root, join(dir, 'node_modules/@tt/sdk'), 'dir');
  writeFileSync(join(dir, 'package.json'), '{"type":"module"}');
  writeFileSync(join(dir, 'esm.mts'), `import { ApiError, TaskTrackerClient, type CreateTaskInput, type ErrorCode, type Task } from '@tt/sdk';\n${consumer}`);
  writeFileSync(join(dir, 'cjs.cts'), `import sdk = require('@tt/sdk');\nconst { ApiError, TaskTrackerClient } = sdk;\ntype CreateTaskInput = sdk.CreateTaskInput; type ErrorCode = sdk.ErrorCode; type Task = sdk.Task;\n${consumer}`);
  const program = ts.createProgram([join(dir, 'esm.mts'), join(dir, 'cjs.cts')], {
    module: ts.ModuleKind.Node16, moduleResolution: ts.ModuleResolutionKind.Node16, target: ts.ScriptTarget.ES2022, strict: true,
    noEmit: true, types: [], lib: ['lib.es2022.d.ts', 'lib.dom.d.ts', 'lib.dom.asynciterable.d.ts'], preserveSymlinks: true,
  });
  const diagnostics = ts.getPreEmitDiagnostics(program);
  if (diagnostics.length) {
    fail(ts.formatDiagnostics(diagnostics, { getCanonicalFileName: (f) => f, getCurrentDirectory: () => dir, getNewLine: () => '\n' }));
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
console.log('check-package: ESM and CJS load; ESM and CJS consumers type-check against dist with Node16 resolution');
