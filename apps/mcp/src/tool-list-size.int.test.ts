import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keys, people, SCOPES } from '@tt/domain';
import { mcpFixture, type McpFixture } from './test/fixture.js';

/*
 * What tools/list costs a model on every turn, read from the real answer of a full-rights key in both protocol eras.
 * The model reads each tool's name, title, description, input schema and annotations; the output schema is for the
 * programs that read structured content, but travels with the list too. Limits are averages per tool, in characters
 * of serialized JSON (docs/mcp.md has the figures per tool). `TOOL_LIST_SIZES=1` prints them.
 */

/** Average characters per tool: what the model reads, and the whole tool with its output schema. */
const MODEL_READ_AVERAGE = 750;
const WHOLE_AVERAGE = 1700;

type Listed = { name: string; title?: string; description?: string; inputSchema: unknown; outputSchema?: unknown; annotations?: unknown };

function toolSizes(tools: Listed[]) {
  return tools.map((t) => ({
    name: t.name,
    read: JSON.stringify({ name: t.name, title: t.title, description: t.description, inputSchema: t.inputSchema, annotations: t.annotations }).length,
    whole: JSON.stringify(t).length,
  }));
}

let fx: McpFixture;
let token: string;

beforeAll(async () => {
  fx = await mcpFixture();
  const deps = fx.runtime.deps;
  const ws = await people.createWorkspace({ name: 'Sizes', plan: 'business', timezone: 'UTC' }, deps);
  const ann = await people.createUser(ws.id, { name: 'Ann', login: 'ann', role: 'Lead', isAdmin: true }, deps);
  token = (await keys.issueKey(ann.id, { scopes: [...SCOPES], projectIds: null, expiresAt: null, allowedIps: [] }, deps)).token;
  await fx.start();
}, 60_000);

afterAll(() => fx?.close());

describe('a lean tool list', () => {
  for (const era of ['2025-11-25 (1.x client)', '2026-07-28 (v2 client)'] as const) {
    it(`${era}: at most ${MODEL_READ_AVERAGE} characters a model reads per tool, ${WHOLE_AVERAGE} with the output schema`, async () => {
      const client = era.startsWith('2025') ? await fx.connect(token) : await fx.connectV2(token, 'pinned');
      const { tools } = await client.listTools();
      expect(tools.length).toBe(21);
      const sizes = toolSizes(tools as Listed[]);
      const read = sizes.reduce((n, s) => n + s.read, 0);
      const whole = sizes.reduce((n, s) => n + s.whole, 0);
      if (process.env.TOOL_LIST_SIZES) {
        console.log([`${era}: read ${read} (${Math.round(read / tools.length)}/tool), whole ${whole} (${Math.round(whole / tools.length)}/tool)`,
          ...sizes.map((s) => `${s.name}\t${s.read}\t${s.whole}`)].join('\n'));
      }
      expect(read / tools.length).toBeLessThanOrEqual(MODEL_READ_AVERAGE);
      expect(whole / tools.length).toBeLessThanOrEqual(WHOLE_AVERAGE);
    });
  }
});
