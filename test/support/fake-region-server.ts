/**
 * A region server without an engine, for frontend unit tests (DESIGN.md D13): regions are rows in
 * memory, written as they arrive (no deduplication, deletes drop matching rows), answered as Arrow
 * record batches the way a datanode answers over the network. Every call is recorded; a call can be
 * made to fail (`failNext`), and a query can be held until released (`holdQueries`) to test
 * cancellation. It has no `scanRelation`: the frontend reads it as it reads a remote region server.
 * A projection (`SELECT "a", "b" FROM region`) is answered here; any other fragment (a frontend's
 * whole query) runs in a DuckDB of its own, sandboxed and with tsdb's functions as a datanode's,
 * over the region's rows published as Arrow. `close()` closes that DuckDB.
 */
import {
  Binary,
  Bool,
  DateDay,
  Field,
  Float32,
  Float64,
  Int16,
  Int32,
  Int64,
  Int8,
  makeData,
  RecordBatch,
  Schema,
  Struct,
  TimestampMicrosecond,
  TimestampMillisecond,
  TimestampNanosecond,
  TimestampSecond,
  Uint16,
  Uint32,
  Uint64,
  Uint8,
  Utf8,
  type DataType,
} from 'apache-arrow';
import { DuckDBInstance } from '@duckdb/node-api';
import { sandboxDuckDb } from '../../src/common/duckdb-sandbox.js';
import { StatusCode } from '../../src/common/error/status-code.js';
import { queryArrow } from '../../src/query/arrow-result.js';
import { publishArrow, registerArrowScan } from '../../src/query/arrow-scan-function.js';
import { installFunctions } from '../../src/query/session-functions.js';
import { TsdbError } from '../../src/common/error/tsdb-error.js';
import { formatRegionId, type RegionId } from '../../src/types/region-id.js';
import type { ColumnMetadata, ColumnType, RegionMetadata } from '../../src/types/region-metadata.js';
import { REGION_RELATION, type RegionQuery, type RegionQueryStream, type RegionInfo, type RegionServer, type RegionSsts, type RegionStatistics } from '../../src/types/region-server.js';
import { OP_DELETE, type WriteBatch } from '../../src/types/write-batch.js';

type Value = number | bigint | boolean | string | Uint8Array | null;

interface FakeRegion {
  metadata: RegionMetadata;
  readonly dir: string;
  rows: Array<Map<number, Value>>;
  flushes: number;
  open: boolean;
}

export interface RecordedCall {
  readonly method: string;
  readonly id?: RegionId;
  readonly query?: RegionQuery;
  readonly batch?: WriteBatch;
  readonly metadata?: RegionMetadata;
}

function arrowType(type: ColumnType): DataType {
  switch (type) {
    case 'Boolean':
      return new Bool();
    case 'Int8':
      return new Int8();
    case 'Int16':
      return new Int16();
    case 'Int32':
      return new Int32();
    case 'Int64':
      return new Int64();
    case 'UInt8':
      return new Uint8();
    case 'UInt16':
      return new Uint16();
    case 'UInt32':
      return new Uint32();
    case 'UInt64':
      return new Uint64();
    case 'Float32':
      return new Float32();
    case 'Float64':
      return new Float64();
    case 'String':
    case 'Json':
      return new Utf8();
    case 'Binary':
      return new Binary();
    case 'Date':
      return new DateDay();
    case 'TimestampSecond':
      return new TimestampSecond();
    case 'TimestampMillisecond':
      return new TimestampMillisecond();
    case 'TimestampMicrosecond':
      return new TimestampMicrosecond();
    case 'TimestampNanosecond':
      return new TimestampNanosecond();
    default:
      return new Binary();
  }
}

/** One column's values as Arrow data of its type. */
function columnData(c: ColumnMetadata, values: readonly Value[]) {
  const type = arrowType(c.type);
  const n = values.length;
  const nullBitmap = new Uint8Array(Math.ceil(n / 8));
  let nullCount = 0;
  values.forEach((v, i) => {
    if (v === null) nullCount++;
    else nullBitmap[i >> 3]! |= 1 << (i & 7);
  });
  const base = { type, length: n, nullCount, nullBitmap } as const;
  switch (c.type) {
    case 'String':
    case 'Binary': {
      const bytes = values.map((v) => (v === null ? new Uint8Array(0) : typeof v === 'string' ? Buffer.from(v, 'utf8') : (v as Uint8Array)));
      const valueOffsets = new Int32Array(n + 1);
      bytes.forEach((b, i) => (valueOffsets[i + 1] = valueOffsets[i]! + b.length));
      const data = new Uint8Array(valueOffsets[n]!);
      bytes.forEach((b, i) => data.set(b, valueOffsets[i]!));
      return makeData({ ...base, type: type as Utf8, valueOffsets, data });
    }
    case 'Boolean': {
      const data = new Uint8Array(Math.ceil(n / 8));
      values.forEach((v, i) => {
        if (v === true) data[i >> 3]! |= 1 << (i & 7);
      });
      return makeData({ ...base, type: type as Bool, data });
    }
    case 'Int64':
    case 'TimestampSecond':
    case 'TimestampMillisecond':
    case 'TimestampMicrosecond':
    case 'TimestampNanosecond':
      return makeData({ ...base, type: type as Int64, data: BigInt64Array.from(values, (v) => (v === null ? 0n : BigInt(v as number | bigint))) });
    case 'UInt64':
      return makeData({ ...base, type: type as Uint64, data: BigUint64Array.from(values, (v) => (v === null ? 0n : BigInt(v as number | bigint))) });
    default: {
      const ctors = { Int8: Int8Array, Int16: Int16Array, Int32: Int32Array, UInt8: Uint8Array, UInt16: Uint16Array, UInt32: Uint32Array, Float32: Float32Array, Float64: Float64Array, Date: Int32Array };
      const ctor = ctors[c.type as keyof typeof ctors] as unknown as { from(values: readonly Value[], f: (v: Value) => number): Int32Array };
      return makeData({ ...base, type: type as Int32, data: ctor.from(values, (v) => (v === null ? 0 : Number(v))) });
    }
  }
}

