/**
 * Prometheus remote write (v1): a snappy-compressed `prometheus.WriteRequest` decoded into one
 * table of rows per (database, physical table, metric), as the frontend's ingest path takes them
 * (reference api.md §1.6, internals.md §5 "Prom remote write").
 *
 * Model: the table is named after `__name__`; every other label is a String tag column (sorted by
 * name), then `tsdb_timestamp` (TimestampMillisecond time index) and `tsdb_value` (Float64 field).
 * Series of one metric with different label sets share the table, a label a series lacks is NULL.
 * The labels `x_tsdb_database` / `__database__` / `__schema__` (deprecated) pick the database and
 * `x_tsdb_physical_table` / `__physical_table__` the physical table of the metric engine; they are
 * not stored. Values are kept bit for bit, so stale markers (the NaN 0x7ff0000000000002) and other
 * NaNs stay what they were.
 *
 * Ignored, like GreptimeDB's decoder: `metadata` (WriteRequest field 3), and per series `exemplars`
 * (3) and native `histograms` (4); a series with histograms but no samples writes no row.
 *
 * The protobuf is decoded by hand, straight into column buffers, without one object per label or
 * sample: several times faster than protobufjs here (`bench/prom-codec/decode-bench.ts`).
 */
import { MAX_COLUMNS_PER_TABLE } from '../../catalog/limits.js';
import { StatusCode } from '../../common/error/status-code.js';
import { TsdbError } from '../../common/error/tsdb-error.js';
import { fromHalves, RANGE_HALVES } from '../../common/time/range-halves.js';
import { checkTimestampRange } from '../../common/time/timestamp.js';
import type { IngestColumn, IngestTable } from '../../frontend/ingest-request.js';
import { NULL_CODE, vectorFromDictionary } from '../../types/string-dictionary.js';
import { CellBudget } from '../ingest-budget.js';
import { type PbTimeSeries, WriteRequestType } from './prompb.js';
import type { ReadSeries } from './remote-read.js';
import { snappyCompress, snappyDecompress } from './snappy-block.js';

/** A decoded remote write: rows grouped per (database, physical table, metric). */
export interface RemoteWriteGroup {
  /** From `x_tsdb_database` / `__database__` / `__schema__`; undefined: the request's database. */
  readonly database?: string;
  /** From `x_tsdb_physical_table` / `__physical_table__`; undefined: the request's or the default. */
  readonly physicalTable?: string;
  readonly table: IngestTable;
}

export const METRIC_NAME_LABEL = '__name__';
export const TIMESTAMP_COLUMN = 'tsdb_timestamp';
export const VALUE_COLUMN = 'tsdb_value';
/** Labels that pick the database, strongest first. */
export const DATABASE_LABELS = ['x_tsdb_database', '__database__', '__schema__'] as const;
/** Labels that pick the physical table, strongest first. */
export const PHYSICAL_TABLE_LABELS = ['x_tsdb_physical_table', '__physical_table__'] as const;

/**
 * Decodes a remote write body: `body` is a snappy-compressed (block format) WriteRequest. Throws a
 * TsdbError with InvalidArguments for a body that is not snappy or not a WriteRequest, one that
 * decompresses to more than `maxRawBytes` (the server's `http.body_limit`), a series
 * without `__name__`, an empty or duplicate label name, a label named like a value column, label
 * names or values that are not UTF-8, a timestamp outside the range of a millisecond time index
 * (`TIMESTAMP_RANGE.ms`), and a metric with more labels than a table may have columns
 * (`MAX_COLUMNS_PER_TABLE`, less the time index and the value), and a request whose tables would
 * hold more cells (rows × columns, NULLs included) than the budget of its uncompressed size
 * (`ingestCellLimit`, see `../ingest-budget.ts`): checked per series, before its rows are made.
 * Nothing is returned for a request with an error anywhere.
 */
