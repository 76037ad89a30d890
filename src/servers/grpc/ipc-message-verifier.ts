/**
 * A bounds check of an Arrow IPC Message flatbuffer, for apache-arrow to read it safely afterwards.
 * apache-arrow reads flatbuffers unverified: a damaged vector length or offset makes it loop over
 * up to 2^32 entries (a Schema whose field vector claims a billion fields exhausts the heap before
 * anything throws). This walks what apache-arrow reads of a message — Message; Schema, its Fields
 * with their types, dictionary encodings, children and metadata; RecordBatch; DictionaryBatch —
 * checking that every table, vtable, scalar, vector and string lies inside the buffer. Work is
 * bounded: at most one table per 4 bytes of the buffer (a table reached twice counts twice) and
 * Fields nested at most 64 deep. It checks layout only; what the values mean is the readers' matter.
 *
 * Layout (flatbuffers): a table starts with an int32 back to its vtable (`table - value`); the
 * vtable holds uint16 its own size, the table's size, then one uint16 offset per field (0 or past
 * the vtable: absent). Offset fields hold a uint32 forward to a table, vector or string; vectors
 * and strings start with a uint32 element count.
 */

interface Table {
  readonly pos: number;
  readonly vtable: number;
  readonly vtableSize: number;
  readonly size: number;
}

// Message header union (Message.fbs).
const HEADER_SCHEMA = 1;
const HEADER_DICTIONARY_BATCH = 2;
const HEADER_RECORD_BATCH = 3;

// Type union (Schema.fbs): sizes of the scalar fields of each type's table, in field order; the
// two types with offset fields are walked apart.
const TYPE_TIMESTAMP = 10;
const TYPE_UNION = 14;
const TYPE_SCALARS: Record<number, readonly number[]> = {
  2: [4, 1], // Int: bitWidth, is_signed
  3: [2], // FloatingPoint: precision
  7: [4, 4, 4], // Decimal: precision, scale, bitWidth
  8: [2], // Date: unit
  9: [2, 4], // Time: unit, bitWidth
  11: [2], // Interval: unit
  15: [4], // FixedSizeBinary: byteWidth
  16: [4], // FixedSizeList: listSize
  17: [1], // Map: keysSorted
  18: [2], // Duration: unit
};

const MAX_FIELD_DEPTH = 64;

class LayoutError extends Error {}

class Verifier {
  private readonly view: DataView;
  private readonly length: number;
  private tablesLeft: number;

  constructor(bytes: Uint8Array) {
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    this.length = bytes.byteLength;
    this.tablesLeft = Math.floor(bytes.byteLength / 4) + 1;
  }

  private fail(message: string): never {
    throw new LayoutError(message);
  }

  private inside(pos: number, size: number, what: string): void {
    if (!(pos >= 0 && pos + size <= this.length)) this.fail(`${what} at ${pos} (+${size}) is outside the ${this.length} bytes`);
  }

  u32(pos: number, what: string): number {
    this.inside(pos, 4, what);
    return this.view.getUint32(pos, true);
  }

  byte(pos: number): number {
    return this.view.getUint8(pos);
  }

  table(pos: number, what: string): Table {
    if (--this.tablesLeft < 0) this.fail('more tables than the buffer can hold');
    this.inside(pos, 4, what);
    const vtable = pos - this.view.getInt32(pos, true);
    this.inside(vtable, 4, `the vtable of ${what}`);
    const vtableSize = this.view.getUint16(vtable, true);
    const size = this.view.getUint16(vtable + 2, true);
    if (vtableSize < 4 || vtableSize % 2 !== 0) this.fail(`the vtable of ${what} has size ${vtableSize}`);
    this.inside(vtable, vtableSize, `the vtable of ${what}`);
    if (size < 4) this.fail(`${what} has size ${size}`);
    this.inside(pos, size, what);
    return { pos, vtable, vtableSize, size };
  }

  /** Position of field `index` of `t` holding `size` bytes; undefined when absent. */
  field(t: Table, index: number, size: number, what: string): number | undefined {
    const slot = 4 + 2 * index;
    if (slot + 2 > t.vtableSize) return undefined;
    const offset = this.view.getUint16(t.vtable + slot, true);
    if (offset === 0) return undefined;
    if (offset + size > t.size) this.fail(`${what} lies outside its table`);
    return t.pos + offset;
  }

  private target(t: Table, index: number, what: string): number | undefined {
    const at = this.field(t, index, 4, what);
    return at === undefined ? undefined : at + this.u32(at, what);
  }

  tableAt(t: Table, index: number, what: string): Table | undefined {
    const at = this.target(t, index, what);
    return at === undefined ? undefined : this.table(at, what);
  }

  /** A vector of `elementSize`-byte elements (a string: of bytes): its first element and length. */
  vector(t: Table, index: number, elementSize: number, what: string): { start: number; count: number } | undefined {
    const at = this.target(t, index, what);
    if (at === undefined) return undefined;
    const count = this.u32(at, what);
    this.inside(at + 4, count * elementSize, `${what} of ${count} elements`);
    return { start: at + 4, count };
  }

