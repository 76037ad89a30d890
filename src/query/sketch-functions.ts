/**
 * GreptimeDB's approximate aggregates on tsdb's DuckDB: `hll` / `hll_merge` / `hll_count`,
 * `approx_distinct`, `uddsketch_state` / `uddsketch_merge` / `uddsketch_calc`,
 * `approx_percentile_cont(x, p)` and `approx_percentile_cont_with_weight(x, w, p)` (and their
 * `… WITHIN GROUP (ORDER BY x)` forms, `sql/query-text.ts`) and `approx_median`.
 *
 * DuckDB's C API here has no aggregate functions of JavaScript's, so each aggregate is a macro: a
 * built-in DuckDB aggregate gathers what the sketch needs, vectorized and in parallel, and a
 * JavaScript scalar function turns that into the sketch once per group:
 *
 * - hll: DuckDB hashes each value (`hash`, 64 bits) and keeps the distinct (register, rank) codes
 *   (`list(DISTINCT …)`: at most 2^14 · 51 of them, about 10^5 for 10^6 values); `hyperloglog.ts` keeps each
 *   register's largest rank. Mergeable: `hll_merge` takes each register's largest.
 * - uddsketch: DuckDB counts the values per bucket key (`histogram`: one entry per bucket of the
 *   uncollapsed sketch, a few hundred for values spanning decades); `uddsketch.ts` collapses them to
 *   the bucket limit, which gives the sketch a value-by-value build would. Mergeable exactly.
 * - approx_percentile_cont: DataFusion's t-digest (`tdigest.ts`) of the group's values, gathered
 *   by `list` (memory of the group's size, as DuckDB's exact `quantile_cont` takes).
 *
 * States are BLOBs of tsdb's own layouts (see the two modules), not GreptimeDB's bytes: a state
 * written by GreptimeDB does not decode here, nor one of tsdb's there.
 *
 * The scalar functions are registered on each query DuckDB instance with tsdb's other functions
 * (`session-functions.ts` `installFunctions`); they compute from their arguments alone (no file,
 * network or engine state), so the SQL sandbox needs nothing for them.
 */
import { BIGINT, BLOB, BOOLEAN, DOUBLE, DuckDBBlobValue, LIST, UBIGINT, type DuckDBConnection } from '@duckdb/node-api';
import { bytesOf, listItems, registrar, scalar } from './js-functions.js';
import { withinGroupMacro } from '../sql/query-text.js';
import { StatusCode } from '../common/error/status-code.js';
import { TsdbError } from '../common/error/tsdb-error.js';
import { encodeRegisters, estimateCount, HLL_RANK_BITS, mergeRegisters, registersOfCodes, decodeRegisters } from './hyperloglog.js';
import { approxQuantile, estimateQuantile, weightedDigestOf } from './tdigest.js';
import { decodeSketch, encodeSketch, mergeSketches, sketchOfCodes, sketchQuantile, ZERO_CODE } from './uddsketch.js';