export function decodeRemoteWrite(body: Uint8Array, maxRawBytes = Infinity): { groups: RemoteWriteGroup[]; samples: number } {
  const raw = snappyDecompress(body, 'WriteRequest', maxRawBytes);
  const tables = new TableSet(new CellBudget(raw.length, 'invalid WriteRequest'));
  const samples = new WriteRequestDecoder(raw, tables).decode();
  return { groups: tables.finish(), samples };
}

/**
 * Encodes series as a snappy-compressed WriteRequest, labels in the order given (Prometheus sends
 * them sorted by name). For tests, benchmarks and clients; timestamps must be integers.
 */
export function encodeWriteRequest(series: ReadonlyArray<ReadSeries>): Buffer {
  return snappyCompress(encodeWriteRequestMessage(series));
}

/**
 * The WriteRequest of `series`, not compressed. Messages of a few series each, concatenated, are
 * the one WriteRequest of all of them (a repeated field's entries may come in any number of parts).
 */
export function encodeWriteRequestMessage(series: ReadonlyArray<ReadSeries>): Uint8Array {
  const timeseries: PbTimeSeries[] = series.map((s) => ({
    labels: s.labels.map((l) => ({ name: l.name, value: l.value })),
    samples: s.samples.map((p) => ({ value: p.value, timestamp: checkTimestamp(p.timestampMs) })),
  }));
  return WriteRequestType.encode({ timeseries }).finish();
}

/** A timestamp for an int64 field: an integer of milliseconds within ±2^53. */
export function checkTimestamp(ms: number, what = 'sample timestamp'): number {
  if (!Number.isSafeInteger(ms)) {
    throw new TsdbError(StatusCode.InvalidArguments, `invalid ${what} ${ms}: must be an integer number of milliseconds`);
  }
  return ms;
}

// ---------------------------------------------------------------------------------------------
// Wire decoding

const WIRE_VARINT = 0;
const WIRE_FIXED64 = 1;
const WIRE_LEN = 2;
const WIRE_START_GROUP = 3;
const WIRE_END_GROUP = 4;
const WIRE_FIXED32 = 5;
const MAX_GROUP_DEPTH = 32;

/** Word order of a 64-bit value seen as two uint32 (low word first on little-endian machines). */
const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;
const LO = LITTLE_ENDIAN ? 0 : 1;
const HI = 1 - LO;

const UTF8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Recently decoded ASCII strings by hash of their bytes, shared by all requests: a direct-mapped
 * cache (a collision replaces the entry), so its size is bounded by its slot count.
 */
const INTERN_SLOTS = 8192;
const INTERN_MASK = INTERN_SLOTS - 1;
const INTERN_MAX_LENGTH = 64;
const INTERNED: (string | undefined)[] = new Array<string | undefined>(INTERN_SLOTS).fill(undefined);

/** The range of the millisecond time index (`TIMESTAMP_RANGE.ms`) as 32-bit halves. */
const { minHi: MS_MIN_HI, minLo: MS_MIN_LO, maxHi: MS_MAX_HI, maxLo: MS_MAX_LO } = RANGE_HALVES.ms;

/** Refuses a sample of `metric` whose timestamp `hi · 2^32 + lo` is outside the range of the time index. */
function timestampOutOfRange(metric: string, hi: number, lo: number): never {
  try {
    checkTimestampRange(fromHalves(hi, lo), 'ms', TIMESTAMP_COLUMN);
  } catch (err) {
    throw new TsdbError(StatusCode.InvalidArguments, `invalid WriteRequest: a sample of metric ${metric}: ${(err as Error).message}`);
  }
  throw new TsdbError(StatusCode.InvalidArguments, `invalid WriteRequest: a sample of metric ${metric} has a timestamp out of range`);
}

function malformed(message: string): TsdbError {
  return new TsdbError(StatusCode.InvalidArguments, `invalid WriteRequest: ${message}`);
}

/**
 * Reads a WriteRequest message by message. Per TimeSeries it first reads the labels and notes where
 * the samples are (fields may come in any order), then hands the labels to the TableSet and decodes
 * the samples straight into the table's buffers.
 */
