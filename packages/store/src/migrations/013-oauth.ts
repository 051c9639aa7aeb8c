import type { Knex } from 'knex';

/**
 * MCP sign-in (OAuth 2.1): registered clients, authorization codes, grants and their tokens. Codes and tokens are
 * stored as sha256 hashes and looked up by them; a grant hangs on its API key and user, so deleting either removes
 * the grant with its codes and tokens.
 */
export async function up(knex: Knex): Promise<void> {
  const id = (t: Knex.CreateTableBuilder, name = 'id') => t.specificType(name, 'text collate "C"');
  const ts = (t: Knex.CreateTableBuilder, name: string) => t.bigInteger(name);

  await knex.schema.createTable('oauth_clients', (t) => {
    id(t).primary();
    t.text('name').notNullable();
    t.specificType('redirect_uris', 'text[]').notNullable();
    t.jsonb('metadata').notNullable();
    ts(t, 'created_at').notNullable();
  });
  await knex.schema.createTable('oauth_codes', (t) => {
    t.text('code_hash').primary();
    id(t, 'key_id').notNullable().references('api_keys.id').onDelete('CASCADE');
    // A client id we issued or the URL of a metadata document (not a row of oauth_clients): no foreign key.
    t.text('client_id').notNullable();
    t.text('client_name').notNullable();
    t.text('redirect_uri').notNullable();
    t.text('code_challenge').notNullable();
    t.text('resource');
    t.specificType('scopes', 'text[]').notNullable();
    ts(t, 'expires_at').notNullable();
    ts(t, 'used_at');
    id(t, 'grant_id');
    ts(t, 'created_at').notNullable();
    t.index(['key_id']);
    t.index(['expires_at']);
  });
  await knex.schema.createTable('oauth_grants', (t) => {
    id(t).primary();
    id(t, 'key_id').notNullable().references('api_keys.id').onDelete('CASCADE');
    id(t, 'user_id').notNullable().references('users.id').onDelete('CASCADE');
    t.text('client_id').notNullable();
    t.text('client_name').notNullable();
    t.specificType('scopes', 'text[]').notNullable();
    t.text('resource');
    ts(t, 'created_at').notNullable();
    ts(t, 'revoked_at');
    t.index(['key_id']);
  });
  await knex.raw('CREATE INDEX oauth_grants_user ON oauth_grants (user_id, created_at DESC) WHERE revoked_at IS NULL');
  // Housekeeping deletes revoked grants after a while (oauth.pruneGrants).
  await knex.raw('CREATE INDEX oauth_grants_revoked ON oauth_grants (revoked_at) WHERE revoked_at IS NOT NULL');
  await knex.schema.createTable('oauth_tokens', (t) => {
    t.text('token_hash').primary();
    id(t, 'grant_id').notNullable().references('oauth_grants.id').onDelete('CASCADE');
    t.text('kind').notNullable();
    ts(t, 'expires_at').notNullable();
    ts(t, 'used_at');
    ts(t, 'created_at').notNullable();
    t.index(['grant_id']);
    t.index(['expires_at']);
  });
  // Server secrets shared by every process (the consent form's signing key), made on first use.
  await knex.schema.createTable('oauth_secrets', (t) => {
    t.text('name').primary();
    t.text('value').notNullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  for (const t of ['oauth_secrets', 'oauth_tokens', 'oauth_grants', 'oauth_codes', 'oauth_clients']) await knex.schema.dropTableIfExists(t);
}
