import { describe, expect, it } from 'vitest';
import { databaseUnavailable } from './availability.js';

const withCode = (code: string, message = 'x') => Object.assign(new Error(message), { code });

describe('databaseUnavailable', () => {
  it('names the failures of a stopped, unreachable, restarting or overloaded database', () => {
    expect(databaseUnavailable(withCode('ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:5432'))).toBe('connect ECONNREFUSED 127.0.0.1:5432');
    expect(databaseUnavailable(withCode('57P01', 'terminating connection due to administrator command'))).toMatch(/^57P01/);
    expect(databaseUnavailable(withCode('57P03', 'the database system is starting up'))).toMatch(/^57P03/);
    expect(databaseUnavailable(withCode('08P01', 'server login has been failing'))).toMatch(/^08P01/);
    expect(databaseUnavailable(withCode('57014', 'canceling statement due to statement timeout'))).toMatch(/^57014/);
    expect(databaseUnavailable(new Error('Connection terminated unexpectedly'))).toBeDefined();
    expect(databaseUnavailable(new Error('Connection terminated due to connection timeout'))).toBeDefined();
    expect(databaseUnavailable(Object.assign(new Error('Knex: Timeout acquiring a connection. The pool is probably full.'), { name: 'KnexTimeoutError' }))).toBeDefined();
    expect(databaseUnavailable(new AggregateError([withCode('ECONNREFUSED'), withCode('ECONNREFUSED')], ''))).toBeDefined();
    expect(databaseUnavailable(new Error('wrapped', { cause: withCode('ECONNRESET') }))).toBeDefined();
  });

  it('leaves faults of the request or the code alone', () => {
    expect(databaseUnavailable(withCode('23505', 'duplicate key value violates unique constraint'))).toBeUndefined();
    expect(databaseUnavailable(withCode('42P01', 'relation "nope" does not exist'))).toBeUndefined();
    expect(databaseUnavailable(new TypeError('x is undefined'))).toBeUndefined();
    expect(databaseUnavailable(undefined)).toBeUndefined();
    expect(databaseUnavailable('ECONNREFUSED')).toBeUndefined();
  });
});
