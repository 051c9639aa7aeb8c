import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { plainTextArray, TEXT_ARRAY } from './db.js';

// The text[] parser the store installs: plain arrays split at their commas, anything else to pg's general parser.
const parse = pg.types.getTypeParser(TEXT_ARRAY) as (v: string) => unknown;

describe('text[] from PostgreSQL', () => {
  it('splits a plain array at its commas', () => {
    expect(plainTextArray('{}')).toEqual([]);
    expect(plainTextArray('{backend}')).toEqual(['backend']);
    expect(plainTextArray('{usr_01,usr_02,usr_03}')).toEqual(['usr_01', 'usr_02', 'usr_03']);
    expect(plainTextArray('{null,Null}')).toEqual(['null', 'Null']); // only NULL spelled so is a null element
  });

  it('leaves quoted, null and nested elements to the general parser, which reads them', () => {
    for (const v of ['{"a b",c}', '{"a,b","c\\"d"}', '{NULL,x}', '{"NULL"}', '{""}', '{{a,b},{c,d}}', '[0:1]={a,b}']) {
      expect(plainTextArray(v), v).toBeUndefined();
    }
    expect(parse('{"a b",c}')).toEqual(['a b', 'c']);
    expect(parse('{"a,b","c\\"d"}')).toEqual(['a,b', 'c"d']);
    expect(parse('{NULL,x}')).toEqual([null, 'x']);
    expect(parse('{"NULL"}')).toEqual(['NULL']);
    expect(parse('{{a,b},{c,d}}')).toEqual([['a', 'b'], ['c', 'd']]);
  });

  it('is the parser pg uses for text[]', () => {
    expect(parse('{ux,backend}')).toEqual(['ux', 'backend']);
    expect(parse('{}')).toEqual([]);
  });
});

describe.skipIf(!process.env.TEST_DATABASE_URL)('text[] read back from PostgreSQL', () => {
  it('reads every element as it was written', async () => {
    const client = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
    await client.connect();
    try {
      const written = [['ux', 'backend'], [], ['a,b', 'c"d', null, 'x y', 'NULL', 'null', '', '{', '\\'], ['ok', 'ÿ-é']];
      for (const arr of written) {
        const res = await client.query('select $1::text[] as v', [arr]);
        expect(res.rows[0].v, JSON.stringify(arr)).toEqual(arr);
      }
    } finally {
      await client.end();
    }
  });
});
