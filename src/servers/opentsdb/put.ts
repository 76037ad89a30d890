/**
 * Decoding of OpenTSDB `/api/put` bodies (reference api.md §1.5): one data point object, or an
 * array of them, each `{"metric", "timestamp", "value", "tags"}`. Valid points become one
 * ingestion table per metric; each invalid one is refused on its own with OpenTSDB's message
 * (`PutDataPointRpc` / `IncomingDataPoint.validate` / `TSDB.addPoint` / `Tags.validateString`), so
 * the rest of the request is still written. Only a body that is not JSON, or not an object or an
 * array of objects, refuses the whole request.
 *
 * Where OpenTSDB and GreptimeDB (`servers/src/http/opentsdb.rs`, `opentsdb/codec.rs`) differ, the
 * GreptimeDB behaviour wins: a point with empty `tags` is accepted (a table with no tag columns),
 * timestamps with fewer than 13 digits are seconds and the others milliseconds, and an empty array
 * is an empty (successful) request.
 *
 * Refused whole (400), as no part of them can be written: a body nested deeper than
 * `MAX_JSON_DEPTH` (GreptimeDB's serde_json refuses those too), a metric with more tags than a
 * table may have columns besides its timestamp and value (`MAX_COLUMNS_PER_TABLE`; OpenTSDB's own
 * limit, `tsd.storage.max_tags`, is 8 by default; GreptimeDB has none), and a body whose tables
 * would hold more cells (rows × columns, NULLs included) than the budget of its size
 * (`ingestCellLimit`, see `../ingest-budget.ts`; a point with many tags among many without).
 */
import { MAX_COLUMNS_PER_TABLE } from '../../catalog/limits.js';
import { StatusCode } from '../../common/error/status-code.js';
import { TsdbError } from '../../common/error/tsdb-error.js';
import type { IngestColumn, IngestTable } from '../../frontend/ingest-request.js';
import { CellBudget } from '../ingest-budget.js';

/** The time index column of the tables OpenTSDB points create (`greptime_timestamp` upstream). */
export const OPENTSDB_TIMESTAMP_COLUMN = 'tsdb_timestamp';
/** The value column of the tables OpenTSDB points create (`greptime_value` upstream). */
export const OPENTSDB_VALUE_COLUMN = 'tsdb_value';

/** The message of a body that is not JSON, or not a data point object / array of them. */
export const INVALID_JSON_REQUEST = 'Invalid OpenTSDB Json request';

/**
 * The deepest nesting of arrays and objects a body may have (serde_json's recursion limit, which
 * GreptimeDB's decoder meets). A valid body needs 3 (an array of points with their tags); deeper
 * values can only be in fields that are refused or ignored, and would otherwise be copied, deep,
 * into error messages and `details` answers.
 */
export const MAX_JSON_DEPTH = 128;

/** The most tags of a metric: a table's columns less its timestamp and value. */
const MAX_TAGS = MAX_COLUMNS_PER_TABLE - 2;

/** The largest millisecond timestamp OpenTSDB accepts (`TSDB.addPointInternal`): 13 digits. */
const MAX_TIMESTAMP_MS = 9_999_999_999_999n;
/** Timestamps with fewer digits than this are seconds (GreptimeDB `DataPoint::timestamp_to_millis`). */
const MS_DIGITS = 13;

/** A point refused while decoding or writing, as `?details` reports it. */
export interface DataPointError {
  /** The point as sent. */
  readonly datapoint: unknown;
  readonly error: string;
}

export interface DecodedPut {
  /** Valid points grouped per metric (table = metric name), in order of first appearance. */
  readonly tables: IngestTable[];
  /** For each table, the index (in the request) of each of its rows, so the server can report per-point failures of a whole table write. */
  readonly rowPoints: number[][];
  /** The request's points as sent (for `details` answers). */
  readonly points: readonly unknown[];
  /** Points refused while decoding, in request order. */
  readonly errors: DataPointError[];
}

/** A data point that passed every check. */
interface ValidPoint {
  readonly metric: string;
  readonly tsMillis: bigint;
  readonly value: number;
  readonly tags: ReadonlyMap<string, string>;
}

/** Rows of one metric while decoding. */
interface TableRows {
  readonly name: string;
  readonly points: ValidPoint[];
  readonly indexes: number[];
  readonly tagKeys: Set<string>;
}

