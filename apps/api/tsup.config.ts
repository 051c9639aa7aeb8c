import { defineConfig } from 'tsup';

export default defineConfig({
  entry: { main: 'src/main.ts', embedded: 'src/embedded.ts', migrate: 'src/migrate.ts' },
  format: ['esm'],
  platform: 'node',
  target: 'node20',
  bundle: true,
  noExternal: [/^@tt\//],
  // Third-party packages stay external and load from node_modules at run time.
  external: [/^(?!@tt\/)[@a-z]/],
  outDir: 'dist',
  clean: true,
  sourcemap: true,
});
