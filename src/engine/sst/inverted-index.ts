/**
 * The inverted index of one SST (docs/format/inverted-index.md): for each indexed tag column, its
 * distinct values, each with the set of segments (runs of `segment_row_count` rows of the file)
 * holding it, plus the segments holding NULL. A scan asks which segments may hold rows meeting its
 * tag terms (`=`, `IN`, `!=`, `NOT IN`, regex, LIKE) and reads only the Parquet row groups that
 * overlap them. Encoded whole into one buffer; decoded whole (value sets lazily), with a checksum:
 * a damaged file is refused, and the scan reads the SST without it.
 */
import { crc32c } from '@node-rs/crc32';
import { StatusCode } from '../../common/error/status-code.js';
import { TsdbError } from '../../common/error/tsdb-error.js';
import type { KeyCondition, KeyFilterValue } from '../../types/scan-request.js';
import { likeMatcher, MAX_TESTED_LENGTH, regexMatcher } from './index-regex.js';

export const INVERTED_INDEX_MAGIC = 0x49495354; // "TSII" little-endian
export const INVERTED_INDEX_VERSION = 1;
/** GreptimeDB's `index.inverted_index.segment_row_count` default. */
export const DEFAULT_SEGMENT_ROW_COUNT = 1024;

/** How a column's values are written: UTF-8 strings, or integers as decimal text. */
export type IndexValueKind = 'string' | 'integer';
const KIND_CODE: Record<IndexValueKind, number> = { string: 0, integer: 1 };

const ENC_RUNS = 0;
const ENC_BITMAP = 1;

/** A term on a column the index can answer: `IN` (and `=`) from scan keys, or a condition. */
export type IndexTerm = { readonly kind: 'in'; readonly values: readonly KeyFilterValue[] } | KeyCondition;

// ---- encoding ----

/** Appends bytes to a growing buffer. */
class ByteWriter {
  private buf = new Uint8Array(1024);
  length = 0;

  private reserve(n: number): void {
    if (this.length + n <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < this.length + n) size *= 2;
    const next = new Uint8Array(size);
    next.set(this.buf.subarray(0, this.length));
    this.buf = next;
  }

  u8(v: number): void {
    this.reserve(1);
    this.buf[this.length++] = v;
  }

  u16(v: number): void {
    this.reserve(2);
    this.buf[this.length++] = v & 0xff;
    this.buf[this.length++] = (v >>> 8) & 0xff;
  }

  u32(v: number): void {
    this.reserve(4);
    for (let k = 0; k < 4; k++) this.buf[this.length++] = (v >>> (8 * k)) & 0xff;
  }

  varint(v: number): void {
    this.reserve(5);
    while (v >= 0x80) {
      this.buf[this.length++] = (v & 0x7f) | 0x80;
      v >>>= 7;
    }
    this.buf[this.length++] = v;
  }

  bytes(b: Uint8Array): void {
    this.reserve(b.length);
    this.buf.set(b, this.length);
    this.length += b.length;
  }

  take(): Uint8Array {
    return this.buf.subarray(0, this.length);
  }
}

/** Sorted, distinct segment numbers as the smaller of a run list and a bitmap. */
function writeSegmentSet(w: ByteWriter, segments: ArrayLike<number>, segmentCount: number): void {
  const runs: number[] = [];
  for (let i = 0; i < segments.length; ) {
    const start = segments[i]!;
    let j = i + 1;
    while (j < segments.length && segments[j] === segments[j - 1]! + 1) j++;
    runs.push(start, j - i);
    i = j;
  }
  // A run costs about 2–4 bytes; a bitmap one bit a segment.
  const bitmapBytes = (segmentCount + 7) >>> 3;
  if (runs.length * 2 <= bitmapBytes) {
    w.u8(ENC_RUNS);
    w.varint(runs.length / 2);
    let prevEnd = 0;
    for (let k = 0; k < runs.length; k += 2) {
      w.varint(runs[k]! - prevEnd);
      w.varint(runs[k + 1]!);
      prevEnd = runs[k]! + runs[k + 1]!;
    }
    return;
  }
  const bits = new Uint8Array(bitmapBytes);
  for (let i = 0; i < segments.length; i++) bits[segments[i]! >>> 3]! |= 1 << (segments[i]! & 7);
  w.u8(ENC_BITMAP);
  w.bytes(bits);
}

/** What a file's index covers: its rows and row groups. */
export interface IndexLayout {
  readonly segmentRowCount: number;
  readonly rowCount: number;
  /** Rows of each Parquet row group, in file order. */
  readonly rowGroupRows: readonly number[];
}

