import type { Knex } from 'knex';
import type { Repos } from '@tt/domain';

/**
 * Task-key completion: numbers of one project in a few ranges, on the unique (project_id, number) index, so "WEB-1"
 * costs the same in a project of ten tasks or of a hundred thousand.
 */
export function taskKeyRepo(db: Knex): Repos['taskKeys'] {
  return {
    async byNumbers(projectId, boardIds, ranges, limit) {
      if (!ranges.length || boardIds?.length === 0 || limit <= 0) return [];
      // One index range scan per range, each stopping at `limit`: an OR of the ranges makes the planner walk the
      // project's numbers backwards from the top instead, thousands of rows for "WEB-1".
      const part = (from: number, to: number) => {
        const q = db('tasks').select('key', 'number').where('project_id', projectId).whereBetween('number', [from, to]).whereNull('archived_at');
        if (boardIds) q.whereIn('board_id', boardIds);
        return q.orderBy('number', 'desc').limit(limit);
      };
      const parts = ranges.map(([from, to]) => part(from, to).toSQL());
      const { rows } = (await db.raw(
        `select key from (${parts.map((p) => `(${p.sql})`).join(' union all ')}) as ranges order by number desc limit ?`,
        [...parts.flatMap((p) => p.bindings), limit],
      )) as { rows: Array<{ key: string }> };
      return rows.map((r) => r.key);
    },
  };
}
