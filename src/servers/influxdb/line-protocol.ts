/**
 * InfluxDB line protocol → one `IngestTable` per measurement (reference: InfluxDB line protocol,
 * https://docs.influxdata.com/influxdb/v1/write_protocols/line_protocol_reference/).
 *
 *   <measurement>[,<tag_key>=<tag_value>...] <field_key>=<field_value>[,...] [<timestamp>]
 *
 * - Escapes: `\,` `\ ` `\\` in measurements; `\,` `\=` `\ ` `\\` in tag keys, tag values and field
 *   keys; `\"` `\\` in string field values. A backslash before any other character is literal.
 * - Values: `1.5` / `-1` / `.5` / `1.` / `1e5` float; `1i` integer (int64); `1u` unsigned (uint64);
 *   `t` `T` `true` `True` `TRUE` (and `f`… `false`…) boolean; `"…"` string, which may span lines.
 * - Lines end with `\n` or `\r\n`; blank lines and lines starting with `#` are skipped; leading and
 *   trailing spaces and tabs are ignored.
 * - Refused: empty tag values, an unescaped `=` in a tag value, duplicate tags in a line, lines
 *   without fields, integers outside their range, NaN / Inf, timestamps (× precision) outside the
 *   range of a nanosecond time index (1677-09-22 to 2262-04-11, `TIMESTAMP_RANGE.ns`), text after
 *   the timestamp, a key that is a tag in one line and a field in another, a field with two types in
 *   one request, a tag or field named `tsdb_timestamp`, a measurement with more tags and fields than
 *   a table may have columns (`MAX_COLUMNS_PER_TABLE`, less the time index), a body whose tables
 *   would hold more cells (rows × columns, NULLs included) than its budget (`ingestCellLimit`, from
 *   the body's length: see `../ingest-budget.ts`). A repeated field in a line: the last value wins.
 *
 * The whole body is refused on the first bad line (`LineProtocolError`, naming the 1-based line).
 *
 * Written for speed (the aim: ≥ 1M TSBS lines/s on one core; bench/line-protocol/parse-bench.ts):
 * - Series cache: a line's `measurement,tag=value…` text, when free of backslashes, is looked up
 *   whole in a cache shared by requests (first compared with the series that followed the previous
 *   line's last time, else a Map lookup). A hit skips the tag parser; its values are shared strings.
 * - Otherwise one pass over char codes; the k-th key of a line is first compared with the k-th key
 *   of the previous line of its table; tag values are interned per column. Comparisons are substring
 *   `===` (a memcmp), not `startsWith` (a char loop, slow on long strings).
 * - Floats of at most 2^53 as digits and no exponent are `digits / 10^k`, exactly as Number() reads
 *   them (both operands exact, one rounding); others go through Number(). 64-bit integers and
 *   timestamps (× precision) are written as two exact 32-bit halves; BigInt only for integers > 2^53.
 * - Arrays grow by doubling (the first table starts sized for every line, unless a line makes it too
 *   wide for that budget) and are trimmed at the end. The budget costs one addition per line.
 * - Strings in the output are copies, never views into the body that would keep it in memory.
 */
import { MAX_COLUMNS_PER_TABLE } from '../../catalog/limits.js';
import { StatusCode } from '../../common/error/status-code.js';
import { TsdbError } from '../../common/error/tsdb-error.js';
import { RANGE_HALVES } from '../../common/time/range-halves.js';
import { checkTimestampRange } from '../../common/time/timestamp.js';
import type { IngestColumn, IngestTable } from '../../frontend/ingest-request.js';
import { cellLimitProblem, ingestCellLimit } from '../ingest-budget.js';

export type Precision = 'ns' | 'us' | 'ms' | 's' | 'm' | 'h';

/** The name of the time index column of every table the line protocol creates. */
export const TIMESTAMP_COLUMN = 'tsdb_timestamp';

/** Nanoseconds per unit of each precision, as factors small enough for exact 32-bit-half products. */
const PRECISION_STEPS: Record<Precision, readonly number[]> = {
  ns: [],
  us: [1000],
  ms: [1000, 1000],
  s: [1000, 1000, 1000],
  m: [1000, 1000, 1000, 60],
  h: [1000, 1000, 1000, 3600],
};

/** Nanoseconds per unit of each precision. */
const PRECISION_NS: Record<Precision, bigint> = { ns: 1n, us: 1_000n, ms: 1_000_000n, s: 1_000_000_000n, m: 60_000_000_000n, h: 3_600_000_000_000n };

/** The range of the nanosecond time index (`TIMESTAMP_RANGE.ns`) as 32-bit halves. */
const { minHi: NS_MIN_HI, minLo: NS_MIN_LO, maxHi: NS_MAX_HI, maxLo: NS_MAX_LO } = RANGE_HALVES.ns;

/**
 * The `precision` query parameter: `n` / `ns` (also when absent or empty), `u` / `us` / `µ`, `ms`,
 * `s`, `m`, `h`.
 */
export function parsePrecision(name: string | undefined): Precision {
  switch (name) {
    case undefined:
    case '':
    case 'n':
    case 'ns':
      return 'ns';
    case 'u':
    case 'us':
    case '\u00b5': // MICRO SIGN
    case '\u03bc': // GREEK SMALL LETTER MU, which keyboards often produce instead
      return 'us';
    case 'ms':
      return 'ms';
    case 's':
      return 's';
    case 'm':
      return 'm';
    case 'h':
      return 'h';
    default:
      throw new TsdbError(StatusCode.InvalidArguments, `Failed to convert time precision, name: ${name}`);
  }
}

/** A body that is not valid line protocol: `line` is the 1-based line where the bad point starts. */
export class LineProtocolError extends TsdbError {
  constructor(
    readonly line: number,
    readonly problem: string,
  ) {
    super(StatusCode.InvalidArguments, `Failed to parse InfluxDB line protocol, line ${line}: ${problem}`);
  }
}

