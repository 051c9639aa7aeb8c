import type { Transport } from '@modelcontextprotocol/server';
import { describe, expect, it } from 'vitest';
import { createServerPool } from './server.js';
import type { Profile } from './tool.js';

const profile = (scopes: string[], readOnly = false): Profile =>
  ({ actor: { key: { scopes } }, session: { readOnly, toolsets: null } }) as unknown as Profile;

/** A transport that only opens and closes, as an exchange does around its messages. */
const transport = (): Transport => ({ start: async () => {}, send: async () => {}, close: async function (this: Transport) { this.onclose?.(); } });

describe('the pool of MCP servers', () => {
  it('serves a server again once its exchange closed, and builds another only while one is busy', async () => {
    const pool = createServerPool();
    const reader = profile(['tasks:read']);
    const first = pool.take(reader, 'legacy');
    const second = pool.take(reader, 'legacy');
    expect(second).not.toBe(first);
    await first.connect(transport());
    await first.close();
    expect(pool.take(reader, 'legacy')).toBe(first);
    expect(pool.built).toBe(2);
  });

  it('keeps servers apart by era, rights and session, and never hands out one that only describes', async () => {
    const pool = createServerPool();
    const reader = profile(['tasks:read']);
    const used = pool.take(reader, 'legacy');
    await used.connect(transport());
    await used.close();
    expect(pool.take(reader, 'modern')).not.toBe(used);
    expect(pool.take(profile(['tasks:read', 'tasks:write']), 'legacy')).not.toBe(used);
    expect(pool.take(profile(['tasks:read'], true), 'legacy')).not.toBe(used);
    const describing = pool.describe(reader, 'legacy');
    expect(pool.describe(reader, 'legacy')).toBe(describing);
    expect(pool.take(reader, 'legacy')).toBe(used);
    expect(pool.take(reader, 'legacy')).not.toBe(describing);
  });

  it('serves a released server again, still connected, and never a fresh one', async () => {
    const pool = createServerPool();
    const reader = profile(['tasks:read']);
    const kept = pool.take(reader, 'legacy');
    await kept.connect(transport());
    pool.release(kept);
    expect(pool.take(reader, 'legacy')).toBe(kept);
    expect(kept.isConnected()).toBe(true);
    const fresh = pool.take(reader, 'legacy', { fresh: true });
    pool.release(fresh);
    expect(pool.take(reader, 'legacy')).not.toBe(fresh);
  });

  it('does not keep a fresh server (a 2025 initialize) once it closed', async () => {
    const pool = createServerPool();
    const reader = profile(['tasks:read']);
    const fresh = pool.take(reader, 'legacy', { fresh: true });
    await fresh.connect(transport());
    await fresh.close();
    expect(pool.take(reader, 'legacy')).not.toBe(fresh);
  });
});
