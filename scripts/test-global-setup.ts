import type { TestProject } from 'vitest/node';
import { preparePgliteSnapshot, prepareTemplate } from '../packages/store/src/testing.js';

/**
 * With TEST_DATABASE_URL, migrate the template database that every test file clones. On PGlite, migrate one PGlite and
 * write its data directory to a file that every test file loads (packages/store/src/testing.ts openTestPglite).
 */
export default async function setup(project: TestProject): Promise<(() => void) | void> {
  if (process.env.TEST_DATABASE_URL) {
    project.provide('pgliteSnapshot', '');
    await prepareTemplate();
    return;
  }
  const snapshot = await preparePgliteSnapshot();
  project.provide('pgliteSnapshot', snapshot.file);
  return () => snapshot.remove();
}