export interface LineProtocolOptions {
  readonly precision: Precision;
  /** Nanoseconds since the epoch, the timestamp of lines without one. */
  readonly now: bigint;
}

/** Parses a whole request body; throws `LineProtocolError` on the first bad line. */
export function parseLineProtocol(body: string, opts: LineProtocolOptions): IngestTable[] {
  return new LineProtocolParser(body, opts.precision, opts.now).parse();
}

// Char codes.
const TAB = 9;
const NL = 10;
const CR = 13;
const SPACE = 32;
const QUOTE = 34;
const HASH = 35;
const PLUS = 43;
const COMMA = 44;
const MINUS = 45;
const DOT = 46;
const ZERO = 48;
const NINE = 57;
const EQ = 61;
const UPPER_E = 69;
const UPPER_F = 70;
const UPPER_T = 84;
const BACKSLASH = 92;
const LOWER_E = 101;
const LOWER_F = 102;
const LOWER_I = 105;
const LOWER_T = 116;
const LOWER_U = 117;

// Column kinds.
const TAG = 0;
const FLOAT = 1;
const INT = 2;
const UINT = 3;
const BOOL = 4;
const STRING = 5;
type Kind = typeof TAG | typeof FLOAT | typeof INT | typeof UINT | typeof BOOL | typeof STRING;

const KIND_TYPE = ['String', 'Float64', 'Int64', 'UInt64', 'Boolean', 'String'] as const;

const TWO_32 = 4294967296;
const MAX_SAFE = Number.MAX_SAFE_INTEGER;
/** 10^0 … 10^22: every one exact as a double, so `digits / 10^k` is correctly rounded. */
const POW10: readonly number[] = Array.from({ length: 23 }, (_, k) => Number(`1e${k}`));
const INT64_MIN = -(1n << 63n);
const INT64_MAX = (1n << 63n) - 1n;
const UINT64_MAX = (1n << 64n) - 1n;

/** Offsets of the low and high 32-bit halves of a 64-bit slot in an Int32Array. */
const LITTLE_ENDIAN = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;
const LO = LITTLE_ENDIAN ? 0 : 1;
const HI = LITTLE_ENDIAN ? 1 : 0;

const EMPTY_F64 = new Float64Array(0);
const EMPTY_I32 = new Int32Array(0);
const EMPTY_U8 = new Uint8Array(0);
const INITIAL_CAPACITY = 64;
const MAX_INITIAL_CAPACITY = 1 << 18;
/** Slots of a tag column's table of distinct values at first (a power of 2). */
const INTERN_INITIAL = 64;
/** Distinct values a tag column remembers at most; beyond, new values are plain copies. */
const INTERN_MAX = 1 << 16;

/**
 * A copy of `s` that does not keep alive the string it was cut from: V8 makes substrings of 13 or
 * more characters views into their parent, which would keep a whole request body in memory for as
 * long as one name or value taken from it lives. `(s + ' ')` is a rope; slicing it flattens it into
 * a new string (of which the result is a view, but a small one).
 */
function detach(s: string): string {
  return s.length < 13 ? s : (s + ' ').slice(0, -1);
}

/** One tag or field column of a table being built. Every kind shares one shape (monomorphic). */
class ColumnBuilder {
  /** The last row that set this column (to find rows without it, and repeated keys). */
  lastRow = -1;
  cap: number;
  f64: Float64Array = EMPTY_F64;
  /** int64 / uint64 values as 32-bit halves (see LO, HI), 2 per row. */
  i32: Int32Array = EMPTY_I32;
  u8: Uint8Array = EMPTY_U8;
  /** Tags and string fields; `null` until a row sets its value. */
  strs: (string | null)[] = [];
  /** Numeric kinds: 0 = NULL; allocated on the first NULL only. */
  valid: Uint8Array | null = null;
  /**
   * Tag values seen so far (open addressing on a hash of their chars), so that repeated values share
   * one string: no allocation per row, and no copies for the garbage collector to promote.
   */
  private internValues: (string | undefined)[] = [];
  private internHashes: Int32Array = EMPTY_I32;
  private internCount = 0;

  constructor(
    readonly name: string,
    readonly kind: Kind,
    /** The line that created the column, named in type conflicts. */
    readonly line: number,
    row: number,
    cap: number,
  ) {
    while (cap <= row) cap *= 2;
    this.cap = cap;
    if (kind === TAG || kind === STRING) {
      this.strs = new Array<string | null>(cap).fill(null);
      if (kind === TAG) {
        this.internValues = new Array<string | undefined>(INTERN_INITIAL).fill(undefined);
        this.internHashes = new Int32Array(INTERN_INITIAL);
      }
      return;
    }
    if (kind === FLOAT) this.f64 = new Float64Array(cap);
    else if (kind === BOOL) this.u8 = new Uint8Array(cap);
    else this.i32 = new Int32Array(cap * 2);
    // Rows before this one lack the column.
    if (row > 0) this.valid = new Uint8Array(cap);
  }

  /** The tag value `s.slice(start, end)`, the same string as before when seen before; `hash` is a hash of its chars. */
  intern(s: string, start: number, end: number, hash: number): string {
    const values = this.internValues;
    const mask = values.length - 1;
    const len = end - start;
    for (let i = hash & mask; ; i = (i + 1) & mask) {
      const v = values[i];
      if (v === undefined) break;
      if (this.internHashes[i] === hash && v.length === len && s.slice(start, end) === v) return v;
    }
    const v = detach(s.slice(start, end));
    if (this.internCount < INTERN_MAX) this.internInsert(v, hash);
    return v;
  }

