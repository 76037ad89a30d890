/**
 * One session time zone rule for queries (reference api.md §7; docs/time-zones.md). DuckDB holds
 * every tsdb timestamp as a naive TIMESTAMP[_S|_MS|_NS] meaning a UTC instant, and its own time zone
 * is fixed at UTC (its configuration is locked, `common/duckdb-sandbox.ts`); the session's
 * zone is applied here, in the parse tree, before DuckDB binds the query:
 *
 * - a timestamp string without an offset, where it is read as a timestamp (cast to one, compared
 *   with a timestamp column or expression, a `date_bin` origin, `to_unixtime`'s argument), is a time
 *   in the session's zone: it is replaced by the same instant written in UTC (`localOffsetMinutes`
 *   decides daylight-saving edges); one with an offset means what it says (and is normalized too,
 *   since DuckDB ignores an offset cast to TIMESTAMP or TIMESTAMP_MS);
 * - `now()`, `current_timestamp` (also with parentheses and a precision), `get_current_timestamp()`,
 *   `transaction_timestamp()`, `localtimestamp`, `current_localtimestamp()` are the query's start as
 *   a TIMESTAMP constant (DuckDB's are TIMESTAMP WITH TIME ZONE, which it refuses to compare with
 *   TIMESTAMP_S/_MS/_NS columns); `current_date` / `today()` and `current_time` are the session's
 *   local date and time of day;
 * - `date_add(t, interval)` / `date_sub(t, interval)` (MySQL's) are `t + interval` / `t - interval`
 *   (an interval written as a string is cast to one; of a column, or of a cast to a date or a
 *   timestamp unit, the result is of that type)
 *   (DuckDB's `date_sub` is a difference of three arguments, left as it is);
 * - `date_trunc`, two-argument `date_bin` / `time_bucket` and `date_format` of a timestamp work on
 *   the session's wall clock (`rewriteSessionBuckets`): a day starts at local midnight.
 */
import { canonicalTimeZone, civilFromDays, parseOffset, parseTimestamp, utcParts, zoneOffsetMinutes } from '../common/time/timestamp.js';
import type { TimeUnit } from '../types/time-unit.js';
import { castNode, castTypeOf, columnNamesOf, functionNameOf, functionNode, isNode, stringNode, stringOf, type FoldedListOf, type Json, type Node } from './sql-tree.js';

/** What the rewrites need to know of a query's session and tables. */
export interface SessionTime {
  /** The session's time zone (`UTC`, `+08:00`, an IANA name). */
  readonly zone: string;
  /** The query's start (milliseconds since the epoch): every `now()` of the query. */
  readonly nowMs: number;
  /** Timestamp columns of the tables the query reads, by name (last one wins on a clash). */
  readonly timestampColumns: ReadonlyMap<string, TimeUnit>;
  /** Every column name of those tables (lower case): a column named `current_date` is a column. */
  readonly columnNames: ReadonlySet<string>;
  /** Literal lists folded out of the query text: told when their strings are read as timestamps. */
  readonly foldedList?: FoldedListOf;
}

/** DuckDB's names of the timestamp types a cast can name. */
const TIMESTAMP_CAST_TYPES = new Set(['TIMESTAMP', 'TIMESTAMP_S', 'TIMESTAMP_MS', 'TIMESTAMP_NS', 'TIMESTAMP WITH TIME ZONE']);

/** Functions whose value is a timestamp (of a timestamp argument, or made from numbers). */
const TIMESTAMP_FUNCTIONS = new Set(['from_unixtime', 'date_trunc', 'date_bin', 'time_bucket', 'to_timestamp', 'make_timestamp', 'make_timestamp_ns', 'make_timestamptz', 'epoch_ms', 'date_add', 'timezone']);

/** Calls that are the query's start (any schema-less spelling DuckDB or GreptimeDB users write). */
const NOW_FUNCTIONS = new Set(['now', 'current_timestamp', 'get_current_timestamp', 'transaction_timestamp', 'localtimestamp', 'current_localtimestamp']);
const NOW_COLUMNS = new Set(['current_timestamp', 'localtimestamp']);
const TODAY_FUNCTIONS = new Set(['today', 'current_date']);
const TIME_FUNCTIONS = new Set(['get_current_time', 'current_localtime', 'current_time', 'localtime']);

