/**
 * The tsdb functions DuckDB lacks (reference api.md §4.7; DESIGN.md "Dialect gaps"), as DuckDB
 * macros on the instance: `date_bin`, `date_format`, `to_unixtime`, `version()`, `build()`. The
 * session's `database()` and `timezone()` become constants in the parse tree (a macro of that name
 * would hide DuckDB's own two-argument `timezone`); the session's time zone becomes the
 * connection's (now(), timestamptz casts, formatting).
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import { buildInfo } from '../common/build-info.js';
import { parseOffset } from '../common/time/timestamp.js';
import { quoteLiteral } from '../engine/sst/sst-format.js';

/** Creates the instance-wide macros (idempotent). */
export async function installFunctions(conn: DuckDBConnection): Promise<void> {
  const b = buildInfo();
  const macros = [
    // date_bin(stride, ts[, origin]) is DuckDB's time_bucket with the origin last (epoch by default).
    "CREATE OR REPLACE MACRO date_bin(stride, t) AS time_bucket(stride, t, TIMESTAMP '1970-01-01 00:00:00'), (stride, t, origin) AS time_bucket(stride, t, origin)",
    // Timestamps hold UTC instants: formatted in the session's time zone.
    'CREATE OR REPLACE MACRO date_format(t, fmt) AS strftime(make_timestamptz(epoch_us(CAST(t AS TIMESTAMP))), fmt)',
    // Seconds since the epoch; a string is read in the session's time zone, a timestamp is already UTC.
    "CREATE OR REPLACE MACRO to_unixtime(t) AS CAST(CASE WHEN typeof(t) = 'VARCHAR' THEN epoch(CAST(t AS TIMESTAMPTZ)) ELSE epoch(CAST(t AS TIMESTAMP)) END AS BIGINT)",
    `CREATE OR REPLACE MACRO version() AS ${quoteLiteral(`8.4.2-tsdb-${b.version}`)}`,
    `CREATE OR REPLACE MACRO build() AS ${quoteLiteral(`branch: ${b.branch}\ncommit: ${b.commit}\ncommit_short: ${b.commit.slice(0, 8)}\nversion: ${b.version}`)}`,
  ];
  for (const m of macros) await conn.run(m);
}

/** DuckDB's name for a session time zone: IANA names as they are, whole-hour offsets as `Etc/GMT∓h`. */
export function duckdbTimeZone(zone: string): string {
  const z = zone.trim();
  if (/^(utc|system|z)$/i.test(z)) return 'UTC';
  const offset = parseOffset(z);
  if (offset === undefined) return z;
  if (offset === 0) return 'UTC';
  // POSIX-style names invert the sign: Etc/GMT-8 is UTC+8. Half-hour offsets have no such name.
  return offset % 60 === 0 ? `Etc/GMT${offset > 0 ? '-' : '+'}${Math.abs(offset) / 60}` : 'UTC';
}

/** Prepares a query connection for a session: its time zone, and `/` of integers giving integers (7 / 2 = 3). */
export async function prepareSession(conn: DuckDBConnection, session: { readonly timezone: string }): Promise<void> {
  const zone = duckdbTimeZone(session.timezone);
  // Queries cannot change a connection's settings, so one set for the same zone still holds.
  if (preparedZones.get(conn) === zone) return;
  await conn.run(`SET TimeZone = ${quoteLiteral(zone)}; SET integer_division = true`);
  preparedZones.set(conn, zone);
}

/** The zone each pooled connection was last prepared for. */
const preparedZones = new WeakMap<DuckDBConnection, string>();

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
