import { defineConfig, type Options } from 'tsup';
import { viewDocuments } from './apps/mcp/src/views/bundle.js';

/**
 * The build of a Node app (api, mcp, worker): one ESM bundle per entry with the workspace packages inlined;
 * third-party packages stay external and load from node_modules at run time. The MCP Apps views are bundled into HTML
 * documents here and put into the app as a constant (apps/mcp/src/views/bundle.ts and index.ts).
 */
export const nodeApp = (entry: Options['entry']) =>
  defineConfig(async () => ({
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
    define: { __TT_VIEW_DOCUMENTS__: JSON.stringify(await viewDocuments()) },
  }));
