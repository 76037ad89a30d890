/**
 * Encodes a WriteBatch as a WAL record payload and back. Layout (little-endian):
 *
 *   u8 version (2) │ u8 op │ u32 row count │ u16 column count
 *   per column: u32 column id │ u8 vector type │ u8 has-valid │ [u8 × rows valid] │ data
 *   data: float64/int64/uint64: zero padding to a multiple of 8 bytes from the payload's start,
 *         then 8 bytes × rows; bool: 1 byte × rows;
 *         string/binary: per row u32 length (0xFFFFFFFF = NULL) then the bytes (UTF-8 for strings);
 *         dictionary string (type 7, when values repeat, as tags do): u32 distinct count, the
 *         distinct values as above, padding to a multiple of 4, then per row u32 index
 *         (0xFFFFFFFF = NULL)
 *
 * Version 1 (no padding) is still read. With the padding, a payload that starts 8-byte aligned
 * (WAL replay copies each record's payload into its own buffer) decodes its numeric columns and
 * dictionary codes as views, without copying them again.
 */
import { dictionaryOf, knownDictionary, vectorFromDictionary } from '../../types/string-dictionary.js';
import { vectorLength, type OpType, type Vector, type VectorType, type WriteBatch } from '../../types/write-batch.js';

const VERSION = 2;
const TYPE_CODES: Record<VectorType, number> = { float64: 1, int64: 2, uint64: 3, bool: 4, string: 5, binary: 6 };
/** A string column written as a dictionary and indexes; decoded as a `string` vector. */
const DICT_STRING = 7;
const CODE_TYPES = new Map<number, VectorType>(Object.entries(TYPE_CODES).map(([t, c]) => [c, t as VectorType]));
const NULL_LENGTH = 0xffff_ffff;

class Writer {
  private buf: Buffer;
  pos = 0;
  constructor(size: number) {
    this.buf = Buffer.allocUnsafe(size);
  }
  private ensure(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    const next = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.pos + n));
    this.buf.copy(next, 0, 0, this.pos);
    this.buf = next;
  }
  u8(v: number): void {
    this.ensure(1);
    this.buf[this.pos++] = v;
  }
  u16(v: number): void {
    this.ensure(2);
    this.pos = this.buf.writeUInt16LE(v, this.pos);
  }
  u32(v: number): void {
    this.ensure(4);
    this.pos = this.buf.writeUInt32LE(v, this.pos);
  }
  bytes(b: Uint8Array): void {
    this.ensure(b.length);
    this.buf.set(b, this.pos);
    this.pos += b.length;
  }
  utf8(s: string): void {
    const max = Buffer.byteLength(s);
    this.ensure(4 + max);
    this.buf.writeUInt32LE(max, this.pos);
    this.buf.write(s, this.pos + 4, 'utf8');
    this.pos += 4 + max;
  }
  /** Zero bytes up to a multiple of `n` from the start. */
  align(n: number): void {
    const pad = (n - (this.pos % n)) % n;
    this.ensure(pad);
    this.buf.fill(0, this.pos, this.pos + pad);
    this.pos += pad;
  }
  result(): Buffer {
    return this.buf.subarray(0, this.pos);
  }
}

function typedBytes(a: Float64Array | BigInt64Array | BigUint64Array | Uint8Array): Uint8Array {
  return new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
}

export function encodeBatch(batch: WriteBatch): Buffer {
  const w = new Writer(64 + batch.rowCount * batch.columns.size * 9);
  w.u8(VERSION);
  w.u8(batch.op);
  w.u32(batch.rowCount);
  w.u16(batch.columns.size);
  for (const [id, v] of batch.columns) {
    const length = vectorLength(v);
    if (length !== batch.rowCount) throw new RangeError(`column ${id} has ${length} values for ${batch.rowCount} rows`);
    w.u32(id);
    if (v.type === 'string' && writeDictionary(w, v)) continue;
    w.u8(TYPE_CODES[v.type]);
    if (v.type === 'string' || v.type === 'binary') {
      w.u8(0);
      for (const x of v.data) {
        if (x === null) w.u32(NULL_LENGTH);
        else if (typeof x === 'string') w.utf8(x);
        else {
          w.u32(x.length);
          w.bytes(x);
        }
      }
      continue;
    }
    w.u8(v.valid ? 1 : 0);
    if (v.valid) w.bytes(v.valid);
    if (v.type !== 'bool') w.align(8);
    w.bytes(typedBytes(v.data));
  }
  return w.result();
}

/**
 * Writes a string column as a dictionary when at most half its values are distinct (tags):
 * fewer bytes to encode, write and checksum, and on replay one string per distinct value. A
 * dictionary already known (a protocol decoder made the column from one) is always used: its
 * per-row strings may not even exist, and it costs at most 4 bytes a row more.
 */
