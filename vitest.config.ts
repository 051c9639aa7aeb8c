import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * Files that mostly wait on the clock (the rate limit's real one-minute window; webhook retries' back-off): they start
 * first, so their waits overlap the other files instead of ending the run. Vitest orders a run by the last one's
 * durations, but a fresh clone (CI's first run) has none and starts the smallest files last.
 */
const WAITING = ['apps/api/src/sdk-rate-limit.int.test.ts', 'apps/worker/src/webhooks.int.test.ts'];
/**
 * Long files that run on PostgreSQL only (skipped on PGlite). .ci/run's PostgreSQL leg follows its PGlite leg, whose
 * durations vitest keeps: these were skipped there and took no time, so vitest would start them last and the run would
 * end on one of them while the other fork idles.
 */
const LONG_ON_POSTGRES = ['apps/api/src/brownout.int.test.ts', 'apps/worker/src/worker.int.test.ts'];

class WaitingFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const first = [...WAITING, ...(process.env.TEST_DATABASE_URL ? LONG_ON_POSTGRES : [])];
    const early = (f: TestSpecification) => first.some((w) => f.moduleId.endsWith(w));
    return [...sorted.filter(early), ...sorted.filter((f) => !early(f))];
  }
}

export default defineConfig({
  // Tests use the SDK's sources; its package exports point at the built dist for outside consumers.
  resolve: { alias: { '@tt/sdk': fileURLToPath(new URL('./packages/sdk/src/index.ts', import.meta.url)) } },
  test: {
    include: ['packages/*/src/**/*.test.ts', 'apps/*/src/**/*.test.ts', 'scripts/**/*.test.ts'],
    globalSetup: ['./scripts/test-global-setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    sequence: { sequencer: WaitingFirst },
    pool: 'forks',
    // Each fork runs its files one after another in one module graph (not a fresh one per file): importing the
    // service's graph cost about 2 s a file, most of a run's wall time. Every file makes its own runtime, database and
    // servers and closes them; process-wide state (the metrics registry) is shared as in the embedded service.
    poolOptions: { forks: { maxForks: 2, minForks: 1, isolate: false } },
  },
});
