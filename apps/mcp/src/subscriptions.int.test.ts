import { Client as ClientV2, type McpSubscription, StreamableHTTPClientTransport as TransportV2 } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Actor, type Change, comments, docs, keys, oauth, people, projects, type ProjectWithBoards, type Scope, SCOPES, tasks, time } from '@tt/domain';
import { type McpServerHandle, startMcp } from './index.js';
import { form, register, signIn } from './oauth/test/flow.js';
import { mcpFixture, type McpFixture } from './test/fixture.js';

// Live subscriptions (2026-07-28 subscriptions/listen) over real HTTP with the SDK's v2 client. Changes are made
// through the domain's use cases, as REST, MCP and the worker make them; the change feed carries them to the streams.
let fx: McpFixture;
let actor: Actor;
let web: ProjectWithBoards;
const tokens: Record<string, string> = {};
const keyIds: Record<string, string> = {};
let taskKey: string;
let otherTaskKey: string;
let secretKey: string;
let docId: string;
let twinActor: Actor;
let mcp: McpServerHandle;

const actorOf = (ws: { id: string; name: string; plan: 'free' | 'team' | 'business'; timezone: string }, user: { id: string }, key: { id: string; scopes: string[] }): Actor => ({
  workspace: { id: ws.id, name: ws.name, plan: ws.plan, timezone: ws.timezone, memberKeysEnabled: true },
  user: { ...(user as Actor['user']), workspaceId: ws.id, deletedAt: null },
  key: { id: key.id, scopes: key.scopes as Scope[], projectIds: null },
});

beforeAll(async () => {
  fx = await mcpFixture();
  const deps = fx.runtime.deps;
  const ws = await people.createWorkspace({ name: 'Acme', plan: 'business', timezone: 'Europe/Moscow' }, deps);
  const alice = await people.createUser(ws.id, { name: 'Alice', login: 'alice', role: '', isAdmin: true }, deps);
  const bob = await people.createUser(ws.id, { name: 'Bob', login: 'bob', role: '', isAdmin: false }, deps);
  const issue = async (name: string, userId: string) => {
    const k = await keys.issueKey(userId, { scopes: [...SCOPES], projectIds: null, expiresAt: null, allowedIps: [] }, deps);
    tokens[name] = k.token;
    keyIds[name] = k.id;
    return k;
  };
  actor = actorOf(ws, alice, await issue('alice', alice.id));
  await issue('bob', bob.id);
  await issue('revoked', alice.id);
  await issue('bounded', alice.id);
  web = await projects.createProject(actor, { name: 'Website', key: 'WEB', description: '', template: 'simple' }, deps);
  taskKey = (await tasks.createTask(actor, { title: 'Landing page', projectId: web.id }, deps)).key;
  otherTaskKey = (await tasks.createTask(actor, { title: 'Footer', projectId: web.id }, deps)).key;
  const secret = await projects.createProject(actor, { name: 'Secret', key: 'SEC', description: '', template: 'simple' }, deps);
  await projects.setBoardAccess(secret.boards[0]!.id, { memberIds: [alice.id] }, deps);
  secretKey = (await tasks.createTask(actor, { title: 'Secret plan', projectId: secret.id }, deps)).key;
  const space = await docs.createSpace(ws.id, { name: 'Handbook', description: '', memberIds: null }, deps);
  docId = (await docs.createDoc(actor, { spaceId: space.id, title: 'Release checklist', text: 'Check staging first' }, deps)).id;
  // Another workspace with a task of the same key: its changes must not reach Acme's listeners of task://WEB-1.
  const twin = await people.createWorkspace({ name: 'Twin', plan: 'business', timezone: 'Europe/Moscow' }, deps);
  const tom = await people.createUser(twin.id, { name: 'Tom', login: 'tom', role: '', isAdmin: true }, deps);
  twinActor = actorOf(twin, tom, await keys.issueKey(tom.id, { scopes: [...SCOPES], projectIds: null, expiresAt: null, allowedIps: [] }, deps));
  const twinWeb = await projects.createProject(twinActor, { name: 'Twin web', key: 'WEB', description: '', template: 'simple' }, deps);
  expect((await tasks.createTask(twinActor, { title: 'Twin landing', projectId: twinWeb.id }, deps)).key).toBe(taskKey);
  mcp = await fx.start();
}, 60_000);

afterAll(() => fx?.close());

