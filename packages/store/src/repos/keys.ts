import type { Knex } from 'knex';
import type { KeyRecord, Repos } from '@tt/domain';
import { columnMap } from '../columns.js';
import { compiled } from '../compiled.js';
import { newId, numOrNull, orNull } from '../util.js';
import { TEAM_IDS, USER, WORKSPACE } from './people.js';

export const KEY = columnMap<KeyRecord>('api_keys', {
  id: 'id', workspaceId: 'workspace_id', userId: 'user_id', scopes: 'scopes', projectIds: { column: 'project_ids', read: orNull },
  expiresAt: { column: 'expires_at', read: numOrNull }, allowedIps: 'allowed_ips', revokedAt: { column: 'revoked_at', read: numOrNull },
  createdAt: { column: 'created_at', read: Number },
});
const key = KEY.read;

/** The key of a request with its user (and teams) and workspace: built once, then only bound (see compiled). */
const keyStatement = compiled((db: Knex, tokenHash: string) =>
  db('api_keys')
    .join('users', 'users.id', 'api_keys.user_id')
    .join('workspaces', 'workspaces.id', 'api_keys.workspace_id')
    .where('api_keys.token_hash', tokenHash)
    .first([
      ...KEY.select(), ...USER.selectAs('u_'), db.raw(TEAM_IDS.replace(' as team_ids', ' as u_team_ids')), ...WORKSPACE.selectAs('w_'),
      db.raw('exists (select 1 from webhooks wh where wh.workspace_id = workspaces.id and wh.active) as w_webhooks'),
    ]),
);

export function keyRepo(db: Knex): Repos['keys'] {
  return {
    async create(input) {
      const [row] = await db('api_keys')
        .insert({ ...KEY.write({ ...input, id: newId('key'), createdAt: Date.now() }), token_hash: input.tokenHash })
        .returning('*');
      return key(row);
    },
    async byHash(tokenHash) {
      const row = await db('api_keys').where({ token_hash: tokenHash }).first();
      return row ? key(row) : undefined;
    },
    async authenticate(tokenHash) {
      // Key, user (with teams) and workspace in one round trip; nothing cached, so a revoked key fails at once.
      const [row] = await keyStatement(db, tokenHash);
      return row && { key: KEY.read(row), user: USER.readAs(row, 'u_'), workspace: WORKSPACE.readAs(row, 'w_'), webhooks: row.w_webhooks === true };
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
