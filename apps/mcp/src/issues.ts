import type { z } from 'zod';

/**
 * Validator issues in words for a person: "title: is required", "priority: must be one of ...", "unknown argument
 * dueBefor; allowed: ...". The domain schemas' own messages (already written for people) pass through.
 */

type Issue = z.core.$ZodIssue;

const at = (value: unknown, path: ReadonlyArray<PropertyKey>): unknown => {
  let v = value;
  for (const p of path) {
    if (v === null || typeof v !== 'object') return undefined;
    v = (v as Record<PropertyKey, unknown>)[p];
  }
  return v;
};

const kind = (v: unknown): string => (v === null ? 'null' : Array.isArray(v) ? 'a list' : typeof v === 'object' ? 'an object' : `a ${typeof v}`);

/** Keys of the object schema at `path`, for naming the allowed arguments. */
function keysAt(schema: z.ZodType, path: ReadonlyArray<PropertyKey>): string[] {
  let s: any = schema;
  for (const p of path) {
    while (s?.def?.innerType) s = s.def.innerType;
    if (s?.def?.type === 'array') s = s.def.element;
    else if (s?.shape) s = s.shape[p as string];
    else return [];
  }
  while (s?.def?.innerType) s = s.def.innerType;
  return s?.shape ? Object.keys(s.shape) : [];
}

function describe(i: Issue, value: unknown, schema: z.ZodType): string {
  const path = i.path.map(String).join('.');
  const field = path || '(arguments)';
  switch (i.code) {
    case 'unrecognized_keys': {
      const allowed = keysAt(schema, i.path);
      return i.keys
        .map((k) => `${[path, k].filter(Boolean).join('.')}: unknown ${path ? 'field' : 'argument'}${allowed.length ? `; allowed: ${allowed.join(', ')}` : ''}`)
        .join('; ');
    }
    case 'invalid_type': {
      const got = at(value, i.path);
      if (got === undefined) return `${field}: is required`;
      return `${field}: must be ${i.expected === 'array' ? 'a list' : i.expected === 'object' ? 'an object' : `a ${i.expected}`}, not ${kind(got)}`;
    }
    case 'invalid_value':
      return `${field}: must be one of ${i.values.map(String).join(', ')}`;
    case 'too_small':
      if (i.message && !i.message.startsWith('Too small')) return `${field}: ${i.message}`;
      if (i.origin === 'string') return `${field}: ${Number(i.minimum) <= 1 ? 'must not be empty' : `must be at least ${i.minimum} characters`}`;
      if (i.origin === 'array') return `${field}: must hold at least ${i.minimum} item(s)`;
      return `${field}: must be at least ${i.minimum}`;
    case 'too_big':
      if (i.message && !i.message.startsWith('Too big')) return `${field}: ${i.message}`;
      if (i.origin === 'string') return `${field}: must be at most ${i.maximum} characters`;
      if (i.origin === 'array') return `${field}: must hold at most ${i.maximum} items`;
      return `${field}: must be at most ${i.maximum}`;
    default:
      return `${field}: ${i.message}`;
  }
}

export function humanIssues(issues: ReadonlyArray<Issue>, value: unknown, schema: z.ZodType): string {
  return issues.map((i) => describe(i, value, schema)).join('; ');
}
