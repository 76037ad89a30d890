/**
 * Lexer of the tsdb SQL dialect: turns SQL text into tokens with their positions (reference
 * api.md §4). Keywords are plain identifiers (the parser compares them case-insensitively);
 * comments and whitespace are skipped. Characters the dialect gives no meaning to become
 * one-character `op` tokens, so query text DuckDB parses later still splits cleanly.
 */
import { StatusCode } from '../common/error/status-code.js';
import { TsdbError } from '../common/error/tsdb-error.js';

export type TokenKind =
  /** An unquoted identifier or keyword; `value` as written. */
  | 'ident'
  /** A `"quoted"` or `` `quoted` `` identifier; `value` unescaped, `quote` the quote character. */
  | 'quoted_ident'
  /** A `'string'` literal; `value` unescaped. */
  | 'string'
  /** A number as written (`1`, `1.5`, `.5`, `1e-3`). */
  | 'number'
  /**
   * A hex (binary) literal, `X'00ff'` / `x'00ff'` or `0x00ff` (MySQL's two forms; GreptimeDB's
   * HexStringLiteral); `value` is its digits as written, an odd count of `0x` digits with a leading
   * `0` (as MySQL reads it). Digits are not checked here: `hexBytes` refuses bad ones.
   */
  | 'hex'
  /** An operator or punctuation (`(`, `<=`, `::`, …); `value` is its text. */
  | 'op'
  /**
   * Text of another language the SQL rules do not read (the PromQL of a TQL statement, `tql-text.ts`),
   * as a `RawSpans` hook marks it; `value` is the text, trailing whitespace left out.
   */
  | 'raw'
  /** End of input; `value` and `text` are empty. */
  | 'eof';

export interface Token {
  readonly kind: TokenKind;
  readonly value: string;
  /** The token's source text, quotes included. */
  readonly text: string;
  /** `"` or `` ` `` for a quoted identifier. */
  readonly quote?: '"' | '`';
  /** Offset of the first character (UTF-16 code units) and one past the last. */
  readonly start: number;
  readonly end: number;
  /** 1-based line and column of the first character. */
  readonly line: number;
  readonly column: number;
}

/** Multi-character operators, longest first. */
const OPERATORS = ['<=>', '::', '<>', '!=', '<=', '>=', '||', '=>', '->>', '->', '<<', '>>', '==', ':='].sort((a, b) => b.length - a.length);