/** The column names of `SELECT "a", "b" FROM region` (the frontend's projection), or undefined for any other fragment. */
function projectionOf(sql: string | undefined): string[] | undefined {
  const m = sql === undefined ? null : /^SELECT (.+) FROM region$/.exec(sql);
  if (m === null) return undefined;
  return m[1]!.split(', ').map((q) => q.replace(/^"|"$/g, '').replaceAll('""', '"'));
}

export class FakeRegionServer implements RegionServer {
  readonly regions = new Map<RegionId, FakeRegion>();
  readonly calls: RecordedCall[] = [];
  /** Signals of the queries asked for, in order. */
  readonly querySignals: Array<AbortSignal | undefined> = [];
  private failures: Array<{ method: string; error: Error }> = [];
  private hold: Promise<void> | undefined;
  private releaseHold: (() => void) | undefined;
  /** Statistics answered for every region (memtable_rows is the rows held). */
  sstFiles = 0;
  /** Where fragments other than a projection run, opened by the first. */
  private duckdb: Promise<DuckDBInstance> | undefined;

  /** Closes the DuckDB fragments ran in, if any. */
  async close(): Promise<void> {
    const db = await this.duckdb?.catch(() => undefined);
    this.duckdb = undefined;
    db?.closeSync();
  }

  private fragmentDuckDb(): Promise<DuckDBInstance> {
    this.duckdb ??= (async () => {
      const db = await DuckDBInstance.create(':memory:', { threads: '1' });
      const conn = await db.connect();
      try {
        registerArrowScan(conn);
        await installFunctions(conn);
        await sandboxDuckDb(conn, []);
      } finally {
        conn.closeSync();
      }
      return db;
    })();
    return this.duckdb;
  }

  /** The answer of `sql` over `batch` (the region's rows of the scan) as a relation named `region`. */
  private async runFragment(sql: string, schema: Schema, batches: readonly RecordBatch[], signal?: AbortSignal): Promise<RegionQueryStream> {
    const conn = await (await this.fragmentDuckDb()).connect();
    const rows = publishArrow(schema, batches);
    try {
      await conn.run(`CREATE TEMPORARY VIEW ${REGION_RELATION} AS SELECT * FROM ${rows.sql}`);
      const answer = await queryArrow(conn, sql, { ...(signal !== undefined && { signal }) });
      const out: RecordBatch[] = [];
      for await (const b of answer.batches) out.push(b);
      return { schema: answer.schema, batches: (async function* () { yield* out; })() };
    } finally {
      rows.dispose();
      conn.closeSync();
    }
  }

  /** The next call of `method` fails with `error`. */
  failNext(method: string, error: Error): void {
    this.failures.push({ method, error });
  }

  /** Queries wait (until their signal aborts, or `release()`) before answering. */
  holdQueries(): { release(): void } {
    this.hold = new Promise((resolve) => (this.releaseHold = resolve));
    return { release: () => { this.releaseHold?.(); this.hold = undefined; } };
  }

  private record(call: RecordedCall): void {
    this.calls.push(call);
    const i = this.failures.findIndex((f) => f.method === call.method);
    if (i >= 0) throw this.failures.splice(i, 1)[0]!.error;
  }

  private region(id: RegionId): FakeRegion {
    const r = this.regions.get(id);
    if (r === undefined || !r.open) throw new TsdbError(StatusCode.RegionNotFound, `Region ${formatRegionId(id)} not found`);
    return r;
  }

  async createRegion(metadata: RegionMetadata, dir: string): Promise<void> {
    const id = BigInt(metadata.region_id);
    this.record({ method: 'createRegion', id, metadata });
    if (this.regions.has(id)) throw new TsdbError(StatusCode.RegionAlreadyExists, `Region ${formatRegionId(id)} already exists`);
    this.regions.set(id, { metadata, dir, rows: [], flushes: 0, open: true });
  }

  async openRegion(id: RegionId, dir: string): Promise<void> {
    this.record({ method: 'openRegion', id });
    const r = this.regions.get(id);
    if (r === undefined || r.dir !== dir) throw new TsdbError(StatusCode.RegionNotFound, `Region ${formatRegionId(id)} not found in ${dir}`);
    r.open = true;
  }