  private internInsert(v: string, hash: number): void {
    if (2 * (this.internCount + 1) > this.internValues.length) {
      const oldValues = this.internValues;
      const oldHashes = this.internHashes;
      this.internValues = new Array<string | undefined>(oldValues.length * 2).fill(undefined);
      this.internHashes = new Int32Array(oldValues.length * 2);
      this.internCount = 0;
      for (let i = 0; i < oldValues.length; i++) {
        const old = oldValues[i];
        if (old !== undefined) this.internInsert(old, oldHashes[i]!);
      }
    }
    const values = this.internValues;
    const mask = values.length - 1;
    let i = hash & mask;
    while (values[i] !== undefined) i = (i + 1) & mask;
    values[i] = v;
    this.internHashes[i] = hash;
    this.internCount++;
  }

  /** Makes room for `row`. */
  grow(row: number): void {
    let cap = this.cap * 2;
    while (cap <= row) cap *= 2;
    this.resize(cap);
  }

  /** Gives the column room for `cap` rows (more or fewer than now), keeping the values of the first `cap`. */
  resize(cap: number): void {
    if (this.kind === TAG || this.kind === STRING) {
      const old = this.strs.length;
      this.strs.length = cap;
      if (cap > old) this.strs.fill(null, old);
    } else if (this.kind === FLOAT) {
      const a = new Float64Array(cap);
      a.set(this.f64.subarray(0, cap));
      this.f64 = a;
    } else if (this.kind === BOOL) {
      const a = new Uint8Array(cap);
      a.set(this.u8.subarray(0, cap));
      this.u8 = a;
    } else {
      const a = new Int32Array(cap * 2);
      a.set(this.i32.subarray(0, cap * 2));
      this.i32 = a;
    }
    if (this.valid !== null) {
      const v = new Uint8Array(cap);
      v.set(this.valid.subarray(0, cap));
      this.valid = v;
    }
    this.cap = cap;
  }

  /** Marks `row` NULL (strings already are). */
  setNull(row: number): void {
    if (this.kind === TAG || this.kind === STRING) return;
    if (row >= this.cap) this.grow(row);
    if (this.valid === null) {
      this.valid = new Uint8Array(this.cap);
      this.valid.fill(1, 0, row);
    } else {
      this.valid[row] = 0;
    }
  }

  toColumn(rows: number): IngestColumn {
    const name = this.name;
    const type = KIND_TYPE[this.kind];
    if (this.kind === TAG || this.kind === STRING) {
      // Rows past the column's room that did not set it are NULL too (not holes).
      const old = this.strs.length;
      this.strs.length = rows;
      if (rows > old) this.strs.fill(null, old);
      return { name, semantic: this.kind === TAG ? 'tag' : 'field', type, vector: { type: 'string', data: this.strs } };
    }
    const valid = this.valid === null ? undefined : trimU8(this.valid, rows);
    switch (this.kind) {
      case FLOAT: {
        const data = this.f64.length === rows ? this.f64 : this.f64.slice(0, rows);
        return { name, semantic: 'field', type, vector: valid === undefined ? { type: 'float64', data } : { type: 'float64', data, valid } };
      }
      case BOOL: {
        const data = trimU8(this.u8, rows);
        return { name, semantic: 'field', type, vector: valid === undefined ? { type: 'bool', data } : { type: 'bool', data, valid } };
      }
      case INT: {
        const data = new BigInt64Array(trimBuffer(this.i32, rows));
        return { name, semantic: 'field', type, vector: valid === undefined ? { type: 'int64', data } : { type: 'int64', data, valid } };
      }
      default: {
        const data = new BigUint64Array(trimBuffer(this.i32, rows));
        return { name, semantic: 'field', type, vector: valid === undefined ? { type: 'uint64', data } : { type: 'uint64', data, valid } };
      }
    }
  }
}

function trimU8(a: Uint8Array, rows: number): Uint8Array {
  return a.length === rows ? a : a.slice(0, rows);
}

/** The first `rows` 64-bit slots of `a` as their own buffer. */
function trimBuffer(a: Int32Array, rows: number): ArrayBuffer {
  const buf = a.buffer as ArrayBuffer;
  return buf.byteLength === rows * 8 ? buf : buf.slice(0, rows * 8);
}

/** The rows of one measurement being built. */
class TableBuilder {
  rows = 0;
  /** Timestamps in ns as 32-bit halves, 2 per row. */
  ts: Int32Array;
  readonly tags: ColumnBuilder[] = [];
  readonly fields: ColumnBuilder[] = [];
  readonly byName = new Map<string, ColumnBuilder>();
  /** The column of the k-th tag / field key of the last line, and that key as written. */
  readonly tagLayout: ColumnBuilder[] = [];
  readonly tagLayoutKeys: string[] = [];
  readonly fieldLayout: ColumnBuilder[] = [];
  readonly fieldLayoutKeys: string[] = [];

  constructor(
    readonly name: string,
    /** The measurement as last written (escaped), to recognise the next line of this table. */
    public raw: string,
    public cap: number,
  ) {
    this.ts = new Int32Array(cap * 2);
  }

  growRows(): void {
    const cap = this.cap * 2;
    const ts = new Int32Array(cap * 2);
    ts.set(this.ts);
    this.ts = ts;
    this.cap = cap;
  }

  /**
   * Gives the table, and its columns, room for `cap` rows (at least one more than it has): undoes
   * the room given up front (sized for every line of the body) when the table turns out too wide
   * for it.
   */
  shrink(cap: number): void {
    const ts = new Int32Array(cap * 2);
    ts.set(this.ts.subarray(0, cap * 2));
    this.ts = ts;
    for (const c of this.tags) if (c.cap > cap) c.resize(cap);
    for (const c of this.fields) if (c.cap > cap) c.resize(cap);
    this.cap = cap;
  }

  /** Marks NULL the columns that `row` did not set. */
  fillNulls(row: number): void {
    for (const c of this.tags) if (c.lastRow !== row) c.setNull(row);
    for (const c of this.fields) if (c.lastRow !== row) c.setNull(row);
  }

