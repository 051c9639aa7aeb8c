import type { Knex } from 'knex';
import type { AutomationRecord, Repos } from '@tt/domain';
import { newId } from '../util.js';
import { userRepo } from './company.js';

type Row = Record<string, any>;

const automation = (r: Row): AutomationRecord => ({
  id: r.id, workspaceId: r.workspace_id, boardId: r.board_id, ownerId: r.owner_id, trigger: r.trigger, statusId: r.status_id ?? null,
  actions: typeof r.actions === 'string' ? JSON.parse(r.actions) : r.actions, createdAt: Number(r.created_at),
});

export function automationRepo(db: Knex): Repos['automations'] {
  return {
    async create(a) {
      const [row] = await db('automations')
        .insert({
          id: newId('auto'), workspace_id: a.workspaceId, board_id: a.boardId, owner_id: a.ownerId, trigger: a.trigger, status_id: a.statusId,
          actions: JSON.stringify(a.actions), created_at: a.createdAt,
        })
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
