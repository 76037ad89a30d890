/**
 * Range queries (reference api.md §4.5):
 *
 *   SELECT ts, host, min(v) RANGE '10s' [FILL f] [AS a], … FROM t [WHERE …]
 *   ALIGN '5s' [TO NOW | '<timestamp>'] [BY (exprs)] [FILL f] [ORDER BY …] [LIMIT …]
 *
 * Each slot T = origin + k·ALIGN aggregates, per expression, the rows with T ≤ ts < T + RANGE, per
 * group (BY, by default the primary key). DuckDB has no such syntax, so the query is found on
 * tokens and rewritten into plain SQL: every row is repeated into the slots it falls in (unnest of a
 * range), aggregated with a FILTER per range, and — when a FILL asks for it — joined to every slot
 * between each group's first and last, filled with a constant, the previous value or a linear
 * interpolation.
 */
import { StatusCode } from '../common/error/status-code.js';
import { TsdbError } from '../common/error/tsdb-error.js';
import { parseDuration } from '../common/time/duration.js';
import { canonicalTimeZone, parseOffset, parseTimestamp, zoneOffsetMinutes } from '../common/time/timestamp.js';
import { quoteIdent, quoteLiteral } from '../common/sql-quote.js';
import { isUtc } from './session-time.js';
import { tokenize, type Token } from '../sql/lexer.js';
import { limitErrorSql } from './resource-limits.js';

export type Fill = { readonly kind: 'null' } | { readonly kind: 'prev' } | { readonly kind: 'linear' } | { readonly kind: 'value'; readonly sql: string };

interface RangeItem {
  readonly kind: 'range';
  /** The aggregate expression as written (`min(v)`). */
  readonly expr: string;
  readonly rangeMs: number;
  /** The duration as written, for the column name (`10s`). */
  readonly rangeText: string;
  readonly fill?: Fill;
  readonly fillText?: string;
  readonly alias?: string;
}

interface PlainItem {
  readonly kind: 'plain';
  readonly text: string;
}

/** A range query taken apart. */
export interface RangeQuery {
  readonly items: ReadonlyArray<RangeItem | PlainItem>;
  /** `FROM … [WHERE …]` as written. */
  readonly from: string;
  /** The table named by FROM. */
  readonly table: readonly string[];
  readonly alignMs: number;
  /** `TO`: 'now', a timestamp string, or the default (the epoch). */
  readonly to?: { readonly kind: 'now' } | { readonly kind: 'time'; readonly text: string };
  /** `BY (…)` expressions as written; undefined = the primary key; [] = one group. */
  readonly by?: readonly string[];
  readonly fill?: Fill;
  readonly fillText?: string;
  /** `ORDER BY …`, `LIMIT …` as written. */
  readonly tail: string;
}

function syntax(message: string): TsdbError {
  return new TsdbError(StatusCode.InvalidSyntax, `Invalid SQL syntax: sql parser error: ${message}`);
}

/** ` at Line: l, Column: c` of a token (nothing at the end of input), as sqlparser writes it. */
const at = (t: Token): string => (t.kind === 'eof' ? '' : ` at Line: ${t.line}, Column: ${t.column}`);

const word = (t: Token | undefined, w: string) => t !== undefined && t.kind === 'ident' && t.value.toLowerCase() === w;
const op = (t: Token | undefined, o: string) => t !== undefined && t.kind === 'op' && t.value === o;

/** Milliseconds of a duration written as `'5s'`, `'1h30m'` or `(INTERVAL '1' day)` / `INTERVAL '1 day'`. */
function durationOf(tokens: readonly Token[], at: number): { ms: number; text: string; next: number } {
  let i = at;
  let paren = false;
  if (op(tokens[i], '(')) {
    paren = true;
    i++;
  }
  let text: string;
  if (word(tokens[i], 'interval') && tokens[i + 1]?.kind === 'string') {
    text = tokens[i + 1]!.value;
    i += 2;
    if (tokens[i]?.kind === 'ident' && !word(tokens[i], 'fill') && !word(tokens[i], 'to') && !word(tokens[i], 'by') && !word(tokens[i], 'as')) {
      text = `${text} ${tokens[i]!.value}`;
      i++;
    }
  } else if (tokens[i]?.kind === 'string') {
    text = tokens[i]!.value;
    i++;
  } else {
    throw syntax(`Expected: a duration such as '5s', found: ${tokens[i]?.text || 'EOF'}`);
  }
  if (paren) {
    if (!op(tokens[i], ')')) throw syntax(`Expected: ), found: ${tokens[i]?.text || 'EOF'}`);
    i++;
  }
  let ms: number;
  try {
    ms = parseDuration(text);
  } catch {
    throw syntax(`invalid duration ${text}`);
  }
  if (!(ms > 0)) throw syntax(`the duration ${text} must be positive`);
  return { ms, text: text.replace(/\s+/g, ''), next: i };
}

