import type { Knex } from 'knex';
import type { OAuthClientRecord, OAuthCodeRecord, OAuthGrantRecord, OAuthTokenRecord, Repos } from '@tt/domain';
import { columnMap } from '../columns.js';
import { compiled } from '../compiled.js';
import { numOrNull } from '../util.js';
import { KEY } from './keys.js';
import { TEAM_IDS, USER, WORKSPACE } from './people.js';

const CLIENT = columnMap<OAuthClientRecord>('oauth_clients', {
  id: 'id', name: 'name', redirectUris: 'redirect_uris', metadata: 'metadata', createdAt: { column: 'created_at', read: Number },
});
const CODE = columnMap<OAuthCodeRecord>('oauth_codes', {
  codeHash: 'code_hash', keyId: 'key_id', clientId: 'client_id', clientName: 'client_name', redirectUri: 'redirect_uri',
  codeChallenge: 'code_challenge', resource: 'resource', scopes: 'scopes', expiresAt: { column: 'expires_at', read: Number },
  usedAt: { column: 'used_at', read: numOrNull }, grantId: 'grant_id', createdAt: { column: 'created_at', read: Number },
});
const GRANT = columnMap<OAuthGrantRecord>('oauth_grants', {
  id: 'id', keyId: 'key_id', userId: 'user_id', clientId: 'client_id', clientName: 'client_name', scopes: 'scopes', resource: 'resource',
  createdAt: { column: 'created_at', read: Number }, revokedAt: { column: 'revoked_at', read: numOrNull },
});
const TOKEN = columnMap<OAuthTokenRecord>('oauth_tokens', {
  tokenHash: 'token_hash', grantId: 'grant_id', kind: 'kind', expiresAt: { column: 'expires_at', read: Number },
  usedAt: { column: 'used_at', read: numOrNull }, createdAt: { column: 'created_at', read: Number },
});

/** An access token with its grant, key, user (and teams), workspace and webhook flag: one statement per request. */
const accessStatement = compiled((db: Knex, tokenHash: string) =>
  db('oauth_tokens')
    .join('oauth_grants', 'oauth_grants.id', 'oauth_tokens.grant_id')
    .join('api_keys', 'api_keys.id', 'oauth_grants.key_id')
    .join('users', 'users.id', 'api_keys.user_id')
    .join('workspaces', 'workspaces.id', 'api_keys.workspace_id')
    .where('oauth_tokens.token_hash', tokenHash)
    .first([
      ...TOKEN.selectAs('t_'), ...GRANT.selectAs('g_'), ...KEY.select(), ...USER.selectAs('u_'),
      db.raw(TEAM_IDS.replace(' as team_ids', ' as u_team_ids')), ...WORKSPACE.selectAs('w_'),
      db.raw('exists (select 1 from webhooks wh where wh.workspace_id = workspaces.id and wh.active) as w_webhooks'),
    ]),
);

/** Marks a one-use row taken; when it was taken before, returns it as it is with `reused`. */
async function take<T>(db: Knex, table: string, where: Record<string, string>, at: number, read: (row: any) => T) {
  const [row] = await db(table).where(where).whereNull('used_at').update({ used_at: at }).returning('*');
  if (row) return { record: read(row), reused: false };
  const old = await db(table).where(where).first();
  return old ? { record: read(old), reused: true } : undefined;
}

export function oauthRepo(db: Knex): Repos['oauth'] {
  return {
    async createClient(c) {
      await db('oauth_clients').insert({ ...CLIENT.write(c), metadata: JSON.stringify(c.metadata) });
    },
    async getClient(id) {
      const row = await db('oauth_clients').where({ id }).first();
      return row ? CLIENT.read(row) : undefined;
    },
    async createCode(c) {
      await db('oauth_codes').insert(CODE.write(c));
    },
    takeCode: (codeHash, at) => take(db, 'oauth_codes', { code_hash: codeHash }, at, CODE.read),
    async setCodeGrant(codeHash, grantId) {
      await db('oauth_codes').where({ code_hash: codeHash }).update({ grant_id: grantId });
    },
    async createGrant(g) {
      await db('oauth_grants').insert(GRANT.write(g));
      // A registered client's first use keeps it from housekeeping (a client-id document's URL has no row).
      await db('oauth_clients').where({ id: g.clientId }).whereNull('used_at').update({ used_at: g.createdAt });
    },
    async getGrant(id) {
      const row = await db('oauth_grants').where({ id }).first();
      return row ? GRANT.read(row) : undefined;
    },
    async listGrants(userId) {
      const rows = await db('oauth_grants').where({ user_id: userId }).whereNull('revoked_at').orderBy([{ column: 'created_at', order: 'desc' }, { column: 'id', order: 'desc' }]);
      return rows.map(GRANT.read);
    },
    async revokeGrant(id, at) {
      return (await db('oauth_grants').where({ id }).whereNull('revoked_at').update({ revoked_at: at })) > 0;
    },
    async addTokens(tokens) {
      await db('oauth_tokens').insert(tokens.map((t) => TOKEN.write(t)));
    },
    takeRefresh: (tokenHash, at) => take(db, 'oauth_tokens', { token_hash: tokenHash, kind: 'refresh' }, at, TOKEN.read),
    async tokenByHash(tokenHash) {
      const row = await db('oauth_tokens').where({ token_hash: tokenHash }).first();
      return row ? TOKEN.read(row) : undefined;
    },
    async authenticate(tokenHash) {
      const [row] = await accessStatement(db, tokenHash);
      return row && {
        token: TOKEN.readAs(row, 't_'), grant: GRANT.readAs(row, 'g_'), key: KEY.read(row), user: USER.readAs(row, 'u_'),
        workspace: WORKSPACE.readAs(row, 'w_'), webhooks: row.w_webhooks === true,
      };
    },
    async prune({ codesBefore, tokensBefore, grantsRevokedBefore, clientsUnusedBefore }) {
      // Counted by RETURNING: PGlite does not report the affected row count the way pg does.
      const codes = await db('oauth_codes').where('expires_at', '<', codesBefore).delete().returning('code_hash');
      const tokens = await db('oauth_tokens').where('expires_at', '<', tokensBefore).delete().returning('token_hash');
      const grants = await db('oauth_grants').where('revoked_at', '<', grantsRevokedBefore).delete().returning('id');
      // A grant whose every token has expired can no longer be used (a refresh token is what keeps it alive): gone, so
      // the operator's list shows only grants that still work. Its tokens are written with it, in one transaction.
      const dead = await db('oauth_grants')
        .whereNull('revoked_at')
        .whereNotExists(db('oauth_tokens').select(db.raw('1')).whereRaw('oauth_tokens.grant_id = oauth_grants.id'))
        .delete()
        .returning('id');
      const clients = await db('oauth_clients').whereNull('used_at').where('created_at', '<', clientsUnusedBefore).delete().returning('id');
      return codes.length + tokens.length + grants.length + dead.length + clients.length;
    },
    async secret(name, fresh) {
      await db('oauth_secrets').insert({ name, value: fresh }).onConflict('name').ignore();
      const row = await db('oauth_secrets').where({ name }).first();
      return row.value as string;
    },
  };
}
