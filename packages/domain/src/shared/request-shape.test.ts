import { describe, expect, it } from 'vitest';
import { DomainError } from './errors.js';
import { assertJsonObject, assertShallow, MAX_JSON_DEPTH, nestedDeeperThan } from './request-shape.js';
import { assertStorable, unstorableText } from './storable.js';

/** Arrays nested `levels` deep around `inner`: nest(2) is [[1]]. */
const nest = (levels: number, inner: unknown = 1): unknown => {
  let v = inner;
  for (let i = 0; i < levels; i++) v = [v];
  return v;
};

/** Objects nested `levels` deep: objects(2) is {a:{a:1}}. */
const objects = (levels: number): unknown => {
  let v: unknown = 1;
  for (let i = 0; i < levels; i++) v = { a: v };
  return v;
};

/** What `fn` throws, as `code: message`. */
const thrown = (fn: () => unknown): string => {
  try {
    fn();
  } catch (e) {
    if (e instanceof DomainError) return `${e.code}: ${e.message}`;
    throw e;
  }
  return 'nothing';
};

describe('nestedDeeperThan', () => {
  it('counts arrays and objects, not scalars', () => {
    expect(MAX_JSON_DEPTH).toBe(64);
    for (const scalar of [null, 1, 'x', true, undefined]) expect(nestedDeeperThan(scalar, 0)).toBe(false);
    expect(nestedDeeperThan({}, 0)).toBe(true);
    expect(nestedDeeperThan({}, 1)).toBe(false);
    expect(nestedDeeperThan([[1, 'x', null]], 2)).toBe(false);
    expect(nestedDeeperThan({ a: [{ b: 1 }] }, 2)).toBe(true);
  });

  it('allows exactly the limit, arrays and objects mixed, and refuses one more level', () => {
    expect(nestedDeeperThan(nest(MAX_JSON_DEPTH))).toBe(false);
    expect(nestedDeeperThan(nest(MAX_JSON_DEPTH + 1))).toBe(true);
    expect(nestedDeeperThan(objects(MAX_JSON_DEPTH))).toBe(false);
    expect(nestedDeeperThan(objects(MAX_JSON_DEPTH + 1))).toBe(true);
    // One object around 61 arrays around { b: {} }: 64 levels.
    expect(nestedDeeperThan({ a: nest(MAX_JSON_DEPTH - 3, { b: {} }) })).toBe(false);
    expect(nestedDeeperThan({ a: nest(MAX_JSON_DEPTH - 2, { b: {} }) })).toBe(true);
  });

  it('finds the deep branch among shallow ones', () => {
    expect(nestedDeeperThan({ a: 1, b: [1, 2, 3], c: { d: nest(MAX_JSON_DEPTH) } })).toBe(true);
    expect(nestedDeeperThan([...Array.from({ length: 1000 }, () => ({ x: [1] })), nest(MAX_JSON_DEPTH + 5)])).toBe(true);
  });

  it('walks a value nested a million levels deep without overflowing the stack', () => {
    const deep = JSON.parse('['.repeat(1_000_000) + ']'.repeat(1_000_000)) as unknown;
    expect(nestedDeeperThan(deep)).toBe(true);
    expect(nestedDeeperThan(objects(1_000_000))).toBe(true);
  });

  it('ends on a cycle', () => {
    const a: Record<string, unknown> = {};
    a.self = a;
    expect(nestedDeeperThan(a)).toBe(true);
  });
});

describe('assertShallow and assertJsonObject', () => {
  it('name where the value is too deep', () => {
    expect(thrown(() => assertShallow(nest(10_000), 'body'))).toBe('invalid_request: body: nested deeper than 64 levels');
    expect(thrown(() => assertShallow(nest(65), ''))).toBe('invalid_request: (root): nested deeper than 64 levels');
    expect(thrown(() => assertShallow(nest(64), 'body'))).toBe('nothing');
  });

  it('refuse null and every other non-object, naming what came', () => {
    expect(thrown(() => assertJsonObject(null, 'body'))).toBe('invalid_request: body: must be a JSON object, not null');
    expect(thrown(() => assertJsonObject([], 'body'))).toBe('invalid_request: body: must be a JSON object, not an array');
    expect(thrown(() => assertJsonObject('x', 'arguments'))).toBe('invalid_request: arguments: must be a JSON object, not a string');
    expect(thrown(() => assertJsonObject(3, 'body'))).toBe('invalid_request: body: must be a JSON object, not a number');
    expect(thrown(() => assertJsonObject(false, 'body'))).toBe('invalid_request: body: must be a JSON object, not a boolean');
    expect(thrown(() => assertJsonObject({}, 'body'))).toBe('nothing');
  });
});

describe('the storable check walks a value only once its depth is checked', () => {
  const deep = nest(10_000, '\u0000');

  it('refuses a deep value by its depth, whatever it holds', () => {
    expect(thrown(() => assertStorable(deep, 'body'))).toBe('invalid_request: body: nested deeper than 64 levels');
    expect(thrown(() => unstorableText(deep))).toBe('invalid_request: (root): nested deeper than 64 levels');
    expect(unstorableText(nest(64, '\u0000'))?.[1]).toMatch(/NUL/);
  });
});