function fillOf(tokens: readonly Token[], at: number, sql: string): { fill: Fill; text: string; next: number } {
  const t = tokens[at];
  if (t === undefined || t.kind === 'eof') throw syntax('Expected: a FILL value, found: EOF');
  if (word(t, 'null')) return { fill: { kind: 'null' }, text: 'NULL', next: at + 1 };
  if (word(t, 'prev')) return { fill: { kind: 'prev' }, text: 'PREV', next: at + 1 };
  if (word(t, 'linear')) return { fill: { kind: 'linear' }, text: 'LINEAR', next: at + 1 };
  let end = at;
  if (op(t, '-') || op(t, '+')) end++;
  const v = tokens[end]!;
  if (v.kind !== 'number' && v.kind !== 'string') throw syntax(`Expected: NULL, PREV, LINEAR or a constant after FILL, found: ${t.text}`);
  const text = sql.slice(t.start, v.end);
  return { fill: { kind: 'value', sql: text }, text, next: end + 1 };
}

/** Tokens at parenthesis depth 0 with their indexes. */
function depths(tokens: readonly Token[]): number[] {
  const out: number[] = [];
  let d = 0;
  for (const t of tokens) {
    if (op(t, ')')) d--;
    out.push(d);
    if (op(t, '(')) d++;
  }
  return out;
}