  toTable(): IngestTable {
    const rows = this.rows;
    const columns: IngestColumn[] = [];
    for (const c of this.tags) columns.push(c.toColumn(rows));
    for (const c of this.fields) columns.push(c.toColumn(rows));
    columns.push({
      name: TIMESTAMP_COLUMN,
      semantic: 'timestamp',
      type: 'TimestampNanosecond',
      vector: { type: 'int64', data: new BigInt64Array(trimBuffer(this.ts, rows)) },
    });
    return { name: this.name, rowCount: rows, columns };
  }
}

/**
 * A series (`measurement,tag=value,…` as written, without backslashes) parsed before: its
 * measurement and tags. Shared by all requests, so that the lines of a known series skip the tag
 * parser: one `Map` lookup instead. Valid for any request: its text alone defines it.
 */
interface SeriesEntry {
  /** The series as written: the cache key. */
  readonly key: string;
  readonly generation: number;
  readonly measurement: string;
  readonly tagNames: readonly string[];
  readonly tagValues: readonly string[];
  /** The parse that last bound the entry to its table and columns, and where it keeps them. */
  parseId: number;
  slot: number;
  /**
   * The series of the line that followed this one last time. Writers tend to repeat one order of
   * series (TSBS: every host at one time, then every host at the next), so the next line is checked
   * against it first: one comparison instead of hashing the whole series for the map.
   */
  next: SeriesEntry | null;
}

/** The table and tag columns of a series in one parse. */
interface SeriesBinding {
  readonly table: TableBuilder;
  readonly cols: readonly ColumnBuilder[];
}

/**
 * Series remembered at most: about 400 bytes each for TSBS cpu (26 MB when full). A full cache
 * takes no more series (writers that cycle through more series than it holds still find most), and
 * starts over once 4 × as many series missed it (the series written have changed).
 */
export const DEFAULT_MAX_SERIES = 1 << 16;
let maxSeries = DEFAULT_MAX_SERIES;
const SERIES = new Map<string, SeriesEntry>();
/** Bumped when the cache starts over: `next` links to older entries are then ignored. */
let generation = 0;
let missedWhenFull = 0;
let parses = 0;

/** Forgets every series parsed so far, and sets how many the cache holds (tests use small ones). */
export function resetSeriesCache(limit = DEFAULT_MAX_SERIES): void {
  SERIES.clear();
  generation++;
  missedWhenFull = 0;
  maxSeries = limit;
}

/** `s` for an error message: quoted, escaped, and cut after 64 characters. */
function quote(s: string): string {
  return JSON.stringify(s.length > 64 ? `${s.slice(0, 64)}…` : s);
}

/** Removes the backslashes of `\,` `\ ` `\\` (measurements) or also `\=` (keys, tag values). */
function unescapeName(raw: string, equals: boolean): string {
  let out = '';
  let from = 0;
  for (let i = 0; i < raw.length; i++) {
    if (raw.charCodeAt(i) !== BACKSLASH) continue;
    const d = raw.charCodeAt(i + 1);
    if (d === COMMA || d === SPACE || d === BACKSLASH || (equals && d === EQ)) {
      out += raw.slice(from, i);
      from = i + 1;
      i++;
    }
  }
  return out + raw.slice(from);
}

/** A char that ends a field value or a timestamp. */
function endsValue(c: number): boolean {
  return c === COMMA || c === SPACE || c === NL || c === CR || c === TAB;
}

class LineProtocolParser {
  private readonly s: string;
  private readonly n: number;
  private readonly precision: Precision;
  private readonly steps: readonly number[];
  private readonly nowHi: number;
  private readonly nowLo: number;
  private readonly id = ++parses;
  private pos = 0;
  /** The physical line of `pos`. */
  private line = 1;
  /** The line where the point being parsed starts. */
  private lineNo = 1;
  private readonly tables = new Map<string, TableBuilder>();
  private readonly order: TableBuilder[] = [];
  /** The table of the last line parsed without the series cache. */
  private last: TableBuilder | null = null;
  private readonly bindings: SeriesBinding[] = [];
  /** The cached series of the last line, if it had one. */
  private prevEntry: SeriesEntry | null = null;
  /** The first backslash / newline at or after the current line (-1: not searched yet). */
  private nextBackslash = -1;
  private nextNewline = -1;
  /** The tag columns and values of the line, in order (`tags` fills them). */
  private readonly lineCols: ColumnBuilder[] = [];
  private readonly lineVals: string[] = [];
  /** The cells (rows × columns, the time index included) the tables may hold (`ingestCellLimit`), and hold so far. */
  private readonly maxCells: number;
  private cells = 0;

  // The field value just parsed.
  private kind: Kind = FLOAT;
  private num = 0;
  private hi = 0;
  private lo = 0;
  private str = '';

  constructor(body: string, precision: Precision, now: bigint) {
    this.s = body;
    this.n = body.length;
    this.maxCells = ingestCellLimit(body.length);
    this.precision = precision;
    this.steps = PRECISION_STEPS[precision];
    const n64 = BigInt.asIntN(64, now);
    this.nowHi = Number(BigInt.asIntN(32, n64 >> 32n));
    this.nowLo = Number(BigInt.asIntN(32, n64));
  }

  parse(): IngestTable[] {
    const s = this.s;
    const n = this.n;
    while (this.pos < n) {
      let p = this.pos;
      let c = s.charCodeAt(p);
      while (c === SPACE || c === TAB) c = s.charCodeAt(++p);
      if (p >= n) break;
      if (c === NL || (c === CR && (p + 1 === n || s.charCodeAt(p + 1) === NL))) {
        this.pos = c === NL ? p + 1 : p + 2;
        this.line++;
        continue;
      }
      if (c === HASH) {
        const end = s.indexOf('\n', p);
        if (end < 0) break;
        this.pos = end + 1;
        this.line++;
        continue;
      }
      this.pos = p;
      this.lineNo = this.line;
      this.parseLine();
    }
    return this.order.map((t) => t.toTable());
  }

