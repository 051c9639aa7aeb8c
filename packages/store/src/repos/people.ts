import type { Knex } from 'knex';
import type { Repos, TeamRecord, UserRecord, WorkspaceRecord } from '@tt/domain';
import { columnMap } from '../columns.js';
import { compiled, named } from '../compiled.js';
import { escapeLike, keepAtMost, newId, numOrNull, orNull, pageById } from '../util.js';

type Row = Record<string, any>;

export const WORKSPACE = columnMap<WorkspaceRecord>('workspaces', {
  id: 'id', name: 'name', plan: 'plan', timezone: 'timezone', memberKeysEnabled: 'member_keys_enabled',
});
export const USER = columnMap<UserRecord>('users', {
  id: 'id', workspaceId: 'workspace_id', name: 'name', login: 'login', role: 'role', isAdmin: 'is_admin',
  teamIds: { column: 'team_ids', readOnly: true, read: (v) => v ?? [] }, deletedAt: { column: 'deleted_at', read: numOrNull },
});
const TEAM = columnMap<TeamRecord>('teams', {
  id: 'id', workspaceId: 'workspace_id', name: 'name', description: 'description', leadId: { column: 'lead_id', read: orNull },
  memberIds: { column: 'member_ids', readOnly: true, read: (v) => v ?? [] },
});
const workspace = WORKSPACE.read;
const user = USER.read;
const team = TEAM.read;

export const TEAM_IDS = `coalesce((select array_agg(tm.team_id order by tm.team_id) from team_members tm where tm.user_id = users.id), '{}') as team_ids`;
const MEMBER_IDS = `coalesce((select array_agg(tm.user_id order by tm.user_id) from team_members tm where tm.team_id = teams.id), '{}') as member_ids`;

export function workspaceRepo(db: Knex): Repos['workspaces'] {
  return {
    async create(input) {
      const [row] = await db('workspaces')
        .insert({ ...WORKSPACE.write({ ...input, id: newId('ws') }), created_at: Date.now() })
        .returning('*');
      return workspace(row);
    },
    async get(id) {
      const row = await db('workspaces').where({ id }).first();
      return row ? workspace(row) : undefined;
    },
    async update(id, patch) {
      const data = WORKSPACE.write(patch);
      const [row] = Object.keys(data).length
        ? await db('workspaces').where({ id }).update(data).returning('*')
        : await db('workspaces').where({ id });
      return row ? workspace(row) : undefined;
    },
  };
}

export function userRepo(db: Knex): Repos['users'] {
  const sel = () => db('users').select('users.*', db.raw(TEAM_IDS));
  return {
    async create(input) {
      const [row] = await db('users')
        .insert({ ...USER.write({ ...input, id: newId('usr') }), created_at: Date.now() })
        .returning('*');
      return user(row);
    },
    async get(workspaceId, id) {
      const row = await sel().where({ workspace_id: workspaceId, id }).whereNull('deleted_at').first();
      return row ? user(row) : undefined;
    },
    async getAny(id) {
      const row = await sel().where({ id }).first();
      return row ? user(row) : undefined;
    },
    async byLogins(workspaceId, logins) {
      if (!logins.length) return [];
      return (await sel().where({ workspace_id: workspaceId }).whereIn('login', logins.map((l) => l.toLowerCase()))).map(user);
    },
    async byIds(workspaceId, ids) {
      if (!ids.length) return [];
      return (await usersByIds(db, workspaceId, ids)).map(user);
    },
    async logins(workspaceId, ids) {
      const found = new Map<string, string>();
      const unknown: string[] = [];
      for (const id of new Set(ids)) {
        const known = knownLogins.get(id);
        if (!known) unknown.push(id);
        else if (known.workspaceId === workspaceId) found.set(id, known.login);
      }
      if (unknown.length) {
        for (const r of await loginsByIds(db, workspaceId, unknown)) {
          rememberLogin(r.id, workspaceId, r.login);
          found.set(r.id, r.login);
        }
      }
      return found;
    },
    list(workspaceId, q, page) {
      const base = db('users').where({ workspace_id: workspaceId }).whereNull('deleted_at');
      if (q) {
        const like = `%${escapeLike(q)}%`;
        base.where((w) => w.whereILike('name', like).orWhereILike('login', like).orWhereILike('role', like));
      }
      return pageById<Row, UserRecord>(base, 'users.id', page, user, (qb) => qb.select('users.*', db.raw(TEAM_IDS)));
    },
    async softDelete(id, at) {
      const n = await db('users').where({ id }).whereNull('deleted_at').update({ deleted_at: at });
      return n > 0;
    },
  };
}

export function teamRepo(db: Knex): Repos['teams'] {
  return {
    async create(input) {
      const id = newId('team');
      await db('teams').insert(TEAM.write({ ...input, id }));
      if (input.memberIds.length) await db('team_members').insert(input.memberIds.map((u) => ({ team_id: id, user_id: u })));
      const row = await db('teams').select('teams.*', db.raw(MEMBER_IDS)).where({ id }).first();
      return team(row);
    },
    list(workspaceId, page) {
      return pageById<Row, TeamRecord>(db('teams').where({ workspace_id: workspaceId }), 'teams.id', page, team, (qb) =>
        qb.select('teams.*', db.raw(MEMBER_IDS)),
      );
    },
    async existing(workspaceId, ids) {
      if (!ids.length) return [];
      return db('teams').where({ workspace_id: workspaceId }).whereIn('id', ids).pluck('id');
    },
  };
}

/**
 * Labels made known in a workspace: one prepared text whatever the number of names; binds the workspace and the names.
 * With `onlyWith` (a CTE's name), as part of a larger statement: the labels go in only when that CTE has a row.
 */
export const labelsInsert = (onlyWith?: string): string =>
  `insert into labels (workspace_id, name) select ?, unnest(?::text[])${onlyWith ? ` from ${onlyWith}` : ''} on conflict (workspace_id, name) do nothing`;
export const LABELS_INSERT = labelsInsert();

// Every create or update naming assignees checks them: one prepared text for any number of ids.
const usersByIds = compiled((db, workspaceId: string, ids: string[]) =>
  db('users').select('users.*', db.raw(TEAM_IDS)).where({ workspace_id: workspaceId }).whereRaw('id = any(?)', [ids]));

/**
 * Logins read before, per process. A login never changes (no path renames a user; a deleted user keeps the row) and a
 * user id is never reused, so what was read once stays true: a table of tasks names its assignees without a round trip.
 * A name or a team can change, so only the login is kept. At most LOGINS_KEPT, the oldest forgotten first.
 */
const LOGINS_KEPT = 50_000;
const knownLogins = new Map<string, { workspaceId: string; login: string }>();
function rememberLogin(id: string, workspaceId: string, login: string): void {
  keepAtMost(knownLogins, LOGINS_KEPT, id, { workspaceId, login });
}
const loginsByIds = compiled((db, workspaceId: string, ids: string[]) =>
  db('users').select('id', 'login').where({ workspace_id: workspaceId }).whereRaw('id = any(?)', [ids]));

export function labelRepo(db: Knex): Repos['labels'] {
  return {
    async list(workspaceId) {
      return (await db('labels').where({ workspace_id: workspaceId }).orderBy('name')).map((r: Row) => r.name as string);
    },
    async ensure(workspaceId, names) {
      if (!names.length) return;
      await named(db, LABELS_INSERT, [workspaceId, names]);
    },
  };
}
