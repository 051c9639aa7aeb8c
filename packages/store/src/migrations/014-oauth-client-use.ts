import type { Knex } from 'knex';

/**
 * When a registered OAuth client was first used (its first grant). A client registered and never used is deleted by
 * housekeeping after a while (oauth.pruneGrants): anyone may register, so abandoned registrations must not pile up.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('oauth_clients', (t) => {
    t.bigInteger('used_at');
  });
  await knex.raw(`
    UPDATE oauth_clients c SET used_at = g.first
    FROM (SELECT client_id, min(created_at) AS first FROM oauth_grants GROUP BY client_id) g
    WHERE g.client_id = c.id COLLATE "C"`);
  await knex.raw('CREATE INDEX oauth_clients_unused ON oauth_clients (created_at) WHERE used_at IS NULL');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX IF EXISTS oauth_clients_unused');
  await knex.schema.alterTable('oauth_clients', (t) => {
    t.dropColumn('used_at');
  });
}
