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
  /** Column values for the defined fields of a record or patch; read-only fields are left out. */
  write(values: Partial<T>): Row;
}

/** Builds a table's column map; a bare string is a column read and written as is. */
export function columnMap<T>(table: string, fields: { [K in keyof T]-?: string | ColumnSpec }): ColumnMap<T> {
  const specs = Object.entries(fields).map(([field, s]) => ({ field, ...(typeof s === 'string' ? { column: s } : (s as ColumnSpec)) }));
  const stored = specs.filter((s) => !s.readOnly);
  const readAs = (row: Row, prefix: string): T => {
    const out: Row = {};
    for (const s of specs) {
      const v = row[prefix + s.column];
      out[s.field] = s.read ? s.read(v) : v;
    }
    return out as T;
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
