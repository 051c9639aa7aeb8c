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
      const q = db('tasks')
        .select('key')
        .where('project_id', projectId)
        .where((w) => {
          for (const [from, to] of ranges) w.orWhereBetween('number', [from, to]);
        })
        .whereNull('archived_at')
        .orderBy('number', 'desc')
        .limit(limit);
      if (boardIds) q.whereIn('board_id', boardIds);
      const rows: Array<{ key: string }> = await q;
      return rows.map((r) => r.key);
    },
  };
}
