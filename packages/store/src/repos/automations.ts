import type { Knex } from 'knex';
import type { AutomationRecord, Repos } from '@tt/domain';
import { columnMap } from '../columns.js';
import { newId } from '../util.js';
import { userRepo } from './people.js';

const AUTOMATION = columnMap<AutomationRecord>('automations', {
  id: 'id', workspaceId: 'workspace_id', boardId: 'board_id', ownerId: 'owner_id', trigger: 'trigger', statusId: { column: 'status_id', read: (v) => v ?? null },
  actions: { column: 'actions', read: (v) => (typeof v === 'string' ? JSON.parse(v) : v), write: (v) => JSON.stringify(v) },
  createdAt: { column: 'created_at', read: Number },
});
const automation = AUTOMATION.read;

export function automationRepo(db: Knex): Repos['automations'] {
  return {
    async create(a) {
      const [row] = await db('automations')
        .insert(AUTOMATION.write({ ...a, id: newId('auto') }))
        .returning('*');
      return automation(row);
    },
    async get(id) {
      const row = await db('automations').where({ id }).first();
      return row ? automation(row) : undefined;
    },
    async list(boardId) {
      return (await db('automations').where({ board_id: boardId }).orderBy('id')).map(automation);
    },
    async delete(id) {
      // returning(): PGlite answers a bare delete with a result object, not a count.
      return (await db('automations').where({ id }).delete().returning('id')).length > 0;
    },
    async forTaskCreated(boardId, statusId, at) {
      const rows = await db('automations')
        .where({ board_id: boardId, trigger: 'task_created' })
        .where((w) => w.whereNull('status_id').orWhere('status_id', statusId))
        .where('created_at', '<=', at)
        .orderBy('id');
      return rows.map(automation);
    },
    async claimRun(automationId, taskId, at) {
      const rows = await db('automation_runs')
        .insert({ automation_id: automationId, task_id: taskId, created_at: at })
        .onConflict(['automation_id', 'task_id'])
        .ignore()
        .returning('task_id');
      return rows.length > 0;
    },
    async firstAdmin(workspaceId) {
      const row = await db('users')
        .where({ workspace_id: workspaceId, is_admin: true })
        .whereNull('deleted_at')
        .orderBy([{ column: 'created_at' }, { column: 'id' }])
        .first('id');
      return row ? userRepo(db).get(workspaceId, row.id) : undefined;
    },
  };
}
