import type { Knex } from 'knex';
import type { VersionedKind, VersionsRepo } from '@tt/domain';

const TABLES: Record<VersionedKind, string> = { task: 'tasks', doc: 'docs', project: 'projects' };

/** Version locks and raises for tasks, pages and projects; each repository's own `update` raises the version as well. */
export function versionRepo(db: Knex): VersionsRepo {
  return {
    async lock(kind, id) {
      const row = await db(TABLES[kind]).where({ id }).forUpdate().first('version');
      return row ? Number(row.version) : undefined;
    },
    async bump(kind, ids) {
      const unique = [...new Set(ids)];
      if (unique.length) await db(TABLES[kind]).whereIn('id', unique).increment('version', 1);
    },
  };
}