class WriteRequestDecoder {
  private pos = 0;
  // Scratch for the series being read.
  private labelCount = 0;
  private readonly names: string[] = [];
  private readonly values: string[] = [];
  private sampleCount = 0;
  private readonly sampleStarts: number[] = [];
  private readonly sampleEnds: number[] = [];

  constructor(
    private readonly buf: Buffer,
    private readonly tables: TableSet,
  ) {}

  /** Decodes the whole request; returns the number of samples. */
  decode(): number {
    const end = this.buf.length;
    let samples = 0;
    while (this.pos < end) {
      const key = this.key(end);
      if (key >>> 3 === 1) {
        this.expectWire(key, WIRE_LEN, 'WriteRequest.timeseries');
        const len = this.length(end);
        samples += this.series(this.pos, this.pos + len);
      } else {
        this.skip(key, end); // metadata (3) and unknown fields
      }
    }
    return samples;
  }

  /** One TimeSeries in [start, end): returns its number of samples. */
  private series(start: number, end: number): number {
    this.labelCount = 0;
    this.sampleCount = 0;
    this.pos = start;
    while (this.pos < end) {
      const key = this.key(end);
      const field = key >>> 3;
      if (field === 1) {
        this.expectWire(key, WIRE_LEN, 'TimeSeries.labels');
        const len = this.length(end);
        this.label(this.pos + len);
      } else if (field === 2) {
        this.expectWire(key, WIRE_LEN, 'TimeSeries.samples');
        const len = this.length(end);
        this.sampleStarts[this.sampleCount] = this.pos;
        this.sampleEnds[this.sampleCount] = this.pos + len;
        this.sampleCount++;
        this.pos += len;
      } else {
        this.skip(key, end); // exemplars (3), histograms (4), unknown fields
      }
    }
    const count = this.sampleCount;
    const target = this.tables.addSeries(this.names, this.values, this.labelCount, count);
    if (target !== undefined) {
      const { table, row } = target;
      for (let i = 0; i < count; i++) this.sample(this.sampleStarts[i]!, this.sampleEnds[i]!, table, row + i);
    }
    this.pos = end;
    return count;
  }

  /** One Label, from here to `end`: appended to the scratch lists. */
  private label(end: number): void {
    let name = '';
    let value = '';
    while (this.pos < end) {
      const key = this.key(end);
      const field = key >>> 3;
      if (field === 1) {
        this.expectWire(key, WIRE_LEN, 'Label.name');
        const len = this.length(end);
        name = this.labelName(this.pos, this.pos + len);
        this.pos += len;
      } else if (field === 2) {
        this.expectWire(key, WIRE_LEN, 'Label.value');
        const len = this.length(end);
        value = this.labelValue(this.pos, this.pos + len);
        this.pos += len;
      } else {
        this.skip(key, end);
      }
    }
    this.names[this.labelCount] = name;
    this.values[this.labelCount] = value;
    this.labelCount++;
  }

