import { type Deps, invalid, notFound, recordAudit } from '../shared/index.js';
import { hashToken, newToken } from './auth.js';
import type { KeyRecord } from './ports.js';
import type { ApiKey, IssueKeyInput, UpdateKeyInput } from './schema.js';

/** The operator's side of keys: issue, shorten and revoke. */

export const presentKey = (k: KeyRecord): ApiKey => ({
  id: k.id, userId: k.userId, scopes: k.scopes, projectIds: k.projectIds, expiresAt: k.expiresAt,
  allowedIps: k.allowedIps, createdAt: k.createdAt,
});

const DAY = 86_400_000;

const auditDetails = (k: KeyRecord) => ({ userId: k.userId, scopes: k.scopes, projectIds: k.projectIds, expiresAt: k.expiresAt, allowedIps: k.allowedIps });

/** Key lifetime bounds: 30 days to a year ahead (a minute of slack for clocks and round trips). */
export const KEY_MIN_LIFETIME = 30 * DAY - 60_000;
export const KEY_MAX_LIFETIME = 366 * DAY;

/** Issues a key for a user; the token is returned only here and stored as a hash. */
export async function issueKey(userId: string, input: IssueKeyInput, deps: Deps): Promise<ApiKey & { token: string }> {
  const user = await deps.store.users.getAny(userId);
  if (!user || user.deletedAt !== null) throw notFound('User');
  const now = deps.now();
  if (input.expiresAt !== null && (input.expiresAt < now + KEY_MIN_LIFETIME || input.expiresAt > now + KEY_MAX_LIFETIME)) {
    throw invalid('expiresAt', 'must be null (unlimited) or from 30 days to one year ahead');
  }
  if (input.projectIds) {
    for (const pid of input.projectIds) {
      if (!(await deps.store.projects.get(user.workspaceId, pid))) throw invalid('projectIds', `unknown project ${pid}`);
    }
  }
  const token = newToken();
  const key = await deps.store.transaction(async (store) => {
    const k = await store.keys.create({
      workspaceId: user.workspaceId, userId: user.id, scopes: [...new Set(input.scopes)], projectIds: input.projectIds,
      expiresAt: input.expiresAt, allowedIps: input.allowedIps, tokenHash: hashToken(token),
    });
    // The key's rights and reach, never its token or hash.
    await recordAudit(store, deps, null, { workspaceId: k.workspaceId, action: 'key.issued', targetType: 'key', targetId: k.id, details: auditDetails(k) });
    return k;
  });
  return { ...presentKey(key), token };
}

export async function updateKey(id: string, input: UpdateKeyInput, deps: Deps): Promise<ApiKey> {
  const key = await deps.store.keys.get(id);
  if (!key || key.revokedAt !== null) throw notFound('Key');
  const updated = await deps.store.transaction(async (store) => {
    const k = presentKey((await store.keys.update(id, { expiresAt: input.expiresAt }))!);
    await recordAudit(store, deps, null, { workspaceId: key.workspaceId, action: 'key.changed', targetType: 'key', targetId: id, details: { userId: key.userId, expiresAt: { from: key.expiresAt, to: k.expiresAt } } });
    return k;
  });
  deps.store.changes.note({ kind: 'access', keyId: id });
  return updated;
}

export async function revokeKey(id: string, deps: Deps): Promise<void> {
  await deps.store.transaction(async (store) => {
    const key = await store.keys.get(id);
    if (!key || !(await store.keys.revoke(id, deps.now()))) throw notFound('Key');
    await recordAudit(store, deps, null, { workspaceId: key.workspaceId, action: 'key.revoked', targetType: 'key', targetId: id, details: { userId: key.userId } });
  });
  // Open MCP streams of the key end (they re-check their credentials on this note).
  deps.store.changes.note({ kind: 'access', keyId: id });
}
