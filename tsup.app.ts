import { defineConfig, type Options } from 'tsup';
import { viewEsbuildPlugin } from './apps/mcp/src/views/bundle.js';

/**
 * The build of a Node app (api, mcp, worker): one ESM bundle per entry with the workspace packages inlined;
 * third-party packages stay external and load from node_modules at run time. MCP Apps views (`*.ts?view` imports)
 * are bundled into HTML strings here (apps/mcp/src/views/bundle.ts).
 */
export const nodeApp = (entry: Options['entry']) =>
  defineConfig({
    entry,
    format: ['esm'],
    platform: 'node',
    target: 'node20',
    bundle: true,
    noExternal: [/^@tt\//],
    external: [/^(?!@tt\/)[@a-z]/],
    outDir: 'dist',
    clean: true,
    sourcemap: true,
    esbuildPlugins: [viewEsbuildPlugin()],
  });