  /** One Sample in [start, end), written to row `row` of `table`. Absent fields are 0, as in proto3. */
  private sample(start: number, end: number, table: TableBuilder, row: number): void {
    const buf = this.buf;
    let vLo = 0;
    let vHi = 0;
    let tLo = 0;
    let tHi = 0;
    this.pos = start;
    while (this.pos < end) {
      const key = this.key(end);
      const field = key >>> 3;
      if (field === 1) {
        this.expectWire(key, WIRE_FIXED64, 'Sample.value');
        const p = this.pos;
        if (p + 8 > end) throw malformed(`truncated Sample.value at byte ${p}`);
        vLo = buf[p]! | (buf[p + 1]! << 8) | (buf[p + 2]! << 16) | (buf[p + 3]! << 24);
        vHi = buf[p + 4]! | (buf[p + 5]! << 8) | (buf[p + 6]! << 16) | (buf[p + 7]! << 24);
        this.pos = p + 8;
      } else if (field === 2) {
        this.expectWire(key, WIRE_VARINT, 'Sample.timestamp');
        // int64 varint: bits 0–27 from bytes 0–3, 28–34 from byte 4, 35–63 from bytes 5–9.
        let p = this.pos;
        let b = 0;
        tLo = 0;
        tHi = 0;
        let done = false;
        for (let shift = 0; shift < 28; shift += 7) {
          if (p >= end) throw malformed(`truncated Sample.timestamp at byte ${p}`);
          b = buf[p++]!;
          tLo |= (b & 0x7f) << shift;
          if (b < 0x80) {
            done = true;
            break;
          }
        }
        if (!done) {
          if (p >= end) throw malformed(`truncated Sample.timestamp at byte ${p}`);
          b = buf[p++]!;
          tLo |= (b & 0x0f) << 28;
          tHi = (b & 0x7f) >>> 4;
          if (b >= 0x80) {
            for (let shift = 3; ; shift += 7) {
              if (shift > 31) throw malformed(`Sample.timestamp varint longer than 10 bytes at byte ${this.pos}`);
              if (p >= end) throw malformed(`truncated Sample.timestamp at byte ${p}`);
              b = buf[p++]!;
              tHi |= (b & 0x7f) << shift;
              if (b < 0x80) break;
            }
          }
        }
        this.pos = p;
      } else {
        this.skip(key, end);
      }
    }
    // The range of a millisecond time index (`TIMESTAMP_RANGE.ms`), before the value is stored.
    if (tHi < MS_MIN_HI || tHi > MS_MAX_HI || (tHi === MS_MIN_HI && tLo >>> 0 < MS_MIN_LO) || (tHi === MS_MAX_HI && tLo >>> 0 > MS_MAX_LO)) {
      timestampOutOfRange(table.name, tHi, tLo);
    }
    const i = row * 2;
    table.values[i + LO] = vLo;
    table.values[i + HI] = vHi;
    table.timestamps[i + LO] = tLo;
    table.timestamps[i + HI] = tHi;
  }

  /**
   * A label name: series mostly repeat the label names of the series before them in the same order,
   * so the name at the same position there is tried first (one comparison, no hashing).
   */
  private labelName(start: number, end: number): string {
    return this.same(start, end, this.names[this.labelCount]) ?? this.string(start, end, 'name');
  }

  /**
   * A label value: neighbouring series (a scrape target's metrics) mostly share their label values
   * but one, so the value at the same position in the series before is tried first.
   */
  private labelValue(start: number, end: number): string {
    return this.same(start, end, this.values[this.labelCount]) ?? this.string(start, end, 'value');
  }

  /** `candidate` when bytes [start, end) are its characters, all ASCII; else undefined. */
  private same(start: number, end: number, candidate: string | undefined): string | undefined {
    const len = end - start;
    if (candidate === undefined || candidate.length !== len) return undefined;
    const buf = this.buf;
    // Only ASCII matches: `é` decoded from two bytes must not match the lone byte 0xe9.
    for (let i = 0; i < len; i++) {
      const c = buf[start + i]!;
      if (c >= 0x80 || candidate.charCodeAt(i) !== c) return undefined;
    }
    return candidate;
  }

  /**
   * Bytes [start, end) as a string. Short ASCII strings (almost every label name and value) go
   * through the intern table, so the label names and values a request repeats are one string each
   * and cost no allocation; anything else must be valid UTF-8.
   */
  private string(start: number, end: number, what: 'name' | 'value'): string {
    const buf = this.buf;
    const len = end - start;
    if (len > INTERN_MAX_LENGTH) {
      for (let i = start; i < end; i++) if (buf[i]! >= 0x80) return this.utf8(start, end, what);
      return buf.toString('latin1', start, end);
    }
    let h = 0x811c9dc5;
    for (let i = start; i < end; i++) {
      const c = buf[i]!;
      if (c >= 0x80) return this.utf8(start, end, what);
      h = Math.imul(h ^ c, 0x01000193);
    }
    const slot = (h ^ (h >>> 15)) & INTERN_MASK;
    const cached = INTERNED[slot];
    if (cached !== undefined && cached.length === len) {
      let i = 0;
      while (i < len && cached.charCodeAt(i) === buf[start + i]) i++;
      if (i === len) return cached;
    }
    const s = len === 0 ? '' : buf.toString('latin1', start, end);
    INTERNED[slot] = s;
    return s;
  }