/**
 * Writes an index file column by column, each column's values in ascending order (`compareValues`),
 * each with its sorted distinct segments.
 */
export class InvertedIndexWriter {
  private readonly w = new ByteWriter();
  private readonly segmentCount: number;
  private columns = 0;
  private column: { id: number; kind: IndexValueKind; nulls: readonly number[]; entries: ByteWriter; count: number; last?: string } | undefined;
  private readonly encoder = new TextEncoder();

  constructor(readonly layout: IndexLayout) {
    if (!(layout.segmentRowCount > 0)) throw new TsdbError(StatusCode.InvalidArguments, `segment_row_count must be positive, got ${layout.segmentRowCount}`);
    this.segmentCount = Math.ceil(layout.rowCount / layout.segmentRowCount);
    this.w.u32(INVERTED_INDEX_MAGIC);
    this.w.u16(INVERTED_INDEX_VERSION);
    this.w.u16(0);
    this.w.u32(layout.segmentRowCount);
    this.w.u32(layout.rowCount);
    this.w.u32(layout.rowGroupRows.length);
    for (const n of layout.rowGroupRows) this.w.u32(n);
  }

  /** Starts a column; `nulls`: sorted segments holding NULL. */
  beginColumn(columnId: number, kind: IndexValueKind, nulls: readonly number[]): void {
    this.endColumn();
    this.column = { id: columnId, kind, nulls, entries: new ByteWriter(), count: 0 };
  }

  /** Adds a value of the current column (after every smaller one) and its sorted distinct segments. */
  addValue(value: string, segments: ArrayLike<number>): void {
    const c = this.column;
    if (c === undefined) throw new TsdbError(StatusCode.Internal, 'inverted index: a value outside a column');
    if (c.last !== undefined && compareValues(c.last, value) >= 0) throw new TsdbError(StatusCode.Internal, `inverted index: value ${JSON.stringify(value)} out of order`);
    c.last = value;
    const bytes = this.encoder.encode(value);
    c.entries.u32(bytes.length);
    c.entries.bytes(bytes);
    writeSegmentSet(c.entries, segments, this.segmentCount);
    c.count++;
  }

  private endColumn(): void {
    const c = this.column;
    if (c === undefined) return;
    this.w.u32(c.id);
    this.w.u8(KIND_CODE[c.kind]);
    this.w.u32(c.count);
    writeSegmentSet(this.w, c.nulls, this.segmentCount);
    this.w.bytes(c.entries.take());
    this.columns++;
    this.column = undefined;
  }

  /** The file's bytes. */
  finish(): Uint8Array {
    this.endColumn();
    this.w.u32(this.columns);
    const body = this.w.take();
    const out = new Uint8Array(body.length + 4);
    out.set(body);
    new DataView(out.buffer).setUint32(body.length, crc32c(out.subarray(0, body.length)), true);
    return out;
  }
}