/** Whether the zone is UTC at every instant. */
export function isUtc(zone: string): boolean {
  const z = zone.trim();
  return z === '' || /^(utc|z|system|etc\/utc|gmt|etc\/gmt|universal|zulu|etc\/universal|etc\/zulu)$/i.test(z) || parseOffset(z) === 0;
}

const pad = (n: number, w = 2) => String(n).padStart(w, '0');

/**
 * The UTC instant `ns` (nanoseconds since the epoch) as naive text DuckDB reads as that instant in
 * every timestamp type (`2024-07-01 16:00:00.5`); undefined outside years 1–9999 (DuckDB writes
 * other years its own way; such strings are left as the user wrote them).
 */
export function utcText(ns: bigint): string | undefined {
  const { year, month, day, hour, minute, second, nanos } = utcParts(ns);
  if (year < 1 || year > 9999) return undefined;
  const fraction = nanos === 0n ? '' : `.${nanos.toString().padStart(9, '0').replace(/0+$/, '')}`;
  return `${pad(year, 4)}-${pad(month)}-${pad(day)} ${pad(hour)}:${pad(minute)}:${pad(second)}${fraction}`;
}

/** The wall clock of the zone at `utcMs`, as `{ date, time }` texts. */
function wallClock(zone: string, utcMs: number): { date: string; time: string } {
  const local = utcMs + zoneOffsetMinutes(zone, Math.floor(utcMs / 1000)) * 60_000;
  const days = Math.floor(local / 86_400_000);
  const msOfDay = local - days * 86_400_000;
  const { year, month, day } = civilFromDays(days);
  const s = Math.floor(msOfDay / 1000);
  return { date: `${pad(year, 4)}-${pad(month)}-${pad(day)}`, time: `${pad(Math.floor(s / 3600))}:${pad(Math.floor((s % 3600) / 60))}:${pad(s % 60)}.${pad(msOfDay % 1000, 3)}` };
}

/** A timestamp string read in `zone` as UTC text (undefined: not a timestamp tsdb reads; DuckDB's to judge). */
export function normalizeTimestampText(text: string, zone: string): string | undefined {
  const ns = parseTimestamp(text, 'ns', zone);
  return ns === undefined ? undefined : utcText(ns);
}

/**
 * Applies the session's time rules of the header comment (all but the wall-clock buckets) to the
 * serialized parse tree `tree`, in place. (The caller names the select items it changed as DuckDB
 * named what the user wrote.)
 */
