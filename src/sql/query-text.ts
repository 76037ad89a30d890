/**
 * Bridges of the query text DuckDB gets (DESIGN.md "Dialect gaps"), done on tokens so that strings
 * and comments are never touched: backtick identifiers (MySQL clients and GUI tools send them)
 * become double-quoted ones, MySQL's `LIMIT offset, count` becomes `LIMIT count OFFSET offset`, MySQL's
 * `INTERVAL -3 HOUR` becomes `INTERVAL (-3) HOUR` (DuckDB takes no sign there), and hex literals
 * (`X'00ff'`, `0x00ff`: bytes, which DuckDB would read as the text 'x00ff' and as `0 AS x00ff`) become
 * BLOB literals, MySQL's `DIV`, `isnull(…)` and `@@variable` become what DuckDB reads (`mysqlOperator`), and
 * `approx_percentile_cont(p) WITHIN GROUP (ORDER BY x)` its call form (`withinGroup`). A number beyond DOUBLE's range is refused: DuckDB reads it as an
 * infinite DOUBLE and then cannot write its own parse tree back (`"value":Infinity` is not JSON).
 */
import { StatusCode } from '../common/error/status-code.js';
import { TsdbError } from '../common/error/tsdb-error.js';
import { hexBytes, tokenize, type Token } from './lexer.js';
import { castTypeEdits, mayNameCastType } from './cast-types.js';

/** The bytes of a hex token's digits as a DuckDB BLOB literal (`'\x00\xFF'::BLOB`); InvalidSyntax for bad digits. */
export function blobLiteral(digits: string): string {
  let text = '';
  for (const b of hexBytes(digits)) text += `\\x${b.toString(16).padStart(2, '0').toUpperCase()}`;
  return `'${text}'::BLOB`;
}

function quoted(value: string): string {
  return `"${value.replaceAll('"', '""')}"`;
}

/** The index of the token closing the parenthesis opened at token `open`, or -1. */
function closing(tokens: readonly Token[], open: number): number {
  let depth = 0;
  for (let j = open; j < tokens.length; j++) {
    const t = tokens[j]!;
    if (t.kind !== 'op') continue;
    if (t.value === '(') depth++;
    else if (t.value === ')' && --depth === 0) return j;
  }
  return -1;
}

const isWord = (t: Token | undefined, word: string) => t?.kind === 'ident' && t.value.toLowerCase() === word;

/**
 * DataFusion's ordered-set form `approx_percentile_cont(p) WITHIN GROUP (ORDER BY x [ASC|DESC]
 * [NULLS …])`, which DuckDB's parser takes for its own ordered aggregates only, as the call form
 * `approx_percentile_cont(x, p)` (`query/sketch-functions.ts`), and
 * `approx_percentile_cont_with_weight(w, p) WITHIN GROUP (ORDER BY x)` as
 * `approx_percentile_cont_with_weight(x, w, p)`, through macros of their own (`withinGroupMacro`);
 * DESC reads the quantile from the other end, `1 - p`.
 */
