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
  /** An operator or punctuation (`(`, `<=`, `::`, …); `value` is its text. */
  | 'op'
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

function isIdentStart(c: string): boolean {
  return /[A-Za-z_@$\u0080-\uffff]/.test(c);
}

function isIdentPart(c: string): boolean {
  return /[A-Za-z0-9_@$\u0080-\uffff]/.test(c);
}

function isDigit(c: string | undefined): boolean {
  return c !== undefined && c >= '0' && c <= '9';
}

/** Tokenizes `sql`; the last token is always `eof`. Unterminated strings, quoted identifiers and block comments are InvalidSyntax errors. */
export function tokenize(sql: string): Token[] {
  const tokens: Token[] = [];
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

  while (pos < sql.length) {
    const c = sql[pos] as string;
    const next = sql[pos + 1];
    const startLine = line;
    const startCol = pos - lineStart + 1;
    const start = pos;
    const push = (kind: TokenKind, value: string, end: number, quote?: '"' | '`'): void => {
      const tok: Token = { kind, value, text: sql.slice(start, end), start, end, line: startLine, column: startCol, ...(quote ? { quote } : {}) };
      tokens.push(tok);
      advance(end);
    };

    if (c === ' ' || c === '\t' || c === '\n' || c === '\r' || c === '\f' || c === '\v') {
      advance(pos + 1);
      continue;
    }
    if (c === '-' && next === '-') {
      const nl = sql.indexOf('\n', pos);
      advance(nl === -1 ? sql.length : nl + 1);
      continue;
    }
    if (c === '/' && next === '*') {
      // Block comments nest, as in PostgreSQL and sqlparser.
      let depth = 1;
      let i = pos + 2;
      while (i < sql.length && depth > 0) {
        if (sql[i] === '/' && sql[i + 1] === '*') {
          depth++;
          i += 2;
        } else if (sql[i] === '*' && sql[i + 1] === '/') {
          depth--;
          i += 2;
        } else i++;
      }
      if (depth > 0) fail('Unterminated multi-line comment', startLine, startCol);
      advance(i);
      continue;
    }
    if (c === "'" || c === '"' || c === '`') {
      // Quoted: the quote character doubled stands for itself.
      let value = '';
      let i = pos + 1;
      let closed = false;
      while (i < sql.length) {
        const ch = sql[i] as string;
        if (ch === c) {
          if (sql[i + 1] === c) {
            value += c;
            i += 2;
            continue;
          }
          closed = true;
          i++;
          break;
        }
        value += ch;
        i++;
      }
      if (!closed) {
        fail(c === "'" ? 'Unterminated string literal' : 'Unterminated quoted identifier', startLine, startCol);
      }
      if (c === "'") push('string', value, i);
      else push('quoted_ident', value, i, c);
      continue;
    }
    if (isDigit(c) || (c === '.' && isDigit(next))) {
      let i = pos;
      while (isDigit(sql[i])) i++;
      if (sql[i] === '.' && sql[i + 1] !== '.') {
        i++;
        while (isDigit(sql[i])) i++;
      }
      if (sql[i] === 'e' || sql[i] === 'E') {
        let j = i + 1;
        if (sql[j] === '+' || sql[j] === '-') j++;
        if (isDigit(sql[j])) {
          while (isDigit(sql[j])) j++;
          i = j;
        }
      }
      push('number', sql.slice(pos, i), i);
      continue;
    }
    if (isIdentStart(c)) {
      let i = pos + 1;
      while (i < sql.length && isIdentPart(sql[i] as string)) i++;
      push('ident', sql.slice(pos, i), i);
      continue;
    }
    const op = OPERATORS.find((o) => sql.startsWith(o, pos)) ?? c;
    push('op', op, pos + op.length);
  }
  tokens.push({ kind: 'eof', value: '', text: '', start: sql.length, end: sql.length, line, column: sql.length - lineStart + 1 });
  return tokens;
}