  private utf8(start: number, end: number, what: 'name' | 'value'): string {
    try {
      return UTF8.decode(this.buf.subarray(start, end));
    } catch (err) {
      throw new TsdbError(StatusCode.InvalidArguments, `invalid WriteRequest: label ${what} at byte ${start} is not valid UTF-8`, { cause: err });
    }
  }

  /** A field key; field number 0 is invalid. */
  private key(end: number): number {
    const at = this.pos;
    const key = this.varint(end);
    if (key < 8 || key > 0xffffffff) throw malformed(`invalid field key ${key} at byte ${at}`);
    return key;
  }

  /** A length prefix, checked against the end of the enclosing message. */
  private length(end: number): number {
    const len = this.varint(end);
    if (this.pos + len > end) throw malformed(`truncated: field of ${len} bytes at byte ${this.pos} runs past the end of its message (byte ${end})`);
    return len;
  }

  /** An unsigned varint as a number (exact up to 2^53, more than any length or key). */
  private varint(end: number): number {
    const buf = this.buf;
    let p = this.pos;
    if (p >= end) throw malformed(`truncated varint at byte ${p}`);
    let b = buf[p++]!;
    if (b < 0x80) {
      this.pos = p;
      return b;
    }
    let value = b & 0x7f;
    let scale = 0x80;
    for (let i = 1; ; i++) {
      if (i === 10) throw malformed(`varint longer than 10 bytes at byte ${this.pos}`);
      if (p >= end) throw malformed(`truncated varint at byte ${p}`);
      b = buf[p++]!;
      value += (b & 0x7f) * scale;
      if (b < 0x80) break;
      scale *= 0x80;
    }
    this.pos = p;
    return value;
  }

  private expectWire(key: number, wire: number, field: string): void {
    if ((key & 7) !== wire) throw malformed(`${field} has wire type ${key & 7} at byte ${this.pos}, expected ${wire}`);
  }

  /** Skips the value of a field not decoded here. */
  private skip(key: number, end: number, depth = 0): void {
    switch (key & 7) {
      case WIRE_VARINT:
        this.varint(end);
        return;
      case WIRE_FIXED64:
        this.advance(8, end);
        return;
      case WIRE_LEN: {
        const len = this.length(end); // reads the prefix: not `this.pos += this.length(end)`
        this.pos += len;
        return;
      }
      case WIRE_FIXED32:
        this.advance(4, end);
        return;
      case WIRE_START_GROUP: {
        if (depth >= MAX_GROUP_DEPTH) throw malformed(`groups nested deeper than ${MAX_GROUP_DEPTH} at byte ${this.pos}`);
        for (;;) {
          const inner = this.key(end);
          if ((inner & 7) === WIRE_END_GROUP) {
            if (inner >>> 3 !== key >>> 3) throw malformed(`mismatched end of group at byte ${this.pos}`);
            return;
          }
          this.skip(inner, end, depth + 1);
        }
      }
      default:
        throw malformed(`invalid wire type ${key & 7} at byte ${this.pos}`);
    }
  }

  private advance(n: number, end: number): void {
    if (this.pos + n > end) throw malformed(`truncated at byte ${this.pos}`);
    this.pos += n;
  }
}

// ---------------------------------------------------------------------------------------------
// Tables

const VALUE_COLUMNS = new Set([TIMESTAMP_COLUMN, VALUE_COLUMN]);

