/**
 * GreptimeDB's write messages (`RowInsertRequests`, `RowDeleteRequests`: row-oriented;
 * `InsertRequests`, `DeleteRequests`: column-oriented, a null bitmap per column) decoded into the
 * tables the ingest path takes (frontend/ingest-request.ts).
 *
 * Column types: every ColumnDataType tsdb stores (BOOLEAN, INT8…UINT64, FLOAT32/64, BINARY, STRING,
 * DATE, DATETIME as TimestampMicrosecond, TIMESTAMP_*, DECIMAL128 with its precision and scale from
 * `datatype_extension`, GreptimeDB's (38, 10) without); TIME_*, INTERVAL_*, JSON, VECTOR, LIST,
 * STRUCT and DICTIONARY are refused (Unsupported), naming the column. A value whose
 * kind is not its column's type (a `string_value` in an INT64 column) or out of its type's range is
 * refused (InvalidArguments), naming table, column and row. Several requests for one table in one
 * message are merged (rows appended, columns a part lacks NULL there).
 */
import { StatusCode } from '../../common/error/status-code.js';
import { TsdbError } from '../../common/error/tsdb-error.js';
import { vectorTypeOf, type Vector } from '../../types/write-batch.js';
import type { ColumnType } from '../../types/region-metadata.js';
import { unscaledText } from '../../types/decimal.js';
import type { IngestColumn, IngestSemantic, IngestTable } from '../../frontend/ingest-request.js';

/** `greptime.v1.ColumnDataType` names by number. */
export const COLUMN_DATA_TYPE_NAMES: Readonly<Record<number, string>> = {
  0: 'BOOLEAN', 1: 'INT8', 2: 'INT16', 3: 'INT32', 4: 'INT64', 5: 'UINT8', 6: 'UINT16', 7: 'UINT32', 8: 'UINT64',
  9: 'FLOAT32', 10: 'FLOAT64', 11: 'BINARY', 12: 'STRING', 13: 'DATE', 14: 'DATETIME', 15: 'TIMESTAMP_SECOND',
  16: 'TIMESTAMP_MILLISECOND', 17: 'TIMESTAMP_MICROSECOND', 18: 'TIMESTAMP_NANOSECOND', 19: 'TIME_SECOND',
  20: 'TIME_MILLISECOND', 21: 'TIME_MICROSECOND', 22: 'TIME_NANOSECOND', 23: 'INTERVAL_YEAR_MONTH',
  24: 'INTERVAL_DAY_TIME', 25: 'INTERVAL_MONTH_DAY_NANO', 30: 'DECIMAL128', 31: 'JSON', 32: 'VECTOR', 40: 'LIST',
  41: 'STRUCT', 42: 'DICTIONARY',
};

type Kind = 'int' | 'uint' | 'bigint' | 'ubigint' | 'float' | 'bool' | 'binary' | 'string' | 'decimal';

interface TypeSpec {
  readonly type: ColumnType;
  /** The `Value` oneof member (row requests); `<field>s` is the `Column.Values` list. */
  readonly field: string;
  readonly kind: Kind;
  readonly min?: number;
  readonly max?: number;
  /** DECIMAL128: the column's precision and scale (its `datatype_extension`). */
  readonly precision?: number;
  readonly scale?: number;
}

/** `ColumnDataTypeExtension` as decoded: tsdb reads the decimal one. */
export interface WireTypeExtension {
  readonly decimal_type?: { readonly precision?: number; readonly scale?: number } | null;
}

const DECIMAL128 = 30;

/** The stored type and wire field of each ColumnDataType tsdb takes. */
export const COLUMN_DATA_TYPES: Readonly<Record<number, TypeSpec>> = {
  0: { type: 'Boolean', field: 'bool_value', kind: 'bool' },
  1: { type: 'Int8', field: 'i8_value', kind: 'int', min: -128, max: 127 },
  2: { type: 'Int16', field: 'i16_value', kind: 'int', min: -32768, max: 32767 },
  3: { type: 'Int32', field: 'i32_value', kind: 'int' },
  4: { type: 'Int64', field: 'i64_value', kind: 'bigint' },
  5: { type: 'UInt8', field: 'u8_value', kind: 'uint', min: 0, max: 255 },
  6: { type: 'UInt16', field: 'u16_value', kind: 'uint', min: 0, max: 65535 },
  7: { type: 'UInt32', field: 'u32_value', kind: 'uint' },
  8: { type: 'UInt64', field: 'u64_value', kind: 'ubigint' },
  9: { type: 'Float32', field: 'f32_value', kind: 'float' },
  10: { type: 'Float64', field: 'f64_value', kind: 'float' },
  11: { type: 'Binary', field: 'binary_value', kind: 'binary' },
  12: { type: 'String', field: 'string_value', kind: 'string' },
  13: { type: 'Date', field: 'date_value', kind: 'int' },
  14: { type: 'TimestampMicrosecond', field: 'datetime_value', kind: 'bigint' },
  15: { type: 'TimestampSecond', field: 'timestamp_second_value', kind: 'bigint' },
  16: { type: 'TimestampMillisecond', field: 'timestamp_millisecond_value', kind: 'bigint' },
  17: { type: 'TimestampMicrosecond', field: 'timestamp_microsecond_value', kind: 'bigint' },
  18: { type: 'TimestampNanosecond', field: 'timestamp_nanosecond_value', kind: 'bigint' },
};

