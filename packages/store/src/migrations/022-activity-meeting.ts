import type { Knex } from 'knex';

/**
 * An activity entry about a meeting (`task.created_from_agreement`: the task made from one of its agreements) names
 * the meeting in a column of its own, so the feed leaves out, in its statement, the entries of meetings the reader
 * may not open, as it leaves out those of closed boards and spaces (and pages and counts stay the reader's). Entries
 * written before name the meeting only in their change; they are copied once.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE activity ADD COLUMN meeting_id text COLLATE "C"');
  await knex.raw(
    "UPDATE activity SET meeting_id = changes -> 0 -> 'to' ->> 'id' WHERE action = 'task.created_from_agreement' AND changes -> 0 ->> 'field' = 'meeting'",
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE activity DROP COLUMN IF EXISTS meeting_id');
}