/** Takes a query apart when it is a range query (a top-level ALIGN, or RANGE after a select item); else undefined. */
export function parseRangeQuery(sql: string): RangeQuery | undefined {
  let tokens: Token[];
  try {
    tokens = tokenize(sql);
  } catch {
    return undefined;
  }
  if (!word(tokens[0], 'select')) return undefined;
  const depth = depths(tokens);
  const top = (i: number) => depth[i] === 0;
  const find = (w: string, from = 0) => tokens.findIndex((t, i) => i >= from && top(i) && word(t, w));
  const fromAt = find('from');
  const alignAt = find('align');
  // RANGE as a keyword follows an expression (not SELECT, a comma or an operator: that is range(…), the function).
  const rangeAt = tokens.findIndex((t, i) => i > 0 && (fromAt < 0 || i < fromAt) && top(i) && word(t, 'range') && !word(tokens[i - 1], 'select') && !(tokens[i - 1]!.kind === 'op' && tokens[i - 1]!.value !== ')'));
  if (alignAt < 0 && rangeAt < 0) return undefined;
  if (alignAt < 0) throw syntax('ALIGN argument cannot be omitted in the range select query');
  if (rangeAt < 0) throw syntax('Illegal Range select, no RANGE keyword found in any SelectItem');
  if (fromAt < 0 || fromAt > alignAt) throw syntax('a range query needs FROM <table> before ALIGN');

  // Select items, split at top-level commas.
  const items: Array<RangeItem | PlainItem> = [];
  let start = 1;
  for (let i = 1; i <= fromAt; i++) {
    if (i < fromAt && !(top(i) && op(tokens[i], ','))) continue;
    const itemTokens = tokens.slice(start, i);
    if (itemTokens.length === 0) throw syntax(`Expected: an expression, found: ${tokens[i]!.text}${at(tokens[i]!)}`);
    const r = itemTokens.findIndex((t, k) => k > 0 && top(start + k) && word(t, 'range'));
    if (r < 0) {
      items.push({ kind: 'plain', text: sql.slice(itemTokens[0]!.start, itemTokens.at(-1)!.end) });
    } else {
      const expr = sql.slice(itemTokens[0]!.start, itemTokens[r - 1]!.end);
      const d = durationOf(tokens, start + r + 1);
      let next = d.next;
      let fill: { fill: Fill; text: string } | undefined;
      if (word(tokens[next], 'fill')) {
        const f = fillOf(tokens, next + 1, sql);
        fill = f;
        next = f.next;
      }
      let alias: string | undefined;
      if (word(tokens[next], 'as')) next++;
      if (next < i) {
        const a = tokens[next]!;
        if (a.kind !== 'ident' && a.kind !== 'quoted_ident') throw syntax(`Expected: an alias, found: ${a.text}`);
        alias = a.kind === 'ident' ? a.value.toLowerCase() : a.value;
        next++;
      }
      if (next !== i) throw syntax(`Expected: , or FROM, found: ${tokens[next]!.text}`);
      items.push({ kind: 'range', expr, rangeMs: d.ms, rangeText: d.text, ...(fill && { fill: fill.fill, fillText: fill.text }), ...(alias !== undefined && { alias }) });
    }
    start = i + 1;
  }

  // FROM <table> [WHERE …]
  const tableTokens: string[] = [];
  for (let i = fromAt + 1; i < alignAt; i++) {
    const t = tokens[i]!;
    if (t.kind === 'ident' || t.kind === 'quoted_ident') tableTokens.push(t.kind === 'ident' ? t.value.toLowerCase() : t.value);
    else if (!op(t, '.')) break;
    if (!op(tokens[i + 1], '.')) break;
  }
  if (tableTokens.length === 0) throw syntax('a range query reads one table: FROM <table>');

  // ALIGN d [TO …] [BY (…)] [FILL f]
  const align = durationOf(tokens, alignAt + 1);
  let i = align.next;
  let to: RangeQuery['to'];
  let by: string[] | undefined;
  let fill: { fill: Fill; text: string; next: number } | undefined;
  for (;;) {
    if (word(tokens[i], 'to')) {
      if (word(tokens[i + 1], 'now')) to = { kind: 'now' };
      else if (tokens[i + 1]?.kind === 'string') to = { kind: 'time', text: tokens[i + 1]!.value };
      else throw syntax(`Expected: NOW or a timestamp after TO, found: ${tokens[i + 1]?.text || 'EOF'}`);
      i += 2;
    } else if (word(tokens[i], 'by')) {
      if (!op(tokens[i + 1], '(')) throw syntax(`Expected: (, found: ${tokens[i + 1]?.text || 'EOF'}`);
      const open = i + 1;
      let close = open + 1;
      while (close < tokens.length && !(op(tokens[close], ')') && depth[close] === depth[open])) close++;
      if (close >= tokens.length) throw syntax(`Expected: ) closing BY (, found: EOF`);
      by = [];
      let s = open + 1;
      for (let k = open + 1; k <= close; k++) {
        if (k < close && !(op(tokens[k], ',') && depth[k] === depth[open]! + 1)) continue;
        if (k > s) by.push(sql.slice(tokens[s]!.start, tokens[k - 1]!.end));
        s = k + 1;
      }
      i = close + 1;
    } else if (word(tokens[i], 'fill')) {
      fill = fillOf(tokens, i + 1, sql);
      i = fill.next;
    } else break;
  }
  const tailStart = tokens[i]!.kind === 'eof' ? sql.length : tokens[i]!.start;
  return {
    items,
    from: sql.slice(tokens[fromAt]!.start, tokens[alignAt - 1]!.end),
    table: tableTokens,
    alignMs: align.ms,
    ...(to !== undefined && { to }),
    ...(by !== undefined && { by }),
    ...(fill !== undefined && { fill: fill.fill, fillText: fill.text }),
    tail: sql.slice(tailStart).replace(/;\s*$/, ''),
  };
}

/** GreptimeDB's name of a range column: `min(t.v) RANGE 10s [FILL PREV]`. */
function rangeName(item: RangeItem, table: string, fillText: string | undefined): string {
  const m = /^(\w+)\(\s*([A-Za-z_]\w*)\s*\)$/.exec(item.expr);
  const expr = m ? `${m[1]}(${table}.${m[2]})` : item.expr;
  return `${expr} RANGE ${item.rangeText}${fillText !== undefined ? ` FILL ${fillText}` : ''}`;
}