/** Registers the scalar functions the macros call on the instance of `conn`. */
export function registerSketchFunctions(connection: DuckDBConnection): void {
  const blob = (bytes: Uint8Array) => new DuckDBBlobValue(bytes);
  const conn = registrar(connection);
  conn.registerScalarFunction(scalar('__tsdb_hll_state', [LIST(UBIGINT)], BLOB, (input, i) => blob(encodeRegisters(registersOfCodes(listItems<bigint>(input[0]!, i))))));
  conn.registerScalarFunction(scalar('__tsdb_hll_merge', [LIST(BLOB)], BLOB, (input, i) => blob(encodeRegisters(mergeRegisters(listItems<unknown>(input[0]!, i).map(bytesOf))))));
  conn.registerScalarFunction(
    scalar('hll_count', [BLOB], UBIGINT, (input, i) => {
      try {
        return BigInt(estimateCount(decodeRegisters(bytesOf(input[0]!.getItem(i)))));
      } catch {
        return null; // GreptimeDB: a state that does not decode counts as NULL
      }
    }),
  );
  conn.registerScalarFunction(
    scalar('__tsdb_udds_state', [BIGINT, DOUBLE, LIST(BIGINT), LIST(UBIGINT), DOUBLE], BLOB, (input, i) =>
      blob(encodeSketch(sketchOfCodes(Number(input[0]!.getItem(i)), input[1]!.getItem(i) as number, listItems<bigint>(input[2]!, i), listItems<bigint>(input[3]!, i), input[4]!.getItem(i) as number))),
    ),
  );
  conn.registerScalarFunction(
    scalar('__tsdb_udds_merge', [BIGINT, DOUBLE, LIST(BLOB)], BLOB, (input, i) => blob(encodeSketch(mergeSketches(Number(input[0]!.getItem(i)), input[1]!.getItem(i) as number, listItems<unknown>(input[2]!, i).map(bytesOf))))),
  );
  conn.registerScalarFunction(
    scalar('uddsketch_calc', [DOUBLE, BLOB], DOUBLE, (input, i) => {
      try {
        return sketchQuantile(decodeSketch(bytesOf(input[1]!.getItem(i))), input[0]!.getItem(i) as number) ?? null;
      } catch {
        return null; // GreptimeDB: a state that does not decode gives NULL
      }
    }),
  );
  conn.registerScalarFunction(
    scalar('__tsdb_approx_quantile', [LIST(DOUBLE), DOUBLE, BOOLEAN], DOUBLE, (input, i) => {
      const q = input[1]!.getItem(i) as number;
      if (!(q >= 0 && q <= 1)) throw new TsdbError(StatusCode.EngineExecuteQuery, `Error during planning: Percentile value must be between 0.0 and 1.0 inclusive, ${q} is invalid`);
      const values = Float64Array.from(listItems<number>(input[0]!, i));
      const v = approxQuantile(values, q);
      if (v === undefined) return null;
      // DataFusion casts the estimate to an integer input's type with `as`: toward zero.
      return input[2]!.getItem(i) === true ? Math.trunc(v) : v;
    }),
  );
  conn.registerScalarFunction(
    scalar('__tsdb_approx_quantile_weighted', [LIST(DOUBLE), LIST(DOUBLE), DOUBLE, BOOLEAN], DOUBLE, (input, i) => {
      const q = input[2]!.getItem(i) as number;
      if (!(q >= 0 && q <= 1)) throw new TsdbError(StatusCode.EngineExecuteQuery, `Error during planning: Percentile value must be between 0.0 and 1.0 inclusive, ${q} is invalid`);
      const v = estimateQuantile(weightedDigestOf(Float64Array.from(listItems<number>(input[0]!, i)), Float64Array.from(listItems<number>(input[1]!, i))), q);
      if (v === undefined) return null;
      return input[3]!.getItem(i) === true ? Math.trunc(v) : v;
    }),
  );
}

/** The hll register and rank of a 64-bit hash `h`, as one code (register · 64 + rank). */
const HLL_CODE = `CAST((h >> ${HLL_RANK_BITS}) * 64 + CASE WHEN (h & ${2n ** BigInt(HLL_RANK_BITS) - 1n}::UBIGINT) = 0 THEN ${HLL_RANK_BITS + 1}
  ELSE ${HLL_RANK_BITS} - (CAST(floor(log2(CAST(h & ${2n ** BigInt(HLL_RANK_BITS) - 1n}::UBIGINT AS DOUBLE))) AS BIGINT)
    - CASE WHEN (1::UBIGINT << CAST(floor(log2(CAST(h & ${2n ** BigInt(HLL_RANK_BITS) - 1n}::UBIGINT AS DOUBLE))) AS BIGINT)) > (h & ${2n ** BigInt(HLL_RANK_BITS) - 1n}::UBIGINT) THEN 1 ELSE 0 END) END AS UBIGINT)`;

/** A value's bucket code of a UDDSketch of initial error e (`uddsketch.ts` ZERO_CODE, 2k, 2k + 1). */
const UDDS_CODE = `CASE WHEN v > 0 THEN 2 * CAST(ceil(ln(v) / ln((1 + e) / (1 - e))) AS BIGINT)
  WHEN v < 0 THEN 2 * CAST(ceil(ln(-v) / ln((1 + e) / (1 - e))) AS BIGINT) + 1
  WHEN v = 0 THEN ${ZERO_CODE}::BIGINT END`;

/**
 * The macros that aggregate (lower case): the query path counts them with DuckDB's aggregates
 * (a query of them is not split over a partitioned table's regions as a scalar one would be).
 */
export const AGGREGATE_MACROS: ReadonlySet<string> = new Set([
  'hll',
  'hll_merge',
  'approx_distinct',
  'uddsketch_state',
  'uddsketch_merge',
  'approx_percentile_cont',
  'approx_median',
  'approx_percentile_cont_with_weight',
  // DataFusion's aggregate aliases (`compat-functions.ts`).
  'covar',
  'var',
  'var_sample',
  'var_population',
  ...[false, true].flatMap((desc) => [withinGroupMacro('approx_percentile_cont', desc), withinGroupMacro('approx_percentile_cont_with_weight', desc)]),
]);

