/**
 * Where the PromQL of a TQL statement is in SQL text (reference api.md §4.6). PromQL is not SQL:
 * its strings take backslash escapes (`"a\"b"`), backticks quote raw strings, `#` starts a comment,
 * so the SQL lexer must not read it. `TqlSpans` is the lexer's hook (`RawSpans`): after `TQL
 * EVAL|EVALUATE|EXPLAIN|ANALYZE [VERBOSE] [FORMAT f] [(params)]` — at the start of a statement, or
 * as the body of a CTE (`AS (TQL …)`) — the rest of the statement (up to a `;` outside PromQL
 * strings and comments, or the `)` closing the CTE) is one raw token.
 */
import type { RawSpans, Token } from './lexer.js';

const isSpace = (c: number): boolean => c === 32 || (c >= 9 && c <= 13);

/**
 * The end of PromQL text starting at `from`: a `;` outside strings and comments, or (`inParens`)
 * an unmatched `)`; trailing whitespace is left out. The end of input when neither comes.
 */
export function promqlEnd(sql: string, from: number, inParens: boolean): number {
  let depth = 0;
  let i = from;
  const n = sql.length;
  let end = n;
  scan: while (i < n) {
    const c = sql.charCodeAt(i);
    switch (c) {
      case 34: // "
      case 39: {
        // '
        i++;
        while (i < n && sql.charCodeAt(i) !== c) i += sql.charCodeAt(i) === 92 /* \ */ ? 2 : 1;
        i++;
        continue;
      }
      case 96: {
        // `: raw string, no escapes
        const close = sql.indexOf('`', i + 1);
        i = close < 0 ? n : close + 1;
        continue;
      }
      case 35: {
        // #: comment to the end of the line
        const nl = sql.indexOf('\n', i);
        i = nl < 0 ? n : nl + 1;
        continue;
      }
      case 40:
        depth++;
        break;
      case 41:
        if (depth === 0 && inParens) {
          end = i;
          break scan;
        }
        depth = Math.max(0, depth - 1);
        break;
      case 59:
        end = i;
        break scan;
    }
    i++;
  }
  end = Math.min(end, n);
  while (end > from && isSpace(sql.charCodeAt(end - 1))) end--;
  return end;
}

type State = 'none' | 'verb' | 'options' | 'format' | 'params' | 'query';

const isIdent = (t: Token | undefined, word: string): boolean => t?.kind === 'ident' && t.value.toUpperCase() === word;
const isOp = (t: Token | undefined, op: string): boolean => t?.kind === 'op' && t.value === op;

/** The lexer hook that makes the PromQL of each TQL statement (or TQL CTE) one raw token. */
export class TqlSpans implements RawSpans {
  private seen = 0;
  private depth = 0;
  private atStatementStart = true;
  private state: State = 'none';
  private explainLike = false;
  private inParens = false;
  private paramDepth = 0;

  rawEnd(sql: string, tokens: readonly Token[], pos: number): number | undefined {
    for (; this.seen < tokens.length; this.seen++) this.step(tokens, this.seen);
    if (this.state === 'options') {
      if (sql.charCodeAt(pos) === 40 /* ( */) {
        this.state = 'params';
        this.paramDepth = 0;
        return undefined;
      }
      if (this.explainLike && /^(?:verbose|format)(?![A-Za-z0-9_])/i.test(sql.slice(pos, pos + 8))) return undefined;
      this.state = 'query';
    }
    if (this.state !== 'query') return undefined;
    this.state = 'none';
    const end = promqlEnd(sql, pos, this.inParens);
    return end > pos ? end : undefined;
  }

  private step(tokens: readonly Token[], i: number): void {
    const t = tokens[i]!;
    const statementStart = this.atStatementStart;
    if (isOp(t, '(')) this.depth++;
    else if (isOp(t, ')')) this.depth = Math.max(0, this.depth - 1);
    this.atStatementStart = isOp(t, ';') && this.depth === 0;
    if (this.atStatementStart) {
      this.state = 'none';
      return;
    }
    switch (this.state) {
      case 'none':
        if (!isIdent(t, 'TQL')) return;
        if (statementStart) {
          this.state = 'verb';
          this.inParens = false;
        } else if (isOp(tokens[i - 1], '(') && (isIdent(tokens[i - 2], 'AS') || isIdent(tokens[i - 2], 'MATERIALIZED'))) {
          this.state = 'verb';
          this.inParens = true;
        }
        return;
      case 'verb': {
        const v = t.kind === 'ident' ? t.value.toUpperCase() : '';
        this.explainLike = v === 'EXPLAIN' || v === 'ANALYZE';
        this.state = v === 'EVAL' || v === 'EVALUATE' || this.explainLike ? 'options' : 'none';
        return;
      }
      case 'options':
        if (isIdent(t, 'FORMAT')) this.state = 'format';
        return;
      case 'format':
        this.state = 'options';
        return;
      case 'params':
        if (isOp(t, '(')) this.paramDepth++;
        else if (isOp(t, ')') && --this.paramDepth === 0) this.state = 'query';
        return;
      case 'query':
        return;
    }
  }
}

/**
 * `<promql> AS <alias>` split as GreptimeDB splits it: the first word `AS` (any case) outside
 * PromQL strings, comments and brackets ends the query, and one identifier (bare, `"quoted"` or
 * `` `quoted` ``) must follow it alone. Returns the query and alias, or an error message.
 */
export function splitAlias(text: string): { query: string; alias?: string } | { error: string } {
  const n = text.length;
  let depth = 0;
  let i = 0;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c === 34 || c === 39) {
      i++;
      while (i < n && text.charCodeAt(i) !== c) i += text.charCodeAt(i) === 92 ? 2 : 1;
      i++;
      continue;
    }
    if (c === 96) {
      const close = text.indexOf('`', i + 1);
      i = close < 0 ? n : close + 1;
      continue;
    }
    if (c === 35) {
      const nl = text.indexOf('\n', i);
      i = nl < 0 ? n : nl + 1;
      continue;
    }
    if (c === 40 || c === 91 || c === 123) depth++;
    else if (c === 41 || c === 93 || c === 125) depth = Math.max(0, depth - 1);
    const word = /[A-Za-z_:][A-Za-z0-9_:]*/y;
    word.lastIndex = i;
    const m = isWordStart(c) ? word.exec(text) : null;
    if (m === null) {
      i++;
      continue;
    }
    if (depth === 0 && m[0].toUpperCase() === 'AS') {
      const query = text.slice(0, i).trim();
      const rest = text.slice(i + 2).trim();
      const alias = /^(?:([A-Za-z_][A-Za-z0-9_]*)|"((?:[^"]|"")*)"|`((?:[^`]|``)*)`)$/.exec(rest);
      if (query === '') return { error: 'Empty promql query' };
      if (rest === '') return { error: 'Expected: identifier, found: EOF' };
      if (alias === null) {
        const first = /^(?:[A-Za-z_][A-Za-z0-9_]*|"(?:[^"]|"")*"|`(?:[^`]|``)*`)/.exec(rest);
        return first === null ? { error: `Expected: identifier, found: ${rest.split(/\s+/)[0]}` } : { error: `Unexpected token after alias: ${rest.slice(first[0].length).trim().split(/\s+/)[0]}` };
      }
      return { query, alias: alias[1] ?? alias[2]?.replaceAll('""', '"') ?? alias[3]!.replaceAll('``', '`') };
    }
    i += m[0].length;
  }
  return { query: text.trim() };
}

function isWordStart(c: number): boolean {
  return (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95 || c === 58;
}