  /** Lines in the body (an upper bound of its rows). */
  private lineCount(): number {
    const s = this.s;
    let lines = 1;
    for (let i = s.indexOf('\n'); i >= 0; i = s.indexOf('\n', i + 1)) lines++;
    return lines;
  }

  private fail(problem: string): never {
    throw new LineProtocolError(this.lineNo, problem);
  }

  private parseLine(): void {
    const s = this.s;
    const start = this.pos;
    const prev = this.prevEntry;
    const guess = prev === null ? null : prev.next;
    let entry: SeriesEntry | undefined;
    let end: number;
    if (guess !== null && guess.generation === generation && s.charCodeAt(start + guess.key.length) === SPACE && s.slice(start, start + guess.key.length) === guess.key) {
      entry = guess;
      end = start + guess.key.length;
    } else {
      end = this.seriesEnd(start);
      entry = end < 0 ? undefined : SERIES.get(s.slice(start, end));
      if (entry !== undefined && prev !== null && prev.generation === generation) prev.next = entry;
    }
    let table: TableBuilder;
    let row: number;
    let set: number;
    if (entry !== undefined) {
      const binding = entry.parseId === this.id ? this.bindings[entry.slot]! : this.bind(entry);
      table = binding.table;
      row = table.rows;
      if (row >= table.cap) table.growRows();
      const cols = binding.cols;
      const values = entry.tagValues;
      for (let i = 0; i < cols.length; i++) {
        const col = cols[i]!;
        if (row >= col.cap) col.grow(row);
        col.strs[row] = values[i]!;
        col.lastRow = row;
      }
      set = cols.length;
      this.pos = end;
      this.prevEntry = entry;
    } else {
      table = this.measurement();
      row = table.rows;
      if (row >= table.cap) table.growRows();
      set = s.charCodeAt(this.pos) === COMMA ? this.tags(table, row) : 0;
      this.prevEntry = end >= 0 && this.pos === end ? this.remember(s.slice(start, end), table, set) : null;
    }
    // At the space before the fields.
    let p = this.pos;
    let c = s.charCodeAt(p);
    while (c === SPACE) c = s.charCodeAt(++p);
    if (p >= this.n || c === NL || c === CR || c === TAB) this.fail('missing fields');
    this.pos = p;
    set += this.fields(table, row);
    this.timestamp(table, row);
    table.rows = row + 1;
    const width = table.tags.length + table.fields.length;
    if (set !== width) table.fillNulls(row);
    // The line's cells: one per column of its table, and its timestamp.
    this.cells += width + 1;
    if (this.cells > this.maxCells) this.overBudget();
  }

  /** Fails a request whose tables would hold more cells than its budget. */
  private overBudget(): never {
    return this.fail(cellLimitProblem(this.maxCells, this.n));
  }

  /**
   * A new column of `table`: counts the NULLs it has in the rows before this line against the
   * budget, and returns the room to give it — the table's, unless the table's room (sized up front
   * for every line of the body) times its columns would pass the budget: then the table is first
   * cut to the room its rows need, so that a wide line does not take room for every line.
   */
  private newColumnCap(table: TableBuilder): number {
    this.cells += table.rows;
    if (this.cells > this.maxCells) this.overBudget();
    const cap = table.cap;
    if (cap > INITIAL_CAPACITY && (table.tags.length + table.fields.length + 2) * cap > this.maxCells) {
      const needed = Math.max(INITIAL_CAPACITY, 2 * (table.rows + 1));
      if (needed < cap) table.shrink(needed);
    }
    return table.cap;
  }

  /**
   * The first space after `p` when no backslash or newline comes before it: the end of the series
   * if the line is valid, and text the series cache can look up as it is. -1 otherwise.
   */
  private seriesEnd(p: number): number {
    const s = this.s;
    const space = s.indexOf(' ', p);
    if (space < 0) return -1;
    if (this.nextNewline < p) {
      const i = s.indexOf('\n', p);
      this.nextNewline = i < 0 ? this.n : i;
    }
    if (this.nextBackslash < p) {
      const i = s.indexOf('\\', p);
      this.nextBackslash = i < 0 ? this.n : i;
    }
    return space < this.nextNewline && space < this.nextBackslash ? space : -1;
  }

  /** Binds a cached series to this parse's table and columns, checking its tags are no fields here. */
  private bind(entry: SeriesEntry): SeriesBinding {
    const table = this.table(entry.measurement, null);
    const cols = entry.tagNames.map((name) => this.tagColumn(table, name));
    const binding: SeriesBinding = { table, cols };
    entry.parseId = this.id;
    entry.slot = this.bindings.length;
    this.bindings.push(binding);
    return binding;
  }

  /** Caches the series just parsed (`tags` left its columns and values in `lineCols`, `lineVals`), if there is room. */
  private remember(text: string, table: TableBuilder, tagCount: number): SeriesEntry | null {
    if (SERIES.size >= maxSeries) {
      if (++missedWhenFull < 4 * maxSeries) return null;
      resetSeriesCache(maxSeries);
    }
    const cols = this.lineCols.slice(0, tagCount);
    const entry: SeriesEntry = {
      key: detach(text),
      generation,
      measurement: table.name,
      tagNames: cols.map((c) => c.name),
      tagValues: this.lineVals.slice(0, tagCount),
      parseId: this.id,
      slot: this.bindings.length,
      next: null,
    };
    SERIES.set(entry.key, entry);
    this.bindings.push({ table, cols });
    const prev = this.prevEntry;
    if (prev !== null && prev.generation === generation) prev.next = entry;
    return entry;
  }

  /** The table named `name`, created on first use; `raw` is the measurement as written, if known. */
  private table(name: string, raw: string | null): TableBuilder {
    let table = this.tables.get(name);
    if (table === undefined) {
      // The first table is sized for every line (up to a point): most bodies hold one measurement.
      const cap = this.order.length === 0 ? Math.min(Math.max(INITIAL_CAPACITY, this.lineCount()), MAX_INITIAL_CAPACITY) : INITIAL_CAPACITY;
      table = new TableBuilder(detach(name), raw === null ? '' : detach(raw), cap);
      this.tables.set(table.name, table);
      this.order.push(table);
    } else if (raw !== null && raw !== table.raw) {
      table.raw = detach(raw);
    }
    return table;
  }