/** The macros over the scalar functions (idempotent). */
export function sketchMacros(): string[] {
  return [
    `CREATE OR REPLACE MACRO __tsdb_hll_code(h) AS ${HLL_CODE}`,
    // list(DISTINCT …): DuckDB's hashed distinct, some 6× faster here than a histogram's map.
    'CREATE OR REPLACE MACRO hll(x) AS __tsdb_hll_state(coalesce(list(DISTINCT __tsdb_hll_code(hash(x))) FILTER (WHERE x IS NOT NULL), []::UBIGINT[]))',
    'CREATE OR REPLACE MACRO hll_merge(s) AS __tsdb_hll_merge(coalesce(list(s) FILTER (WHERE s IS NOT NULL), []::BLOB[]))',
    'CREATE OR REPLACE MACRO approx_distinct(x) AS hll_count(hll(x))',
    `CREATE OR REPLACE MACRO __tsdb_udds_code(e, v) AS ${UDDS_CODE}`,
    'CREATE OR REPLACE MACRO uddsketch_state(b, e, v) AS __tsdb_udds_state(b, e, ' +
      'coalesce(map_keys(histogram(__tsdb_udds_code(e, CAST(v AS DOUBLE)))), []::BIGINT[]), ' +
      'coalesce(map_values(histogram(__tsdb_udds_code(e, CAST(v AS DOUBLE)))), []::UBIGINT[]), coalesce(sum(CAST(v AS DOUBLE)), 0))',
    'CREATE OR REPLACE MACRO uddsketch_merge(b, e, s) AS __tsdb_udds_merge(b, e, coalesce(list(s) FILTER (WHERE s IS NOT NULL), []::BLOB[]))',
    // The estimate in the input's type (DataFusion's), truncated for integers.
    "CREATE OR REPLACE MACRO approx_percentile_cont(x, p) AS cast_to_type(__tsdb_approx_quantile(coalesce(list(CAST(x AS DOUBLE)) FILTER (WHERE x IS NOT NULL), []::DOUBLE[]), p, typeof(any_value(x)) LIKE '%INT%'), any_value(x))",
    'CREATE OR REPLACE MACRO approx_median(x) AS approx_percentile_cont(x, 0.5)',
    // Values and weights sorted alike (by value, then weight): the digest's merge takes them by value.
    'CREATE OR REPLACE MACRO approx_percentile_cont_with_weight(x, w, p) AS cast_to_type(__tsdb_approx_quantile_weighted(' +
      'coalesce(list(CAST(x AS DOUBLE) ORDER BY CAST(x AS DOUBLE), CAST(w AS DOUBLE)) FILTER (WHERE x IS NOT NULL AND w IS NOT NULL), []::DOUBLE[]), ' +
      'coalesce(list(CAST(w AS DOUBLE) ORDER BY CAST(x AS DOUBLE), CAST(w AS DOUBLE)) FILTER (WHERE x IS NOT NULL AND w IS NOT NULL), []::DOUBLE[]), ' +
      "p, typeof(any_value(x)) LIKE '%INT%'), any_value(x))",
    // The ordered-set forms (`sql/query-text.ts`): DESC reads the quantile from the other end.
    `CREATE OR REPLACE MACRO ${withinGroupMacro('approx_percentile_cont', false)}(x, p) AS approx_percentile_cont(x, p)`,
    `CREATE OR REPLACE MACRO ${withinGroupMacro('approx_percentile_cont', true)}(x, p) AS approx_percentile_cont(x, 1 - p)`,
    `CREATE OR REPLACE MACRO ${withinGroupMacro('approx_percentile_cont_with_weight', false)}(x, w, p) AS approx_percentile_cont_with_weight(x, w, p)`,
    `CREATE OR REPLACE MACRO ${withinGroupMacro('approx_percentile_cont_with_weight', true)}(x, w, p) AS approx_percentile_cont_with_weight(x, w, 1 - p)`,
  ];
}

/** Registers the functions and creates the macros on the instance of `conn`. */
export async function installSketchFunctions(conn: DuckDBConnection): Promise<void> {
  registerSketchFunctions(conn);
  for (const m of sketchMacros()) await conn.run(m);
}
