import type { Knex } from 'knex';

/**
 * The MCP gateway's 2025-era sessions are signed tokens any replica checks alone (no row per session); what must
 * outlive one request and reach every replica is kept here: each session's resource subscriptions (the GET stream
 * that delivers them may open on another replica than the subscribe) and the sessions a client ended with DELETE.
 * Rows go once the session's token would have expired anyway (`expires_at`, ms).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE mcp_session_subscriptions (
      session_id text NOT NULL,
      uri text NOT NULL,
      sent text NOT NULL,
      expires_at bigint NOT NULL,
      PRIMARY KEY (session_id, uri)
    )`);
  await knex.raw(`
    CREATE TABLE mcp_session_ends (
      session_id text PRIMARY KEY,
      expires_at bigint NOT NULL
    )`);
  await knex.raw('CREATE INDEX mcp_session_subscriptions_expiry ON mcp_session_subscriptions (expires_at)');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP TABLE IF EXISTS mcp_session_subscriptions');
  await knex.raw('DROP TABLE IF EXISTS mcp_session_ends');
}