  /** The tag column `key` of `table`, created on first use. */
  private tagColumn(table: TableBuilder, key: string): ColumnBuilder {
    let col = table.byName.get(key);
    if (col === undefined) {
      if (key === TIMESTAMP_COLUMN) this.fail(`${quote(key)} is reserved for the timestamp column`);
      this.checkWidth(table);
      col = new ColumnBuilder(detach(key), TAG, this.lineNo, table.rows, this.newColumnCap(table));
      table.tags.push(col);
      table.byName.set(col.name, col);
    } else if (col.kind !== TAG) {
      this.fail(`field type conflict: ${quote(key)} of measurement ${quote(table.name)} is a tag here but a field on line ${col.line}`);
    }
    return col;
  }

  /** Fails when `table` has as many tags and fields as a table may have besides its time index. */
  private checkWidth(table: TableBuilder): void {
    if (table.tags.length + table.fields.length + 1 < MAX_COLUMNS_PER_TABLE) return;
    this.fail(
      `too many tags and fields in measurement ${quote(table.name)}: at most ${MAX_COLUMNS_PER_TABLE - 1} (a table has at most ${MAX_COLUMNS_PER_TABLE} columns, the time index included)`,
    );
  }

  /** The table of the measurement at `pos`; leaves `pos` at the `,` or space after it. */
  private measurement(): TableBuilder {
    const s = this.s;
    const start = this.pos;
    const last = this.last;
    if (last !== null && last.raw !== '') {
      const end = start + last.raw.length;
      const c = s.charCodeAt(end);
      if ((c === COMMA || c === SPACE) && s.slice(start, end) === last.raw) {
        this.pos = end;
        return last;
      }
    }
    const n = this.n;
    let p = start;
    let escaped = false;
    while (p < n) {
      const c = s.charCodeAt(p);
      if (c === COMMA || c === SPACE || c === NL) break;
      if (c === BACKSLASH) {
        const d = s.charCodeAt(p + 1);
        if (d === COMMA || d === SPACE || d === BACKSLASH) {
          escaped = true;
          p += 2;
          continue;
        }
      }
      p++;
    }
    if (p === start) this.fail('missing measurement');
    const c = s.charCodeAt(p);
    if (c !== COMMA && c !== SPACE) this.fail('missing fields');
    const raw = s.slice(start, p);
    const table = this.table(escaped ? unescapeName(raw, false) : raw, raw);
    this.last = table;
    this.pos = p;
    return table;
  }

  /** The end of the key (tag key or field key) at `p`: the first unescaped `=` `,` space or newline. */
  private keyEnd(p: number): number {
    const s = this.s;
    const n = this.n;
    while (p < n) {
      const c = s.charCodeAt(p);
      if (c === EQ || c === COMMA || c === SPACE || c === NL) break;
      if (c === BACKSLASH) {
        const d = s.charCodeAt(p + 1);
        if (d === EQ || d === COMMA || d === SPACE || d === BACKSLASH) {
          p += 2;
          continue;
        }
      }
      p++;
    }
    return p;
  }

  /**
   * Parses the tag set from the `,` at `pos`; leaves `pos` at the space after it, and the columns
   * and values in `lineCols`, `lineVals`. Returns the number of tags.
   */
  private tags(table: TableBuilder, row: number): number {
    const s = this.s;
    const n = this.n;
    let p = this.pos;
    let k = 0;
    let c = COMMA;
    while (c === COMMA) {
      p++;
      let col: ColumnBuilder | undefined;
      if (k < table.tagLayout.length) {
        const key = table.tagLayoutKeys[k]!;
        const len = key.length;
        if (s.charCodeAt(p + len) === EQ && s.slice(p, p + len) === key) {
          col = table.tagLayout[k]!;
          p += len + 1;
        }
      }
      if (col === undefined) {
        const end = this.keyEnd(p);
        const raw = s.slice(p, end);
        const key = raw.indexOf('\\') < 0 ? raw : unescapeName(raw, true);
        if (end === p) this.fail('missing tag key');
        if (s.charCodeAt(end) !== EQ) this.fail(`missing tag value for tag ${quote(key)}`);
        col = this.tagColumn(table, key);
        table.tagLayout[k] = col;
        table.tagLayoutKeys[k] = detach(raw);
        p = end + 1;
      }
      if (col.lastRow === row) this.fail(`duplicate tag ${quote(col.name)}`);
      // The value.
      const start = p;
      let escaped = false;
      let hash = 0;
      while (p < n) {
        const c = s.charCodeAt(p);
        if (c === COMMA || c === SPACE || c === NL) break;
        if (c === BACKSLASH) {
          const d = s.charCodeAt(p + 1);
          if (d === EQ || d === COMMA || d === SPACE || d === BACKSLASH) {
            escaped = true;
            p += 2;
            continue;
          }
        } else if (c === EQ) {
          this.fail(`unescaped "=" in the value of tag ${quote(col.name)}`);
        }
        hash = (Math.imul(hash, 31) + c) | 0;
        p++;
      }
      if (p === start) this.fail(`missing tag value for tag ${quote(col.name)}`);
      const value = escaped ? detach(unescapeName(s.slice(start, p), true)) : col.intern(s, start, p, hash);
      if (row >= col.cap) col.grow(row);
      col.strs[row] = value;
      col.lastRow = row;
      this.lineCols[k] = col;
      this.lineVals[k] = value;
      k++;
      c = s.charCodeAt(p);
    }
    if (c !== SPACE) this.fail('missing fields');
    this.pos = p;
    return k;
  }

