/**
 * SQL text printed from its tokens as GreptimeDB's sqlparser prints a statement (its `Display`):
 * keywords upper-cased, identifiers, literals and function names as written, one space between
 * tokens, none inside parentheses, before commas, around dots and `::`, none after a unary sign.
 * `SHOW CREATE VIEW` and `information_schema.views` show a view's definition so
 * (`create view v as select * from t where a>5` → `CREATE VIEW v AS SELECT * FROM t WHERE a > 5`).
 */
import type { Token } from './lexer.js';

/** Words sqlparser prints upper-case whatever case they were written in (keywords of queries). */
const KEYWORDS: ReadonlySet<string> = new Set(
  (
    'ALL AND ANY AS ASC BETWEEN BY CASE CAST CREATE CROSS DESC DISTINCT ELSE END EXCEPT EXISTS FETCH FILTER FIRST FOLLOWING FROM FULL GROUP HAVING ' +
    'IF ILIKE IN INNER INTERSECT INTERVAL IS JOIN LAST LATERAL LEFT LIKE LIMIT NATURAL NOT NULL NULLS OFFSET ON OR ORDER OUTER OVER PARTITION PRECEDING ' +
    'RANGE RECURSIVE REPLACE RIGHT ROW ROWS SELECT SOME THEN TQL EVAL EVALUATE UNBOUNDED UNION USING VALUES VIEW WHEN WHERE WINDOW WITH ALIGN TO FILL CURRENT'
  ).split(' '),
);

/** Keywords of calls sqlparser prints upper-case and glued to their `(` (`CAST(a AS INT)`). */
const SPECIAL_CALLS: ReadonlySet<string> = new Set(['CAST', 'TRY_CAST', 'EXTRACT', 'SUBSTRING', 'POSITION', 'TRIM']);

/** Keywords that are also function names: followed by `(`, a function call, printed as written (`replace(a, 'x', 'y')`). */
const KEYWORD_FUNCTIONS: ReadonlySet<string> = new Set(['LEFT', 'RIGHT', 'REPLACE', 'IF', 'FIRST', 'LAST']);

/** Whether a token ends an operand (so that a `-`/`+` after it is binary). */
function endsOperand(t: Token): boolean {
  if (t.kind === 'op') return t.value === ')' || t.value === ']';
  if (t.kind === 'ident') return !KEYWORDS.has(t.value.toUpperCase()) || t.value.toUpperCase() === 'NULL' || t.value.toUpperCase() === 'END';
  return true;
}

/** The printed text of `tokens` (a statement or a part of one). */
export function printTokens(tokens: readonly Token[]): string {
  let out = '';
  let prev: Token | undefined;
  let unary = false;
  for (const [i, t] of tokens.entries()) {
    const upper = t.value.toUpperCase();
    const call = t.kind === 'ident' && tokens[i + 1]?.kind === 'op' && tokens[i + 1]?.value === '(' && (SPECIAL_CALLS.has(upper) || KEYWORD_FUNCTIONS.has(upper));
    const word = t.kind === 'ident' && (SPECIAL_CALLS.has(upper) || (KEYWORDS.has(upper) && !call)) ? upper : t.text;
    if (prev !== undefined) {
      const glued =
        unary ||
        (t.kind === 'op' && [',', ')', '.', '::', ']', ';'].includes(t.value)) ||
        (prev.kind === 'op' && ['(', '.', '::', '['].includes(prev.value)) ||
        // A function call or a type's arguments: `count(`, `VARCHAR(`; not `IN (`, `AS (`.
        (t.kind === 'op' && t.value === '(' && (prev.kind === 'ident' || prev.kind === 'quoted_ident') && (!KEYWORDS.has(prev.value.toUpperCase()) || SPECIAL_CALLS.has(prev.value.toUpperCase()) || KEYWORD_FUNCTIONS.has(prev.value.toUpperCase()))) ||
        (t.kind === 'op' && t.value === '[');
      if (!glued) out += ' ';
    }
    unary = t.kind === 'op' && (t.value === '-' || t.value === '+') && (prev === undefined || !endsOperand(prev));
    out += word;
    prev = t;
  }
  return out;
}