export function rewriteSessionTime(tree: unknown, st: SessionTime): void {
  // Computed when a query asks for them (most do not).
  let nowCache: string | undefined;
  let wallCache: { date: string; time: string } | undefined;
  const nowNode = () => castNode(stringNode((nowCache ??= utcText(BigInt(st.nowMs) * 1_000_000n)!)), 'TIMESTAMP');
  const wall = () => (wallCache ??= wallClock(st.zone, st.nowMs));
  const isTimestampExpr = timestampTest(st.timestampColumns);

  /** Replaces a timestamp string constant at parent[key] by its UTC text. */
  const normalizeAt = (parent: Node | Json[], key: string | number): void => {
    const v = (parent as Record<string | number, Json>)[key];
    const folded = st.foldedList?.(v);
    if (folded !== undefined) return folded.stringsAreTimestamps(st.zone);
    const s = stringOf(v);
    if (s === undefined) return;
    const utc = normalizeTimestampText(s, st.zone);
    if (utc !== undefined && utc !== s) ((v as Node)['value'] as Node)['value'] = utc;
  };

  /** The replacement of a now-like node, else undefined. */
  const nowLike = (n: Node): Node | undefined => {
    const f = functionNameOf(n);
    const children = n['children'];
    if (f !== undefined && n['schema'] === '' && Array.isArray(children)) {
      if (NOW_FUNCTIONS.has(f) && children.length <= 1) return nowNode();
      if (TODAY_FUNCTIONS.has(f) && children.length === 0) return castNode(stringNode(wall().date), 'DATE');
      if (TIME_FUNCTIONS.has(f) && children.length === 0) return castNode(stringNode(wall().time), 'TIME');
      return undefined;
    }
    const names = columnNamesOf(n);
    if (names === undefined || names.length !== 1) return undefined;
    const c = names[0]!.toLowerCase();
    if (st.columnNames.has(c)) return undefined;
    if (NOW_COLUMNS.has(c)) return nowNode();
    if (c === 'current_date') return castNode(stringNode(wall().date), 'DATE');
    if (c === 'current_time' || c === 'localtime') return castNode(stringNode(wall().time), 'TIME');
    return undefined;
  };

  /** The rewritten form of node `n` (its children first). */
  const visit = (n: Json): Json => {
    if (Array.isArray(n)) {
      for (let i = 0; i < n.length; i++) n[i] = visit(n[i]!);
      return n;
    }
    if (!isNode(n)) return n;
    for (const k in n) {
      const v = n[k]!;
      if (typeof v === 'object' && v !== null) {
        const after = visit(v);
        if (after !== v) n[k] = after;
      }
    }
    const now = nowLike(n);
    if (now !== undefined) {
      now['alias'] = n['alias'] as string;
      return now;
    }
    const cast = castTypeOf(n);
    if (cast !== undefined && TIMESTAMP_CAST_TYPES.has(cast)) normalizeAt(n, 'child');
    if (n['class'] === 'COMPARISON') {
      if (isTimestampExpr(n['left'])) normalizeAt(n, 'right');
      if (isTimestampExpr(n['right'])) normalizeAt(n, 'left');
    } else if (n['class'] === 'BETWEEN') {
      if (isTimestampExpr(n['input'])) {
        normalizeAt(n, 'lower');
        normalizeAt(n, 'upper');
      }
    } else if (n['class'] === 'OPERATOR' && (n['type'] === 'COMPARE_IN' || n['type'] === 'COMPARE_NOT_IN')) {
      const children = n['children'] as Json[];
      if (isTimestampExpr(children[0])) for (let i = 1; i < children.length; i++) normalizeAt(children, i);
    }
    const f = functionNameOf(n);
    if (f !== undefined && n['schema'] === '') {
      const children = n['children'] as Json[];
      if ((f === 'to_unixtime' || f === 'unix_timestamp' || f === 'date_format') && children.length >= 1) normalizeAt(children, 0);
      if ((f === 'date_bin' || f === 'time_bucket') && children.length === 3) normalizeAt(children, 2);
      if ((f === 'date_add' || f === 'date_sub') && children.length === 2 && n['is_operator'] !== true) {
        // GreptimeDB takes the interval as a string too (`date_sub(ts, '1 day')`).
        const interval = stringOf(children[1]) !== undefined ? castNode(children[1]!, 'INTERVAL') : children[1]!;
        const op = functionNode(f === 'date_add' ? '+' : '-', [children[0]!, interval], true);
        op['alias'] = n['alias'] as string;
        // A date stays a date and a timestamp keeps its unit, as in GreptimeDB (DuckDB's DATE or
        // TIMESTAMP_MS ± INTERVAL is a TIMESTAMP).
        const type = castTypeOf(children[0]);
        if (type === 'DATE' || type === 'TIMESTAMP_S' || type === 'TIMESTAMP_MS' || type === 'TIMESTAMP_NS') return { ...castNode({ ...op, alias: '' }, type), alias: op['alias'] };
        // Of a column (a DATE or a TIMESTAMP of any unit), the column's type.
        if (isNode(children[0]) && children[0]['class'] === 'COLUMN_REF') return { ...functionNode('cast_to_type', [{ ...op, alias: '' }, structuredClone(children[0])]), alias: op['alias'] };
        return op;
      }
    }
    return n;
  };
  visit(tree as Json);
}

