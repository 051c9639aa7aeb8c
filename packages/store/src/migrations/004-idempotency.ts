import type { Knex } from 'knex';

/**
 * Idempotency keys of retried requests: one row per (API key, surface, key) holding the first request's fingerprint,
 * its claim while it runs and then its answer, kept 24 hours. In PostgreSQL, so every process sees the same keys.
 */
export async function up(knex: Knex): Promise<void> {
  const id = (t: Knex.CreateTableBuilder, name: string) => t.specificType(name, 'text collate "C"');
  await knex.schema.createTable('idempotency_keys', (t) => {
    // Keys are scoped to the API key; rows go with the key.
    id(t, 'key_id').notNullable().references('api_keys.id').onDelete('CASCADE');
    // rest (Idempotency-Key header) or mcp (a tool's requestId): the two never answer for each other.
    t.text('surface').notNullable();
    // Compared byte for byte: keys are case-sensitive client values.
    id(t, 'idem_key').notNullable();
    t.text('fingerprint').notNullable();
    t.text('token').notNullable();
    t.bigInteger('created_at').notNullable();
    t.bigInteger('locked_until');
    t.integer('status');
    t.json('headers');
    t.text('body');
    t.primary(['key_id', 'surface', 'idem_key']);
  });
  // Pruning deletes by age.
  await knex.raw('CREATE INDEX idempotency_keys_created ON idempotency_keys (created_at)');
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('idempotency_keys');
}
