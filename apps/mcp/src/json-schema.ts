import type { ToolAnnotations } from '@modelcontextprotocol/server';
import { z } from 'zod';

type Json = Record<string, unknown>;

/**
 * Keywords tools/list leaves out, because a model reads the list on every turn: `$schema` (MCP reads a schema without
 * one as 2020-12, and these use nothing either draft reads differently), bounds of lengths, counts and patterns, and
 * `additionalProperties: false`. The server checks all of them anyway, with the tool's own schema, and names the fault
 * in its error ("title: at most 500 characters", "dueBefor: unknown argument; allowed: ..."); the descriptions say
 * what a model needs of them (YYYY-MM-DD). Numbers keep their `minimum` and `maximum`, enums stay, and defaults
 * stay unless they say nothing (see `said`).
 */
const DROPPED = new Set(['$schema', 'minLength', 'maxLength', 'minItems', 'maxItems', 'pattern', 'additionalProperties']);

/**
 * A tool schema as JSON Schema for tools/list, lean and in the most portable spelling: a nullable value is
 * `anyOf: [{type: X}, {type: "null"}]`, never a `type` array, which single-type dialects (the OpenAPI subset of some
 * model providers) reject. Inputs are described as sent (defaults make fields optional), outputs as returned.
 *
 * An input that takes one value or a list of them (`X | X[]`) is listed as the list: the server still takes either,
 * and the list says what it means once. An output allows more than it names: it lists what programs read (ids, keys,
 * counts, cursors, offsets), and structured content may carry more (format json carries the data itself).
 */
export function toolJsonSchema(schema: z.ZodType, io: 'input' | 'output'): Json {
  return lean(z.toJSONSchema(schema, { io, target: 'draft-7', unrepresentable: 'any' })) as Json;
}

function lean(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(lean);
  if (!node || typeof node !== 'object') return node;
  let o: Json = {};
  for (const [k, v] of Object.entries(node as Json)) {
    if (DROPPED.has(k) || said(k, v, node as Json)) continue;
    // `properties` maps names to schemas: a property may be called `pattern`.
    o[k] = k === 'properties' && v && typeof v === 'object'
      ? Object.fromEntries(Object.entries(v as Json).map(([p, s]) => [p, lean(s)]))
      : lean(v);
  }
  const list = oneOrList(o.anyOf);
  if (list) {
    const { anyOf: _, ...rest } = o;
    o = { ...rest, ...list };
  }
  if (Array.isArray(o.type) && o.type.length > 1) {
    const { type, ...rest } = o;
    return { anyOf: (type as string[]).map((t) => ({ type: t })), ...rest };
  }
  return o;
}

/**
 * A keyword that says what a reader assumes anyway: a default that is nothing (0, false, '') or the first of its enum
 * (`format`: markdown), and the safe-integer bounds zod gives every integer.
 */
function said(k: string, v: unknown, node: Json): boolean {
  if (k === 'default') return v === 0 || v === false || v === '' || (Array.isArray(node.enum) && node.enum[0] === v);
  return (k === 'maximum' || k === 'minimum') && Math.abs(v as number) === Number.MAX_SAFE_INTEGER;
}

/** `anyOf: [X, {type: array, items: X}]`: the list alone. */
function oneOrList(anyOf: unknown): Json | undefined {
  if (!Array.isArray(anyOf) || anyOf.length !== 2) return undefined;
  const [one, many] = anyOf as Json[];
  if (many?.type !== 'array' || JSON.stringify(many.items) !== JSON.stringify(one)) return undefined;
  return many;
}

/**
 * A tool's annotations as listed, without what a reader assumes anyway: no `title` (the tool's own `title` is the
 * display name, and comes first), no `readOnlyHint: false` or `idempotentHint: false` (the spec's defaults), and no
 * `destructiveHint` or `idempotentHint` on a read tool (they mean something only when `readOnlyHint` is false). A write
 * always says `destructiveHint`, and every tool `openWorldHint: false` (the spec's default is true: the tracker is a
 * closed world).
 */
export function listedAnnotations(a: Required<Pick<ToolAnnotations, 'readOnlyHint' | 'destructiveHint' | 'idempotentHint'>>): ToolAnnotations {
  if (a.readOnlyHint) return { readOnlyHint: true, openWorldHint: false };
  return { destructiveHint: a.destructiveHint, ...(a.idempotentHint ? { idempotentHint: true } : {}), openWorldHint: false };
}
