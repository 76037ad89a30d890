/**
 * GreptimeDB's scalar functions that DuckDB lacks, as DuckDB macros on the query instance (installed
 * with the others by `session-functions.ts` `installFunctions`, so that a datanode running a
 * frontend's query text has them too): MySQL's string functions (`locate`, `elt`, `field`,
 * `insert`, `space`), DataFusion's `initcap`, `isnull`, `clamp`/`clamp_min`/`clamp_max` and the
 * Unix-time conversions Grafana's MySQL data source writes (`from_unixtime`, `unix_timestamp`), and
 * MySQL's number `format(x, d)`, DataFusion's `arrow_typeof` and its aggregate aliases (`covar`, `var`).
 * Results, NULL handling and errors follow GreptimeDB's `src/common/function/src/scalars/` (the
 * sqlness cases `function/string/mysql_compat`, `function/arithmetic`, `function/expression`).
 *
 * Macros, not C-API functions: DuckDB inlines them, so they run vectorized in DuckDB with no call
 * into JavaScript per row, and they can compute nothing the SQL sandbox would refuse. ELT and FIELD
 * take any number of arguments in GreptimeDB; a macro has a fixed arity, so one overload per count
 * up to `MAX_LIST_ARGS` is made. A runtime error is DuckDB's `error()` with GreptimeDB's message
 * (`Execution error: …`), which `duckdb-error.ts` reports as EngineExecuteQuery, as GreptimeDB does.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import { ARROW_TYPE_NAMES } from './arrow-type-names.js';

/** The most list arguments ELT and FIELD take (MySQL itself has no limit, nor a use for more). */
export const MAX_LIST_ARGS = 64;

/** `(p, a1, …, ak) AS body(k)` for k = 1 … MAX_LIST_ARGS: one overload per argument count. */
function listOverloads(first: string, body: (args: readonly string[]) => string): string {
  const overloads: string[] = [];
  for (let k = 1; k <= MAX_LIST_ARGS; k++) {
    const args = Array.from({ length: k }, (_, i) => `a${i + 1}`);
    overloads.push(`(${[first, ...args].join(', ')}) AS ${body(args)}`);
  }
  return overloads.join(', ');
}

const text = (x: string) => `CAST(${x} AS VARCHAR)`;