/** The ColumnDataType of a stored type (the inverse of COLUMN_DATA_TYPES, DATETIME aside). */
export function columnDataTypeOf(type: ColumnType): number {
  for (const [n, spec] of Object.entries(COLUMN_DATA_TYPES)) if (spec.type === type && n !== '14') return Number(n);
  throw new TsdbError(StatusCode.Unexpected, `no ColumnDataType for ${type}`);
}

const SEMANTICS: Readonly<Record<number, IngestSemantic>> = { 0: 'tag', 1: 'field', 2: 'timestamp' };

function invalid(message: string): TsdbError {
  return new TsdbError(StatusCode.InvalidArguments, message);
}

function typeName(datatype: number): string {
  return COLUMN_DATA_TYPE_NAMES[datatype] ?? `ColumnDataType(${datatype})`;
}

/** The spec of a column's declared type; Unsupported for the types tsdb does not store. */
function specOf(table: string, column: string, datatype: number, extension?: WireTypeExtension | null): TypeSpec {
  if (datatype === DECIMAL128) {
    // GreptimeDB's default DECIMAL is (38, 10).
    const precision = extension?.decimal_type?.precision ?? 38;
    const scale = extension?.decimal_type?.scale ?? 10;
    if (!Number.isInteger(precision) || precision < 1 || precision > 38 || !Number.isInteger(scale) || scale < 0 || scale > precision) {
      throw invalid(`Invalid request to table ${table}, reason: column ${column} has an invalid decimal type (${precision}, ${scale})`);
    }
    return { type: `Decimal(${precision}, ${scale})` as ColumnType, field: 'decimal128_value', kind: 'decimal', precision, scale };
  }
  const spec = COLUMN_DATA_TYPES[datatype];
  if (spec === undefined) throw new TsdbError(StatusCode.Unsupported, `Unsupported data type ${typeName(datatype)} of column ${column} in table ${table}: tsdb stores BOOLEAN, INT8-64, UINT8-64, FLOAT32/64, BINARY, STRING, DATE, DATETIME, TIMESTAMP_* and DECIMAL128`);
  return spec;
}

export type Cell = number | bigint | string | Uint8Array | null;

/** A column being collected: its cells, NULL where a row had none. */
export interface ColumnBuilder {
  readonly name: string;
  readonly semantic: IngestSemantic;
  readonly datatype: number;
  readonly spec: TypeSpec;
  readonly cells: Cell[];
}

/** Rows of one table collected from the parts of a message. */
export class TableBuilder {
  readonly columns = new Map<string, ColumnBuilder>();
  rowCount = 0;
  constructor(readonly name: string) {}

  /** The column `name` declared with this type and kind (declared now if new; earlier rows NULL). */
  column(name: string, semanticNumber: number, datatype: number, extension?: WireTypeExtension | null): ColumnBuilder {
    if (name === '') throw invalid(`table ${this.name}: a column name is empty`);
    const semantic = SEMANTICS[semanticNumber];
    if (semantic === undefined) throw invalid(`table ${this.name}: column ${name} has an unknown semantic type ${semanticNumber}`);
    const spec = specOf(this.name, name, datatype, extension);
    const have = this.columns.get(name);
    if (have !== undefined) {
      if (have.spec.type !== spec.type || have.semantic !== semantic) {
        throw invalid(`table ${this.name}: column ${name} is given as ${typeName(have.datatype)} ${have.semantic} and as ${typeName(datatype)} ${semantic}`);
      }
      return have;
    }
    const col: ColumnBuilder = { name, semantic, datatype, spec, cells: new Array<Cell>(this.rowCount).fill(null) };
    this.columns.set(name, col);
    return col;
  }

  /** Pads the columns a part did not give up to the current row count. */
  pad(): void {
    for (const c of this.columns.values()) while (c.cells.length < this.rowCount) c.cells.push(null);
  }