function writeDictionary(w: Writer, v: Extract<Vector, { type: 'string' }>): boolean {
  const dict = knownDictionary(v) ?? dictionaryOf(v, v.data.length / 2);
  if (dict === undefined) return false;
  w.u8(DICT_STRING);
  w.u8(0);
  w.u32(dict.values.length);
  for (const s of dict.values) w.utf8(s);
  w.align(4);
  w.bytes(new Uint8Array(dict.codes.buffer, dict.codes.byteOffset, dict.codes.byteLength));
  return true;
}

/**
 * Decodes a payload. Numeric columns and dictionary codes may be views into `payload` (when
 * aligned): keep its bytes unchanged while the batch is in use.
 */
export function decodeBatch(payload: Uint8Array): WriteBatch {
  const b = Buffer.from(payload.buffer, payload.byteOffset, payload.byteLength);
  let pos = 0;
  const need = (n: number) => {
    if (pos + n > b.length) throw new RangeError(`write batch is truncated at byte ${pos} (needs ${n} more)`);
  };
  need(8);
  const version = b[pos++]!;
  if (version !== 1 && version !== VERSION) throw new RangeError(`unsupported write batch version ${version}`);
  const aligned = version >= 2;
  const op = b[pos++]! as OpType;
  const rowCount = b.readUInt32LE(pos);
  pos += 4;
  const columnCount = b.readUInt16LE(pos);
  pos += 2;
  const columns = new Map<number, Vector>();
  // Typed arrays need aligned memory: a view where the bytes are aligned (version 2 pads them),
  // else a copy into a fresh buffer.
  const skipTo = (n: number) => {
    if (aligned) pos += (n - (pos % n)) % n;
  };
  const take = (n: number, align: number): ArrayBuffer | Uint8Array => {
    need(n);
    const at = b.byteOffset + pos;
    pos += n;
    if (at % align === 0) return new Uint8Array(b.buffer, at, n);
    return b.buffer.slice(at, at + n) as ArrayBuffer;
  };
  const view = <T>(ctor: new (buf: ArrayBuffer, offset: number, length: number) => T, n: number, width: number): T => {
    const bytes = take(n * width, width);
    return bytes instanceof Uint8Array ? new ctor(bytes.buffer as ArrayBuffer, bytes.byteOffset, n) : new ctor(bytes, 0, n);
  };
  const copy = (n: number) => {
    need(n);
    const out = new Uint8Array(n);
    out.set(b.subarray(pos, pos + n));
    pos += n;
    return out;
  };
  for (let c = 0; c < columnCount; c++) {
    need(6);
    const id = b.readUInt32LE(pos);
    pos += 4;
    const code = b[pos++]!;
    const hasValid = b[pos++] === 1;
    if (code === DICT_STRING) {
      need(4);
      const distinct = b.readUInt32LE(pos);
      pos += 4;
      const values: string[] = new Array(distinct);
      for (let d = 0; d < distinct; d++) {
        need(4);
        const len = b.readUInt32LE(pos);
        pos += 4;
        need(len);
        values[d] = b.toString('utf8', pos, pos + len);
        pos += len;
      }
      skipTo(4);
      const codes = view(Uint32Array, rowCount, 4);
      try {
        columns.set(id, vectorFromDictionary(values, codes));
      } catch (err) {
        throw new RangeError(`column ${id}: ${(err as Error).message}`);
      }
      continue;
    }
    const type = CODE_TYPES.get(code);
    if (type === undefined) throw new RangeError(`unknown vector type in column ${id}`);
    if (type === 'string' || type === 'binary') {
      const data: Array<string | Uint8Array | null> = new Array(rowCount);
      for (let i = 0; i < rowCount; i++) {
        need(4);
        const len = b.readUInt32LE(pos);
        pos += 4;
        if (len === NULL_LENGTH) {
          data[i] = null;
          continue;
        }
        need(len);
        data[i] = type === 'string' ? b.toString('utf8', pos, pos + len) : copy(len);
        if (type === 'string') pos += len;
      }
      columns.set(id, type === 'string' ? { type, data: data as (string | null)[] } : { type, data: data as (Uint8Array | null)[] });
      continue;
    }
    const valid = hasValid ? copy(rowCount) : undefined;
    if (type !== 'bool') skipTo(8);
    switch (type) {
      case 'float64':
        columns.set(id, { type, data: view(Float64Array, rowCount, 8), ...(valid && { valid }) });
        break;
      case 'int64':
        columns.set(id, { type, data: view(BigInt64Array, rowCount, 8), ...(valid && { valid }) });
        break;
      case 'uint64':
        columns.set(id, { type, data: view(BigUint64Array, rowCount, 8), ...(valid && { valid }) });
        break;
      case 'bool':
        columns.set(id, { type, data: copy(rowCount), ...(valid && { valid }) });
        break;
    }
  }
  if (pos !== b.length) throw new RangeError(`write batch has ${b.length - pos} bytes after its last column`);
  return { op, rowCount, columns };
}
