import { invalid } from './errors.js';
import { assertShallow } from './request-shape.js';

/**
 * What PostgreSQL cannot keep in a text column: the NUL character, and lone UTF-16 surrogates, which have no UTF-8
 * form (the driver would silently store U+FFFD instead of what the client sent).
 */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

function fault(s: string): string | null {
  if (s.includes('\u0000')) return 'must not contain the NUL character (\\u0000)';
  if (LONE_SURROGATE.test(s)) return 'must be valid Unicode (it holds a lone surrogate)';
  return null;
}

/**
 * The first string in a request value (keys included) that cannot be stored, as [path, fault], or null. The walk
 * recurses, so a value nested deeper than MAX_JSON_DEPTH is refused before it starts.
 */
export function unstorableText(value: unknown, path: string[] = []): [string, string] | null {
  assertShallow(value, path.join('.'));
  return firstUnstorable(value, path);
}

function firstUnstorable(value: unknown, path: string[]): [string, string] | null {
  if (typeof value === 'string') {
    const f = fault(value);
    return f ? [path.join('.') || '(root)', f] : null;
  }
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = firstUnstorable(value[i], [...path, String(i)]);
      if (found) return found;
    }
    return null;
  }
  if (value !== null && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      const keyFault = fault(k);
      if (keyFault) return [[...path, JSON.stringify(k)].join('.'), `field name ${keyFault}`];
      const found = firstUnstorable(v, [...path, k]);
      if (found) return found;
    }
  }
  return null;
}

/** Refuses a request part (path, query, body, tool arguments) holding text the database cannot store: 400 naming the field. */
export function assertStorable(value: unknown, where = ''): void {
  const found = unstorableText(value, where ? [where] : []);
  if (found) throw invalid(found[0], found[1]);
}
