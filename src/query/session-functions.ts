/**
 * The tsdb functions DuckDB lacks (reference api.md §4.7; DESIGN.md "Dialect gaps"), as DuckDB
 * macros on the instance: `date_bin`, `date_format`, `to_unixtime`, `version()`, `build()`, and
 * `__tsdb_instant` of the session-time rewrites (`session-time.ts`), and GreptimeDB's MySQL-style
 * scalars (`compat-functions.ts`) approximate aggregates (`sketch-functions.ts`) and geohash (`geo-functions.ts`). The session's `database()`, `timezone()`, `version()` (per
 * protocol), user (`user()`, `current_user`) and system variables (`@@version`) become constants in
 * the parse tree (a macro of that name would hide DuckDB's own
 * two-argument `timezone`). DuckDB's own time zone is UTC for every session; the session's is
 * applied by `session-time.ts`.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import { buildInfo } from '../common/build-info.js';
import { quoteLiteral } from '../common/sql-quote.js';
import { installJsonFunctions } from './json-functions.js';
import { installVectorFunctions } from './vector-functions.js';
import { StatusCode } from '../common/error/status-code.js';
import { TsdbError } from '../common/error/tsdb-error.js';
import { installCompatFunctions } from './compat-functions.js';
import { installSketchFunctions } from './sketch-functions.js';
import { registerGeoFunctions } from './geo-functions.js';
import { installH3Functions } from './h3-functions.js';
import { installIpFunctions } from './ip-functions.js';
import { registerWktFunctions } from './wkt-functions.js';
import { installS2Functions } from './s2-functions.js';
import { divisionMacros } from './division.js';
import { registerTermMatch } from './term-match.js';
import { registerMatches } from './matches.js';

/** Creates the instance-wide macros (idempotent). */
export async function installFunctions(conn: DuckDBConnection): Promise<void> {
  const b = buildInfo();
  const macros = [
    // date_bin(stride, ts[, origin]) is DuckDB's time_bucket with the origin last (epoch by default).
    "CREATE OR REPLACE MACRO date_bin(stride, t) AS time_bucket(stride, t, TIMESTAMP '1970-01-01 00:00:00'), (stride, t, origin) AS time_bucket(stride, t, origin)",
    // The wall clock of t as written (session-time.ts turns an instant into the session's wall clock first).
    // GreptimeDB's (chrono's) fractions %3f, %6f, %9f are DuckDB's %g, %f, %n.
    "CREATE OR REPLACE MACRO date_format(t, fmt) AS strftime(make_timestamptz(epoch_us(CAST(t AS TIMESTAMP))), replace(replace(replace(fmt, '%3f', '%g'), '%6f', '%f'), '%9f', '%n'))",
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
  for (const m of [...macros, ...divisionMacros()]) await conn.run(m);
  installJsonFunctions(conn);
  await installVectorFunctions(conn);
  await installCompatFunctions(conn);
  await installSketchFunctions(conn);
  registerGeoFunctions(conn);
  await installH3Functions(conn);
  await installIpFunctions(conn);
  registerWktFunctions(conn);
  registerTermMatch(conn);
  registerMatches(conn);
  await installS2Functions(conn);
}

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

/** What the session-dependent functions read of the session. */
export interface SessionValues {
  readonly database: string;
  readonly timezone: string;
  /** The logged-in user (`user()`, `current_user()`); undefined: tsdb's default user. */
  readonly user?: string;
  /** The protocol the session came over (`version()` answers per protocol, as GreptimeDB's). */
  readonly channel?: 'mysql' | 'postgres' | 'http' | 'grpc';
  /** The MySQL connection id or PostgreSQL backend pid (`connection_id()`, `pg_backend_pid()`); absent: 0. */
  readonly connectionId?: number;
}

/** The function tsdb's text bridge writes for a system variable (`@@version`: `__tsdb_variable('@@version')`, `sql/query-text.ts`). */
export const VARIABLE_FUNCTION = '__tsdb_variable';

/** `version()` as GreptimeDB answers it: MySQL clients get the MySQL version they parse first. */
export function versionOf(channel: SessionValues['channel']): string {
  const v = buildInfo().version;
  if (channel === 'mysql') return `${process.env['TSDB_MYSQL_SERVER_VERSION'] || '8.4.2'}-tsdb-${v}`;
  if (channel === 'postgres') return `PostgreSQL 16.3 tsdb ${v}`;
  return v;
}

/**
 * The value of a system variable read in a query (`SELECT @@version, now()`), as MySQL's server
 * answers it (`servers/mysql/mysql-intercept.ts` answers a SELECT of variables alone); undefined
 * for one tsdb does not know.
 */
function variableValue(name: string, session: SessionValues): string | undefined {
  const n = name.toLowerCase().replace(/^@@/, '').replace(/^(session|global|local)\./, '');
  switch (n) {
    case 'version':
      return versionOf(session.channel === 'postgres' ? 'postgres' : 'mysql');
    case 'version_comment':
      return 'tsdb';
    case 'time_zone':
      return session.timezone;
    case 'system_time_zone':
      return 'UTC';
  }
  return constantVariable(n);
}

/**
 * The system variables whose value is the same in every session, as MySQL's server answers them
 * (`name` lower case, without `@@` and scope): shared by queries and the MySQL server's own answer
 * (`servers/mysql/mysql-intercept.ts`); undefined for others.
 */
export function constantVariable(name: string): string | undefined {
  switch (name) {
    case 'tx_isolation':
    case 'transaction_isolation':
      return 'REPEATABLE-READ';
    case 'transaction_read_only':
    case 'tx_read_only':
      return '0';
    case 'max_allowed_packet':
      return '134217728';
    case 'sql_mode':
      return 'ONLY_FULL_GROUP_BY,STRICT_TRANS_TABLES,NO_ZERO_IN_DATE,NO_ZERO_DATE,ERROR_FOR_DIVISION_BY_ZERO,NO_ENGINE_SUBSTITUTION';
    case 'interactive_timeout':
    case 'wait_timeout':
    case 'net_write_timeout':
    case 'net_read_timeout':
      return '31536000';
    case 'autocommit':
    case 'auto_increment_increment':
      return '1';
    case 'lower_case_table_names':
      return '0';
    case 'character_set_client':
    case 'character_set_connection':
    case 'character_set_results':
    case 'character_set_server':
    case 'character_set_database':
      return 'utf8mb4';
    case 'collation_connection':
    case 'collation_server':
    case 'collation_database':
      return 'utf8mb4_general_ci';
  }
  return undefined;
}

/** The user names a query may call for (MySQL's `user()`, `current_user()`, `session_user()`, `system_user()`). */
const USER_FUNCTIONS = new Set(['user', 'current_user', 'session_user', 'system_user']);
/** Those MySQL also reads without parentheses (DuckDB parses them as column references). */
const USER_COLUMNS = new Set(['current_user', 'session_user']);

/** GreptimeDB's functions of the connection's id (UInt32): the MySQL connection id, the PostgreSQL backend pid. */
const CONNECTION_FUNCTIONS = new Set(['connection_id', 'pg_backend_pid']);

const uint32Constant = (value: number, alias: string): Json => ({ class: 'CONSTANT', type: 'VALUE_CONSTANT', alias, query_location: 0, value: { type: { id: 'UINTEGER', type_info: null }, is_null: false, value } });

const constant = (value: string, alias: string): Json => ({ class: 'CONSTANT', type: 'VALUE_CONSTANT', alias, query_location: 0, value: { type: { id: 'VARCHAR', type_info: null }, is_null: false, value } });

/**
 * Replaces `database()`, `timezone()`, `version()`, the user functions (no arguments) and system
 * variables (`@@version`) in a serialized parse tree by the session's values; a call that is a
 * select item keeps its name as the column's. `columnNames`: the columns of the tables the query
 * reads (lower case): a column named `current_user` stays one. Returns whether it changed.
 */
export function rewriteSessionFunctions(tree: unknown, session: SessionValues, columnNames: ReadonlySet<string> = new Set()): boolean {
  const user = session.user ?? 'tsdb';
  const values: Record<string, string> = { database: session.database, timezone: session.timezone, version: versionOf(session.channel) };
  for (const f of USER_FUNCTIONS) values[f] = user;
  let changed = false;
  const replace = (n: Json, selectItem: boolean): Json => {
    if (Array.isArray(n)) return n.map((x) => replace(x, selectItem));
    if (typeof n !== 'object' || n === null) return n;
    const alias = typeof n['alias'] === 'string' && n['alias'] !== '' ? n['alias'] : '';
    if (n['class'] === 'FUNCTION' && typeof n['function_name'] === 'string' && Array.isArray(n['children']) && n['schema'] === '') {
      const name = n['function_name'].toLowerCase();
      const value = n['children'].length === 0 ? values[name] : undefined;
      if (n['children'].length === 0 && CONNECTION_FUNCTIONS.has(name)) {
        changed = true;
        return uint32Constant(session.connectionId ?? 0, alias !== '' ? alias : selectItem ? `${n['function_name']}()` : '');
      }
      if (value !== undefined) {
        changed = true;
        return constant(value, alias !== '' ? alias : selectItem ? `${n['function_name']}()` : '');
      }
      const arg = n['children'][0];
      if (name === VARIABLE_FUNCTION && n['children'].length === 1 && typeof arg === 'object' && arg !== null && !Array.isArray(arg) && arg['class'] === 'CONSTANT') {
        const written = String((arg['value'] as { value?: Json } | null)?.value ?? '');
        const v = variableValue(written, session);
        if (v === undefined) throw new TsdbError(StatusCode.InvalidArguments, `Unknown system variable '${written.replace(/^@@/, '')}'`);
        changed = true;
        return constant(v, alias !== '' ? alias : selectItem ? written : '');
      }
    }
    if (n['class'] === 'COLUMN_REF' && Array.isArray(n['column_names']) && n['column_names'].length === 1) {
      const name = String(n['column_names'][0]).toLowerCase();
      if (USER_COLUMNS.has(name) && !columnNames.has(name)) {
        changed = true;
        return constant(user, alias !== '' ? alias : selectItem ? String(n['column_names'][0]) : '');
      }
    }
    for (const [k, v] of Object.entries(n)) n[k] = k === 'select_list' && Array.isArray(v) ? v.map((x) => replace(x, true)) : replace(v, false);
    return n;
  };
  replace(tree as Json, false);
  return changed;
}
