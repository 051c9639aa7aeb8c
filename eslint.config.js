import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const forbid = (patterns, message) => ({
  'no-restricted-imports': ['error', { patterns: patterns.map((group) => ({ group: [group], message })) }],
});

export default tseslint.config(
  { ignores: ['**/dist/**', '**/node_modules/**', '**/.data/**', 'coverage/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { process: 'readonly', console: 'readonly', Buffer: 'readonly', URL: 'readonly', fetch: 'readonly', setTimeout: 'readonly', clearTimeout: 'readonly' } },
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  // Dependencies point inward: domain imports no I/O framework and none of our outer packages.
  {
    files: ['packages/domain/src/**/*.ts'],
    rules: forbid(['knex', 'pg', 'express', 'pino*', 'bullmq', 'ioredis', '@tt/*', 'node:fs', 'node:http', 'node:net'], 'domain holds rules and use cases only: no I/O or outer packages'),
  },
  {
    files: ['packages/store/src/**/*.ts'],
    rules: forbid(['express', 'pino*', 'bullmq', '@tt/http', '@tt/jobs', '@tt/api', '@tt/mcp', '@tt/worker'], 'store implements the ports: no HTTP or queue'),
  },
  // The SDK runs in browsers too: its runtime code loads nothing (types of @tt/domain only) and uses no Node globals.
  {
    files: ['packages/sdk/src/**/*.ts'],
    ignores: ['packages/sdk/src/**/*.test.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': ['error', {
        patterns: [{ group: ['@tt/*', 'zod', 'node:*'], allowTypeImports: true, message: 'the SDK ships without dependencies: type imports only' }],
      }],
      'no-restricted-globals': ['error', 'process', 'Buffer', 'require'],
    },
  },
  // Apps are thin adapters over the use cases: the MCP gateway and REST routes never reach the store; only the
  // composition roots (runtime wiring in @tt/http, migrate/seed/embedded/main) and tests may.
  {
    files: ['apps/mcp/src/**/*.ts', 'apps/api/src/routes/**/*.ts', 'apps/api/src/http/**/*.ts', 'apps/api/src/admin/**/*.ts'],
    ignores: ['**/*.test.ts', '**/test/**'],
    rules: forbid(['@tt/store', '@tt/store/*', '**/packages/store/**'], 'call a use case of @tt/domain; only composition roots wire the store'),
  },
  {
    files: ['packages/http/src/**/*.ts', 'packages/jobs/src/**/*.ts'],
    rules: forbid(['@tt/api', '@tt/mcp', '@tt/worker'], 'packages never import apps'),
  },
);
