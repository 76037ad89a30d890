/**
 * The type names of casts (`x::T`, `CAST(x AS T)`, `TRY_CAST(x AS T)`) as GreptimeDB reads them
 * (reference api.md §4.3), spelled for DuckDB: its aliases DuckDB lacks (`TimestampSecond`,
 * `TIMESTAMP_SEC`, `FLOAT64`, `LONGTEXT`…), and the names whose meaning differs: a bare `TIMESTAMP`
 * is milliseconds (DuckDB: microseconds), `TIME` nanoseconds (DataFusion's Time64(ns); DuckDB:
 * microseconds), a bare `DECIMAL`/`NUMERIC` is DECIMAL(38, 10) (DuckDB: (18, 3)). Only type positions are rewritten: a column alias `AS float64` stays as written.
 */
import type { Token } from './lexer.js';

/** DuckDB's spelling of the cast type names it lacks or reads otherwise (upper-cased keys). */
const CAST_TYPES: ReadonlyMap<string, string> = new Map([
  ['TIMESTAMP', 'TIMESTAMP_MS'],
  ['TIME', 'TIME_NS'],
  ['TIMESTAMP_SEC', 'TIMESTAMP_S'],
  ['TIMESTAMPSECOND', 'TIMESTAMP_S'],
  ['TIMESTAMPMILLISECOND', 'TIMESTAMP_MS'],
  ['TIMESTAMPMICROSECOND', 'TIMESTAMP'],
  ['TIMESTAMPNANOSECOND', 'TIMESTAMP_NS'],
  ['FLOAT32', 'FLOAT'],
  ['FLOAT64', 'DOUBLE'],
  ['TINYTEXT', 'VARCHAR'],
  ['MEDIUMTEXT', 'VARCHAR'],
  ['LONGTEXT', 'VARCHAR'],
  ['DECIMAL', 'DECIMAL(38, 10)'],
  ['NUMERIC', 'DECIMAL(38, 10)'],
]);

/** MySQL's unsigned integer types (`CAST(x AS INT UNSIGNED)`): DuckDB reads `UNSIGNED` as a column alias. */
const UNSIGNED_TYPES: ReadonlyMap<string, string> = new Map([
  ['TINYINT', 'UTINYINT'],
  ['SMALLINT', 'USMALLINT'],
  ['INT', 'UINTEGER'],
  ['INTEGER', 'UINTEGER'],
  ['BIGINT', 'UBIGINT'],
]);

/** Whether the text may cast to one of `CAST_TYPES` (a cheap test before tokenizing). */
export function mayNameCastType(sql: string): boolean {
  return /::|cast/i.test(sql) && /time|float(32|64)|text|decimal|numeric|unsigned/i.test(sql);
}

export interface Edit {
  readonly start: number;
  readonly end: number;
  readonly text: string;
}

const isOp = (t: Token | undefined, v: string) => t?.kind === 'op' && t.value === v;
const isWord = (t: Token | undefined, v: string) => t?.kind === 'ident' && t.value.toUpperCase() === v;

/** The edits that spell the cast types of `tokens` for DuckDB. */
export function castTypeEdits(tokens: readonly Token[]): Edit[] {
  const edits: Edit[] = [];
  // Paren depths at which a CAST( or TRY_CAST( is open: an AS at such a depth precedes its type.
  const casts: number[] = [];
  let depth = 0;
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i]!;
    if (isOp(t, '(')) {
      depth++;
      const prev = tokens[i - 1];
      if (isWord(prev, 'CAST') || isWord(prev, 'TRY_CAST')) casts.push(depth);
      continue;
    }
    if (isOp(t, ')')) {
      if (casts[casts.length - 1] === depth) casts.pop();
      depth--;
      continue;
    }
    const typePosition = isOp(t, '::') || (isWord(t, 'AS') && casts[casts.length - 1] === depth);
    const name = tokens[i + 1];
    if (!typePosition || name?.kind !== 'ident') continue;
    const upper = name.value.toUpperCase();
    const unsigned = UNSIGNED_TYPES.get(upper);
    if (unsigned !== undefined && isWord(tokens[i + 2], 'UNSIGNED')) {
      edits.push({ start: name.start, end: tokens[i + 2]!.end, text: unsigned });
      continue;
    }
    const spelled = CAST_TYPES.get(upper);
    if (spelled === undefined) continue;
    const next = tokens[i + 2];
    // TIMESTAMP(p), TIMESTAMP WITH TIME ZONE, DECIMAL(p, s): DuckDB reads those as GreptimeDB does.
    if (isOp(next, '(') || ((upper === 'TIMESTAMP' || upper === 'TIME') && (isWord(next, 'WITH') || isWord(next, 'WITHOUT')))) continue;
    edits.push({ start: name.start, end: name.end, text: spelled });
  }
  return edits;
}
