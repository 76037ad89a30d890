/**
 * A fast path for the statement ingestion tools send most: one `INSERT|REPLACE INTO t [(cols)]
 * VALUES (…), (…)` whose values are all literals (numbers, strings, NULL, DEFAULT, TRUE, FALSE).
 * The rows are scanned character by character into values, without a token per value; anything
 * else (an expression, a comment, a second statement) returns undefined and the general parser
 * takes the statement, so the result is always what the general parser gives.
 */
import type { Statement, ValueExpr } from './ast.js';

const HEAD = /^\s*(insert|replace)\s+into\s/iy;
const NUMBER = /[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?/y;
const NULL_V: ValueExpr = Object.freeze({ kind: 'null' });
const DEFAULT_V: ValueExpr = Object.freeze({ kind: 'default' });
const TRUE_V: ValueExpr = Object.freeze({ kind: 'boolean', value: true });
const FALSE_V: ValueExpr = Object.freeze({ kind: 'boolean', value: false });

function isSpace(c: number): boolean {
  return c === 32 || (c >= 9 && c <= 13);
}

function isWordChar(c: number): boolean {
  return (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || (c >= 48 && c <= 57) || c === 95 || c === 36 || c === 64 || c >= 0x80;
}

/** Where the `VALUES` keyword of the statement's head starts (outside quotes and parentheses), or -1. */
function valuesKeyword(sql: string, from: number): number {
  let depth = 0;
  for (let i = from; i < sql.length; i++) {
    const c = sql.charCodeAt(i);
    if (c === 34 || c === 96 || c === 39) {
      const end = sql.indexOf(sql[i]!, i + 1);
      if (end < 0) return -1;
      i = end;
      continue;
    }
    if (c === 40) depth++;
    else if (c === 41) depth--;
    else if (depth === 0 && (c === 86 || c === 118) && sql.slice(i, i + 6).toLowerCase() === 'values' && !isWordChar(sql.charCodeAt(i - 1)) && !isWordChar(sql.charCodeAt(i + 6))) return i;
    else if (c === 45 && sql.charCodeAt(i + 1) === 45) return -1; // comments: the general parser
    else if (c === 47 && sql.charCodeAt(i + 1) === 42) return -1;
  }
  return -1;
}

/** The rows after VALUES, or undefined at the first thing that is not a plain literal. */
function scanRows(sql: string, from: number): { rows: ValueExpr[][]; end: number } | undefined {
  const n = sql.length;
  let i = from;
  const skip = () => {
    while (i < n && isSpace(sql.charCodeAt(i))) i++;
  };
  const rows: ValueExpr[][] = [];
  for (;;) {
    skip();
    if (sql.charCodeAt(i) !== 40) return undefined;
    i++;
    const row: ValueExpr[] = [];
    for (;;) {
      skip();
      const c = sql.charCodeAt(i);
      if (c === 41 && row.length > 0) {
        i++;
        break;
      }
      let v: ValueExpr;
      if (c === 39 || c === 34) {
        const q = sql[i]!;
        let value = '';
        let at = i + 1;
        for (;;) {
          const close = sql.indexOf(q, at);
          if (close < 0) return undefined;
          value += sql.slice(at, close);
          if (sql.charCodeAt(close + 1) === c) {
            value += q;
            at = close + 2;
            continue;
          }
          i = close + 1;
          break;
        }
        v = { kind: 'string', value };
      } else if ((c >= 48 && c <= 57) || c === 45 || c === 43 || c === 46) {
        NUMBER.lastIndex = i;
        const m = NUMBER.exec(sql);
        if (m === null) return undefined;
        v = { kind: 'number', text: m[0] };
        i += m[0].length;
      } else if (isWordChar(c)) {
        let j = i;
        while (j < n && isWordChar(sql.charCodeAt(j))) j++;
        const w = sql.slice(i, j).toLowerCase();
        if (w === 'null') v = NULL_V;
        else if (w === 'default') v = DEFAULT_V;
        else if (w === 'true') v = TRUE_V;
        else if (w === 'false') v = FALSE_V;
        else return undefined;
        i = j;
      } else return undefined;
      row.push(v);
      skip();
      const d = sql.charCodeAt(i);
      if (d === 44) {
        i++;
        continue;
      }
      if (d === 41) {
        i++;
        break;
      }
      return undefined; // an operator, a cast, a comment…: the general parser
    }
    rows.push(row);
    skip();
    if (sql.charCodeAt(i) === 44) {
      i++;
      continue;
    }
    return { rows, end: i };
  }
}

/**
 * The statement, when `sql` is a single INSERT/REPLACE of literal rows; undefined otherwise.
 * `parseHead` parses `INSERT … VALUES (NULL)` with the general parser (name, columns, replace).
 */
export function fastInsert(sql: string, parseHead: (head: string) => Statement): Statement | undefined {
  HEAD.lastIndex = 0;
  if (!HEAD.test(sql)) return undefined;
  const at = valuesKeyword(sql, HEAD.lastIndex);
  if (at < 0) return undefined;
  const scanned = scanRows(sql, at + 6);
  if (scanned === undefined) return undefined;
  let end = scanned.end;
  if (sql.charCodeAt(end) === 59) end++; // one `;`
  while (end < sql.length && isSpace(sql.charCodeAt(end))) end++;
  if (end !== sql.length) return undefined;
  const head = parseHead(`${sql.slice(0, at)}VALUES (NULL)`);
  if (head.kind !== 'insert' || head.source.kind !== 'values') return undefined;
  const text = sql.slice(0, scanned.end).trim();
  return { ...head, text, source: { kind: 'values', rows: scanned.rows } };
}
