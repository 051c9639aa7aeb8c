import type { Knex } from 'knex';

/**
 * Whether a user may hear of an event on a task: a live member of the task's workspace who can see its board. The
 * notification insert calls it per recipient, so that statement is a plain insert from arrays that is prepared
 * once per connection, instead of a join over tasks, boards and users planned at every job.
 *
 * Its lookups are one table each, by primary key, and planned at each call (a few hundredths of a millisecond each):
 * a plan PL/pgSQL cached while the tables were tiny would keep walking a whole table or index after they have grown,
 * until they are next analyzed. The insert around it has no such choice to make, so it is prepared.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE FUNCTION notify_allowed(p_task text, p_workspace text, p_user text) RETURNS boolean
    LANGUAGE plpgsql STABLE
    SET plan_cache_mode = force_custom_plan
    AS $$
    DECLARE
      v_board text;
    BEGIN
      SELECT board_id INTO v_board FROM tasks WHERE id = p_task AND workspace_id = p_workspace;
      IF NOT FOUND THEN
        RETURN false;
      END IF;
      RETURN EXISTS (SELECT 1 FROM users WHERE id = p_user AND workspace_id = p_workspace AND deleted_at IS NULL)
        AND EXISTS (SELECT 1 FROM boards WHERE id = v_board AND (member_ids IS NULL OR p_user = ANY (member_ids)));
    END
    $$`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP FUNCTION IF EXISTS notify_allowed(text, text, text)');
}