/**
 * Whether an expression is a timestamp: a column of `columns`, a cast to a timestamp type, a
 * function giving one, or such a thing plus or minus an interval.
 */
export function timestampTest(columns: ReadonlyMap<string, TimeUnit>): (n: Json | undefined) => boolean {
  const test = (n: Json | undefined): boolean => {
    if (!isNode(n)) return false;
    const names = columnNamesOf(n);
    if (names !== undefined) return columns.has(names[names.length - 1]!);
    const cast = castTypeOf(n);
    if (cast !== undefined) return TIMESTAMP_CAST_TYPES.has(cast);
    const f = functionNameOf(n);
    if (f === undefined) return false;
    if (TIMESTAMP_FUNCTIONS.has(f)) return true;
    // date_add/date_sub of a column, rewritten above: of the column's type.
    if (f === 'cast_to_type') return test((n['children'] as Json[])[1]);
    return (f === '+' || f === '-') && test((n['children'] as Json[])[0]);
  };
  return test;
}

/** `INTERVAL (minutes) MINUTE` as DuckDB parses it. */
function minutes(m: number): Node {
  return functionNode('to_minutes', [{ class: 'CONSTANT', type: 'VALUE_CONSTANT', alias: '', query_location: 0, value: { type: { id: 'BIGINT', type_info: null }, is_null: false, value: m } }]);
}

/**
 * `date_trunc(part, t)`, two-argument `date_bin(stride, t)` / `time_bucket(stride, t)` and
 * `date_format(t, fmt)` of a timestamp `t`, in a session whose zone is not UTC, rewritten to work on
 * the zone's wall clock, in place: `t` is turned into its wall-clock time, bucketed (or formatted),
 * and a bucket's start turned back into an instant. A fixed offset is plain arithmetic; a zone with
 * daylight saving goes through DuckDB's ICU (`timezone`) and the `__tsdb_instant` macro
 * (`session-functions.ts`), which keeps `t`'s own offset when it holds at the bucket's start (the
 * repeated hour) and asks the zone otherwise (a day that began before a change). Returns whether it
 * changed anything. Call after `rewriteTimeLiterals`, whose casts back to the column's unit stay
 * outside.
 */
export function rewriteSessionBuckets(tree: unknown, zone: string, isTimestampArg: (n: Json | undefined) => boolean): boolean {
  if (isUtc(zone)) return false;
  const fixed = parseOffset(zone);
  const zoneName = stringNode(canonicalTimeZone(zone));
  let changed = false;
  const toWall = (t: Json): Node => (fixed !== undefined ? functionNode('+', [t, minutes(fixed)], true) : functionNode('timezone', [zoneName, castNode(t, 'TIMESTAMP WITH TIME ZONE')]));
  const toInstant = (bucket: Node, t: Json): Node => (fixed !== undefined ? functionNode('-', [bucket, minutes(fixed)], true) : functionNode('__tsdb_instant', [bucket, t, zoneName]));
  const visit = (n: Json): Json => {
    if (Array.isArray(n)) {
      for (let i = 0; i < n.length; i++) n[i] = visit(n[i]!);
      return n;
    }
    if (!isNode(n)) return n;
    for (const [k, v] of Object.entries(n)) n[k] = visit(v);
    const f = functionNameOf(n);
    if (f === undefined || n['schema'] !== '') return n;
    const children = n['children'] as Json[];
    const bucketed = (f === 'date_trunc' && children.length === 2) || ((f === 'date_bin' || f === 'time_bucket') && children.length === 2);
    if (bucketed && isTimestampArg(children[1]!)) {
      changed = true;
      const t = children[1]!;
      const inner = functionNode(f, [children[0]!, toWall(structuredClone(t))]);
      const out = toInstant(inner, t);
      out['alias'] = n['alias'] as string;
      return out;
    }
    if (f === 'date_format' && children.length === 2) {
      changed = true;
      children[0] = toWall(children[0]!);
    }
    return n;
  };
  visit(tree as Json);
  return changed;
}