  tables(t: Table, index: number, what: string, each: (element: Table) => void): void {
    const v = this.vector(t, index, 4, what);
    if (v === undefined) return;
    for (let i = 0; i < v.count; i++) {
      const slot = v.start + 4 * i;
      each(this.table(slot + this.u32(slot, what), `${what}[${i}]`));
    }
  }

  message(): void {
    const root = this.table(this.u32(0, 'the root offset'), 'the Message');
    this.field(root, 0, 2, 'Message.version');
    const typeAt = this.field(root, 1, 1, 'Message.header_type');
    this.field(root, 3, 8, 'Message.bodyLength');
    this.keyValues(root, 4, 'Message.custom_metadata');
    const type = typeAt === undefined ? 0 : this.byte(typeAt);
    // Other headers are not read: NONE (GreptimeDB's metadata-only messages) has none, tensors are refused.
    if (type !== HEADER_SCHEMA && type !== HEADER_DICTIONARY_BATCH && type !== HEADER_RECORD_BATCH) return;
    const header = this.tableAt(root, 2, 'Message.header');
    if (header === undefined) return;
    switch (type) {
      case HEADER_SCHEMA:
        this.schema(header);
        break;
      case HEADER_DICTIONARY_BATCH: {
        this.field(header, 0, 8, 'DictionaryBatch.id');
        this.field(header, 2, 1, 'DictionaryBatch.isDelta');
        const data = this.tableAt(header, 1, 'DictionaryBatch.data');
        if (data !== undefined) this.recordBatch(data);
        break;
      }
      default:
        this.recordBatch(header);
        break;
    }
  }

  private schema(t: Table): void {
    this.field(t, 0, 2, 'Schema.endianness');
    this.tables(t, 1, 'Schema.fields', (f) => this.fieldOf(f, 0));
    this.keyValues(t, 2, 'Schema.custom_metadata');
    this.vector(t, 3, 8, 'Schema.features');
  }

  private fieldOf(f: Table, depth: number): void {
    if (depth > MAX_FIELD_DEPTH) this.fail(`Fields nest more than ${MAX_FIELD_DEPTH} deep`);
    this.vector(f, 0, 1, 'Field.name');
    this.field(f, 1, 1, 'Field.nullable');
    const typeAt = this.field(f, 2, 1, 'Field.type_type');
    const type = this.tableAt(f, 3, 'Field.type');
    if (type !== undefined) this.typeOf(typeAt === undefined ? 0 : this.byte(typeAt), type);
    const dictionary = this.tableAt(f, 4, 'Field.dictionary');
    if (dictionary !== undefined) {
      this.field(dictionary, 0, 8, 'DictionaryEncoding.id');
      this.field(dictionary, 2, 1, 'DictionaryEncoding.isOrdered');
      this.field(dictionary, 3, 2, 'DictionaryEncoding.dictionaryKind');
      const indexType = this.tableAt(dictionary, 1, 'DictionaryEncoding.indexType');
      if (indexType !== undefined) this.typeOf(2, indexType);
    }
    this.tables(f, 5, 'Field.children', (c) => this.fieldOf(c, depth + 1));
    this.keyValues(f, 6, 'Field.custom_metadata');
  }

  private typeOf(kind: number, t: Table): void {
    if (kind === TYPE_TIMESTAMP) {
      this.field(t, 0, 2, 'Timestamp.unit');
      this.vector(t, 1, 1, 'Timestamp.timezone');
    } else if (kind === TYPE_UNION) {
      this.field(t, 0, 2, 'Union.mode');
      this.vector(t, 1, 4, 'Union.typeIds');
    } else {
      (TYPE_SCALARS[kind] ?? []).forEach((size, index) => this.field(t, index, size, `a field of type ${kind}`));
    }
  }

  private recordBatch(t: Table): void {
    this.field(t, 0, 8, 'RecordBatch.length');
    this.vector(t, 1, 16, 'RecordBatch.nodes');
    this.vector(t, 2, 16, 'RecordBatch.buffers');
    const compression = this.tableAt(t, 3, 'RecordBatch.compression');
    if (compression !== undefined) {
      this.field(compression, 0, 1, 'BodyCompression.codec');
      this.field(compression, 1, 1, 'BodyCompression.method');
    }
    this.vector(t, 4, 8, 'RecordBatch.variadicBufferCounts');
  }

  private keyValues(t: Table, index: number, what: string): void {
    this.tables(t, index, what, (kv) => {
      this.vector(kv, 0, 1, `${what} key`);
      this.vector(kv, 1, 1, `${what} value`);
    });
  }
}

/** What keeps `header` (a Message flatbuffer) from being safe for apache-arrow to read; undefined when nothing does. */
export function ipcMessageLayoutProblem(header: Uint8Array): string | undefined {
  try {
    new Verifier(header).message();
    return undefined;
  } catch (err) {
    if (err instanceof LayoutError) return err.message;
    throw err;
  }
}
