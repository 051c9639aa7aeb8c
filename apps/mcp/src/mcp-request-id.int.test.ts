import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Actor, keys, people, projects, SCOPES } from '@tt/domain';
import { callTool as call, mcpFixture, type McpFixture } from './test/fixture.js';

let fx: McpFixture;
let client: Client;
let otherKeyClient: Client;

const tasksTitled = async (title: string) => Number((await fx.runtime.db('tasks').where({ title }).count({ c: '*' }).first())!.c);

beforeAll(async () => {
  fx = await mcpFixture();
  const deps = fx.runtime.deps;
  const ws = await people.createWorkspace({ name: 'Retry Co', plan: 'business', timezone: 'Europe/Moscow' }, deps);
  const alice = await people.createUser(ws.id, { name: 'Alice', login: 'alice', role: 'Lead', isAdmin: true }, deps);
  const issue = () => keys.issueKey(alice.id, { scopes: [...SCOPES], projectIds: null, expiresAt: null, allowedIps: [] }, deps);
  const key = await issue();
  const actor: Actor = {
    workspace: { id: ws.id, name: ws.name, plan: ws.plan, timezone: ws.timezone, memberKeysEnabled: true },
    user: { ...alice, workspaceId: ws.id, deletedAt: null },
    key: { id: key.id, scopes: [...SCOPES], projectIds: null },
  };
  await projects.createProject(actor, { name: 'Agents', key: 'AGT', description: '', template: 'simple' }, deps);
  await fx.start();
  client = await fx.connect(key.token);
  otherKeyClient = await fx.connect((await issue()).token);
}, 60_000);

afterAll(() => fx?.close());

describe('create_task requestId', () => {
  it('returns the first result again for the same requestId and arguments, creating one task', async () => {
    const args = { title: 'Agent retry', project: 'AGT', priority: 'high', requestId: 'run-1-step-3' };
    const first = await call(client, 'create_task', args);
    expect(first.isError).toBeFalsy();
    expect(first.text).toMatch(/^Created AGT-\d+\./);
    const key = /Created (AGT-\d+)/.exec(first.text)![1];
    const again = await call(client, 'create_task', { ...args });
    expect(again.isError).toBeFalsy();
    expect(again.text).toContain('Replayed: requestId "run-1-step-3"');
    expect(again.text).toContain(`Created ${key}.`);
    expect(again.text.endsWith(first.text)).toBe(true);
    expect(await tasksTitled('Agent retry')).toBe(1);
  });

  it('refuses the same requestId with other arguments, naming requestId', async () => {
    await call(client, 'create_task', { title: 'Agent first', project: 'AGT', requestId: 'run-2' });
    const other = await call(client, 'create_task', { title: 'Agent second', project: 'AGT', requestId: 'run-2' });
    expect(other.isError).toBe(true);
    expect(other.text).toMatch(/^idempotency_key_reused: requestId: /);
    expect(await tasksTitled('Agent second')).toBe(0);
  });

  it('keeps no failed call: the agent fixes its arguments and retries with the same requestId', async () => {
    const failed = await call(client, 'create_task', { title: 'Agent fixed', project: 'NOPE', requestId: 'run-3' });
    expect(failed.isError).toBe(true);
    expect(failed.text).toMatch(/^not_found: /);
    const fixed = await call(client, 'create_task', { title: 'Agent fixed', project: 'AGT', requestId: 'run-3' });
    expect(fixed.isError).toBeFalsy();
    expect(fixed.text).toMatch(/^Created AGT-\d+\./);
    expect(await tasksTitled('Agent fixed')).toBe(1);
  });

  it('stores the result in the transaction of the write: when storing it fails, nothing is created and the retry runs once', async () => {
    const args = { title: 'Result lost', project: 'AGT', requestId: 'run-9-step-1' };
    await fx.runtime.db.raw(`ALTER TABLE idempotency_keys ADD CONSTRAINT test_refuse_result CHECK (status IS NULL) NOT VALID`);
    try {
      const failed = await call(client, 'create_task', args);
      expect(failed.isError).toBe(true);
    } finally {
      await fx.runtime.db.raw('ALTER TABLE idempotency_keys DROP CONSTRAINT test_refuse_result');
    }
    expect(await tasksTitled('Result lost')).toBe(0);
    const retry = await call(client, 'create_task', args);
    expect(retry.isError).toBeFalsy();
    expect((await call(client, 'create_task', args)).text).toContain('Replayed');
    expect(await tasksTitled('Result lost')).toBe(1);
  });

  it('runs once when two calls with one requestId arrive at once, and is scoped to the API key', async () => {
    const args = { title: 'Agent raced', project: 'AGT', requestId: 'run-4' };
    const results = await Promise.all([call(client, 'create_task', args), call(client, 'create_task', args)]);
    const created = results.filter((r) => !r.isError && !r.text.startsWith('Replayed'));
    expect(created).toHaveLength(1);
    for (const r of results) {
      if (r !== created[0]) expect(r.isError ? r.text : 'replayed').toMatch(/^(idempotency_conflict: |replayed)/);
    }
    expect(await tasksTitled('Agent raced')).toBe(1);
    // Another API key with the same requestId is another agent: its call runs.
    const theirs = await call(otherKeyClient, 'create_task', args);
    expect(theirs.text).toMatch(/^Created AGT-\d+\./);
    expect(await tasksTitled('Agent raced')).toBe(2);
  });

  it('refuses a requestId that is not printable ASCII, and creates without one as before', async () => {
    const bad = await call(client, 'create_task', { title: 'Agent bad id', project: 'AGT', requestId: 'ä' });
    expect(bad.text).toMatch(/^invalid_request: requestId: /);
    await call(client, 'create_task', { title: 'Agent plain', project: 'AGT' });
    await call(client, 'create_task', { title: 'Agent plain', project: 'AGT' });
    expect(await tasksTitled('Agent plain')).toBe(2);
    expect(await tasksTitled('Agent bad id')).toBe(0);
  });
});
