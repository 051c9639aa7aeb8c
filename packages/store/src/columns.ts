/**
 * One column map per table: which record field lives in which column and how its value converts. Select lists,
 * inserts, updates and the row mapper all come from it, so a new column is added in one place.
 */

type Row = Record<string, any>;

export interface ColumnSpec {
  column: string;
  /** Database value to record value (default: as is). */
  read?: (v: any) => unknown;
  /** Record value to database value (default: as is). */
  write?: (v: any) => unknown;
  /** Computed by a join or the database, never written. */
  readOnly?: boolean;
}

export interface ColumnMap<T> {
  readonly table: string;
  /** Every field of the record, in map order. */
  readonly fields: ReadonlyArray<keyof T>;
  /** `table.column` for every stored field (or only `fields`), for a select list. */
  select(fields?: ReadonlyArray<keyof T>): string[];
  /** `table.column as <prefix>column` for every stored field, to read several tables from one row. */
  selectAs(prefix: string): string[];
  /** The record a row (selected by these columns) stands for; one argument, so it can be passed to `map`. */
  read(row: Row): T;
  /** The record in a row selected by `selectAs(prefix)`. */
  readAs(row: Row, prefix: string): T;
  /**
   * A reader of only `fields` (and the read-only ones among them), for rows selected with `select(fields)`: the record
   * it builds has those fields and no others, so a row read without some columns carries no placeholders for them.
   */
  readerOf<K extends keyof T>(fields: ReadonlyArray<K>): (row: Row) => Pick<T, K>;
  /** Column values for the defined fields of a record or patch; read-only fields are left out. */
  write(values: Partial<T>): Row;
}

/** Builds a table's column map; a bare string is a column read and written as is. */
export function columnMap<T>(table: string, fields: { [K in keyof T]-?: string | ColumnSpec }): ColumnMap<T> {
  const specs = Object.entries(fields).map(([field, s]) => ({ field, ...(typeof s === 'string' ? { column: s } : (s as ColumnSpec)) }));
  const stored = specs.filter((s) => !s.readOnly);
  const readers = new Map<string, (row: Row) => T>();
  const readAs = (row: Row, prefix: string): T => {
    let read = readers.get(prefix);
    if (!read) readers.set(prefix, (read = rowReader<T>(specs, prefix)));
    return read(row);
  };
  return {
    table,
    fields: specs.map((s) => s.field as keyof T),
    select(only) {
      const keep = only ? new Set(only as readonly string[]) : undefined;
      return stored.filter((s) => !keep || keep.has(s.field)).map((s) => `${table}.${s.column}`);
    },
    selectAs(prefix) {
      return stored.map((s) => `${table}.${s.column} as ${prefix}${s.column}`);
    },
    read(row) {
      return readAs(row, '');
    },
    readAs,
    readerOf<K extends keyof T>(only: ReadonlyArray<K>) {
      const keep = new Set<string>(only as ReadonlyArray<string>);
      return rowReader<Pick<T, K>>(specs.filter((s) => keep.has(s.field)), '');
    },
    write(values) {
      const out: Row = {};
      for (const s of stored) {
        const v = (values as Row)[s.field];
        if (v !== undefined) out[s.column] = s.write ? s.write(v) : v;
      }
      return out;
    },
  };
}

/**
 * A function that builds the record of a row as one object literal, compiled once per map and prefix. A record built
 * field by field in a loop (`out[field] = ...` for 25 fields) falls into V8's dictionary mode: each row of a page then
 * cost kilobytes of hash table, and every later read and the JSON serialization of it ran the slow path. A literal
 * has one fixed shape. Field and column names come from the maps in this package, never from input, and are
 * embedded as JSON string literals.
 */
function rowReader<T>(specs: ReadonlyArray<{ field: string; column: string; read?: (v: any) => unknown }>, prefix: string): (row: Row) => T {
  const fields = specs.map((s, i) => {
    const value = `row[${JSON.stringify(prefix + s.column)}]`;
    return `${JSON.stringify(s.field)}: ${s.read ? `read[${i}](${value})` : value}`;
  });
  const build = new Function('read', `return function readRow(row) { return { ${fields.join(', ')} }; };`) as (read: unknown[]) => (row: Row) => T;
  return build(specs.map((s) => s.read));
}
