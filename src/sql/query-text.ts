/**
 * Bridges of the query text DuckDB gets (DESIGN.md "Dialect gaps"), done on tokens so that strings
 * and comments are never touched: backtick identifiers (MySQL clients and GUI tools send them)
 * become double-quoted ones, MySQL's `LIMIT offset, count` becomes `LIMIT count OFFSET offset`, MySQL's
 * `INTERVAL -3 HOUR` becomes `INTERVAL (-3) HOUR` (DuckDB takes no sign there), and hex literals
 * (`X'00ff'`, `0x00ff`: bytes, which DuckDB would read as the text 'x00ff' and as `0 AS x00ff`) become
 * BLOB literals. A number beyond DOUBLE's range is refused: DuckDB reads it as an
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

/** The query with the tsdb dialect's MySQL-isms rewritten for DuckDB (the text is unchanged otherwise); InvalidArguments for a number beyond DOUBLE's range. */
export function bridgeQueryText(sql: string): string {
  // Each rewrite needs one of these (a number beyond DOUBLE's range has 309 digits or a 3-digit
  // exponent): other text (most of it) is not tokenized.
  if (!/`|x'|0x|limit|interval|\d{309}|e\+?\d{3}/i.test(sql) && !mayNameCastType(sql)) return sql;
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