/** The tables of one request, keyed by metric (and database and physical table when a label names them). */
class TableSet {
  private readonly plain = new Map<string, TableBuilder>();
  private readonly routed = new Map<string, TableBuilder>();
  private readonly order: TableBuilder[] = [];

  constructor(private readonly budget: CellBudget) {}

  /**
   * Checks a series' labels and reserves `samples` rows for it; undefined for a series without
   * samples. `names` / `values` hold `count` labels.
   */
  addSeries(names: readonly string[], values: readonly string[], count: number, samples: number): { table: TableBuilder; row: number } | undefined {
    let metric: string | undefined;
    let database: string | undefined;
    let databaseRank: number = DATABASE_LABELS.length;
    let physicalTable: string | undefined;
    let physicalRank: number = PHYSICAL_TABLE_LABELS.length;
    let special = 0;
    let seen = 0; // one bit per special label name, for duplicates
    for (let i = 0; i < count; i++) {
      const name = names[i]!;
      // Every special label starts with `_` or `x`; plain labels rarely do.
      const c = name.charCodeAt(0);
      if (c !== 0x5f && c !== 0x78) continue;
      let bit: number;
      if (name === METRIC_NAME_LABEL) {
        metric = values[i]!;
        bit = 1;
      } else {
        const dbRank = (DATABASE_LABELS as readonly string[]).indexOf(name);
        const ptRank = dbRank >= 0 ? -1 : (PHYSICAL_TABLE_LABELS as readonly string[]).indexOf(name);
        if (dbRank >= 0) {
          bit = 2 << dbRank;
          if (dbRank < databaseRank && values[i] !== '') {
            database = values[i];
            databaseRank = dbRank;
          }
        } else if (ptRank >= 0) {
          bit = 16 << ptRank;
          if (ptRank < physicalRank && values[i] !== '') {
            physicalTable = values[i];
            physicalRank = ptRank;
          }
        } else {
          continue;
        }
      }
      if ((seen & bit) !== 0) throw duplicateLabel(name, names, values, count);
      seen |= bit;
      special++;
    }
    if (metric === undefined || metric === '') {
      throw new TsdbError(StatusCode.InvalidArguments, `invalid WriteRequest: series without ${METRIC_NAME_LABEL} label: ${formatLabels(names, values, count)}`);
    }
    let table: TableBuilder | undefined;
    if (database === undefined && physicalTable === undefined) {
      table = this.plain.get(metric);
      if (table === undefined) {
        table = new TableBuilder(metric, undefined, undefined, this.budget);
        this.plain.set(metric, table);
        this.order.push(table);
      }
    } else {
      const key = JSON.stringify([database ?? null, physicalTable ?? null, metric]);
      table = this.routed.get(key);
      if (table === undefined) {
        table = new TableBuilder(metric, database, physicalTable, this.budget);
        this.routed.set(key, table);
        this.order.push(table);
      }
    }
    return table.addSeries(names, values, count, special, samples);
  }

  finish(): RemoteWriteGroup[] {
    const groups: RemoteWriteGroup[] = [];
    for (const t of this.order) {
      if (t.rowCount === 0) continue;
      const group: { database?: string; physicalTable?: string; table: IngestTable } = { table: t.finish() };
      if (t.database !== undefined) group.database = t.database;
      if (t.physicalTable !== undefined) group.physicalTable = t.physicalTable;
      groups.push(group);
    }
    return groups;
  }
}

function isSpecialLabel(name: string): boolean {
  return name === METRIC_NAME_LABEL || (DATABASE_LABELS as readonly string[]).includes(name) || (PHYSICAL_TABLE_LABELS as readonly string[]).includes(name);
}

/**
 * One tag column of a table being built: its distinct values and a code per series (-1: no value).
 * It becomes a string vector made from that dictionary, so the metric engine, the WAL and the
 * memtable read codes and no string is stored per row.
 */
