import { prepareTemplate } from '../packages/store/src/testing.js';

/** With TEST_DATABASE_URL, migrate the template database that every test file clones. */
export default async function setup(): Promise<void> {
  await prepareTemplate();
}