function withinGroup(sql: string, tokens: readonly Token[], i: number): { edit: { start: number; end: number; text: string }; last: number } | undefined {
  const t = tokens[i]!;
  if (!(isWord(t, 'approx_percentile_cont') || isWord(t, 'approx_percentile_cont_with_weight')) || tokens[i + 1]?.kind !== 'op' || tokens[i + 1]!.value !== '(') return undefined;
  const argsEnd = closing(tokens, i + 1);
  if (argsEnd < 0 || argsEnd === i + 2 || !isWord(tokens[argsEnd + 1], 'within') || !isWord(tokens[argsEnd + 2], 'group')) return undefined;
  const open = argsEnd + 3;
  if (tokens[open]?.kind !== 'op' || tokens[open]!.value !== '(' || !isWord(tokens[open + 1], 'order') || !isWord(tokens[open + 2], 'by')) return undefined;
  const end = closing(tokens, open);
  if (end < 0) return undefined;
  let last = end - 1;
  if ((isWord(tokens[last], 'first') || isWord(tokens[last], 'last')) && isWord(tokens[last - 1], 'nulls')) last -= 2;
  const desc = isWord(tokens[last], 'desc');
  if (desc || isWord(tokens[last], 'asc')) last--;
  if (last < open + 3) return undefined;
  const expr = sql.slice(tokens[open + 3]!.start, tokens[last]!.end);
  // The arguments: p, or (with weight) w and p, split at the top-level comma.
  let comma = -1;
  for (let j = i + 2, depth = 0; j < argsEnd; j++) {
    const a = tokens[j]!;
    if (a.kind === 'op' && a.value === '(') depth++;
    else if (a.kind === 'op' && a.value === ')') depth--;
    else if (depth === 0 && a.kind === 'op' && a.value === ',') comma = j;
  }
  const weighted = t.value.toLowerCase() === 'approx_percentile_cont_with_weight';
  if (weighted !== comma >= 0) return undefined;
  const w = weighted ? `${sql.slice(tokens[i + 2]!.start, tokens[comma - 1]!.end)}, ` : '';
  const p = sql.slice(tokens[weighted ? comma + 1 : i + 2]!.start, tokens[argsEnd - 1]!.end);
  // The ordered-set form's own macro (`query/sketch-functions.ts`), by which the result is named as
  // DataFusion names it (`… WITHIN GROUP [x ASC NULLS LAST]`, `query/column-names.ts`).
  return { edit: { start: t.start, end: tokens[end]!.end, text: `${withinGroupMacro(t.value.toLowerCase(), desc)}(${expr}, ${w}${p})` }, last: end };
}

/** The macro of `approx_percentile_cont[_with_weight](…) WITHIN GROUP (ORDER BY x [DESC])`: its call form, DESC reading `1 - p`. */
export function withinGroupMacro(fn: string, desc: boolean): string {
  return `__tsdb_${fn}_within_group${desc ? '_desc' : ''}`;
}

/** Words that end an operand or start a clause: `div` next to one is a column named so, not MySQL's operator. */
const CLAUSE_WORDS = new Set(['select', 'from', 'where', 'and', 'or', 'not', 'as', 'by', 'on', 'having', 'group', 'order', 'limit', 'offset', 'union', 'all', 'when', 'then', 'else', 'end', 'case', 'distinct', 'in', 'is', 'like', 'between', 'join', 'using', 'with', 'div', 'asc', 'desc', 'into', 'values', 'set', 'except', 'intersect', 'window', 'qualify', 'over', 'partition', 'escape', 'interval']);

const isOperand = (t: Token | undefined, side: 'left' | 'right'): boolean =>
  t !== undefined &&
  (t.kind === 'number' || t.kind === 'string' || t.kind === 'quoted_ident' || (t.kind === 'ident' && !t.value.startsWith('@') && !CLAUSE_WORDS.has(t.value.toLowerCase())) || (t.kind === 'op' && t.value === (side === 'left' ? ')' : '(')));

/**
 * MySQL's spellings DuckDB lacks, at token `i`: `a DIV b` (integer division: DuckDB's `//`);
 * `isnull(x)` (a keyword in DuckDB's grammar, quoted to be the function); a system variable
 * `@@name` / `@@session.name`, which becomes `__tsdb_variable('@@name')`, the session's value
 * (`query/session-functions.ts`), while `a @@ b` (a match operator) stays.
 */