/** The CREATE MACRO statements (idempotent). */
export function compatMacros(): string[] {
  return [
    // MySQL's LOCATE: the 1-based character position of sub in s (from pos), 0 when absent or pos < 1;
    // an empty sub is found at pos while pos is at most one past the end.
    `CREATE OR REPLACE MACRO locate(sub, s) AS CAST(instr(${text('s')}, ${text('sub')}) AS BIGINT),
      (sub, s, pos) AS CAST(CASE
        WHEN sub IS NULL OR s IS NULL OR pos IS NULL THEN NULL
        WHEN pos < 1 THEN 0
        WHEN ${text('sub')} = '' THEN CASE WHEN pos - 1 <= length(${text('s')}) THEN pos ELSE 0 END
        WHEN pos - 1 >= length(${text('s')}) THEN 0
        WHEN instr(substring(${text('s')}, CAST(pos AS BIGINT)), ${text('sub')}) = 0 THEN 0
        ELSE instr(substring(${text('s')}, CAST(pos AS BIGINT)), ${text('sub')}) + pos - 1 END AS BIGINT)`,
    // MySQL's ELT: the n-th of the strings (1-based), NULL when n is NULL or out of range.
    `CREATE OR REPLACE MACRO elt${listOverloads('n', (args) => `CASE CAST(n AS BIGINT) ${args.map((a, i) => `WHEN ${i + 1} THEN ${text(a)}`).join(' ')} ELSE CAST(NULL AS VARCHAR) END`)}`,
    // MySQL's FIELD: the 1-based index of the first string equal to s, 0 when none is or s is NULL.
    `CREATE OR REPLACE MACRO field${listOverloads('s', (args) => `CAST(CASE WHEN s IS NULL THEN 0 ${args.map((a, i) => `WHEN ${text('s')} = ${text(a)} THEN ${i + 1}`).join(' ')} ELSE 0 END AS BIGINT)`)}`,
    // MySQL's INSERT: s with len characters from pos replaced by ns; s itself when pos is outside 1 … length + 1.
    `CREATE OR REPLACE MACRO insert(s, pos, len, ns) AS CASE
        WHEN s IS NULL OR pos IS NULL OR len IS NULL OR ns IS NULL THEN CAST(NULL AS VARCHAR)
        WHEN pos < 1 OR pos > length(${text('s')}) + 1 THEN ${text('s')}
        ELSE substring(${text('s')}, 1, CAST(pos AS BIGINT) - 1) || ${text('ns')} || substring(${text('s')}, CAST(pos AS BIGINT) + greatest(CAST(len AS BIGINT), 0)) END`,
    // MySQL's SPACE: n spaces, '' for n < 0, NULL for NULL.
    "CREATE OR REPLACE MACRO space(n) AS repeat(' ', greatest(CAST(n AS BIGINT), 0))",
    // DataFusion's INITCAP: each run of letters and digits with its first character upper case, the rest lower.
    `CREATE OR REPLACE MACRO initcap(s) AS array_to_string(list_transform(regexp_extract_all(${text('s')}, '[\\p{L}\\p{N}]+|[^\\p{L}\\p{N}]+'), w -> upper(w[1]) || lower(w[2:])), '')`,
    // GreptimeDB's ISNULL (one argument): whether the value is NULL.
    'CREATE OR REPLACE MACRO "isnull"(x) AS (x IS NULL)',
    // GreptimeDB's CLAMP family: NULL stays NULL; a minimum above the maximum fails the query.
    `CREATE OR REPLACE MACRO clamp(v, lo, hi) AS CASE
        WHEN lo > hi THEN error(system.main.format('Execution error: min ''{}'' > max ''{}''', lo, hi))
        WHEN v IS NULL OR lo IS NULL OR hi IS NULL THEN NULL
        WHEN v < lo THEN lo WHEN v > hi THEN hi ELSE v END`,
    'CREATE OR REPLACE MACRO clamp_min(v, lo) AS CASE WHEN v IS NULL OR lo IS NULL THEN NULL WHEN v < lo THEN lo ELSE v END',
    'CREATE OR REPLACE MACRO clamp_max(v, hi) AS CASE WHEN v IS NULL OR hi IS NULL THEN NULL WHEN v > hi THEN hi ELSE v END',
    // MySQL's FORMAT(x, d): x rounded to d decimals (half away from zero), with thousands separators.
    // It hides DuckDB's fmt-style format, which GreptimeDB does not have (tsdb's macros call it as system.main.format).
    "CREATE OR REPLACE MACRO format(x, d) AS system.main.format('{:,.' || CAST(greatest(CAST(d AS BIGINT), 0) AS VARCHAR) || 'f}', round(CAST(x AS DOUBLE), CAST(greatest(CAST(d AS BIGINT), 0) AS INTEGER)))",
    // MySQL's FROM_UNIXTIME(seconds) as DataFusion's: a timestamp of seconds (fractions kept to the microsecond).
    'CREATE OR REPLACE MACRO from_unixtime(secs) AS make_timestamp(CAST(round(CAST(secs AS DOUBLE) * 1000000) AS BIGINT))',
    // MySQL's UNIX_TIMESTAMP: seconds since the epoch, of now or of a timestamp (a string is read in
    // the session's zone by `session-time.ts`, as `to_unixtime`'s).
    'CREATE OR REPLACE MACRO unix_timestamp() AS CAST(epoch(current_timestamp) AS BIGINT), (t) AS to_unixtime(t)',
    // DataFusion's regexp_like(s, pattern[, flags]): a search (DuckDB's regexp_matches, whose options must be
    // constants in its macros: each flag DuckDB shares with Rust's regex spelled out; 'g' refused as DataFusion does).
    "CREATE OR REPLACE MACRO regexp_like(s, r) AS regexp_matches(s, r), (s, r, f) AS CASE f WHEN '' THEN regexp_matches(s, r) WHEN 'i' THEN regexp_matches(s, r, 'i') " +
      "WHEN 's' THEN regexp_matches(s, r, 's') WHEN 'm' THEN regexp_matches(s, r, 'm') WHEN 'c' THEN regexp_matches(s, r, 'c') " +
      "ELSE CAST(error(CASE WHEN contains(f, 'g') THEN 'Execution error: regexp_like() does not support the \"global\" option' ELSE 'Execution error: regexp_like() does not support the flags ' || f END) AS BOOLEAN) END",
    // octet_length of a string literal (DuckDB cannot choose between its VARCHAR and BLOB forms): its UTF-8 bytes.
    'CREATE OR REPLACE MACRO octet_length(x VARCHAR) AS strlen(x), (x BLOB) AS system.main.octet_length(x), (x BIT) AS system.main.octet_length(x)',
    // DataFusion's aggregate aliases DuckDB lacks (named by their canonical names, `column-names.ts`).
    'CREATE OR REPLACE MACRO covar(y, x) AS covar_samp(y, x)',
    'CREATE OR REPLACE MACRO "var"(x) AS var_samp(x)',
    'CREATE OR REPLACE MACRO var_sample(x) AS var_samp(x)',
    'CREATE OR REPLACE MACRO var_population(x) AS var_pop(x)',
    // DataFusion's arrow_typeof: the Arrow type of x as Arrow displays it (DuckDB folds typeof to a constant).
    `CREATE OR REPLACE MACRO arrow_typeof(x) AS CASE typeof(x) ${Object.entries({ ...ARROW_TYPE_NAMES, '"NULL"': 'Null' })
      .map(([duck, arrow]) => `WHEN '${duck}' THEN '${arrow}'`)
      .join(' ')} ELSE regexp_replace(typeof(x), '^DECIMAL\\((\\d+),(\\d+)\\)$', 'Decimal128(\\1, \\2)') END`,
  ];
}

/** Creates the macros on the instance of `conn`. */
export async function installCompatFunctions(conn: DuckDBConnection): Promise<void> {
  for (const m of compatMacros()) await conn.run(m);
}