/** Letters, `_`, `@`, `$` and every non-ASCII character start an identifier; digits may follow. */
function isIdentStartCode(c: number): boolean {
  return (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95 || c === 64 || c === 36 || c >= 0x80;
}

function isIdentPartCode(c: number): boolean {
  return isIdentStartCode(c) || (c >= 48 && c <= 57);
}

function isDigitCode(c: number): boolean {
  return c >= 48 && c <= 57;
}

function isHexCode(c: number): boolean {
  return isDigitCode(c) || (c >= 65 && c <= 70) || (c >= 97 && c <= 102);
}

/** The bytes of a hex token's digits; InvalidSyntax for an odd count or a non-hex digit (`X'0g'`). */
export function hexBytes(digits: string): Buffer {
  if (digits.length % 2 !== 0 || !/^[0-9a-fA-F]*$/.test(digits)) {
    throw new TsdbError(StatusCode.InvalidSyntax, `Invalid SQL syntax: sql parser error: invalid hex literal X'${digits}': an even number of hex digits expected`);
  }
  return Buffer.from(digits, 'hex');
}

/**
 * Refuses SQL text with a NUL character (U+0000), wherever it is (in a string, an identifier, a
 * comment): C strings end there, so DuckDB and the client protocols would see another statement
 * than the one written. InvalidSyntax with the NUL's line and column.
 */
export function checkNoNul(sql: string): void {
  const at = sql.indexOf('\u0000');
  if (at < 0) return;
  let line = 1;
  let lineStart = 0;
  for (let nl = sql.indexOf('\n'); nl >= 0 && nl < at; nl = sql.indexOf('\n', nl + 1)) {
    line++;
    lineStart = nl + 1;
  }
  throw new TsdbError(
    StatusCode.InvalidSyntax,
    `Invalid SQL syntax: sql parser error: a NUL character (U+0000) is not allowed in SQL text (binary data can be written as a hex literal, X'00') at Line: ${line}, Column: ${at - lineStart + 1}`,
  );
}

/** Characters that are always a one-character operator (no longer operator starts with them). */
const SINGLE = new Set(['(', ')', ',', ';', '+', '*', '%', '[', ']', '{', '}', '?', '#', '^', '~', '&', '.']);

/**
 * The offset just past the block comment that starts at `start` (`/*`), or -1 when it is not closed.
 * Block comments nest, as in PostgreSQL and sqlparser.
 */
export function blockCommentEnd(sql: string, start: number): number {
  let depth = 1;
  let i = start + 2;
  while (i < sql.length && depth > 0) {
    const ch = sql.charCodeAt(i);
    if (ch === 47 && sql.charCodeAt(i + 1) === 42) {
      depth++;
      i += 2;
    } else if (ch === 42 && sql.charCodeAt(i + 1) === 47) {
      depth--;
      i += 2;
    } else i++;
  }
  return depth > 0 ? -1 : i;
}

/**
 * Marks text of another language inside SQL: asked at the start of each token (after whitespace
 * and comments) with the tokens so far, it answers the end of a raw token starting there, or
 * undefined to lex SQL.
 */
export interface RawSpans {
  rawEnd(sql: string, tokens: readonly Token[], pos: number): number | undefined;
}

/**
 * Tokenizes `sql`; the last token is always `eof`. A NUL character, unterminated strings, quoted
 * identifiers and block comments are InvalidSyntax errors. `raw` marks spans that are not SQL.
 */
export function tokenize(sql: string, raw?: RawSpans): Token[] {
  checkNoNul(sql);
  const tokens: Token[] = [];
  const n = sql.length;
  let pos = 0;
  let line = 1;
  let lineStart = 0;

  /** Moves `pos` to `to`, counting the newlines passed. */
  const advance = (to: number): void => {
    for (let i = pos; i < to; i++) {
      if (sql.charCodeAt(i) === 10) {
        line++;
        lineStart = i + 1;
      }
    }
    pos = to;
  };
  const fail = (what: string, l: number, c: number): never => {
    throw new TsdbError(StatusCode.InvalidSyntax, `Invalid SQL syntax: sql parser error: ${what} at Line: ${l}, Column: ${c}`);
  };
  const push = (kind: TokenKind, value: string, start: number, end: number, quote?: '"' | '`'): void => {
    const tok: Token = quote
      ? { kind, value, text: sql.slice(start, end), start, end, line, column: start - lineStart + 1, quote }
      : { kind, value, text: sql.slice(start, end), start, end, line, column: start - lineStart + 1 };
    tokens.push(tok);
    advance(end);
  };

  while (pos < n) {
    const code = sql.charCodeAt(pos);
    const nextCode = pos + 1 < n ? sql.charCodeAt(pos + 1) : -1;
    const start = pos;
    // Whitespace: space, \t, \n, \v, \f, \r.
    if (code === 32 || (code >= 9 && code <= 13)) {
      if (code === 10) {
        line++;
        lineStart = pos + 1;
      }
      pos++;
      continue;
    }
    if (code === 45 /* - */ && nextCode === 45) {
      const nl = sql.indexOf('\n', pos);
      advance(nl === -1 ? n : nl + 1);
      continue;
    }
    if (code === 47 /* / */ && nextCode === 42 /* * */) {
      const i = blockCommentEnd(sql, pos);
      if (i < 0) fail('Unterminated multi-line comment', line, start - lineStart + 1);
      advance(i);
      continue;
    }
    const rawEnd = raw?.rawEnd(sql, tokens, pos);
    if (rawEnd !== undefined && rawEnd > pos) {
      push('raw', sql.slice(pos, rawEnd), start, rawEnd);
      continue;
    }
    if (code === 39 || code === 34 || code === 96) {
      // Quoted: the quote character doubled stands for itself.
      const q = sql[pos] as "'" | '"' | '`';
      let value = '';
      let from = pos + 1;
      let end = -1;
      for (;;) {
        const at = sql.indexOf(q, from);
        if (at === -1) break;
        value += sql.slice(from, at);
        if (sql.charCodeAt(at + 1) === code) {
          value += q;
          from = at + 2;
          continue;
        }
        end = at + 1;
        break;
      }
      if (end === -1) fail(q === "'" ? 'Unterminated string literal' : 'Unterminated quoted identifier', line, start - lineStart + 1);
      if (q === "'") push('string', value, start, end);
      else push('quoted_ident', value, start, end, q);
      continue;
    }
    if ((code === 88 || code === 120) /* X x */ && nextCode === 39) {
      const close = sql.indexOf("'", pos + 2);
      if (close === -1) fail('Unterminated string literal', line, start - lineStart + 1);
      push('hex', sql.slice(pos + 2, close), start, close + 1);
      continue;
    }
    if (code === 48 /* 0 */ && (nextCode === 120 || nextCode === 88) && isHexCode(sql.charCodeAt(pos + 2))) {
      let i = pos + 2;
      while (i < n && isHexCode(sql.charCodeAt(i))) i++;
      // `0x1g` is no hex literal (MySQL: an identifier); left to the number and identifier rules.
      if (i >= n || !isIdentPartCode(sql.charCodeAt(i))) {
        const digits = sql.slice(pos + 2, i);
        push('hex', digits.length % 2 === 1 ? `0${digits}` : digits, start, i);
        continue;
      }
    }
    if (isDigitCode(code) || (code === 46 /* . */ && isDigitCode(nextCode))) {
      let i = pos;
      while (i < n && isDigitCode(sql.charCodeAt(i))) i++;
      if (sql.charCodeAt(i) === 46 && sql.charCodeAt(i + 1) !== 46) {
        i++;
        while (i < n && isDigitCode(sql.charCodeAt(i))) i++;
      }
      const e = sql.charCodeAt(i);
      if (e === 101 || e === 69) {
        let j = i + 1;
        const sign = sql.charCodeAt(j);
        if (sign === 43 || sign === 45) j++;
        if (isDigitCode(sql.charCodeAt(j))) {
          while (j < n && isDigitCode(sql.charCodeAt(j))) j++;
          i = j;
        }
      }
      const text = sql.slice(pos, i);
      tokens.push({ kind: 'number', value: text, text, start, end: i, line, column: start - lineStart + 1 });
      pos = i;
      continue;
    }
    if (isIdentStartCode(code)) {
      let i = pos + 1;
      while (i < n && isIdentPartCode(sql.charCodeAt(i))) i++;
      const text = sql.slice(pos, i);
      tokens.push({ kind: 'ident', value: text, text, start, end: i, line, column: start - lineStart + 1 });
      pos = i;
      continue;
    }
    const c = sql[pos] as string;
    const op = SINGLE.has(c) ? c : (OPERATORS.find((o) => sql.startsWith(o, pos)) ?? c);
    tokens.push({ kind: 'op', value: op, text: op, start, end: pos + op.length, line, column: start - lineStart + 1 });
    pos += op.length;
  }
  tokens.push({ kind: 'eof', value: '', text: '', start: n, end: n, line, column: n - lineStart + 1 });
  return tokens;
}