export interface RangeTable {
  readonly timeIndex: string;
  /** The time index's SQL type (TIMESTAMP_MS …), the type of the slot column. */
  readonly timeType: string;
  readonly primaryKey: readonly string[];
}

/**
 * The plain SQL of a range query over its table; `nowMs` for `TO NOW`, `zone` (the session's) for
 * the default origin and TO strings.
 *
 * Slots are counted from the origin, by default the epoch in the session's time zone (local
 * midnight of 1970-01-01). An ALIGN of whole days in a zone with daylight saving counts on the
 * zone's wall clock instead, so that every daily slot starts at local midnight, summer and winter
 * (a local day is then 23 or 25 hours long on the days the clock changes); shorter ALIGNs count in
 * real time from the origin (an hourly slot is an hour, also in the hour a zone repeats).
 */
export function rangeQuerySql(q: RangeQuery, t: RangeTable, nowMs: number, zone: string, maxSlots = 0): string {
  const ts = quoteIdent(t.timeIndex);
  const A = q.alignMs;
  const wall = A % 86_400_000 === 0 && !isUtc(zone) && parseOffset(zone) === undefined;
  const wallMs = (utcMs: number) => (wall ? utcMs + zoneOffsetMinutes(zone, Math.floor(utcMs / 1000)) * 60_000 : utcMs);
  let origin = wall ? 0 : Number(parseTimestamp('1970-01-01 00:00:00', 'ms', zone) ?? 0n);
  if (q.to?.kind === 'now') origin = wallMs(nowMs);
  else if (q.to?.kind === 'time') {
    const o = parseTimestamp(q.to.text, 'ms', zone);
    if (o === undefined) throw syntax(`Illegal ALIGN TO value: ${q.to.text}`);
    origin = wallMs(Number(o));
  }
  const zoneText = quoteLiteral(canonicalTimeZone(zone));
  const by = q.by ?? t.primaryKey.map(quoteIdent);
  const ranges = q.items.filter((x): x is RangeItem => x.kind === 'range');
  const maxRange = Math.max(...ranges.map((r) => r.rangeMs));
  // Each row is counted in every slot its longest RANGE covers: a bound known from the query alone.
  const perRow = Math.ceil(maxRange / A);
  if (maxSlots > 0 && perRow > maxSlots) {
    throw new TsdbError(StatusCode.RuntimeResourcesExhausted, `Range query too large: RANGE ${maxRange} ms over ALIGN ${A} ms puts each row in ${perRow} slots, more than ${maxSlots} (query.max_result_rows)`);
  }
  // A row's time in the slots' terms: its instant, or its wall-clock time in the zone.
  const e = wall ? `epoch_ms(timezone(${zoneText}, CAST(${ts} AS TIMESTAMPTZ)))` : `epoch_ms(${ts})`;
  // Slots T with T <= ts < T + maxRange: from the first aligned T above ts - maxRange to the one at or below ts.
  const slots =
    `SELECT *, unnest(range(` +
    `CAST(${origin} + (floor((${e} - ${maxRange} - ${origin}) / CAST(${A} AS DOUBLE)) + 1) * ${A} AS BIGINT), ` +
    `CAST(${origin} + floor((${e} - ${origin}) / CAST(${A} AS DOUBLE)) * ${A} + 1 AS BIGINT), ${A})) AS __slot FROM __src`;
  const aggs = ranges.map((r, i) => `${r.expr} FILTER (WHERE ${e} < __slot + ${r.rangeMs}) AS __r${i}`);
  const group = [...by.map((_, i) => `__by${i}`), '__slot'].join(', ');
  const agg = `SELECT ${[...by.map((b, i) => `${b} AS __by${i}`), '__slot', ...aggs].join(', ')} FROM (${slots}) GROUP BY ${group}`;
  const fills = ranges.map((r) => (r.fill !== undefined ? { fill: r.fill, text: r.fillText } : q.fill !== undefined ? { fill: q.fill, text: undefined } : undefined));
  const needGrid = fills.some((f) => f !== undefined);
  const partition = by.length > 0 ? `PARTITION BY ${by.map((_, i) => `__by${i}`).join(', ')} ` : '';
  const value = (i: number): string => {
    const f = fills[i]?.fill;
    const v = `__r${i}`;
    if (f === undefined || f.kind === 'null') return v;
    if (f.kind === 'value') return `coalesce(${v}, ${f.sql})`;
    const before = `OVER (${partition}ORDER BY __slot ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)`;
    if (f.kind === 'prev') return `last_value(${v} IGNORE NULLS) ${before}`;
    const after = `OVER (${partition}ORDER BY __slot ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING)`;
    const pv = `last_value(${v} IGNORE NULLS) ${before}`;
    const ps = `last_value(CASE WHEN ${v} IS NOT NULL THEN __slot END IGNORE NULLS) ${before}`;
    const nv = `first_value(${v} IGNORE NULLS) ${after}`;
    const ns = `first_value(CASE WHEN ${v} IS NOT NULL THEN __slot END IGNORE NULLS) ${after}`;
    return `coalesce(CAST(${v} AS DOUBLE), ${pv} + CAST(${nv} - ${pv} AS DOUBLE) * (__slot - ${ps}) / CAST(nullif(${ns} - ${ps}, 0) AS DOUBLE))`;
  };
  let rows = `(${agg})`;
  if (needGrid) {
    const keys = by.map((_, i) => `__by${i}`);
    // Every slot from each group's first to its last: one row with a far-future timestamp would
    // make billions of them, so their number (all groups together) is checked before any is made.
    const spans = `SELECT ${[...keys, 'min(__slot) AS __lo', 'max(__slot) AS __hi', `sum((max(__slot) - min(__slot)) // ${A} + 1) OVER () AS __slots`].join(', ')} FROM __agg${keys.length > 0 ? ` GROUP BY ${keys.join(', ')}` : ''}`;
    const last = maxSlots > 0 ? `CASE WHEN __slots > ${maxSlots} THEN CAST(${limitErrorSql(`'Range query too large: FILL would make ' || CAST(__slots AS VARCHAR) || ' slots (groups × ALIGN steps from each group''s first row to its last), more than ${maxSlots} (query.max_result_rows); narrow its time range with WHERE'`)} AS BIGINT) ELSE __hi + 1 END` : '__hi + 1';
    const grid = `SELECT ${[...keys, `unnest(range(__lo, ${last}, ${A})) AS __slot`].join(', ')} FROM (${spans})`;
    const on = [...keys.map((k) => `g.${k} IS NOT DISTINCT FROM a.${k}`), 'g.__slot = a.__slot'].join(' AND ');
    rows = `(SELECT ${[...keys.map((k) => `g.${k}`), 'g.__slot', ...ranges.map((_, i) => `a.__r${i}`)].join(', ')} FROM (${grid}) g LEFT JOIN __agg a ON ${on})`;
  }
  const table = q.table.at(-1)!;
  const select = q.items.map((item) => {
    if (item.kind === 'range') {
      const i = ranges.indexOf(item);
      const fillText = item.fillText;
      return `${value(i)} AS ${quoteIdent(item.alias ?? rangeName(item, table, fillText))}`;
    }
    const bare = item.text.replace(/^"(.*)"$/, '$1').toLowerCase();
    if (bare === t.timeIndex.toLowerCase() || item.text === `${table}.${t.timeIndex}`) {
      const start = wall ? `CAST(timezone(${zoneText}, make_timestamp(__slot * 1000)) AS TIMESTAMP)` : 'make_timestamp(__slot * 1000)';
      return `CAST(${start} AS ${t.timeType}) AS ${ts}`;
    }
    const k = by.findIndex((b) => b.replace(/^"(.*)"$/, '$1').toLowerCase() === bare);
    if (k >= 0) return `__by${k} AS ${quoteIdent(item.text.replace(/^"(.*)"$/, '$1'))}`;
    throw syntax(`Illegal Range select: ${item.text} is neither the time index, a BY column nor a RANGE expression`);
  });
  return `WITH __src AS (SELECT * ${q.from}), __agg AS ${agg.startsWith('(') ? agg : `(${agg})`} SELECT ${select.join(', ')} FROM ${needGrid ? rows : '__agg'} ${q.tail}`.trim();
}
