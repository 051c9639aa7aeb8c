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
    // The processes a test starts (scripts/topology, through process.env) stop without the 5 s drain delay, which is
    // for a load balancer to notice /ready 503: every file stops its topology, and platform.e2e.test.ts restarts it.
    // The drain under load is scripts/soak/rolling-restart.mjs's (CI: 2 s) and apps/api's lifecycle test's.
    env: { SHUTDOWN_DRAIN_MS: '0' },
  },
});
