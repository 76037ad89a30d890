/**
 * The tsdb functions DuckDB lacks (reference api.md §4.7; DESIGN.md "Dialect gaps"), as DuckDB
 * macros on the instance: `date_bin`, `date_format`, `to_unixtime`, `version()`, `build()`, and
 * `__tsdb_instant` of the session-time rewrites (`session-time.ts`). The session's `database()` and
 * `timezone()` become constants in the parse tree (a macro of that name would hide DuckDB's own
 * two-argument `timezone`). DuckDB's own time zone is UTC for every session; the session's is
 * applied by `session-time.ts`.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import { buildInfo } from '../common/build-info.js';
import { quoteLiteral } from '../common/sql-quote.js';
import { installJsonFunctions } from './json-functions.js';
import { installVectorFunctions } from './vector-functions.js';

/** Creates the instance-wide macros (idempotent). */
export async function installFunctions(conn: DuckDBConnection): Promise<void> {
  const b = buildInfo();
  const macros = [
    // date_bin(stride, ts[, origin]) is DuckDB's time_bucket with the origin last (epoch by default).
    "CREATE OR REPLACE MACRO date_bin(stride, t) AS time_bucket(stride, t, TIMESTAMP '1970-01-01 00:00:00'), (stride, t, origin) AS time_bucket(stride, t, origin)",
    // The wall clock of t as written (session-time.ts turns an instant into the session's wall clock first).
    'CREATE OR REPLACE MACRO date_format(t, fmt) AS strftime(make_timestamptz(epoch_us(CAST(t AS TIMESTAMP))), fmt)',
    // Seconds since the epoch; a string (already UTC text, session-time.ts) or a timestamp.
    "CREATE OR REPLACE MACRO to_unixtime(t) AS CAST(CASE WHEN typeof(t) = 'VARCHAR' THEN epoch(CAST(t AS TIMESTAMPTZ)) ELSE epoch(CAST(t AS TIMESTAMP)) END AS BIGINT)",
    // The instant at which the wall clock of zone z reads b, where b is the start of the bucket of
    // instant t: t's own offset when it holds at b (so that the hour a zone repeats keeps each of its
    // two buckets), else the zone's (a bucket that began before a change of offset).
    'CREATE OR REPLACE MACRO __tsdb_instant(b, t, z) AS CASE ' +
      'WHEN timezone(z, CAST(b - (timezone(z, CAST(t AS TIMESTAMPTZ)) - CAST(t AS TIMESTAMP)) AS TIMESTAMPTZ)) = b ' +
      'THEN b - (timezone(z, CAST(t AS TIMESTAMPTZ)) - CAST(t AS TIMESTAMP)) ' +
      'ELSE CAST(timezone(z, b) AS TIMESTAMP) END',
    `CREATE OR REPLACE MACRO version() AS ${quoteLiteral(`8.4.2-tsdb-${b.version}`)}`,
    `CREATE OR REPLACE MACRO build() AS ${quoteLiteral(`branch: ${b.branch}\ncommit: ${b.commit}\ncommit_short: ${b.commit.slice(0, 8)}\nversion: ${b.version}`)}`,
  ];
  for (const m of macros) await conn.run(m);
  installJsonFunctions(conn);
  await installVectorFunctions(conn);
}

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

/**
 * Replaces `database()` and `timezone()` (no arguments) in a serialized parse tree by the session's
 * values; a call that is a select item keeps its name as the column's. Returns whether it changed.
 */
export function rewriteSessionFunctions(tree: unknown, session: { readonly database: string; readonly timezone: string }): boolean {
  const values: Record<string, string> = { database: session.database, timezone: session.timezone };
  let changed = false;
  const replace = (n: Json, selectItem: boolean): Json => {
    if (Array.isArray(n)) return n.map((x) => replace(x, selectItem));
    if (typeof n !== 'object' || n === null) return n;
    if (n['class'] === 'FUNCTION' && typeof n['function_name'] === 'string' && Array.isArray(n['children']) && n['children'].length === 0 && n['schema'] === '') {
      const value = values[n['function_name'].toLowerCase()];
      if (value !== undefined) {
        changed = true;
        const alias = typeof n['alias'] === 'string' && n['alias'] !== '' ? n['alias'] : selectItem ? `${n['function_name']}()` : '';
        return { class: 'CONSTANT', type: 'VALUE_CONSTANT', alias, query_location: 0, value: { type: { id: 'VARCHAR', type_info: null }, is_null: false, value } };
      }
    }
    for (const [k, v] of Object.entries(n)) n[k] = k === 'select_list' && Array.isArray(v) ? v.map((x) => replace(x, true)) : replace(v, false);
    return n;
  };
  replace(tree as Json, false);
  return changed;
}
