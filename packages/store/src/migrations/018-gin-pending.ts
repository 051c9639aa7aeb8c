import type { Knex } from 'knex';

/**
 * The task filters by label, assignee and text read GIN indexes, and every change of a task adds an entry to each of
 * them (`updated_at` is indexed, so no task update is heap-only). With PostgreSQL's default those entries wait in a
 * pending list of up to 4 MB that every search through the index reads in full, until a vacuum merges it, and every
 * writer appends to it under one lock. Labels and assignees are a few keys a task: they go straight into the index.
 * The text's tsvector can be hundreds of lexemes, so its entries still gather, but in a list of at most 64 kB (eight
 * pages) that the writer who fills it merges. `scripts/bench/gin-pending.mjs` measures both against the default.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('ALTER INDEX tasks_labels SET (fastupdate = off)');
  await knex.raw('ALTER INDEX tasks_assignees SET (fastupdate = off)');
  await knex.raw('ALTER INDEX tasks_search SET (gin_pending_list_limit = 64)');
  // Entries already pending stay readable until merged: merge them now.
  for (const index of ['tasks_labels', 'tasks_assignees', 'tasks_search']) await knex.raw('SELECT gin_clean_pending_list(?::regclass)', [index]);
}

export async function down(knex: Knex): Promise<void> {
  for (const index of ['tasks_labels', 'tasks_assignees', 'tasks_search']) await knex.raw(`ALTER INDEX ${index} RESET (fastupdate, gin_pending_list_limit)`);
}