/** The order of values in a column: by UTF-16 code units (JavaScript's `<`), the same for every writer and reader. */
export function compareValues(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

// ---- decoding ----

function corrupt(what: string, detail: string): TsdbError {
  return new TsdbError(StatusCode.StorageUnavailable, `inverted index ${what} is damaged: ${detail}`);
}

class ByteReader {
  pos = 0;
  constructor(
    readonly buf: Uint8Array,
    private readonly end: number,
    private readonly what: string,
  ) {}

  private need(n: number): void {
    if (this.pos + n > this.end) throw corrupt(this.what, `truncated at byte ${this.pos}`);
  }

  u8(): number {
    this.need(1);
    return this.buf[this.pos++]!;
  }

  u16(): number {
    this.need(2);
    const v = this.buf[this.pos]! | (this.buf[this.pos + 1]! << 8);
    this.pos += 2;
    return v;
  }

  u32(): number {
    this.need(4);
    const b = this.buf;
    const v = (b[this.pos]! | (b[this.pos + 1]! << 8) | (b[this.pos + 2]! << 16) | (b[this.pos + 3]! << 24)) >>> 0;
    this.pos += 4;
    return v;
  }

  varint(): number {
    let v = 0;
    for (let shift = 0; shift < 35; shift += 7) {
      const b = this.u8();
      v += (b & 0x7f) * 2 ** shift;
      if ((b & 0x80) === 0) return v;
    }
    throw corrupt(this.what, `bad varint at byte ${this.pos}`);
  }

  skip(n: number): void {
    this.need(n);
    this.pos += n;
  }
}

/** Skips a segment set, checking its shape; returns where it started. */
function skipSegmentSet(r: ByteReader, segmentCount: number, what: string): number {
  const at = r.pos;
  const enc = r.u8();
  if (enc === ENC_RUNS) {
    const n = r.varint();
    let end = 0;
    for (let k = 0; k < n; k++) {
      end += r.varint();
      const len = r.varint();
      if (len === 0) throw corrupt(what, `empty run at byte ${r.pos}`);
      end += len;
    }
    if (end > segmentCount) throw corrupt(what, `a run past the last segment at byte ${r.pos}`);
  } else if (enc === ENC_BITMAP) {
    r.skip((segmentCount + 7) >>> 3);
  } else throw corrupt(what, `unknown segment set encoding ${enc} at byte ${at}`);
  return at;
}

/** ORs the segment set at `at` into `into` (a bitmap of segments). */
function orSegmentSet(buf: Uint8Array, at: number, into: Uint8Array): void {
  if (buf[at] === ENC_BITMAP) {
    for (let i = 0; i < into.length; i++) into[i]! |= buf[at + 1 + i]!;
    return;
  }
  const r = new ByteReader(buf, buf.length, '');
  r.pos = at + 1;
  const n = r.varint();
  let s = 0;
  for (let k = 0; k < n; k++) {
    s += r.varint();
    const end = s + r.varint();
    for (; s < end; s++) into[s >>> 3]! |= 1 << (s & 7);
  }
}

interface ColumnIndex {
  readonly kind: IndexValueKind;
  /** Where the column's block starts in the file, and its bytes. */
  readonly offset: number;
  readonly size: number;
  /** Distinct values, ascending. */
  readonly values: readonly string[];
  /** Byte offset of each value's segment set. */
  readonly sets: Uint32Array;
}

/** A decoded index file. */
export class InvertedIndex {
  private constructor(
    private readonly buf: Uint8Array,
    readonly layout: IndexLayout,
    private readonly columns: ReadonlyMap<number, ColumnIndex>,
  ) {}

  /** Bytes held (for a cache's budget). */
  get bytes(): number {
    return this.buf.length * 2;
  }

  get segmentCount(): number {
    return Math.ceil(this.layout.rowCount / this.layout.segmentRowCount);
  }

  /** The indexed column ids. */
  columnIds(): number[] {
    return [...this.columns.keys()];
  }

  /** Each indexed column's block: where it starts, its bytes, its kind of values and how many distinct ones. */
  columnBlocks(): Array<{ column_id: number; offset: number; size: number; kind: IndexValueKind; distinct: number }> {
    return [...this.columns].map(([column_id, c]) => ({ column_id, offset: c.offset, size: c.size, kind: c.kind, distinct: c.values.length }));
  }

  /** Decodes a file (`what` names it in errors); a damaged or unknown one is a StorageUnavailable error. */
  static decode(buf: Uint8Array, what: string): InvertedIndex {
    if (buf.length < 28) throw corrupt(what, `${buf.length} bytes is too short`);
    const end = buf.length - 4;
    const stored = new DataView(buf.buffer, buf.byteOffset, buf.byteLength).getUint32(end, true);
    if (crc32c(buf.subarray(0, end)) !== stored) throw corrupt(what, 'checksum mismatch');
    const r = new ByteReader(buf, end, what);
    if (r.u32() !== INVERTED_INDEX_MAGIC) throw corrupt(what, 'not an inverted index file (magic)');
    const version = r.u16();
    if (version !== INVERTED_INDEX_VERSION) throw corrupt(what, `version ${version} is not ${INVERTED_INDEX_VERSION}`);
    r.u16();
    const segmentRowCount = r.u32();
    const rowCount = r.u32();
    if (segmentRowCount === 0) throw corrupt(what, 'segment_row_count is 0');
    const groups = r.u32();
    const rowGroupRows: number[] = [];
    let total = 0;
    for (let g = 0; g < groups; g++) {
      const n = r.u32();
      rowGroupRows.push(n);
      total += n;
    }
    if (total !== rowCount) throw corrupt(what, `row groups hold ${total} rows, the header says ${rowCount}`);
    const segmentCount = Math.ceil(rowCount / segmentRowCount);
    const columns = new Map<number, ColumnIndex>();
    const decoder = new TextDecoder('utf-8', { fatal: true });
    let count = 0;
    while (r.pos < end - 4) {
      const offset = r.pos;
      const id = r.u32();
      const kindCode = r.u8();
      const kind: IndexValueKind | undefined = kindCode === 0 ? 'string' : kindCode === 1 ? 'integer' : undefined;
      if (kind === undefined) throw corrupt(what, `column ${id}: unknown value kind ${kindCode}`);
      const n = r.u32();
      skipSegmentSet(r, segmentCount, what);
      const values: string[] = [];
      const sets = new Uint32Array(n);
      for (let i = 0; i < n; i++) {
        const len = r.u32();
        const at = r.pos;
        r.skip(len);
        let v: string;
        try {
          v = decoder.decode(buf.subarray(at, at + len));
        } catch {
          throw corrupt(what, `column ${id}: a value is not UTF-8 at byte ${at}`);
        }
        if (i > 0 && compareValues(values[i - 1]!, v) >= 0) throw corrupt(what, `column ${id}: values out of order at byte ${at}`);
        values.push(v);
        sets[i] = skipSegmentSet(r, segmentCount, what);
      }
      if (columns.has(id)) throw corrupt(what, `column ${id} appears twice`);
      columns.set(id, { kind, offset, size: r.pos - offset, values, sets });
      count++;
    }
    if (r.pos !== end - 4 || r.u32() !== count) throw corrupt(what, 'column count mismatch');
    return new InvertedIndex(buf, { segmentRowCount, rowCount, rowGroupRows }, columns);
  }

  /** The index of value `v` in a column, or -1. */
  private find(c: ColumnIndex, v: string): number {
    let lo = 0;
    let hi = c.values.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const cmp = compareValues(c.values[mid]!, v);
      if (cmp === 0) return mid;
      if (cmp < 0) lo = mid + 1;
      else hi = mid - 1;
    }
    return -1;
  }

  /**
   * The segments that may hold rows meeting every term (a bitmap, bit s = segment s), or undefined
   * when no term can be answered (a column not indexed, a pattern outside the shared regex subset).
   */
  segmentsMatching(terms: ReadonlyArray<{ readonly columnId: number; readonly term: IndexTerm }>): Uint8Array | undefined {
    let result: Uint8Array | undefined;
    for (const { columnId, term } of terms) {
      const c = this.columns.get(columnId);
      if (c === undefined) continue;
      const selected = this.selectValues(c, term);
      if (selected === undefined) continue;
      const bits = new Uint8Array((this.segmentCount + 7) >>> 3);
      for (const i of selected) orSegmentSet(this.buf, c.sets[i]!, bits);
      if (result === undefined) result = bits;
      else for (let i = 0; i < result.length; i++) result[i]! &= bits[i]!;
    }
    return result;
  }

  /** Indexes of the values of `c` a term admits (NULL never does), or undefined when it cannot tell. */
  private selectValues(c: ColumnIndex, term: IndexTerm): number[] | undefined {
    const text = (v: KeyFilterValue): string | undefined => {
      if (c.kind === 'string') return typeof v === 'string' ? v : undefined;
      return typeof v === 'bigint' ? v.toString() : undefined;
    };
    const all = (keep: (v: string) => boolean): number[] => {
      const out: number[] = [];
      for (let i = 0; i < c.values.length; i++) if (keep(c.values[i]!)) out.push(i);
      return out;
    };
    switch (term.kind) {
      case 'in': {
        const out: number[] = [];
        for (const v of term.values) {
          const t = text(v);
          if (t === undefined) return undefined;
          const i = this.find(c, t);
          if (i >= 0) out.push(i);
        }
        return out;
      }
      case 'not_in': {
        const excluded = new Set<string>();
        for (const v of term.values) {
          const t = text(v);
          if (t === undefined) return undefined;
          excluded.add(t);
        }
        return all((v) => !excluded.has(v));
      }
      case 'regex':
      case 'like': {
        if (c.kind !== 'string') return undefined;
        const matches = term.kind === 'regex' ? regexMatcher(term.pattern, term.full) : likeMatcher(term.pattern);
        if (matches === undefined) return undefined;
        // A value too long to test counts as matching either way (`index-regex.ts`): its row groups are read.
        const untested = term.kind === 'regex' ? (v: string) => v.length > MAX_TESTED_LENGTH : () => false;
        return all((v) => untested(v) || matches(v) !== term.negated);
      }
    }
  }

  /** Which row groups overlap a segment bitmap (true: read it). */
  rowGroupsOf(segments: Uint8Array): boolean[] {
    const S = this.layout.segmentRowCount;
    const out: boolean[] = [];
    let start = 0;
    for (const n of this.layout.rowGroupRows) {
      let hit = false;
      if (n > 0) {
        const last = Math.floor((start + n - 1) / S);
        for (let s = Math.floor(start / S); s <= last && !hit; s++) hit = (segments[s >>> 3]! & (1 << (s & 7))) !== 0;
      }
      out.push(hit);
      start += n;
    }
    return out;
  }
}
