import { invalid } from './errors.js';

/**
 * How deep arrays and objects may nest in a request value (a body, tool arguments). Every rule that walks a value
 * (storable text, idempotency fingerprints, zod) recurses, so a value nested thousands of levels deep would overflow
 * the stack: it is refused first, by a check that does not recurse itself.
 */
export const MAX_JSON_DEPTH = 64;

/**
 * Whether arrays and objects nest in `value` deeper than `limit` levels (`[]` and `{}` are one level, a scalar none).
 * Walks with an explicit stack, and stops at the first branch past the limit, so it cannot overflow itself and a
 * cycle (impossible in parsed JSON) ends too.
 */
export function nestedDeeperThan(value: unknown, limit: number = MAX_JSON_DEPTH): boolean {
  const stack: Array<[unknown, number]> = [[value, 1]];
  while (stack.length) {
    const [v, depth] = stack.pop()!;
    if (v === null || typeof v !== 'object') continue;
    if (depth > limit) return true;
    for (const child of Array.isArray(v) ? v : Object.values(v)) {
      if (child !== null && typeof child === 'object') stack.push([child, depth + 1]);
    }
  }
  return false;
}

/** Refuses a request value nested deeper than MAX_JSON_DEPTH: 400 naming where. Runs before anything walks the value. */
export function assertShallow(value: unknown, where: string): void {
  if (nestedDeeperThan(value)) throw invalid(where || '(root)', `nested deeper than ${MAX_JSON_DEPTH} levels`);
}

const kindOf = (v: unknown): string => (v === null ? 'null' : Array.isArray(v) ? 'an array' : `a ${typeof v}`);

/** Refuses a request value that must be a JSON object but is null, an array, a string, a number or a boolean. */
export function assertJsonObject(value: unknown, where: string): asserts value is Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw invalid(where || '(root)', `must be a JSON object, not ${kindOf(value)}`);
  }
}
