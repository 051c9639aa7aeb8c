import type { Knex } from 'knex';

/**
 * Pages and meetings are searched by their text's GIN index (`docs_search`, `meetings_search`), and every edit of a
 * page enters all of its lexemes again, hundreds of them. As for tasks' text (migration 018), they gather in a pending
 * list of at most 64 kB instead of PostgreSQL's 4 MB, which every search reads in full until a vacuum merges it.
 * `scripts/bench/gin-pending.mjs` measures pages against the default.
 */
const INDEXES = ['docs_search', 'meetings_search'];

export async function up(knex: Knex): Promise<void> {
  for (const index of INDEXES) {
    await knex.raw(`ALTER INDEX ${index} SET (gin_pending_list_limit = 64)`);
    await knex.raw('SELECT gin_clean_pending_list(?::regclass)', [index]);
  }
}

export async function down(knex: Knex): Promise<void> {
  for (const index of INDEXES) await knex.raw(`ALTER INDEX ${index} RESET (gin_pending_list_limit)`);
}
