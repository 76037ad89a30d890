/**
 * Scalar functions of JavaScript's on tsdb's DuckDB instances (the C API's, through
 * @duckdb/node-api): a function computes its rows from a chunk of arguments, in one call per
 * chunk from DuckDB's thread into JavaScript's, so they serve work per group or per value that
 * DuckDB's SQL cannot express (sketches, geohash), not hot per-row paths DuckDB has built in.
 * They read only their arguments: nothing the SQL sandbox guards (files, network, settings).
 */
import { DuckDBBlobVector, DuckDBListVector, DuckDBScalarFunction, type DuckDBBlobValue, type DuckDBConnection, type DuckDBVector } from '@duckdb/node-api';
import { TsdbError } from '../common/error/tsdb-error.js';

/** The elements of row `row` of a list vector. */
export function listItems<T>(v: DuckDBVector, row: number): T[] {
  const list = v as DuckDBListVector;
  const child = list.childVector;
  const start = list.getEntryOffset(row);
  const n = list.getEntryLength(row);
  const out: T[] = new Array<T>(n);
  for (let i = 0; i < n; i++) out[i] = child.getItem(start + i) as T;
  return out;
}

/** Whether row `i` of `v` is NULL, without building a list's or a blob's value. */
function isNull(v: DuckDBVector, i: number): boolean {
  if (v instanceof DuckDBListVector) return v.getItemVector(i) === null;
  if (v instanceof DuckDBBlobVector) return v.getItemBytes(i) === null;
  return v.getItem(i) === null;
}

export const bytesOf = (v: unknown): Uint8Array => (v as DuckDBBlobValue).bytes;

/**
 * A scalar function whose rows are computed by `row` (null: SQL NULL), NULL where an argument is;
 * a TsdbError fails the query with its message.
 */
export function scalar(name: string, parameterTypes: Parameters<typeof DuckDBScalarFunction.create>[0]['parameterTypes'], returnType: Parameters<typeof DuckDBScalarFunction.create>[0]['returnType'], row: (input: DuckDBVector[], i: number) => unknown): DuckDBScalarFunction {
  return DuckDBScalarFunction.create({
    name,
    parameterTypes: parameterTypes!,
    returnType,
    mainFunction: (info, chunk, output) => {
      try {
        const input = Array.from({ length: chunk.columnCount }, (_, c) => chunk.getColumnVector(c));
        // DuckDB leaves NULL arguments of a flat chunk to the function: NULL in, NULL out.
        for (let i = 0; i < chunk.rowCount; i++) output.setItem(i, (input.some((v) => isNull(v, i)) ? null : row(input, i)) as never);
        output.flush();
      } catch (err) {
        info.setError(err instanceof TsdbError ? err.message : `Execution error: ${err instanceof Error ? err.message : String(err)}`);
      }
    },
  });
}

/**
 * Registers functions on the instance of `connection`; one registered already (a second install
 * after a failed one) is left as it is.
 */
export function registrar(connection: DuckDBConnection): { registerScalarFunction(f: DuckDBScalarFunction): void } {
  return {
    registerScalarFunction(f: DuckDBScalarFunction): void {
      try {
        connection.registerScalarFunction(f);
      } catch (err) {
        if (!/already exists/i.test(err instanceof Error ? err.message : String(err))) throw err;
      }
    },
  };
}