/** A listen stream and the URIs of the updates it heard, in order. */
async function listen(client: ClientV2, uris: string[]): Promise<{ sub: McpSubscription; heard: string[]; next(uri: string, ms?: number): Promise<number> }> {
  const heard: string[] = [];
  const waiters: Array<() => void> = [];
  client.setNotificationHandler('notifications/resources/updated', (n) => {
    heard.push(n.params.uri);
    for (const w of waiters.splice(0)) w();
  });
  const sub = await client.listen({ resourceSubscriptions: uris });
  return {
    sub,
    heard,
    /** Resolves with the milliseconds until `uri` was heard (once more than before), or rejects after `ms`. */
    async next(uri, ms = 1000) {
      const start = Date.now();
      const before = heard.filter((u) => u === uri).length;
      while (heard.filter((u) => u === uri).length <= before) {
        if (Date.now() - start > ms) throw new Error(`no update of ${uri} within ${ms} ms; heard ${JSON.stringify(heard)}`);
        await new Promise<void>((resolve) => {
          waiters.push(resolve);
          setTimeout(resolve, 50);
        });
      }
      return Date.now() - start;
    },
  };
}

const quiet = (ms = 300) => new Promise((resolve) => setTimeout(resolve, ms));

describe('subscriptions/listen', () => {
  it('hears every kind of change of a watched task within a second: fields, a comment, a move, a time entry', async () => {
    const deps = fx.runtime.deps;
    const client = await fx.connectV2(tokens.alice!, 'pinned');
    expect(client.getServerCapabilities()?.resources?.subscribe).toBe(true);
    const s = await listen(client, [`task://${taskKey}`, `doc://${docId}`]);
    expect(s.sub.honoredFilter.resourceSubscriptions).toEqual([`task://${taskKey}`, `doc://${docId}`]);
    const uri = `task://${taskKey}`;
    let p = s.next(uri);
    await tasks.updateTask(actor, taskKey, { priority: 'high' }, deps);
    expect(await p).toBeLessThan(1000);
    p = s.next(uri);
    await comments.addComment(actor, taskKey, { text: 'Looks good' }, deps);
    await p;
    p = s.next(uri);
    await tasks.moveTask(actor, taskKey, { statusId: web.boards[0]!.statuses[1]!.id, position: 0 }, deps);
    await p;
    p = s.next(uri);
    await time.logTime(actor, taskKey, { minutes: 30, note: '' }, deps);
    await p;
    p = s.next(`doc://${docId}`);
    await docs.updateDoc(actor, docId, { text: 'Check staging and production' }, deps);
    await p;
    // A change of another task, or of the other workspace's WEB-1, is not heard.
    const before = s.heard.length;
    await tasks.updateTask(actor, otherTaskKey, { priority: 'low' }, deps);
    await tasks.updateTask(twinActor, taskKey, { priority: 'low' }, deps);
    await quiet();
    expect(s.heard.length).toBe(before);
    await s.sub.close();
  });

  it('refuses a resource the key cannot see exactly as one that does not exist (-32602, data.uri)', async () => {
    const client = await fx.connectV2(tokens.bob!, 'pinned');
    const fail = (uris: string[]) => client.listen({ resourceSubscriptions: uris }).then(() => null, (e: { code: number; message: string; data?: unknown }) => e);
    const invisible = await fail([`task://${secretKey}`]);
    const missing = await fail(['task://SEC-999']);
    const foreign = await fail(['file:///etc/passwd']);
    expect(invisible).toMatchObject({ code: -32602, data: { uri: `task://${secretKey}` } });
    expect(missing).toMatchObject({ code: -32602, data: { uri: 'task://SEC-999' } });
    expect(foreign).toMatchObject({ code: -32602, data: { uri: 'file:///etc/passwd' } });
    expect(invisible!.message).toBe(missing!.message);
    // Bob may watch what he sees.
    const s = await listen(client, [`task://${taskKey.toLowerCase()}`]);
    const p = s.next(`task://${taskKey.toLowerCase()}`);
    await tasks.updateTask(actor, taskKey, { labels: ['ui'] }, fx.runtime.deps);
    await p;
    await s.sub.close();
  });

  it('stops a stream whose resource the key no longer sees', async () => {
    const deps = fx.runtime.deps;
    const client = await fx.connectV2(tokens.bob!, 'pinned');
    const s = await listen(client, [`task://${otherTaskKey}`]);
    await projects.setBoardAccess(web.boards[0]!.id, { memberIds: [actor.user.id] }, deps);
    try {
      await tasks.updateTask(actor, otherTaskKey, { priority: 'highest' }, deps);
      expect(await Promise.race([s.sub.closed, quiet(1500).then(() => 'open')])).toBe('remote');
      expect(s.heard).toEqual([]);
    } finally {
      await projects.setBoardAccess(web.boards[0]!.id, { memberIds: null }, deps);
    }
  });

  it('ends the streams of a revoked key within a second', async () => {
    const client = await fx.connectV2(tokens.revoked!, 'pinned');
    const s = await listen(client, [`task://${taskKey}`]);
    const start = Date.now();
    await keys.revokeKey(keyIds.revoked!, fx.runtime.deps);
    expect(await Promise.race([s.sub.closed, quiet(1000).then(() => 'open')])).toBe('remote');
    expect(Date.now() - start).toBeLessThan(1000);
  });

  it('ends the streams of an OAuth grant revoked by its client (RFC 7009) or by the operator', async () => {
    const redirectUri = 'https://client.example/callback';
    const clientId = ((await (await register(mcp.url, { client_name: 'Listener', redirect_uris: [redirectUri] })).json()) as { client_id: string }).client_id;
    const byClient = await signIn(mcp.url, clientId, redirectUri, tokens.alice!);
    const byOperator = await signIn(mcp.url, clientId, redirectUri, tokens.alice!);
    const open = async (accessToken: string) => (await listen(await fx.connectV2(accessToken, 'pinned'), [`task://${taskKey}`])).sub;
    const [a, b] = [await open(byClient.access_token), await open(byOperator.access_token)];
    const revoked = await fetch(`${mcp.url}/oauth/revoke`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: form({ token: byClient.refresh_token, client_id: clientId }) });
    expect(revoked.status).toBe(200);
    expect(await Promise.race([a.closed, quiet(1000).then(() => 'open')])).toBe('remote');
    expect(await Promise.race([b.closed, quiet(200).then(() => 'open')])).toBe('open');
    const grants = await oauth.listGrants(actor.user.id, fx.runtime.deps);
    for (const g of grants) await oauth.revokeGrant(g.id, fx.runtime.deps);
    expect(await Promise.race([b.closed, quiet(1000).then(() => 'open')])).toBe('remote');
  });

  it('bounds the open streams of one key', async () => {
    const client = await fx.connectV2(tokens.bounded!, 'pinned');
    const open: McpSubscription[] = [];
    for (let i = 0; i < 10; i++) open.push(await client.listen({ resourceSubscriptions: [`task://${taskKey}`] }));
    const refused = await client.listen({ resourceSubscriptions: [`task://${taskKey}`] }).then(() => null, (e: { code: number; message: string }) => e);
    expect(refused).toMatchObject({ code: -32603 });
    expect(refused!.message).toMatch(/Subscription limit reached.*10 open streams/);
    // Another key is not held back by this one's streams; a closed stream frees its slot.
    const other = await fx.connectV2(tokens.alice!, 'pinned');
    (await other.listen({ resourceSubscriptions: [`task://${taskKey}`] })).close();
    await open.pop()!.close();
    await quiet(200);
    open.push(await client.listen({ resourceSubscriptions: [`task://${taskKey}`] }));
    for (const s of open) await s.close();
  });

  it('2025-era clients subscribe with resources/subscribe in their session instead (sessions.int.test.ts)', async () => {
    const v1 = await fx.connect(tokens.alice!);
    expect(v1.getServerCapabilities()?.resources?.subscribe).toBe(true);
    expect(await v1.subscribeResource({ uri: `task://${taskKey}` })).toEqual({});
  });

  it('on SIGTERM (stop) every stream ends with the completion result, inside the drain', async () => {
    // A second gateway on the same runtime, stopped as SIGTERM stops it (the fixture's stays for afterAll).
    const second = await startMcp({ port: 0, host: '127.0.0.1', logLevel: 'silent', drainMs: 300 }, fx.runtime);
    const client = new ClientV2({ name: 'drain-test', version: '1' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
    await client.connect(new TransportV2(new URL(`${second.url}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${tokens.alice}` } } }));
    const s = await listen(client, [`task://${taskKey}`]);
    const stopping = second.stop();
    expect(await Promise.race([s.sub.closed, quiet(2000).then(() => 'open')])).toBe('graceful');
    await stopping;
    await client.close();
  });
});

describe('change notes where the workspace has no webhook subscription', () => {
  it('a create and an edit by a key that read "no subscriptions" still tell watchers the task id and key', async () => {
    const heard: Change[] = [];
    const off = fx.runtime.changes.subscribe((c) => heard.push(c));
    // As the key's read leaves it for a workspace without an active subscription: no lookup, no webhook payload.
    const keyed: Actor = { ...actor, webhooks: false };
    try {
      const created = await tasks.createTask(keyed, { title: 'Heard when created', projectId: web.id }, fx.runtime.deps);
      await tasks.updateTask(keyed, created.key, { title: 'Heard when edited' }, fx.runtime.deps);
      const note = { kind: 'task', workspaceId: actor.workspace.id, id: created.id, key: created.key };
      expect(heard.filter((c) => c.kind === 'task' && c.id === created.id)).toEqual([note, note]);
    } finally {
      off();
    }
  });
});
