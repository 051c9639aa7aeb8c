import type { TestProject } from 'vitest/node';
import { preparePgliteSnapshot, prepareTemplate } from '../packages/store/src/testing.js';

/**
 * With TEST_DATABASE_URL, migrate the run's own template database that every test file clones (dropped at the end).
 * On PGlite, migrate one PGlite and write its data directory to a file that every test file loads
 * (packages/store/src/testing.ts openTestPglite).
 */
export default async function setup(project: TestProject): Promise<() => void | Promise<void>> {
  if (process.env.TEST_DATABASE_URL) {
    project.provide('pgliteSnapshot', '');
    const template = (await prepareTemplate())!;
    project.provide('pgTemplate', template.name);
    return () => template.remove();
  }
  const snapshot = await preparePgliteSnapshot();
  project.provide('pgliteSnapshot', snapshot.file);
  project.provide('pgTemplate', '');
  return () => snapshot.remove();
}
