import { z } from 'zod';

type Json = Record<string, unknown>;

/**
 * A tool schema as JSON Schema for tools/list, in the most portable spelling: a nullable value is
 * `anyOf: [{type: X}, {type: "null"}]`, never a `type` array, which single-type dialects (the OpenAPI subset of some
 * model providers) reject. Inputs are described as sent (defaults make fields optional), outputs as returned.
 */
export function toolJsonSchema(schema: z.ZodType, io: 'input' | 'output'): Json {
  const out = z.toJSONSchema(schema, { io, target: 'draft-7', unrepresentable: 'any' }) as Json;
  return split(out) as Json;
}

function split(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(split);
  if (!node || typeof node !== 'object') return node;
  const o: Json = {};
  for (const [k, v] of Object.entries(node as Json)) o[k] = split(v);
  if (Array.isArray(o.type) && o.type.length > 1) {
    const { type, ...rest } = o;
    return { anyOf: (type as string[]).map((t) => ({ type: t })), ...rest };
  }
  return o;
}