function mysqlOperator(tokens: readonly Token[], i: number): { edit: { start: number; end: number; text: string }; last: number } | undefined {
  const t = tokens[i]!;
  if (t.kind !== 'ident') return undefined;
  const word = t.value.toLowerCase();
  if (word === 'div' && isOperand(tokens[i - 1], 'left') && isOperand(tokens[i + 1], 'right')) return { edit: { start: t.start, end: t.end, text: '//' }, last: i };
  if (word === 'isnull' && t.text.toLowerCase() === 'isnull' && tokens[i + 1]?.kind === 'op' && tokens[i + 1]!.value === '(') return { edit: { start: t.start, end: t.end, text: '"isnull"' }, last: i };
  if (/^@@[a-z_]\w*$/i.test(t.text) && !isOperand(tokens[i - 1], 'left')) {
    let last = i;
    let name = t.text;
    const [dot, next] = [tokens[i + 1], tokens[i + 2]];
    if (/^@@(session|global|local)$/i.test(t.text) && dot?.kind === 'op' && dot.value === '.' && dot.start === t.end && next?.kind === 'ident' && next.start === dot.end) {
      name = `${t.text}.${next.text}`;
      last = i + 2;
    }
    return { edit: { start: t.start, end: tokens[last]!.end, text: `__tsdb_variable('${name.replaceAll("'", "''")}')` }, last };
  }
  return undefined;
}

/** The query with the tsdb dialect's MySQL-isms rewritten for DuckDB (the text is unchanged otherwise); InvalidArguments for a number beyond DOUBLE's range. */
export function bridgeQueryText(sql: string): string {
  // Each rewrite needs one of these (a number beyond DOUBLE's range has 309 digits or a 3-digit
  // exponent): other text (most of it) is not tokenized.
  if (!/`|x'|0x|limit|interval|\d{309}|e\+?\d{3}|isnull|\bdiv\b|@@|within/i.test(sql) && !mayNameCastType(sql)) return sql;
  let tokens: Token[];
  try {
    tokens = tokenize(sql);
  } catch {
    return sql; // DuckDB reports the error
  }
  const edits: Array<{ start: number; end: number; text: string }> = [];
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i]!;
    if (t.kind === 'quoted_ident' && t.quote === '`') edits.push({ start: t.start, end: t.end, text: quoted(t.value) });
    if (t.kind === 'hex') edits.push({ start: t.start, end: t.end, text: blobLiteral(t.value) });
    if (t.kind === 'ident' && t.value.toLowerCase() === 'interval') {
      const [sign, n, unit] = [tokens[i + 1], tokens[i + 2], tokens[i + 3]];
      if (sign?.kind === 'op' && (sign.value === '-' || sign.value === '+') && n?.kind === 'number' && unit?.kind === 'ident') {
        edits.push({ start: sign.start, end: n.end, text: `(${sign.value}${n.text})` });
        i += 2;
      }
    }
    const within = withinGroup(sql, tokens, i);
    if (within !== undefined) {
      edits.push(within.edit);
      i = within.last;
      continue;
    }
    const mysql = mysqlOperator(tokens, i);
    if (mysql !== undefined) {
      edits.push(mysql.edit);
      i = mysql.last;
      continue;
    }
    if (t.kind === 'number' && !Number.isFinite(Number(t.value))) {
      const text = t.text.length <= 40 ? t.text : `${t.text.slice(0, 20)}…(${t.text.length} characters)`;
      throw new TsdbError(StatusCode.InvalidArguments, `Number out of range: ${text} is beyond DOUBLE's range (±1.7976931348623157e308) at Line: ${t.line}, Column: ${t.column}`);
    }
    if (t.kind === 'ident' && t.value.toLowerCase() === 'limit') {
      const [a, comma, b] = [tokens[i + 1], tokens[i + 2], tokens[i + 3]];
      if (a?.kind === 'number' && comma?.kind === 'op' && comma.value === ',' && b?.kind === 'number') {
        edits.push({ start: a.start, end: b.end, text: `${b.text} OFFSET ${a.text}` });
        i += 3;
      }
    }
  }
  edits.push(...castTypeEdits(tokens));
  edits.sort((a, b) => a.start - b.start);
  let out = sql;
  for (const e of edits.reverse()) out = out.slice(0, e.start) + e.text + out.slice(e.end);
  return out;
}