class TagColumn {
  readonly values: string[] = [];
  private readonly index = new Map<string, number>();

  constructor(
    readonly name: string,
    /** Per series of the table so far, the code of its value. */
    readonly seriesCodes: number[],
  ) {}

  /** The code of a value, a new one for a value not seen before. */
  code(value: string): number {
    let c = this.index.get(value);
    if (c === undefined) {
      c = this.values.length;
      this.index.set(value, c);
      this.values.push(value);
    }
    return c;
  }
}

/**
 * Rows per metric in recent requests, so that a table's buffers start at the size they will need
 * (senders repeat the shape of their requests) instead of doubling up to it: a few hundred rows in
 * a dozen columns made the regrowing a tenth of the decoding. Bounded: cleared when full.
 */
const ROWS_HINT = new Map<string, number>();
const ROWS_HINT_MAX = 16384;
/** A hint above this is not taken whole: one huge request must not make every later one allocate as much. */
const ROWS_HINT_CAP = 65536;

/** Rows of one table: a column per tag seen so far, timestamps and values as pairs of uint32 words. */
class TableBuilder {
  rowCount = 0;
  timestamps = new Uint32Array(0);
  values = new Uint32Array(0);
  private readonly tagIndex = new Map<string, number>();
  private readonly tags: TagColumn[] = [];
  /** The first row of each series. */
  private readonly seriesRows: number[] = [];
  /** Per tag column, the value of the series being added (null: none). */
  private readonly current: (string | null)[] = [];

  constructor(
    readonly name: string,
    readonly database: string | undefined,
    readonly physicalTable: string | undefined,
    /** The request's cells: a series' rows (one per sample, a cell per column) and a new column's NULLs count against it. */
    private readonly budget: CellBudget,
  ) {
    const hint = ROWS_HINT.get(name);
    if (hint !== undefined) this.reserve(Math.min(hint, ROWS_HINT_CAP));
  }

  addSeries(names: readonly string[], values: readonly string[], count: number, special: number, samples: number): { table: TableBuilder; row: number } | undefined {
    const current = this.current;
    for (let i = 0; i < count; i++) {
      const name = names[i]!;
      // Prometheus: a label with an empty value is no label (the series is the one without it).
      if (values[i] === '') continue;
      let j = this.tagIndex.get(name);
      if (j === undefined) {
        if (special > 0 && isSpecialLabel(name)) continue;
        j = this.addColumn(name, names, values, count);
      }
      if (current[j] !== null) {
        this.resetCurrent();
        throw duplicateLabel(name, names, values, count);
      }
      current[j] = values[i]!;
    }
    if (samples === 0) {
      this.resetCurrent();
      return undefined;
    }
    // Its rows, a cell for each tag column, the timestamp and the value: counted before they are made.
    this.budget.charge(samples * (this.tags.length + 2));
    const row = this.rowCount;
    this.reserve(row + samples);
    for (let j = 0; j < this.tags.length; j++) {
      const column = this.tags[j]!;
      const v = current[j]!;
      column.seriesCodes.push(v === null ? -1 : column.code(v));
      current[j] = null;
    }
    this.seriesRows.push(row);
    this.rowCount = row + samples;
    return { table: this, row };
  }

