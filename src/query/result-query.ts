/**
 * A query's result as SQL that DuckDB runs whole (COPY (<query>) TO writes it to a file without
 * tsdb reading a row): the result as the SELECT path gives it to a client, its columns named as
 * the statement's result (`column-names.ts`) and typed as clients read them — HUGEINT (DuckDB's
 * `sum` of integers) as BIGINT, failing on a value beyond 64 bits, UHUGEINT as UBIGINT, and
 * TIMESTAMP WITH TIME ZONE as TIMESTAMP (DuckDB's zone is UTC), as `arrow-output.ts` and
 * `result-conversion.ts` shape the results they read. Other columns keep DuckDB's types, as a
 * table's COPY TO writes them (a VECTOR(n) as FLOAT[n], a JSON column as JSON).
 */
import { DuckDBTypeId, type DuckDBConnection, type DuckDBType } from '@duckdb/node-api';
import { StatusCode } from '../common/error/status-code.js';
import { TsdbError } from '../common/error/tsdb-error.js';
import { quoteIdent } from '../common/sql-quote.js';
import type { OutputColumn } from './output.js';
import { outputColumns } from './result-conversion.js';

/** The type a column of a DuckDB type is written as, when not its own. */
const SHAPED: Partial<Record<DuckDBTypeId, string>> = {
  [DuckDBTypeId.HUGEINT]: 'BIGINT',
  [DuckDBTypeId.UHUGEINT]: 'UBIGINT',
  [DuckDBTypeId.TIMESTAMP_TZ]: 'TIMESTAMP',
};

/** A query's result as SQL (`resultQuery`). */
export interface ResultQuery {
  /** A SELECT of the result's columns, by their names in `columns`. */
  readonly sql: string;
  /** The columns: distinct names (in any case), and the types clients read. */
  readonly columns: readonly OutputColumn[];
}

/**
 * A SELECT of the result of query `sql` (bound, not run, on `conn` to learn its columns), its
 * columns given the names `rename` gives them by position (the statement's result names; default:
 * DuckDB's). A file's columns need names of their own (a JSON line is an object): a name an earlier
 * column has (in any case) gets the first free suffix `_1`, `_2`, … as DuckDB's subqueries do.
 */
export async function resultQuery(conn: DuckDBConnection, sql: string, rename?: (columns: readonly OutputColumn[]) => readonly OutputColumn[]): Promise<ResultQuery> {
  const prepared = await conn.prepare(sql);
  let columns: OutputColumn[];
  let types: DuckDBType[];
  try {
    // A parameter (`$1`, `?`) has no value here, nor its result column a type.
    if (prepared.parameterCount > 0) throw new TsdbError(StatusCode.InvalidArguments, `Invalid SQL, error: the query has ${prepared.parameterCount} parameter(s) ($1, ?) and no values for them`);
    types = Array.from({ length: prepared.columnCount }, (_, i) => prepared.columnType(i));
    columns = outputColumns(
      types.map((_, i) => prepared.columnName(i)),
      types,
    );
  } finally {
    prepared.destroySync();
  }
  const names = distinct((rename?.(columns) ?? columns).map((c) => c.name));
  // Read by position under names of their own: the result's may repeat, or be any text.
  const inner = types.map((_, i) => `__tsdb_c${i}`);
  const items = types.map((t, i) => {
    const shaped = SHAPED[t.typeId];
    return `${shaped === undefined ? inner[i] : `CAST(${inner[i]} AS ${shaped})`} AS ${quoteIdent(names[i]!)}`;
  });
  return {
    // On lines of its own: a line comment ending the query's text ends there.
    sql: `SELECT ${items.join(', ')} FROM (\n${sql}\n) AS __tsdb_result(${inner.join(', ')})`,
    columns: columns.map((c, i) => ({ ...c, name: names[i]! })),
  };
}

/** `names` with each repeated one (case aside) given the first suffix `_<k>` no earlier name has. */
function distinct(names: readonly string[]): string[] {
  const taken = new Set<string>();
  return names.map((n) => {
    let name = n;
    for (let k = 1; taken.has(name.toLowerCase()); k++) name = `${n}_${k}`;
    taken.add(name.toLowerCase());
    return name;
  });
}
