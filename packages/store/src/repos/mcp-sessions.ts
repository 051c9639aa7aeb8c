import type { Knex } from 'knex';
import type { McpSessionRepo } from '@tt/domain';
import { num } from '../util.js';

const SUBS = 'mcp_session_subscriptions';
const ENDS = 'mcp_session_ends';

/** The MCP gateway's session subscriptions and ended sessions (migration 024). */
export function mcpSessionRepo(db: Knex): McpSessionRepo {
  return {
    async subscribe(sessionId, s, expiresAt) {
      await db(SUBS).insert({ session_id: sessionId, uri: s.uri, sent: s.sent, expires_at: expiresAt }).onConflict(['session_id', 'uri']).merge(['sent']);
    },
    async unsubscribe(sessionId, uri) {
      await db(SUBS).where({ session_id: sessionId, uri }).delete();
    },
    async subscriptions(sessionId) {
      const rows: Array<{ uri: string; sent: string }> = await db(SUBS).where({ session_id: sessionId }).select('uri', 'sent');
      return rows.map((r) => ({ uri: r.uri, sent: r.sent }));
    },
    async countSubscriptions(sessionId) {
      const row = await db(SUBS).where({ session_id: sessionId }).count({ n: '*' }).first();
      return num(row?.n ?? 0);
    },
    async end(sessionId, expiresAt) {
      await db(ENDS).insert({ session_id: sessionId, expires_at: expiresAt }).onConflict('session_id').ignore();
      await db(SUBS).where({ session_id: sessionId }).delete();
    },
    async ended(now) {
      await this.prune(now);
      const rows: Array<{ session_id: string }> = await db(ENDS).select('session_id');
      return rows.map((r) => r.session_id);
    },
    async prune(now) {
      const ends = await db(ENDS).where('expires_at', '<', now).delete();
      const subs = await db(SUBS).where('expires_at', '<', now).delete();
      return ends + subs;
    },
  };
}
