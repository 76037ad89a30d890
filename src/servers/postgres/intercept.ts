/**
 * What the PostgreSQL server answers itself (reference api.md §5): the transaction, `SET` and
 * `SHOW` statements psql and drivers send that tsdb's SQL does not handle, and the split of a
 * simple Query into its statements (each runs and answers on its own, as PostgreSQL does).
 */
import { isEngineSetting } from '../../sql/engine-settings.js';

/**
 * Splits SQL text on `;` outside quotes ('…', "…", $tag$…$tag$) and comments (`--`, `/* *\/`).
 * Statements are trimmed; empty ones are dropped.
 */
export function splitStatements(sql: string): string[] {
  const out: string[] = [];
  let start = 0;
  let i = 0;
  const n = sql.length;
  const push = (end: number) => {
    const s = sql.slice(start, end).trim();
    if (s !== '' && !isOnlyComments(s)) out.push(s);
  };
  while (i < n) {
    const c = sql[i]!;
    if (c === "'" || c === '"') {
      i++;
      while (i < n) {
        if (sql[i] === c) {
          if (sql[i + 1] === c) i += 2;
          else break;
        } else i++;
      }
      i++;
    } else if (c === '-' && sql[i + 1] === '-') {
      const nl = sql.indexOf('\n', i);
      i = nl < 0 ? n : nl + 1;
    } else if (c === '/' && sql[i + 1] === '*') {
      const close = sql.indexOf('*/', i + 2);
      i = close < 0 ? n : close + 2;
    } else if (c === '$') {
      const m = /^\$([A-Za-z_][A-Za-z0-9_]*)?\$/.exec(sql.slice(i));
      if (m) {
        const close = sql.indexOf(m[0], i + m[0].length);
        i = close < 0 ? n : close + m[0].length;
      } else i++;
    } else if (c === ';') {
      push(i);
      start = ++i;
    } else i++;
  }
  push(n);
  return out;
}

