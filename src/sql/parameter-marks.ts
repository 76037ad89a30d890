/**
 * The parameters of a prepared query, marked in the SQL text they are bound into.
 *
 * tsdb binds a prepared statement's arguments (SQL `EXECUTE`, MySQL's COM_STMT_EXECUTE, a
 * PostgreSQL Bind) by writing each as a literal where its placeholder was, and runs the text.
 * GreptimeDB plans the statement with its placeholders and puts the values into the plan, keeping
 * the names the plan had: a result column is named by the placeholder (`$1`, `$1 + Int64(1)`,
 * a MySQL `?` being `$n` by its position), not by the value bound. So that tsdb's names can
 * follow, each value bound into a query is written after a comment naming its parameter
 * (`/*tsdb_param_<nonce>:1*\/'happy'`): DuckDB skips it, and `query/column-names.ts` reads it
 * right before the node where the value starts. A per-process nonce keeps user text from
 * forging one. Only queries are marked: other statements have no result columns, and a comment
 * would keep an INSERT off its fast path (`fast-insert.ts`). What lists or records a statement's
 * text (the process list, the slow query log) shows it without the marks.
 */
import { randomBytes } from 'node:crypto';

/** Every mark starts so (a block comment). */
export const PARAMETER_MARK_PREFIX = `/*tsdb_param_${randomBytes(6).toString('hex')}:`;

/** The mark written before the value of parameter `n` (1-based). */
export function parameterMark(n: number): string {
  return `${PARAMETER_MARK_PREFIX}${n}*/`;
}

const MARK = `${PARAMETER_MARK_PREFIX.replace(/[/*]/g, '\\$&')}(\\d+)\\*/`;
const MARK_AT_END = new RegExp(`${MARK}$`);
const MARKS = new RegExp(MARK, 'g');

/** The parameter (1-based) whose mark ends `before` (the query text before a value), if any. */
export function markedParameter(before: string): number | undefined {
  const m = MARK_AT_END.exec(before.slice(-(PARAMETER_MARK_PREFIX.length + 16)));
  return m === null ? undefined : Number(m[1]);
}

/** `sql` as bound, without its marks (the text a user is shown). */
export function withoutParameterMarks(sql: string): string {
  return sql.includes(PARAMETER_MARK_PREFIX) ? sql.replace(MARKS, '') : sql;
}

/**
 * Whether the statement `sql` is a query (its first word, after comments and opening parentheses,
 * is SELECT, WITH or VALUES): the statements whose bound values are marked.
 */
export function marksParameters(sql: string): boolean {
  let i = 0;
  for (;;) {
    while (i < sql.length && (/\s/.test(sql[i]!) || sql[i] === '(')) i++;
    if (sql.startsWith('--', i) || sql[i] === '#') {
      const end = sql.indexOf('\n', i);
      if (end < 0) return false;
      i = end + 1;
    } else if (sql.startsWith('/*', i)) {
      const end = sql.indexOf('*/', i + 2);
      if (end < 0) return false;
      i = end + 2;
    } else break;
  }
  return /^(?:select|with|values)\b/i.test(sql.slice(i, i + 7));
}