  /** Parses the field set at `pos`; leaves `pos` after the last value. Returns the fields newly set. */
  private fields(table: TableBuilder, row: number): number {
    const s = this.s;
    let p = this.pos;
    let k = 0;
    let set = 0;
    for (;;) {
      let col: ColumnBuilder | undefined;
      let key = '';
      let raw = '';
      if (k < table.fieldLayout.length) {
        // Most lines have the keys of the previous line of their table, in the same order.
        const known = table.fieldLayoutKeys[k]!;
        const len = known.length;
        if (s.charCodeAt(p + len) === EQ && s.slice(p, p + len) === known) {
          col = table.fieldLayout[k]!;
          key = col.name;
          p += len + 1;
        }
      }
      if (col === undefined) {
        const end = this.keyEnd(p);
        raw = s.slice(p, end);
        key = raw.indexOf('\\') < 0 ? raw : unescapeName(raw, true);
        if (end === p) this.fail('missing field key');
        if (s.charCodeAt(end) !== EQ) this.fail(`missing "=" after field key ${quote(key)}`);
        col = table.byName.get(key);
        if (col !== undefined && col.kind === TAG) {
          this.fail(`field type conflict: ${quote(key)} of measurement ${quote(table.name)} is a field here but a tag on line ${col.line}`);
        }
        p = end + 1;
      }
      p = this.value(p, key);
      const kind = this.kind;
      if (col === undefined) {
        if (key === TIMESTAMP_COLUMN) this.fail(`${quote(key)} is reserved for the timestamp column`);
        this.checkWidth(table);
        col = new ColumnBuilder(detach(key), kind, this.lineNo, row, this.newColumnCap(table));
        table.fields.push(col);
        table.byName.set(col.name, col);
      } else if (col.kind !== kind) {
        this.fail(
          `field type conflict: field ${quote(key)} of measurement ${quote(table.name)} is ${KIND_TYPE[kind]} here but ${KIND_TYPE[col.kind]} on line ${col.line}`,
        );
      }
      if (raw !== '') {
        table.fieldLayout[k] = col;
        table.fieldLayoutKeys[k] = detach(raw);
      }
      if (col.lastRow !== row) {
        col.lastRow = row;
        set++;
      }
      if (row >= col.cap) col.grow(row);
      if (kind === FLOAT) {
        col.f64[row] = this.num;
      } else if (kind === STRING) {
        col.strs[row] = this.str;
      } else if (kind === BOOL) {
        col.u8[row] = this.num;
      } else {
        col.i32[2 * row + LO] = this.lo;
        col.i32[2 * row + HI] = this.hi;
      }
      if (col.valid !== null) col.valid[row] = 1;
      k++;
      if (s.charCodeAt(p) !== COMMA) break;
      p++;
    }
    this.pos = p;
    return set;
  }

  /** Parses the field value at `p` into `kind` and `num` / `hi`+`lo` / `str`; returns its end. */
  private value(p: number, key: string): number {
    const c = this.s.charCodeAt(p);
    if ((c >= ZERO && c <= NINE) || c === MINUS || c === DOT) return this.number(p, key);
    if (c === QUOTE) return this.string(p, key);
    if (c === LOWER_T || c === LOWER_F || c === UPPER_T || c === UPPER_F) return this.boolean(p, key);
    if (p >= this.n || endsValue(c)) this.fail(`missing value for field ${quote(key)}`);
    return this.fail(`invalid field value ${quote(this.s.slice(p, this.tokenEnd(p)))} for field ${quote(key)}`);
  }

  /** The end of the unquoted token at `p`, for messages. */
  private tokenEnd(p: number): number {
    const n = this.n;
    while (p < n && !endsValue(this.s.charCodeAt(p))) p++;
    return p;
  }

  private number(start: number, key: string): number {
    const s = this.s;
    let p = start;
    let c = s.charCodeAt(p);
    const negative = c === MINUS;
    if (negative) c = s.charCodeAt(++p);
    let m = 0;
    let digits = 0;
    let frac = 0;
    let dot = false;
    let bad = false;
    for (;;) {
      if (c >= ZERO && c <= NINE) {
        m = m * 10 + (c - ZERO);
        digits++;
        if (dot) frac++;
      } else if (c === DOT) {
        if (dot) bad = true;
        dot = true;
      } else {
        break;
      }
      c = s.charCodeAt(++p);
    }
    let exponent = false;
    if (c === LOWER_E || c === UPPER_E) {
      exponent = true;
      c = s.charCodeAt(++p);
      if (c === PLUS || c === MINUS) c = s.charCodeAt(++p);
      let expDigits = 0;
      while (c >= ZERO && c <= NINE) {
        expDigits++;
        c = s.charCodeAt(++p);
      }
      if (expDigits === 0) bad = true;
    }
    let kind: Kind = FLOAT;
    if (c === LOWER_I) {
      kind = INT;
      c = s.charCodeAt(++p);
    } else if (c === LOWER_U) {
      kind = UINT;
      c = s.charCodeAt(++p);
    }
    if (p < this.n && !endsValue(c)) {
      bad = true;
      p = this.tokenEnd(p);
    }
    if (digits === 0 || (kind !== FLOAT && (dot || exponent)) || (kind === UINT && negative)) bad = true;
    if (bad) this.fail(`invalid field value ${quote(s.slice(start, p))} for field ${quote(key)}`);
    this.kind = kind;
    if (kind === FLOAT) {
      if (!exponent && m <= MAX_SAFE && frac <= 22) {
        // Both exact, so the quotient is the correctly rounded value, as Number() would give.
        const v = frac === 0 ? m : m / POW10[frac]!;
        this.num = negative ? -v : v;
      } else {
        const v = Number(s.slice(start, p));
        if (!Number.isFinite(v)) this.fail(`float out of range for field ${quote(key)}: ${quote(s.slice(start, p))}`);
        this.num = v;
      }
      return p;
    }
    if (m <= MAX_SAFE) {
      const v = negative ? -m : m;
      const hi = Math.floor(v / TWO_32);
      this.hi = hi | 0;
      this.lo = (v - hi * TWO_32) | 0;
      return p;
    }
    const b = BigInt(s.slice(start, p - 1));
    if (kind === INT ? b < INT64_MIN || b > INT64_MAX : b > UINT64_MAX) {
      this.fail(`${kind === INT ? 'integer' : 'unsigned integer'} out of range for field ${quote(key)}: ${quote(s.slice(start, p))}`);
    }
    this.hi = Number(BigInt.asIntN(32, b >> 32n));
    this.lo = Number(BigInt.asIntN(32, b));
    return p;
  }

