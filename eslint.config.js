import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import { createNodeResolver, importX } from 'eslint-plugin-import-x';

/**
 * The domain's features by layer: a feature may import the shared kernel and features of lower layers only. A new
 * feature gets a layer here; a use that would point upward belongs in the higher feature, or in a port.
 */
const DOMAIN_LAYERS = {
  shared: 0,
  keys: 1, versions: 1, idempotency: 1, webhooks: 1,
  people: 2, projects: 2, notifications: 2, oauth: 2,
  tasks: 3,
  comments: 4, time: 4, docs: 4, meetings: 4,
  activity: 5, automations: 5,
  context: 6,
};
const DOMAIN_IO = ['@tt/*', 'knex', 'pg', 'express', 'pino*', 'bullmq', 'ioredis', 'node:fs', 'node:http', 'node:net'];

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
      // A feature adds its repositories to the kernel's Repos with `interface Repos extends XRepos {}`.
      '@typescript-eslint/no-empty-object-type': ['error', { allowInterfaces: 'with-single-extends' }],
    },
  },
  // Dependencies point inward: domain imports no I/O framework and none of our outer packages.
  {
    files: ['packages/domain/src/**/*.ts'],
    rules: forbid(DOMAIN_IO, 'domain holds rules and use cases only: no I/O or outer packages'),
  },
  // The domain by feature: a feature imports another only through its index.ts, and only features of a lower layer
  // (DOMAIN_LAYERS), so no circle of features can form, not even through type imports.
  ...Object.keys(DOMAIN_LAYERS).filter((f) => f !== 'shared').map((feature) => ({
    files: [`packages/domain/src/${feature}/**/*.ts`],
    rules: {
      'no-restricted-imports': ['error', {
        patterns: [
          { group: DOMAIN_IO, message: 'domain holds rules and use cases only: no I/O or outer packages' },
          { group: ['../*/*', '!../*/index.js'], message: 'import another feature through its index.js only (what it exports is what others may use)' },
          ...Object.keys(DOMAIN_LAYERS)
            .filter((other) => other !== feature && DOMAIN_LAYERS[other] >= DOMAIN_LAYERS[feature])
            .map((other) => ({
              group: [`../${other}/*`],
              message: `${feature} (layer ${DOMAIN_LAYERS[feature]}) may import only features of a lower layer; ${other} is layer ${DOMAIN_LAYERS[other]} (see DOMAIN_LAYERS)`,
            })),
        ],
      }],
    },
  })),
  {
    files: ['packages/domain/src/shared/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        patterns: [
          { group: DOMAIN_IO, message: 'domain holds rules and use cases only: no I/O or outer packages' },
          { group: ['../*'], message: 'the shared kernel imports no feature; features add to it (Repos, Deps) from their own ports' },
        ],
      }],
    },
  },
  {
    files: ['packages/*/src/**/*.ts', 'apps/*/src/**/*.ts'],
    plugins: { 'import-x': importX },
    settings: {
      'import-x/extensions': ['.ts', '.js'],
      'import-x/parsers': { '@typescript-eslint/parser': ['.ts'] },
      'import-x/resolver-next': [createNodeResolver({ extensions: ['.ts', '.js'], extensionAlias: { '.js': ['.ts', '.js'] } })],
    },
    rules: { 'import-x/no-cycle': ['error', { ignoreExternal: true }] },
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
