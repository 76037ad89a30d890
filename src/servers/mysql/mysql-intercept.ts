/**
 * What the MySQL server answers itself (reference api.md §5): the `SELECT @@var`, `SHOW VARIABLES`,
 * `SHOW WARNINGS`, `SET …`, transaction and `USE` statements clients and tools send that tsdb's SQL
 * does not handle (GreptimeDB `src/servers/src/mysql/federated.rs`). `INSERT …` is never intercepted.
 */
import type { Cell, OutputColumn } from '../../query/output.js';
import { isEngineSetting } from '../../sql/engine-settings.js';
import { constantVariable } from '../../query/session-functions.js';

export { splitStatements } from '../postgres/intercept.js';

/** What an intercepted statement means for the session; the connection answers it. */
export type MysqlIntercepted =
  /** An empty OK, with a warning kept for `SHOW WARNINGS`. */
  | { readonly kind: 'ok'; readonly warning?: string }
  | { readonly kind: 'rows'; readonly columns: readonly OutputColumn[]; readonly rows: ReadonlyArray<readonly Cell[]> }
  | { readonly kind: 'set-timezone'; readonly value: string }
  | { readonly kind: 'use'; readonly database: string }
  /** `SET [SESSION] max_execution_time = N` (milliseconds, 0: none). */
  | { readonly kind: 'set-max-execution-time'; readonly ms: number }
  | { readonly kind: 'show-warnings' }
  /** A statement refused with ER_WRONG_VALUE_FOR_VAR (1231). */
  | { readonly kind: 'error'; readonly message: string };

/** The values intercepted statements read from the session. */
export interface MysqlSession {
  readonly timezone: string;
  readonly serverVersion: string;
  /** `max_execution_time` in milliseconds (0: none). */
  readonly maxExecutionTime?: number;
}

/** `@@version_comment`: the product name. */
export const VERSION_COMMENT = 'tsdb';

const str = (name: string): OutputColumn => ({ name, data_type: 'String' });

/** The value of a system variable as `SELECT @@name` shows it (unknown ones are `0`). */
export function variableValue(name: string, s: MysqlSession): string {
  const n = name.toLowerCase().replace(/^(session|global|local)\./, '');
  switch (n) {
    case 'version_comment':
      return VERSION_COMMENT;
    case 'version':
      return s.serverVersion;
    case 'time_zone':
      return s.timezone;
    case 'system_time_zone':
      return 'UTC';
    case 'max_execution_time':
      return String(s.maxExecutionTime ?? 0);
  }
  const constant = constantVariable(n);
  if (constant !== undefined) return constant;
  if (n.endsWith('_timeout')) return '31536000';
  return '0';
}

function unquote(v: string): string {
  const t = v.trim();
  for (const q of ["'", '"', '`']) {
    if (t.length >= 2 && t.startsWith(q) && t.endsWith(q)) return t.slice(1, -1).replaceAll(q + q, q);
  }
  return t;
}

/** Statements of tools GreptimeDB answers with nothing (its `federated.rs`), tsdb likewise. */
const NOTHING_TO_ANSWER: readonly RegExp[] = [
  /^show master status$/i,
  /^show all slaves status$/i,
  /^lock binlog for backup$/i,
  /^unlock binlog\b/i,
  /^select \$\$$/i,
  /^select logfile_group_name, file_name, total_extents, initial_size, engine, extra from information_schema\.files\b/i,
];

const SELECT_VARS = /^select\s+(@@[\w.]+(?:\s+as\s+[`'"]?\w+[`'"]?)?(?:\s*,\s*@@[\w.]+(?:\s+as\s+[`'"]?\w+[`'"]?)?)*)(?:\s+limit\s+\d+)?\s*;?$/i;