  async closeRegion(id: RegionId): Promise<void> {
    this.record({ method: 'closeRegion', id });
    const r = this.regions.get(id);
    if (r !== undefined) r.open = false;
  }

  async alterRegion(id: RegionId, metadata: RegionMetadata): Promise<void> {
    this.record({ method: 'alterRegion', id, metadata });
    this.region(id).metadata = metadata;
  }

  async dropRegion(id: RegionId): Promise<void> {
    this.record({ method: 'dropRegion', id });
    this.region(id);
    this.regions.delete(id);
  }

  async truncateRegion(id: RegionId): Promise<void> {
    this.record({ method: 'truncateRegion', id });
    this.region(id).rows = [];
  }

  async flushRegion(id: RegionId): Promise<void> {
    this.record({ method: 'flushRegion', id });
    this.region(id).flushes++;
  }

  async compactRegion(id: RegionId): Promise<void> {
    this.record({ method: 'compactRegion', id });
    this.region(id);
  }

  async write(id: RegionId, batch: WriteBatch): Promise<number> {
    this.record({ method: 'write', id, batch });
    const r = this.region(id);
    const rows: Array<Map<number, Value>> = [];
    for (let i = 0; i < batch.rowCount; i++) {
      const row = new Map<number, Value>();
      for (const [columnId, v] of batch.columns) {
        if (v.type === 'string' || v.type === 'binary') row.set(columnId, v.data[i] ?? null);
        else if (v.valid !== undefined && v.valid[i] === 0) row.set(columnId, null);
        else row.set(columnId, v.type === 'bool' ? v.data[i] === 1 : v.data[i]!);
      }
      rows.push(row);
    }
    if (batch.op === OP_DELETE) {
      const keyIds = [...r.metadata.primary_key, r.metadata.time_index];
      const key = (row: Map<number, Value>) => JSON.stringify(keyIds.map((c) => String(row.get(c) ?? null)));
      const gone = new Set(rows.map(key));
      r.rows = r.rows.filter((row) => !gone.has(key(row)));
    } else r.rows.push(...rows);
    return batch.rowCount;
  }

  async info(id: RegionId): Promise<RegionInfo> {
    this.record({ method: 'info', id });
    this.region(id);
    return { state: 'Leader(Writable)', role: 'Leader', writable: true, committed_sequence: 0, flushed_sequence: 0, manifest_version: 0, region_options: '{}' };
  }

  async ssts(id: RegionId): Promise<RegionSsts> {
    this.record({ method: 'ssts', id });
    this.region(id);
    return { manifest: [], storage: [], index_meta: [] };
  }

  async statistics(id: RegionId): Promise<RegionStatistics> {
    this.record({ method: 'statistics', id });
    const r = this.region(id);
    return { memtable_rows: r.rows.length, memtable_bytes: r.rows.length * 64, sst_files: this.sstFiles, sst_bytes: 0, sst_rows: 0 };
  }

  async query(id: RegionId, query: RegionQuery, signal?: AbortSignal): Promise<RegionQueryStream> {
    this.record({ method: 'query', id, query });
    this.querySignals.push(signal);
    const r = this.region(id);
    if (this.hold !== undefined) {
      await new Promise<void>((resolve, reject) => {
        void this.hold!.then(resolve);
        signal?.addEventListener('abort', () => reject(signal.reason as Error), { once: true });
      });
    }
    signal?.throwIfAborted();
    const m = r.metadata;
    const names = projectionOf(query.sql);
    const columns = names === undefined ? m.columns : names.map((n) => m.columns.find((c) => c.name === n)!);
    const scan = query.scan ?? {};
    const ts = m.time_index;
    const rows = r.rows.filter((row) => {
      const t = row.get(ts) as bigint;
      if (scan.start !== undefined && t < scan.start) return false;
      if (scan.end !== undefined && t > scan.end) return false;
      for (const [c, values] of scan.keys ?? []) {
        const v = row.get(c) ?? null;
        if (!values.some((f) => (typeof f === 'string' ? v === f : typeof v === 'bigint' ? v === f : typeof v === 'number' && BigInt(v) === f))) return false;
      }
      return true;
    });
    const value = (row: Map<number, Value>, c: ColumnMetadata): Value => {
      const v = row.get(c.column_id);
      if (v !== undefined) return v;
      return c.default === undefined ? null : (c.default as Value);
    };
    const schema = new Schema(columns.map((c) => new Field(c.name, arrowType(c.type), true)));
    const children = columns.map((c) => columnData(c, rows.map((row) => value(row, c))));
    const batch = new RecordBatch(schema, makeData({ type: new Struct(schema.fields), length: rows.length, nullCount: 0, children }));
    const batches = rows.length === 0 ? [] : [batch];
    if (names === undefined && query.sql !== undefined) return this.runFragment(query.sql, schema, batches, signal);
    async function* stream(): AsyncGenerator<RecordBatch> {
      for (const b of batches) {
        signal?.throwIfAborted();
        yield b;
      }
    }
    return { schema, batches: stream() };
  }
}
