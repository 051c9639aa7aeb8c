import { defineConfig, type Options } from 'tsup';

/**
 * The build of a Node app (api, mcp, worker): one ESM bundle per entry with the workspace packages inlined;
 * third-party packages stay external and load from node_modules at run time.
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
  });
