import type { Knex } from 'knex';

/**
 * A version on tasks, pages and projects: raised by every write that changes what GET shows of the object, so it serves
 * as the ETag and If-Match can refuse a write made from a stale copy. A constant default adds the column without
 * rewriting the table.
 */
export async function up(knex: Knex): Promise<void> {
  for (const table of ['tasks', 'docs', 'projects']) {
    await knex.schema.alterTable(table, (t) => {
      t.integer('version').notNullable().defaultTo(1);
    });
  }
}

export async function down(knex: Knex): Promise<void> {
  for (const table of ['tasks', 'docs', 'projects']) {
    await knex.schema.alterTable(table, (t) => {
      t.dropColumn('version');
    });
  }
}
