import type { ToolAnnotations } from '@modelcontextprotocol/server';
import { z } from 'zod';

type Json = Record<string, unknown>;

/**
 * Keywords tools/list leaves out, because a model reads the list on every turn: `$schema` (MCP reads a schema without
 * one as 2020-12, and these use nothing either draft reads differently), and bounds of lengths, counts and patterns,
 * which the server checks anyway and names in its error ("title: at most 500 characters"); the descriptions say what
 * a model needs of them (YYYY-MM-DD, 1-100). Numbers keep their `minimum` and `maximum`, enums and defaults stay.
 */
const DROPPED = new Set(['$schema', 'minLength', 'maxLength', 'minItems', 'maxItems', 'pattern']);

/**
 * A tool schema as JSON Schema for tools/list, in the most portable spelling: a nullable value is
 * `anyOf: [{type: X}, {type: "null"}]`, never a `type` array, which single-type dialects (the OpenAPI subset of some
 * model providers) reject. Inputs are described as sent (defaults make fields optional), outputs as returned.
 *
 * Lean: an input says `additionalProperties: false` once, at the top (unknown arguments are refused there; nested
 * objects are checked as strictly by the server's own schema), and an output never, so structured content may carry
 * more than its schema names: an output schema lists what programs read (ids, keys, counts, cursors, offsets), not
 * every field of format json.
 */
export function toolJsonSchema(schema: z.ZodType, io: 'input' | 'output'): Json {
  const out = lean(z.toJSONSchema(schema, { io, target: 'draft-7', unrepresentable: 'any' }), true, io) as Json;
  return out;
}

function lean(node: unknown, top: boolean, io: 'input' | 'output'): unknown {
  if (Array.isArray(node)) return node.map((n) => lean(n, false, io));
  if (!node || typeof node !== 'object') return node;
  const o: Json = {};
  for (const [k, v] of Object.entries(node as Json)) {
    if (DROPPED.has(k)) continue;
    if (k === 'additionalProperties' && v === false && !(top && io === 'input')) continue;
    // `properties` maps names to schemas: a property may be called `pattern`.
    o[k] = k === 'properties' && v && typeof v === 'object'
      ? Object.fromEntries(Object.entries(v as Json).map(([p, s]) => [p, lean(s, false, io)]))
      : lean(v, false, io);
  }
  if (Array.isArray(o.type) && o.type.length > 1) {
    const { type, ...rest } = o;
    return { anyOf: (type as string[]).map((t) => ({ type: t })), ...rest };
  }
  return o;
}

/**
 * A tool's annotations as listed: no `title` (the tool's own `title` is the display name, and comes first), and no
 * hint a reader would assume anyway. `destructiveHint` and `idempotentHint` mean something only when `readOnlyHint`
 * is false, so a read tool says only that it reads; every tool says `openWorldHint: false` (the spec's default is
 * true: the tracker is a closed world).
 */
export function listedAnnotations(a: Required<Pick<ToolAnnotations, 'readOnlyHint' | 'destructiveHint' | 'idempotentHint'>>): ToolAnnotations {
  return a.readOnlyHint ? { readOnlyHint: true, openWorldHint: false } : { ...a, openWorldHint: false };
}