function invalidRequest(cause?: unknown): TsdbError {
  return new TsdbError(StatusCode.InvalidArguments, INVALID_JSON_REQUEST, cause === undefined ? undefined : { cause });
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * Decodes a put body. Throws `TsdbError(InvalidArguments, 'Invalid OpenTSDB Json request')` when
 * the body is not JSON or not an object / array of objects (with the reason when it is nested
 * deeper than `MAX_JSON_DEPTH`), and InvalidArguments when a metric has too many tags or the
 * tables too many cells; refuses invalid points one by one.
 */
export function decodePut(body: string): DecodedPut {
  if (nestedDeeperThan(body, MAX_JSON_DEPTH)) throw new TsdbError(StatusCode.InvalidArguments, `${INVALID_JSON_REQUEST}: arrays and objects nested deeper than ${MAX_JSON_DEPTH} levels`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch (err) {
    throw invalidRequest(err);
  }
  let points: readonly unknown[];
  if (Array.isArray(parsed)) {
    if (!parsed.every(isObject)) throw invalidRequest();
    points = parsed;
  } else if (isObject(parsed)) {
    points = [parsed];
  } else {
    throw invalidRequest();
  }

  const errors: DataPointError[] = [];
  const byMetric = new Map<string, TableRows>();
  const budget = new CellBudget(body.length, 'OpenTSDB put refused');
  points.forEach((point, index) => {
    const checked = checkPoint(point as Record<string, unknown>);
    if (typeof checked === 'string') {
      errors.push({ datapoint: point, error: checked });
      return;
    }
    let rows = byMetric.get(checked.metric);
    if (rows === undefined) {
      rows = { name: checked.metric, points: [], indexes: [], tagKeys: new Set() };
      byMetric.set(checked.metric, rows);
    }
    rows.points.push(checked);
    rows.indexes.push(index);
    const keysBefore = rows.tagKeys.size;
    for (const k of checked.tags.keys()) rows.tagKeys.add(k);
    if (rows.tagKeys.size > MAX_TAGS) throw tooManyTags(checked.metric, rows.tagKeys.size);
    // The point's row (a cell per tag column, the value, the timestamp) and the NULLs of the tag
    // columns it adds in the metric's earlier rows: counted before `tableOf` makes them.
    budget.charge(rows.tagKeys.size + 2 + (rows.tagKeys.size - keysBefore) * (rows.points.length - 1));
  });

  const tables: IngestTable[] = [];
  const rowPoints: number[][] = [];
  for (const rows of byMetric.values()) {
    tables.push(tableOf(rows));
    rowPoints.push(rows.indexes);
  }
  return { tables, rowPoints, points, errors };
}

/**
 * The columns of one metric's rows: its tags sorted by key (NULL where a point lacks one), then
 * the value and the time index, the order GreptimeDB's row writer gives them.
 */
function tableOf(rows: TableRows): IngestTable {
  const n = rows.points.length;
  const columns: IngestColumn[] = [];
  for (const key of [...rows.tagKeys].sort()) {
    const data: Array<string | null> = rows.points.map((p) => p.tags.get(key) ?? null);
    columns.push({ name: key, semantic: 'tag', type: 'String', vector: { type: 'string', data } });
  }
  const values = new Float64Array(n);
  const times = new BigInt64Array(n);
  rows.points.forEach((p, i) => {
    values[i] = p.value;
    times[i] = p.tsMillis;
  });
  columns.push({ name: OPENTSDB_VALUE_COLUMN, semantic: 'field', type: 'Float64', vector: { type: 'float64', data: values } });
  columns.push({ name: OPENTSDB_TIMESTAMP_COLUMN, semantic: 'timestamp', type: 'TimestampMillisecond', vector: { type: 'int64', data: times } });
  return { name: rows.name, rowCount: n, columns };
}

/**
 * Checks one point in OpenTSDB's order (`IncomingDataPoint.validate`, value parsing,
 * `TSDB.addPoint`, `IncomingDataPoints.checkMetricAndTags`); returns the point or the message
 * OpenTSDB gives for the first problem.
 */
function checkPoint(p: Record<string, unknown>): ValidPoint | string {
  const metric = p['metric'];
  if (metric === undefined || metric === null || metric === '') return 'Metric name was empty';
  if (typeof metric !== 'string') return `Invalid metric name: ${JSON.stringify(metric)} is not a string`;

  const ts = parseTimestamp(p['timestamp']);
  if (ts === undefined || ts <= 0n) return 'Invalid timestamp';

  const rawValue = p['value'];
  if (rawValue === undefined || rawValue === null || rawValue === '') return 'Empty value';

  // OpenTSDB also refuses `{}` ("Missing tags"); GreptimeDB accepts it: a table without tags.
  const rawTags = p['tags'];
  if (!isObject(rawTags)) return 'Missing tags';

  const value = parseValue(rawValue);
  if (value === undefined) return 'Unable to parse value to a number';
  if (!Number.isFinite(value)) return `value is NaN or Infinite: ${String(value)} for metric=${metric} timestamp=${ts}`;
  if (ts > MAX_TIMESTAMP_MS) {
    return `bad timestamp=${ts} when trying to add value=${String(value)} to metric=${metric}, tags=${javaMapText(rawTags)}`;
  }

  const badMetric = checkName('metric name', metric);
  if (badMetric !== undefined) return badMetric;
  const tags = new Map<string, string>();
  const entries = Object.entries(rawTags);
  if (entries.length > MAX_TAGS) throw tooManyTags(metric, entries.length);
  for (const [k, v] of entries) {
    const badKey = checkName('tag name', k);
    if (badKey !== undefined) return badKey;
    if (k === OPENTSDB_TIMESTAMP_COLUMN || k === OPENTSDB_VALUE_COLUMN) return `Invalid tag name ("${k}"): reserved for the ${k === OPENTSDB_VALUE_COLUMN ? 'value' : 'timestamp'} column`;
    if (v === null) return 'Invalid tag value: null';
    if (typeof v !== 'string') return `Invalid tag value: ${JSON.stringify(v)} is not a string`;
    const badValue = checkName('tag value', v);
    if (badValue !== undefined) return badValue;
    tags.set(k, v);
  }

  const tsMillis = digitCount(ts) < MS_DIGITS ? ts * 1000n : ts;
  return { metric, tsMillis, value, tags };
}

/** The error of a metric with more tags than its table may have: the request is refused whole. */
function tooManyTags(metric: string, count: number): TsdbError {
  return new TsdbError(
    StatusCode.InvalidArguments,
    `Too many tags for metric ${metric}: ${count}, maximum allowed: ${MAX_TAGS} (a table has at most ${MAX_COLUMNS_PER_TABLE} columns, ${OPENTSDB_TIMESTAMP_COLUMN} and ${OPENTSDB_VALUE_COLUMN} included)`,
  );
}

/**
 * Whether the JSON text `s` nests arrays and objects deeper than `max` (brackets inside strings do
 * not count). One pass over the characters, before JSON.parse builds anything.
 */
export function nestedDeeperThan(s: string, max: number): boolean {
  let depth = 0;
  const n = s.length;
  for (let i = 0; i < n; i++) {
    const c = s.charCodeAt(i);
    if (c === 0x22) {
      // A string: skip to its closing quote, past escaped characters.
      for (i++; i < n; i++) {
        const d = s.charCodeAt(i);
        if (d === 0x5c) i++;
        else if (d === 0x22) break;
      }
    } else if (c === 0x5b || c === 0x7b) {
      if (++depth > max) return true;
    } else if (c === 0x5d || c === 0x7d) {
      depth--;
    }
  }
  return false;
}

/** An integer timestamp from a JSON number or an integer string (as OpenTSDB's Jackson reads it); undefined otherwise. */
function parseTimestamp(v: unknown): bigint | undefined {
  if (typeof v === 'number') return Number.isInteger(v) ? BigInt(v) : undefined;
  if (typeof v === 'string' && /^[+-]?\d+$/.test(v)) return BigInt(v);
  return undefined;
}

/** Decimal number syntax OpenTSDB's `Tags.parseLong` / `Double.parseDouble` accept (no hex, no `f`/`d` suffixes). */
const NUMBER_TEXT = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;
/** Strings `Double.parseDouble` reads as NaN or an infinity (refused afterwards, as OpenTSDB does). */
const NON_FINITE_TEXT = /^[+-]?(NaN|Infinity)$/;

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/**
 * The value of a JSON number or numeric string; undefined when it is not a number. A string
 * without `.`, `e` or `E` is an integer to OpenTSDB (`Tags.looksLikeInteger`) and must fit 64 bits.
 */
function parseValue(v: unknown): number | undefined {
  if (typeof v === 'number') return v;
  if (typeof v !== 'string') return undefined;
  if (NUMBER_TEXT.test(v)) {
    if (!/[.eE]/.test(v)) {
      const n = BigInt(v);
      if (n < INT64_MIN || n > INT64_MAX) return undefined;
    }
    return Number(v);
  }
  if (NON_FINITE_TEXT.test(v)) return v.includes('NaN') ? Number.NaN : v.startsWith('-') ? Number.NEGATIVE_INFINITY : Number.POSITIVE_INFINITY;
  return undefined;
}

function digitCount(n: bigint): number {
  return (n < 0n ? -n : n).toString().length;
}

/** The characters OpenTSDB allows in names (`tsd.core.tag.allow_specialchars` unset). */
const NAME_CHAR = /^[-_./0-9\p{L}]$/u;

/**
 * OpenTSDB's `Tags.validateString`: letters (any script), digits, `-`, `_`, `.`, `/`; returns its
 * message for an empty or otherwise invalid name.
 */
function checkName(what: string, s: string): string | undefined {
  if (s === '') return `Invalid ${what}: empty string`;
  for (const c of s) {
    if (!NAME_CHAR.test(c)) return `Invalid ${what} ("${s}"): illegal character: ${c}`;
  }
  return undefined;
}

/** A tag object as Java prints a map (`{host=web01, dc=lga}`), for OpenTSDB's messages. */
function javaMapText(tags: Record<string, unknown>): string {
  return `{${Object.entries(tags)
    .map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`)
    .join(', ')}}`;
}

/**
 * The answer body of a put with `?summary` or `?details`: `{"success":n,"failed":m}`, plus
 * `"errors":[{"datapoint":…,"error":"…"}]` with details (reference api.md §1.5).
 */
export function putAnswer(success: number, errors: readonly DataPointError[], details: boolean): object {
  const answer: { success: number; failed: number; errors?: DataPointError[] } = { success, failed: errors.length };
  if (details) answer.errors = errors.map((e) => ({ datapoint: e.datapoint, error: e.error }));
  return answer;
}
