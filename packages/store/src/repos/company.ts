import type { Knex } from 'knex';
import { DomainError, type KeyRecord, type Repos, type TeamRecord, type UserRecord, type WorkspaceRecord } from '@tt/domain';
import { escapeLike, newId, numOrNull, pageById } from '../util.js';

type Row = Record<string, any>;

const workspace = (r: Row): WorkspaceRecord => ({
  id: r.id, name: r.name, plan: r.plan, timezone: r.timezone, memberKeysEnabled: r.member_keys_enabled,
});
const user = (r: Row): UserRecord => ({
  id: r.id, workspaceId: r.workspace_id, name: r.name, login: r.login, role: r.role, isAdmin: r.is_admin,
  teamIds: r.team_ids ?? [], deletedAt: numOrNull(r.deleted_at),
});
const key = (r: Row): KeyRecord => ({
  id: r.id, workspaceId: r.workspace_id, userId: r.user_id, scopes: r.scopes, projectIds: r.project_ids ?? null,
  expiresAt: numOrNull(r.expires_at), allowedIps: r.allowed_ips, revokedAt: numOrNull(r.revoked_at), createdAt: Number(r.created_at),
});
const team = (r: Row): TeamRecord => ({
  id: r.id, workspaceId: r.workspace_id, name: r.name, description: r.description, leadId: r.lead_id ?? null, memberIds: r.member_ids ?? [],
});

const TEAM_IDS = `coalesce((select array_agg(tm.team_id order by tm.team_id) from team_members tm where tm.user_id = users.id), '{}') as team_ids`;
const MEMBER_IDS = `coalesce((select array_agg(tm.user_id order by tm.user_id) from team_members tm where tm.team_id = teams.id), '{}') as member_ids`;

export function workspaceRepo(db: Knex): Repos['workspaces'] {
  return {
    async create(input) {
      const [row] = await db('workspaces')
        .insert({ id: newId('ws'), name: input.name, plan: input.plan, timezone: input.timezone, member_keys_enabled: input.memberKeysEnabled, created_at: Date.now() })
        .returning('*');
      return workspace(row);
    },
    async get(id) {
      const row = await db('workspaces').where({ id }).first();
      return row ? workspace(row) : undefined;
    },
    async update(id, patch) {
      const data: Row = {};
      if (patch.name !== undefined) data.name = patch.name;
      if (patch.plan !== undefined) data.plan = patch.plan;
      if (patch.timezone !== undefined) data.timezone = patch.timezone;
      if (patch.memberKeysEnabled !== undefined) data.member_keys_enabled = patch.memberKeysEnabled;
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
        .insert({ id: newId('usr'), workspace_id: input.workspaceId, name: input.name, login: input.login, role: input.role, is_admin: input.isAdmin, created_at: Date.now() })
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
      return (await sel().where({ workspace_id: workspaceId }).whereIn('id', ids)).map(user);
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
      await db('teams').insert({ id, workspace_id: input.workspaceId, name: input.name, description: input.description, lead_id: input.leadId });
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

export function keyRepo(db: Knex): Repos['keys'] {
  return {
    async create(input) {
      const [row] = await db('api_keys')
        .insert({
          id: newId('key'), workspace_id: input.workspaceId, user_id: input.userId, token_hash: input.tokenHash, scopes: input.scopes,
          project_ids: input.projectIds, expires_at: input.expiresAt, allowed_ips: input.allowedIps, created_at: Date.now(),
        })
        .returning('*');
      return key(row);
    },
    async byHash(tokenHash) {
      const row = await db('api_keys').where({ token_hash: tokenHash }).first();
      return row ? key(row) : undefined;
    },
    async get(id) {
      const row = await db('api_keys').where({ id }).first();
      return row ? key(row) : undefined;
    },
    async update(id, patch) {
      const [row] = await db('api_keys').where({ id }).update({ expires_at: patch.expiresAt }).returning('*');
      return row ? key(row) : undefined;
    },
    async revoke(id, at) {
      return (await db('api_keys').where({ id }).whereNull('revoked_at').update({ revoked_at: at })) > 0;
    },
  };
}

export function labelRepo(db: Knex): Repos['labels'] {
  return {
    async list(workspaceId) {
      return (await db('labels').where({ workspace_id: workspaceId }).orderBy('name')).map((r: Row) => r.name as string);
    },
    async ensure(workspaceId, names) {
      if (!names.length) return;
      await db('labels').insert(names.map((name) => ({ workspace_id: workspaceId, name }))).onConflict(['workspace_id', 'name']).ignore();
    },
  };
}

/** Maps a unique violation to a business-rule refusal. */
export function uniqueAsRejected(e: unknown, message: string): never {
  if ((e as { code?: string }).code === '23505') throw new DomainError('rejected', message);
  throw e;
}