  build(): IngestTable {
    const columns: IngestColumn[] = [];
    for (const c of this.columns.values()) columns.push({ name: c.name, semantic: c.semantic, type: c.spec.type, vector: vectorOf(this.name, c) });
    return { name: this.name, rowCount: this.rowCount, columns };
  }
}

/** One cell from its wire form, checked against the column's type. */
function cellOf(table: string, c: ColumnBuilder, row: number, raw: unknown): Cell {
  const { spec } = c;
  const bad = (why: string) => invalid(`Invalid request to table ${table}, reason: column ${c.name} (${typeName(c.datatype)}) row ${row}: ${why}`);
  switch (spec.kind) {
    case 'int':
    case 'uint': {
      const n = Number(raw);
      if (!Number.isInteger(n)) throw bad(`${String(raw)} is not an integer`);
      if ((spec.min !== undefined && n < spec.min) || (spec.max !== undefined && n > spec.max)) throw bad(`${n} is out of range [${spec.min}, ${spec.max}]`);
      return n;
    }
    case 'bigint':
    case 'ubigint':
      try {
        return BigInt(raw as string);
      } catch {
        throw bad(`${String(raw)} is not an integer`);
      }
    case 'float':
      return Number(raw);
    case 'bool':
      return raw === true ? 1 : 0;
    case 'binary':
      return raw instanceof Uint8Array ? raw : new Uint8Array(0);
    case 'string':
      return String(raw);
    case 'decimal':
      return decimalCell(raw, spec.precision!, spec.scale!, bad);
  }
}

/** A `Decimal128 {hi, lo}` (the 128-bit unscaled value's halves) as the canonical text of its column's scale. */
function decimalCell(raw: unknown, precision: number, scale: number, bad: (why: string) => TsdbError): string {
  const d = raw as { hi?: unknown; lo?: unknown } | null;
  let unscaled: bigint;
  try {
    unscaled = (BigInt((d?.hi as string | number | undefined) ?? 0) << 64n) + BigInt.asUintN(64, BigInt((d?.lo as string | number | undefined) ?? 0));
  } catch {
    throw bad('not a Decimal128');
  }
  const abs = unscaled < 0n ? -unscaled : unscaled;
  if (abs >= 10n ** BigInt(precision)) throw bad(`${unscaled} does not fit DECIMAL(${precision}, ${scale})`);
  return unscaledText(unscaled, scale);
}

/** The vector of a column's cells, of the kind its type is stored in. */
function vectorOf(table: string, c: ColumnBuilder): Vector {
  const n = c.cells.length;
  const kind = vectorTypeOf(c.spec.type);
  if (c.semantic === 'timestamp') {
    const nullAt = c.cells.indexOf(null);
    if (nullAt >= 0) throw invalid(`Invalid request to table ${table}, reason: time index ${c.name} is NULL in row ${nullAt}`);
  }
  if (kind === 'string') return { type: 'string', data: c.cells as Array<string | null> };
  if (kind === 'binary') return { type: 'binary', data: c.cells as Array<Uint8Array | null> };
  let valid: Uint8Array | undefined;
  const markNulls = () => {
    if (!c.cells.includes(null)) return;
    valid = new Uint8Array(n);
    for (let i = 0; i < n; i++) valid[i] = c.cells[i] === null ? 0 : 1;
  };
  markNulls();
  const withValid = <T extends object>(v: T) => (valid !== undefined ? { ...v, valid } : v);
  switch (kind) {
    case 'int64': {
      const data = new BigInt64Array(n);
      for (let i = 0; i < n; i++) data[i] = (c.cells[i] as bigint | null) ?? 0n;
      return withValid({ type: 'int64' as const, data });
    }
    case 'uint64': {
      const data = new BigUint64Array(n);
      for (let i = 0; i < n; i++) data[i] = (c.cells[i] as bigint | null) ?? 0n;
      return withValid({ type: 'uint64' as const, data });
    }
    case 'bool': {
      const data = new Uint8Array(n);
      for (let i = 0; i < n; i++) data[i] = (c.cells[i] as number | null) ?? 0;
      return withValid({ type: 'bool' as const, data });
    }
    default: {
      const data = new Float64Array(n);
      for (let i = 0; i < n; i++) data[i] = (c.cells[i] as number | null) ?? 0;
      return withValid({ type: 'float64' as const, data });
    }
  }
}

