import type { Knex } from 'knex';
import type { KeyLookup, KeyRecord, Repos, TaskFullView } from '@tt/domain';
import { columnMap } from '../columns.js';
import { compiled } from '../compiled.js';
import { newId, numOrNull, orNull } from '../util.js';
import { TEAM_IDS, USER, WORKSPACE } from './people.js';
import { fullViewOf, taskOfKey } from './tasks/columns.js';
import { keepTask } from './tasks/kept.js';

type Row = Record<string, any>;

export const KEY = columnMap<KeyRecord>('api_keys', {
  id: 'id', workspaceId: 'workspace_id', userId: 'user_id', scopes: 'scopes', projectIds: { column: 'project_ids', read: orNull },
  expiresAt: { column: 'expires_at', read: numOrNull }, allowedIps: 'allowed_ips', revokedAt: { column: 'revoked_at', read: numOrNull },
  createdAt: { column: 'created_at', read: Number },
});
const key = KEY.read;

/**
 * The key of a token hash with its user (and teams) and workspace, and whether the workspace has an active webhook
 * subscription; the key's own columns prefixed with `keyPrefix` when given (the user's are `u_`, the workspace's `w_`).
 */
const keySelect = (db: Knex, tokenHash: string, keyPrefix?: string): Knex.QueryBuilder =>
  db('api_keys')
    .join('users', 'users.id', 'api_keys.user_id')
    .join('workspaces', 'workspaces.id', 'api_keys.workspace_id')
    .where('api_keys.token_hash', tokenHash)
    .select([
      ...(keyPrefix ? KEY.selectAs(keyPrefix) : KEY.select()), ...USER.selectAs('u_'), db.raw(TEAM_IDS.replace(' as team_ids', ' as u_team_ids')),
      ...WORKSPACE.selectAs('w_'), db.raw('exists (select 1 from webhooks wh where wh.workspace_id = workspaces.id and wh.active) as w_webhooks'),
    ]);

/** The key of a request with its user (and teams) and workspace: built once, then only bound (see compiled). */
const keyStatement = compiled((db: Knex, tokenHash: string) => keySelect(db, tokenHash).first());

/**
 * The key statement and, beside its row, the task `ref` (by id or by key) in the key's workspace as the key's user
 * sees it (taskOfKey): one statement for a by-key read. No key, no row; a key without the task, the task's columns null.
 */
const keyAndTaskStatements = [false, true].map((byId) =>
  compiled((db: Knex, tokenHash: string, ref: string) =>
    db
      .select('k.*', 't.*')
      .from(keySelect(db, tokenHash, 'k_').limit(1).as('k'))
      // Knex inlines a builder bound here, with its bindings in place.
      .joinRaw('left join lateral (?) t on true', [taskOfKey(db, byId, ref) as unknown as Knex.Value])));

const lookupOf = (row: Row, keyPrefix: string): KeyLookup => ({
  key: KEY.readAs(row, keyPrefix), user: USER.readAs(row, 'u_'), workspace: WORKSPACE.readAs(row, 'w_'), webhooks: row.w_webhooks === true,
});

/** A by-key read's key and task (the tasks repository's fullViewWithKey). */
export async function keyWithTask(db: Knex, tokenHash: string, ref: { id?: string; key?: string }): Promise<(KeyLookup & { task: TaskFullView | undefined }) | undefined> {
  const [row] = await keyAndTaskStatements[ref.id === undefined ? 0 : 1]!(db, tokenHash, ref.id ?? ref.key ?? '');
  if (!row) return undefined;
  // Kept as a fullView's read is, whether or not the key may see it: nothing kept is trusted (see keepTask).
  const task = row.id === null ? undefined : fullViewOf(row);
  keepTask(db, task);
  return { ...lookupOf(row, 'k_'), task };
}

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
      return row && lookupOf(row, '');
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