/** The statement as the server answers it itself, or undefined to run it as SQL. */
export function intercept(stmt: string, s: MysqlSession): MysqlIntercepted | undefined {
  const t = stmt.trim().replace(/;\s*$/, '').trim();
  if (/^insert\b/i.test(t)) return undefined;
  // `/*!40101 SET … */` and other version comments mysqldump and clients send.
  if (/^\/\*!\d*\s*set\b[\s\S]*\*\/$/i.test(t)) return { kind: 'ok' };
  // DBeaver prefixes its statements with `/* ApplicationName=DBeaver … */`: answered as without it,
  // and its SHOW PLUGINS / SHOW ENGINES probes answered empty (as GreptimeDB answers them).
  const app = /^\/\*\s*ApplicationName=[^*]*\*\/\s*([\s\S]*)$/i.exec(t);
  if (app) {
    const inner = intercept(app[1]!, s);
    if (inner !== undefined) return inner;
    if (/^show (?:plugins|engines|@@[\w.]+)\s*$/i.test(app[1]!.trim())) return { kind: 'ok' };
    return undefined;
  }
  const norm = t.replace(/\s+/g, ' ');
  // Replication, backup-lock and mysqlclient probes of mysqldump, mydumper and clients: nothing to answer.
  if (NOTHING_TO_ANSWER.some((re) => re.test(norm))) return { kind: 'ok' };
  if (/^select timediff\(now\(\), ?utc_timestamp\(\)\)$/i.test(norm)) {
    return { kind: 'rows', columns: [str('TIMEDIFF(NOW(), UTC_TIMESTAMP())')], rows: [['00:00:00']] };
  }

  let m = SELECT_VARS.exec(norm);
  if (m) {
    const columns: OutputColumn[] = [];
    const row: Cell[] = [];
    for (const item of m[1]!.split(',')) {
      const parts = /^\s*(@@[\w.]+)(?:\s+as\s+(.+))?\s*$/i.exec(item)!;
      columns.push(str(parts[2] !== undefined ? unquote(parts[2]) : parts[1]!));
      row.push(variableValue(parts[1]!.slice(2), s));
    }
    return { kind: 'rows', columns, rows: [row] };
  }

  m = /^show (?:(?:session|global) )?variables(?: (?:like|where variable_name ?=) ?(.+))?$/i.exec(norm);
  if (m) {
    const columns = [str('Variable_name'), str('Value')];
    const pattern = m[1] !== undefined ? unquote(m[1]).toLowerCase() : undefined;
    if (pattern === 'sql_mode' || pattern === 'lower_case_table_names' || pattern === 'time_zone' || pattern === 'system_time_zone' || pattern === 'max_execution_time') {
      return { kind: 'rows', columns, rows: [[pattern, variableValue(pattern, s)]] };
    }
    return { kind: 'rows', columns, rows: [['', '']] };
  }
  if (/^show (?:count\(\*\) )?warnings(?: limit .*)?$/i.test(norm)) return { kind: 'show-warnings' };

  m = /^use (.+)$/i.exec(norm);
  if (m) return { kind: 'use', database: unquote(m[1]!) };

  m = /^set (?:(?:session|local) |@@(?:session\.|local\.)?)?(?:time_zone|timezone|time zone)(?: ?= ?| to | )(.+)$/i.exec(norm);
  if (m) return { kind: 'set-timezone', value: unquote(m[1]!) };

  m = /^set (?:(?:session|local) |@@(?:session\.|local\.)?)?max_execution_time ?= ?(.+)$/i.exec(norm);
  if (m) {
    const v = unquote(m[1]!);
    if (/^default$/i.test(v)) return { kind: 'set-max-execution-time', ms: 0 };
    if (!/^\d{1,10}$/.test(v) || Number(v) > 4294967295) return { kind: 'error', message: `Variable 'max_execution_time' can't be set to the value of '${v}'` };
    return { kind: 'set-max-execution-time', ms: Number(v) };
  }
  if (/^(commit|rollback)(?: work)?$/i.test(norm)) return { kind: 'ok' };
  if (/^(start transaction|begin)\b/i.test(norm)) return { kind: 'ok' };
  if (/^(lock|unlock) tables?\b/i.test(norm)) return { kind: 'ok' };
  if (/^set (?:names|character set|charset|character_set_\w+|collation_\w+)\b/i.test(norm)) return { kind: 'ok' };
  if (/^set (?:(?:session|global|local) |@@(?:session\.|global\.|local\.)?)?(?:autocommit|sql_mode|sql_select_limit|net_write_timeout|net_read_timeout|wait_timeout|interactive_timeout|sql_safe_updates|sql_auto_is_null|foreign_key_checks|unique_checks|sql_quote_show_create|sql_notes|transaction_isolation|tx_isolation|transaction_read_only|tx_read_only|session_track_\w+|profiling|max_execution_time|optimizer_switch|group_concat_max_len)\b/i.test(norm)) {
    return { kind: 'ok' };
  }
  if (/^set (?:(?:session|global) )?transaction\b/i.test(norm)) return { kind: 'ok' };
  m = /^set (?:(?:session|global|local) )?@{0,2}([\w.]+) ?(?:=|:=)/i.exec(norm);
  // A setting of the query engine is refused by the SQL front end (a permission error), not ignored.
  if (m && !isEngineSetting(m[1]!.replace(/^(?:session|global|local)\./i, ''))) return { kind: 'ok', warning: `Unsupported set variable ${m[1]!.toUpperCase()}` };
  return undefined;
}