/** `greptime.v1.Rows` as decoded. */
export interface WireRows {
  readonly schema?: ReadonlyArray<{ readonly column_name: string; readonly datatype: number; readonly semantic_type: number; readonly datatype_extension?: WireTypeExtension | null }>;
  readonly rows?: ReadonlyArray<{ readonly values?: ReadonlyArray<Record<string, unknown> & { readonly value_data?: string }> }>;
}

/** `RowInsertRequests.inserts` / `RowDeleteRequests.deletes` as tables. */
export function tablesOfRows(requests: ReadonlyArray<{ readonly table_name: string; readonly rows?: WireRows | null }>): IngestTable[] {
  const tables = new Map<string, TableBuilder>();
  for (const req of requests) {
    if (req.table_name === '') throw invalid('a table name is empty');
    const t = tables.get(req.table_name) ?? new TableBuilder(req.table_name);
    tables.set(req.table_name, t);
    const schema = req.rows?.schema ?? [];
    const seen = new Set<string>();
    const cols = schema.map((s) => {
      if (seen.has(s.column_name)) throw invalid(`table ${t.name}: column ${s.column_name} is given twice`);
      seen.add(s.column_name);
      return t.column(s.column_name, s.semantic_type, s.datatype, s.datatype_extension);
    });
    const base = t.rowCount;
    for (const [r, row] of (req.rows?.rows ?? []).entries()) {
      const values = row.values ?? [];
      if (values.length !== cols.length) throw invalid(`table ${t.name}: row ${base + r} has ${values.length} values for ${cols.length} columns`);
      for (const [i, col] of cols.entries()) {
        const v = values[i]!;
        const member = v.value_data;
        if (member === undefined || member === null) {
          col.cells.push(null);
          continue;
        }
        if (member !== col.spec.field) {
          throw invalid(`Invalid request to table ${t.name}, reason: column ${col.name} expect type ${typeName(col.datatype)} (${col.spec.field}), given: ${member} in row ${base + r}`);
        }
        col.cells.push(cellOf(t.name, col, base + r, v[member]));
      }
      t.rowCount++;
      t.pad();
    }
  }
  return [...tables.values()].map((t) => t.build());
}

/** `greptime.v1.Column` as decoded. */
export interface WireColumn {
  readonly column_name: string;
  readonly semantic_type: number;
  readonly datatype: number;
  readonly datatype_extension?: WireTypeExtension | null;
  readonly values?: Readonly<Record<string, unknown>> | null;
  readonly null_mask?: Uint8Array;
}

/** `InsertRequests.inserts` (`columns`) / `DeleteRequests.deletes` (`key_columns`) as tables. */
export function tablesOfColumns(requests: ReadonlyArray<{ readonly table_name: string; readonly row_count: number; readonly columns: readonly WireColumn[] }>): IngestTable[] {
  const tables = new Map<string, TableBuilder>();
  for (const req of requests) {
    if (req.table_name === '') throw invalid('a table name is empty');
    const t = tables.get(req.table_name) ?? new TableBuilder(req.table_name);
    tables.set(req.table_name, t);
    const rows = req.row_count;
    const base = t.rowCount;
    const seen = new Set<string>();
    for (const wc of req.columns) {
      if (seen.has(wc.column_name)) throw invalid(`table ${t.name}: column ${wc.column_name} is given twice`);
      seen.add(wc.column_name);
      const col = t.column(wc.column_name, wc.semantic_type, wc.datatype, wc.datatype_extension);
      const listName = `${col.spec.field}s`;
      for (const [k, list] of Object.entries(wc.values ?? {})) {
        if (k !== listName && Array.isArray(list) && list.length > 0) {
          throw invalid(`Invalid request to table ${t.name}, reason: column ${col.name} expect type ${typeName(col.datatype)} (${listName}), given: ${k}`);
        }
      }
      const list = ((wc.values ?? {})[listName] as unknown[] | undefined) ?? [];
      const mask = wc.null_mask ?? new Uint8Array(0);
      const isNull = (i: number) => i >> 3 < mask.length && (mask[i >> 3]! & (1 << (i & 7))) !== 0;
      let nulls = 0;
      for (let i = 0; i < rows; i++) if (isNull(i)) nulls++;
      if (list.length !== rows - nulls) throw invalid(`table ${t.name}: column ${col.name} has ${list.length} values and ${nulls} NULLs for ${rows} rows`);
      let next = 0;
      while (col.cells.length < base) col.cells.push(null);
      for (let i = 0; i < rows; i++) col.cells.push(isNull(i) ? null : cellOf(t.name, col, base + i, list[next++]));
    }
    t.rowCount += rows;
    t.pad();
  }
  return [...tables.values()].map((t) => t.build());
}
