import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { oauth } from '@tt/domain';
import { startHarness, type Harness, type TestWorkspace } from '../../test/harness.js';

let h: Harness;
let ws: TestWorkspace;
let clientId: string;
const redirectUri = 'https://client.example/cb';

beforeAll(async () => {
  h = await startHarness();
  ws = await h.workspace();
  clientId = (await oauth.registerClient({ client_name: 'Operator test', redirect_uris: [redirectUri] }, h.runtime.deps)).client_id as string;
});
afterAll(() => h.close());

/** A sign-in through the use cases the consent page and token endpoint call. */
async function signIn(apiKey: string) {
  const verifier = randomBytes(32).toString('base64url');
  const client = { clientId, clientName: 'Operator test', redirectUris: [redirectUri], document: false };
  const challenge = createHash('sha256').update(verifier).digest('base64url');
  const { code } = await oauth.approve({ client, redirectUri, codeChallenge: challenge, scopes: [], resource: null }, apiKey, '127.0.0.1', h.runtime.deps);
  return oauth.exchangeCode(clientId, { code, verifier }, h.runtime.deps);
}
const authenticates = (token: string) => oauth.authenticateAccess({ authorization: `Bearer ${token}`, ip: '127.0.0.1' }, h.runtime.deps).then(() => true, () => false);

describe('operator API: OAuth grants', () => {
  it('REST refuses an OAuth access or refresh token with 401 invalid_key', async () => {
    const t = await signIn(ws.token);
    for (const token of [t.access_token, t.refresh_token]) {
      const r = await h.call(token, 'GET', '/me');
      expect(r.status).toBe(401);
      expect(r.body.error.code).toBe('invalid_key');
    }
  });

  it('lists a user\'s grants and revokes one, ending its tokens at once', async () => {
    const u = await ws.user();
    const k = await ws.key(u.id, { scopes: ['tasks:read'] });
    const t = await signIn(k.token);
    const list = await h.op('GET', `/users/${u.id}/oauth-grants`);
    expect(list.status).toBe(200);
    expect(list.body.data).toEqual([{ id: expect.any(String), userId: u.id, keyId: k.id, clientId, clientName: 'Operator test', scopes: ['tasks:read'], createdAt: expect.any(Number) }]);
    expect(await authenticates(t.access_token)).toBe(true);
    expect((await h.op('DELETE', `/oauth-grants/${list.body.data[0].id}`)).status).toBe(204);
    expect(await authenticates(t.access_token)).toBe(false);
    expect((await h.op('GET', `/users/${u.id}/oauth-grants`)).body.data).toEqual([]);
    expect((await h.op('DELETE', `/oauth-grants/${list.body.data[0].id}`)).status).toBe(404);
    expect((await h.op('GET', '/users/user_nope/oauth-grants')).status).toBe(404);
  });

  it('ends the tokens when the key is deleted or the user is deleted', async () => {
    const u = await ws.user();
    const k = await ws.key(u.id);
    const t = await signIn(k.token);
    expect(await authenticates(t.access_token)).toBe(true);
    expect((await h.op('DELETE', `/users/${u.id}`)).status).toBe(204);
    expect(await authenticates(t.access_token)).toBe(false);
  });
});
