import { defineConfig } from 'vitest/config';

// The end-to-end suite: built processes on PostgreSQL + Redis, driven through the built SDK and an MCP client.
export default defineConfig({
  test: {
    root: new URL('.', import.meta.url).pathname,
    include: ['src/**/*.e2e.test.ts'],
    testTimeout: 120_000,
    hookTimeout: 300_000,
    pool: 'forks',
    poolOptions: { forks: { singleFork: true } },
  },
});