  finish(): IngestTable {
    const n = this.rowCount;
    if (ROWS_HINT.get(this.name) !== n) {
      if (ROWS_HINT.size >= ROWS_HINT_MAX) ROWS_HINT.clear();
      ROWS_HINT.set(this.name, n);
    }
    const order = this.tags.map((_, j) => j).sort((a, b) => compareNames(this.tags[a]!.name, this.tags[b]!.name));
    // Every tag column's codes in one buffer: one allocation per table, each series' code repeated over its rows.
    const all = new Uint32Array(n * this.tags.length);
    const starts = this.seriesRows;
    const columns: IngestColumn[] = order.map((j, k) => {
      const tag = this.tags[j]!;
      const codes = all.subarray(k * n, (k + 1) * n);
      const perSeries = tag.seriesCodes;
      for (let s = 0; s < starts.length; s++) {
        const code = perSeries[s]! < 0 ? NULL_CODE : perSeries[s]!;
        const end = s + 1 < starts.length ? starts[s + 1]! : n;
        for (let r = starts[s]!; r < end; r++) codes[r] = code;
      }
      return { name: tag.name, semantic: 'tag', type: 'String', vector: vectorFromDictionary(tag.values, codes, true) };
    });
    const exact = this.timestamps.length === 2 * n;
    columns.push({
      name: TIMESTAMP_COLUMN,
      semantic: 'timestamp',
      type: 'TimestampMillisecond',
      vector: { type: 'int64', data: new BigInt64Array(exact ? this.timestamps.buffer : this.timestamps.buffer.slice(0, 8 * n)) },
    });
    columns.push({
      name: VALUE_COLUMN,
      semantic: 'field',
      type: 'Float64',
      vector: { type: 'float64', data: new Float64Array(exact ? this.values.buffer : this.values.buffer.slice(0, 8 * n)) },
    });
    return { name: this.name, rowCount: n, columns };
  }

  private addColumn(name: string, names: readonly string[], values: readonly string[], count: number): number {
    if (name === '') {
      this.resetCurrent();
      throw new TsdbError(StatusCode.InvalidArguments, `invalid WriteRequest: empty label name in series ${formatLabels(names, values, count)}`);
    }
    if (VALUE_COLUMNS.has(name)) {
      this.resetCurrent();
      throw new TsdbError(
        StatusCode.InvalidArguments,
        `invalid WriteRequest: label ${name} of metric ${this.name} clashes with the column of the same name`,
      );
    }
    const j = this.tags.length;
    // Beside the labels, a table has the time index and the value.
    if (j + 2 >= MAX_COLUMNS_PER_TABLE) {
      this.resetCurrent();
      throw new TsdbError(
        StatusCode.InvalidArguments,
        `invalid WriteRequest: too many labels for metric ${this.name}: at most ${MAX_COLUMNS_PER_TABLE - 2} (a table has at most ${MAX_COLUMNS_PER_TABLE} columns, ${TIMESTAMP_COLUMN} and ${VALUE_COLUMN} included)`,
      );
    }
    // NULL for the rows before.
    this.budget.charge(this.rowCount);
    this.tagIndex.set(name, j);
    this.tags.push(new TagColumn(name, new Array<number>(this.seriesRows.length).fill(-1)));
    this.current.push(null);
    return j;
  }

  private resetCurrent(): void {
    this.current.fill(null);
  }

  private reserve(rows: number): void {
    if (2 * rows <= this.timestamps.length) return;
    const capacity = Math.max(rows, this.timestamps.length, 16); // at least double (a pair of words a row)
    const ts = new Uint32Array(2 * capacity);
    ts.set(this.timestamps.subarray(0, 2 * this.rowCount));
    const vs = new Uint32Array(2 * capacity);
    vs.set(this.values.subarray(0, 2 * this.rowCount));
    this.timestamps = ts;
    this.values = vs;
  }
}

/** Label names in code unit order (what Prometheus sorts by for ASCII names). */
function compareNames(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function duplicateLabel(name: string, names: readonly string[], values: readonly string[], count: number): TsdbError {
  return new TsdbError(StatusCode.InvalidArguments, `invalid WriteRequest: duplicate label name ${name} in series ${formatLabels(names, values, count)}`);
}

/** `{__name__="up", job="x"}`, cut short after 10 labels. */
function formatLabels(names: readonly string[], values: readonly string[], count: number): string {
  const shown = Math.min(count, 10);
  const parts: string[] = [];
  for (let i = 0; i < shown; i++) parts.push(`${names[i]}=${JSON.stringify(values[i])}`);
  if (count > shown) parts.push(`… ${count - shown} more`);
  return `{${parts.join(', ')}}`;
}