function isOnlyComments(s: string): boolean {
  return s.replace(/--[^\n]*(\n|$)/g, '').replace(/\/\*[\s\S]*?\*\//g, '').trim() === '';
}

/** What an intercepted statement means for the session; the connection answers it. */
export type Intercepted =
  | { readonly kind: 'tag'; readonly tag: string; readonly warning?: string }
  | { readonly kind: 'set-timezone'; readonly value: string }
  | { readonly kind: 'set-search-path'; readonly value: string }
  | { readonly kind: 'set-statement-timeout'; readonly value: string }
  | { readonly kind: 'show'; readonly name: string; readonly column: string };

/** The values `SHOW` reads from the session (the rest are constants). */
export interface ShowSession {
  readonly timezone: string;
  readonly database: string;
  readonly serverVersion: string;
  readonly applicationName: string;
  /** `statement_timeout` in milliseconds (0: none). */
  readonly statementTimeoutMs: number;
}

const SHOW_COLUMNS: Record<string, string> = {
  timezone: 'TimeZone',
  'transaction isolation level': 'transaction_isolation',
  transaction_isolation: 'transaction_isolation',
  default_transaction_isolation: 'default_transaction_isolation',
  standard_conforming_strings: 'standard_conforming_strings',
  client_encoding: 'client_encoding',
  server_encoding: 'server_encoding',
  search_path: 'search_path',
  server_version: 'server_version',
  datestyle: 'DateStyle',
  integer_datetimes: 'integer_datetimes',
  application_name: 'application_name',
  statement_timeout: 'statement_timeout',
};

/** The value of an intercepted `SHOW name`. */
export function showValue(name: string, s: ShowSession): string {
  switch (name) {
    case 'timezone':
      return s.timezone;
    case 'transaction isolation level':
    case 'transaction_isolation':
    case 'default_transaction_isolation':
      return 'read committed';
    case 'standard_conforming_strings':
    case 'integer_datetimes':
      return 'on';
    case 'client_encoding':
    case 'server_encoding':
      return 'UTF8';
    case 'search_path':
      return s.database;
    case 'server_version':
      return s.serverVersion;
    case 'datestyle':
      return 'ISO, YMD';
    case 'application_name':
      return s.applicationName;
    case 'statement_timeout':
      return formatStatementTimeout(s.statementTimeoutMs);
  }
  return '';
}

const TIMEOUT_UNITS: Record<string, number> = { us: 0.001, ms: 1, s: 1000, min: 60_000, h: 3_600_000, d: 86_400_000 };

/**
 * A `statement_timeout` value as PostgreSQL reads it: milliseconds (a bare number), or a number with
 * a unit (`us`, `ms`, `s`, `min`, `h`, `d`); `0` or `DEFAULT` is none. Undefined when malformed.
 */
export function parseStatementTimeout(text: string): number | undefined {
  const t = text.trim();
  if (/^default$/i.test(t)) return 0;
  const m = /^(\d+(?:\.\d+)?)\s*(us|ms|s|min|h|d)?$/.exec(t);
  if (m === null) return undefined;
  const ms = Math.round(Number(m[1]) * TIMEOUT_UNITS[m[2] ?? 'ms']!);
  return Number.isSafeInteger(ms) && ms <= 2_147_483_647 ? ms : undefined;
}

/** `SHOW statement_timeout`: `0`, or the largest unit that divides it (`5s`, `1500ms`, `2min`). */
export function formatStatementTimeout(ms: number): string {
  if (ms === 0) return '0';
  for (const [unit, size] of [['d', 86_400_000], ['h', 3_600_000], ['min', 60_000], ['s', 1000]] as const) if (ms % size === 0) return `${ms / size}${unit}`;
  return `${ms}ms`;
}

/** Removes one level of quotes from a `SET` value: `'UTC'`, `"x"`, `x`. */
function unquote(v: string): string {
  const t = v.trim();
  if (t.length >= 2 && t.startsWith("'") && t.endsWith("'")) return t.slice(1, -1).replaceAll("''", "'");
  if (t.length >= 2 && t.startsWith('"') && t.endsWith('"')) return t.slice(1, -1).replaceAll('""', '"');
  return t;
}

/** The statement as the server answers it itself, or undefined to run it as SQL. */
export function intercept(stmt: string): Intercepted | undefined {
  const s = stmt.trim().replace(/\s+/g, ' ');
  if (/^(begin|start transaction)\b/i.test(s)) {
    return { kind: 'tag', tag: 'BEGIN', warning: 'transactions are not supported: statements are not run in a transaction' };
  }
  if (/^(commit|end)( (work|transaction))?$/i.test(s)) return { kind: 'tag', tag: 'COMMIT' };
  if (/^(rollback|abort)( (work|transaction))?$/i.test(s)) return { kind: 'tag', tag: 'ROLLBACK' };
  let m = /^set (?:(?:session|local) )?(?:time zone|timezone|time_zone)(?: to | ?= ?| )(.+)$/i.exec(s);
  if (m) {
    const v = unquote(m[1]!);
    return { kind: 'set-timezone', value: /^(local|default)$/i.test(v) ? 'UTC' : v };
  }
  m = /^set (?:(?:session|local) )?statement_timeout(?: to | ?= ?)(.+)$/i.exec(s);
  if (m) return { kind: 'set-statement-timeout', value: unquote(m[1]!) };
  m = /^set (?:(?:session|local) )?search_path(?: to | ?= ?)(.+)$/i.exec(s);
  if (m) return { kind: 'set-search-path', value: unquote(m[1]!.split(',')[0]!) };
  // A setting of the query engine is refused by the SQL front end (a permission error), not ignored.
  m = /^set (?:(?:session|local|global) )?([\w.]+)( [\w"])?/i.exec(s);
  if (m && (isEngineSetting(m[1]!) || (m[1]!.toLowerCase() === 'variable' && m[2] !== undefined))) return undefined;
  if (/^set\b/i.test(s) && !/^set ?@/i.test(s)) return { kind: 'tag', tag: 'SET' };
  m = /^show (.+)$/i.exec(s);
  if (m) {
    const name = m[1]!.trim().toLowerCase();
    const column = SHOW_COLUMNS[name];
    if (column !== undefined) return { kind: 'show', name: name === 'transaction_isolation' ? 'transaction isolation level' : name, column };
  }
  return undefined;
}
