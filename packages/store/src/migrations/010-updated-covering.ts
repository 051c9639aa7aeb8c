import type { Knex } from 'knex';

/**
 * `updatedSince` (what a sync asks for) counts its matches for the exact total: with the board in the index, that
 * count and the page's ids are index-only scans over the recent changes (closed-board visibility needs the board),
 * instead of a heap fetch per match.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX IF EXISTS tasks_order_updated');
  await knex.raw('CREATE INDEX tasks_order_updated ON tasks (workspace_id, updated_at DESC, id DESC) INCLUDE (board_id) WHERE archived_at IS NULL');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX IF EXISTS tasks_order_updated');
  await knex.raw('CREATE INDEX tasks_order_updated ON tasks (workspace_id, updated_at DESC, id DESC) WHERE archived_at IS NULL');
}
