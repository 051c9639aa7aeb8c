import { defineConfig } from 'tsup';

// ESM + CJS for Node 20+ and browsers. Runtime code imports nothing; the declarations import types from
// @tt/domain, which scripts/inline-types.mjs then expands so dist/*.d.ts stand alone.
export default defineConfig({
  entry: { index: 'src/index.ts' },
  format: ['esm', 'cjs'],
  platform: 'neutral',
  target: 'es2022',
  tsconfig: 'tsconfig.json',
  dts: true,
  sourcemap: true,
  clean: true,
  outDir: 'dist',
});
