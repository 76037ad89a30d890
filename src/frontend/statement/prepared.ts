/**
 * SQL-level prepared statements (`PREPARE`, `EXECUTE`, `DEALLOCATE`; reference api.md §5): kept on
 * the session (a MySQL or PostgreSQL connection's; an HTTP request's, which is one session), run by
 * putting each argument into the statement's text as an SQL literal at its placeholder (`?` in
 * order, or `$n`), cast to the parameter's declared type when `PREPARE s (type, …)` gave one. The
 * text is parsed once when prepared, so a statement that does not parse fails PREPARE, as in
 * GreptimeDB; placeholders are found by the lexer, never inside strings, identifiers or comments.
 */
import { StatusCode } from '../../common/error/status-code.js';
import { TsdbError } from '../../common/error/tsdb-error.js';
import { quoteLiteral } from '../../common/sql-quote.js';
import type { Statement, ValueExpr } from '../../sql/ast.js';
import { tokenize } from '../../sql/lexer.js';
import { parseSql } from '../../sql/parser.js';
import { marksParameters, parameterMark } from '../../sql/parameter-marks.js';
import { blobLiteral } from '../../sql/query-text.js';
import type { PreparedStatement, Session } from '../session.js';

/** How many prepared statements one session may hold (a client leaking them fails instead of growing the process). */
const MAX_PREPARED = 1024;

function invalid(message: string): TsdbError {
  return new TsdbError(StatusCode.InvalidArguments, `Invalid prepare statement: ${message}`);
}

/**
 * `PREPARE`: checks the statement (one, parsable, not itself PREPARE/EXECUTE/DEALLOCATE) and keeps
 * it. A query is planned first, as GreptimeDB plans it (`plan`, with every parameter NULL): a
 * missing table or a function the sandbox refuses fails the PREPARE, not only each EXECUTE.
 */
export async function prepare(stmt: Extract<Statement, { kind: 'prepare' }>, session: Session, plan: (sql: string) => Promise<void>): Promise<void> {
  const parsed = parseSql(stmt.sql);
  if (parsed.length !== 1) throw invalid('prepare statement only support single statement');
  const kind = parsed[0]!.kind;
  if (kind === 'prepare' || kind === 'execute' || kind === 'deallocate') throw invalid(`a prepared statement cannot be ${kind.toUpperCase()}`);
  if (kind === 'query') await plan(bindParameters(stmt.sql, new Array<ValueExpr>(placeholders(stmt.sql).count).fill({ kind: 'null' }), stmt.types));
  const prepared = (session.prepared ??= new Map<string, PreparedStatement>());
  if (!prepared.has(stmt.name) && prepared.size >= MAX_PREPARED) throw invalid(`a session holds at most ${MAX_PREPARED} prepared statements: DEALLOCATE some`);
  prepared.set(stmt.name, { sql: stmt.sql, types: stmt.types });
}

/** `EXECUTE`: the prepared statement's text with the arguments in place of its placeholders. */
export function boundSql(stmt: Extract<Statement, { kind: 'execute' }>, session: Session): string {
  const p = session.prepared?.get(stmt.name);
  if (p === undefined) throw new TsdbError(StatusCode.InvalidArguments, `Prepare statement not found: ${stmt.name}`);
  return bindParameters(p.sql, stmt.args, p.types);
}

/** `DEALLOCATE`: forgets one prepared statement (an unknown name is no error, as in GreptimeDB) or all. */
export function deallocate(stmt: Extract<Statement, { kind: 'deallocate' }>, session: Session): void {
  if (stmt.name === undefined) session.prepared?.clear();
  else session.prepared?.delete(stmt.name);
}

/** An argument as SQL text. */
function literal(v: ValueExpr): string {
  switch (v.kind) {
    case 'null':
      return 'NULL';
    case 'boolean':
      return v.value ? 'TRUE' : 'FALSE';
    case 'number':
      return v.text;
    case 'string':
      return quoteLiteral(v.value);
    case 'hex':
      return blobLiteral(v.digits);
    case 'sql':
      return `(${v.text})`;
    case 'default':
      throw invalid('DEFAULT is not a parameter value');
  }
}

/**
 * `sql` with its placeholders replaced by `args`: each `?` takes the next argument, `$n` the n-th;
 * a declared type (`types[n - 1]`) casts it. The arguments must be exactly as many as the statement
 * has parameters. In a query, a value (not an expression, which GreptimeDB does not take) is
 * marked as its parameter's, which names the result columns made of it (`sql/parameter-marks.ts`).
 */
export function bindParameters(sql: string, args: readonly ValueExpr[], types: readonly string[] = []): string {
  const { spots, count } = placeholders(sql);
  if (args.length !== count) throw invalid(`the statement has ${count} parameter${count === 1 ? '' : 's'}, EXECUTE gave ${args.length}`);
  const marked = marksParameters(sql);
  let out = '';
  let at = 0;
  for (const s of spots) {
    const arg = args[s.index]!;
    const value = literal(arg);
    const type = types[s.index];
    const mark = marked && arg.kind !== 'sql' ? parameterMark(s.index + 1) : '';
    out += sql.slice(at, s.start) + mark + (type === undefined || isIntegerAlready(value, type) ? value : `CAST(${value} AS ${type})`);
    at = s.end;
  }
  return out + sql.slice(at);
}

const INTEGER_TYPE = /^(?:(?:TINY|SMALL|BIG)?INT(?:EGER)?(?:\s+UNSIGNED)?|INT[248]|INT(?:8|16|32|64)|U?(?:TINY|SMALL|BIG)?INT|UINT(?:8|16|32|64)|HUGEINT|LONG)$/i;

/**
 * Whether an integer parameter is its literal as it is: a bare integer is already the
 * Int64 DataFusion types it, and stays comparable with a timestamp column (`ts = $1` with BIGINT
 * milliseconds), which DuckDB's cast to BIGINT would not be.
 */
function isIntegerAlready(value: string, type: string): boolean {
  return INTEGER_TYPE.test(type.trim()) && /^-?\d+$/.test(value);
}

/** Where the placeholders of `sql` are (which argument each takes), and how many parameters it has. */
function placeholders(sql: string): { spots: Array<{ start: number; end: number; index: number }>; count: number } {
  const spots: Array<{ start: number; end: number; index: number }> = [];
  let next = 0;
  let count = 0;
  for (const t of tokenize(sql)) {
    if (t.kind === 'op' && t.value === '?') {
      spots.push({ start: t.start, end: t.end, index: next++ });
      count = Math.max(count, next);
    } else if (t.kind === 'ident' && /^\$[1-9]\d{0,4}$/.test(t.value)) {
      const index = Number(t.value.slice(1)) - 1;
      spots.push({ start: t.start, end: t.end, index });
      count = Math.max(count, index + 1);
    }
  }
  return { spots, count };
}