  private string(start: number, key: string): number {
    const s = this.s;
    const n = this.n;
    let p = start + 1;
    let from = p;
    let out = '';
    for (;;) {
      if (p >= n) this.fail(`unterminated string value for field ${quote(key)}`);
      const c = s.charCodeAt(p);
      if (c === QUOTE) break;
      if (c === BACKSLASH) {
        const d = s.charCodeAt(p + 1);
        if (d === QUOTE || d === BACKSLASH) {
          out += s.slice(from, p);
          from = p + 1;
          p += 2;
          continue;
        }
      } else if (c === NL) {
        this.line++;
      }
      p++;
    }
    this.kind = STRING;
    this.str = detach(from === start + 1 ? s.slice(from, p) : out + s.slice(from, p));
    p++;
    const c = s.charCodeAt(p);
    if (p < n && !endsValue(c)) {
      this.fail(`invalid field value ${quote(s.slice(start, this.tokenEnd(p)))} for field ${quote(key)}: text after the closing quote`);
    }
    return p;
  }

  private boolean(start: number, key: string): number {
    const s = this.s;
    const end = this.tokenEnd(start);
    const len = end - start;
    let v = -1;
    if (len === 1) {
      const c = s.charCodeAt(start);
      v = c === LOWER_T || c === UPPER_T ? 1 : 0;
    } else if (len === 4 || len === 5) {
      const word = s.slice(start, end);
      if (word === 'true' || word === 'True' || word === 'TRUE') v = 1;
      else if (word === 'false' || word === 'False' || word === 'FALSE') v = 0;
    }
    if (v < 0) this.fail(`invalid boolean ${quote(s.slice(start, end))} for field ${quote(key)}`);
    this.kind = BOOL;
    this.num = v;
    return end;
  }

  /** Fails for a timestamp (`text`, at the request's precision) outside the range of the nanosecond time index. */
  private outOfRange(text: string): never {
    const ns = BigInt(text) * PRECISION_NS[this.precision];
    const written = this.precision === 'ns' ? '' : ` (written ${text} with precision ${this.precision})`;
    try {
      checkTimestampRange(ns, 'ns', TIMESTAMP_COLUMN);
    } catch (err) {
      this.fail(`${(err as Error).message}${written}`);
    }
    return this.fail(`timestamp ${text}${written} is out of range`);
  }

  /** Parses the optional timestamp after the fields, then the end of the line. */
  private timestamp(table: TableBuilder, row: number): void {
    const s = this.s;
    const n = this.n;
    let p = this.pos;
    let c = s.charCodeAt(p);
    let hi = this.nowHi;
    let lo = this.nowLo;
    let stamped = false;
    if (c === SPACE) {
      do c = s.charCodeAt(++p);
      while (c === SPACE);
      if (p < n && !endsValue(c)) {
        stamped = true;
        const start = p;
        const negative = c === MINUS;
        if (negative) c = s.charCodeAt(++p);
        const digitsStart = p;
        // The magnitude as hi·2^32 + lo: up to 15 digits in one double (exact), then digit by digit.
        let m = 0;
        const short = Math.min(n, p + 15);
        while (p < short && c >= ZERO && c <= NINE) {
          m = m * 10 + (c - ZERO);
          c = s.charCodeAt(++p);
        }
        hi = Math.floor(m / TWO_32);
        lo = m - hi * TWO_32;
        let overflow = false;
        while (c >= ZERO && c <= NINE) {
          if (!overflow) {
            lo = lo * 10 + (c - ZERO);
            const carry = Math.floor(lo / TWO_32);
            lo -= carry * TWO_32;
            hi = hi * 10 + carry;
            overflow = hi >= TWO_32;
          }
          c = s.charCodeAt(++p);
        }
        if (p === digitsStart || (p < n && !endsValue(c))) this.fail(`invalid timestamp ${quote(s.slice(start, this.tokenEnd(p)))}`);
        // × the precision, in steps small enough for every product to stay exact.
        for (let i = 0; i < this.steps.length && !overflow; i++) {
          const k = this.steps[i]!;
          lo *= k;
          const carry = Math.floor(lo / TWO_32);
          lo -= carry * TWO_32;
          hi = hi * k + carry;
          overflow = hi >= TWO_32;
        }
        if (negative) {
          if (lo === 0) {
            hi = -hi;
          } else {
            lo = TWO_32 - lo;
            hi = -hi - 1;
          }
        }
        // The range of a nanosecond column (within int64; `hi` is exact even past it, unless `overflow`).
        if (overflow || hi < NS_MIN_HI || (hi === NS_MIN_HI && lo < NS_MIN_LO) || hi > NS_MAX_HI || (hi === NS_MAX_HI && lo > NS_MAX_LO)) {
          this.outOfRange(s.slice(start, p));
        }
      }
    }
    // Trailing whitespace, then the end of the line.
    while (c === SPACE || c === TAB || c === CR) c = s.charCodeAt(++p);
    if (c === NL) {
      p++;
      this.line++;
    } else if (p < n) {
      this.fail(`unexpected text after the ${stamped ? 'timestamp' : 'fields'}: ${quote(s.slice(p, this.tokenEnd(p)))}`);
    }
    const ts = table.ts;
    ts[2 * row + LO] = lo | 0;
    ts[2 * row + HI] = hi | 0;
    this.pos = p;
  }
}
