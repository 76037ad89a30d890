/**
 * The region server of this process (DESIGN.md D13): the region engine's regions behind the
 * `RegionServer` interface. A standalone frontend uses it directly, with the in-process path
 * (`scanRelation`: the scan as SQL for the frontend's DuckDB, nothing copied); a datanode serves it
 * over gRPC (`servers/grpc/region-service.ts`), where region queries run in this side's DuckDB
 * (`queries`) and leave as Arrow record batches.
 */
import type { DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import type { RecordBatch } from 'apache-arrow';
import { StatusCode } from '../common/error/status-code.js';
import { TsdbError } from '../common/error/tsdb-error.js';
import { quoteIdent, quoteLiteral } from '../common/sql-quote.js';
import type { RegionEngine } from '../engine/region-engine.js';
import { registerMemtableScan } from '../engine/read/memtable-scan-function.js';
import { timeLiteral } from '../engine/read/region-scan.js';
import { queryArrow } from '../query/arrow-result.js';
import { duckdbError } from '../query/duckdb-error.js';
import { installFunctions } from '../query/session-functions.js';
import { formatRegionId, type RegionId } from '../types/region-id.js';
import type { RegionMetadata, TimestampType } from '../types/region-metadata.js';
import { REGION_RELATION, type RegionQuery, type RegionQueryStream, type RegionInfo, type RegionServer, type RegionSsts, type RegionStatistics, type ScanRelation } from '../types/region-server.js';
import { indexPath, sstPath } from '../engine/sst/file-meta.js';
import type { ScanRequest } from '../types/scan-request.js';
import type { WriteBatch } from '../types/write-batch.js';

/**
 * The WHERE condition that keeps exactly the rows `scan` asks for (a region scan only narrows by
 * it: whole files and memtable series), or undefined when it asks for every row.
 */
export function scanCondition(metadata: RegionMetadata, scan: ScanRequest): string | undefined {
  const parts: string[] = [];
  const ti = metadata.columns.find((c) => c.column_id === metadata.time_index)!;
  const unit = ti.type as TimestampType;
  if (scan.start !== undefined) parts.push(`${quoteIdent(ti.name)} >= ${timeLiteral(scan.start, unit)}`);
  if (scan.end !== undefined) parts.push(`${quoteIdent(ti.name)} <= ${timeLiteral(scan.end, unit)}`);
  for (const [columnId, values] of scan.keys ?? []) {
    const c = metadata.columns.find((col) => col.column_id === columnId);
    if (c === undefined || !metadata.primary_key.includes(columnId)) continue;
    if (values.length === 0) {
      parts.push('false');
      continue;
    }
    const literals = values.map((v) => (typeof v === 'string' ? quoteLiteral(v) : String(v)));
    parts.push(`${quoteIdent(c.name)} IN (${literals.join(', ')})`);
  }
  return parts.length === 0 ? undefined : parts.join(' AND ');
}

/** Nanoseconds of one tick of a time index unit (ssts_manifest shows time ranges in nanoseconds). */
const NANOS_PER_TICK: Record<TimestampType, bigint> = { TimestampSecond: 1_000_000_000n, TimestampMillisecond: 1_000_000n, TimestampMicrosecond: 1000n, TimestampNanosecond: 1n };

export class LocalRegionServer implements RegionServer {
  /**
   * Registers in a DuckDB the functions the relations of `scanRelation` name (the engine's memtable
   * scan), before its configuration is locked: the frontend's DuckDB in standalone, `queries` here.
   */
  static registerScanFunctions(conn: DuckDBConnection): void {
    registerMemtableScan(conn);
  }

  /**
   * `queries`: the DuckDB region queries run in (with `registerScanFunctions` and the engine's
   * directories readable); without it, the engine's own.
   */
  constructor(
    protected readonly engine: RegionEngine,
    private readonly queries?: DuckDBInstance,
  ) {}

  /** tsdb's functions (`installFunctions`) in the DuckDB region queries run in, once installed. */
  private functions: Promise<void> | undefined;

  createRegion(metadata: RegionMetadata, dir: string): Promise<void> {
    return this.engine.createRegion(metadata, dir);
  }

  openRegion(id: RegionId, dir: string, storage?: string): Promise<void> {
    return this.engine.openRegion(id, dir, { ...(storage !== undefined && { storage }) });
  }

  closeRegion(id: RegionId): Promise<void> {
    return this.engine.closeRegion(id);
  }

  alterRegion(id: RegionId, metadata: RegionMetadata): Promise<void> {
    return this.engine.alterRegion(id, metadata);
  }

  dropRegion(id: RegionId): Promise<void> {
    return this.engine.dropRegion(id);
  }

  truncateRegion(id: RegionId): Promise<void> {
    return this.engine.truncateRegion(id);
  }

  async flushRegion(id: RegionId): Promise<void> {
    await this.engine.flushRegion(id);
  }

  async compactRegion(id: RegionId): Promise<void> {
    await this.engine.flushRegion(id);
    await this.engine.compactRegion(id);
  }

  async write(id: RegionId, batch: WriteBatch): Promise<number> {
    await this.engine.write(id, batch);
    return batch.rowCount;
  }

  async statistics(id: RegionId): Promise<RegionStatistics> {
    const r = this.engine.region(id);
    const files = r.files();
    return {
      memtable_rows: r.memtableRows(),
      memtable_bytes: r.memtables().reduce((n, m) => n + m.stats().bytes, 0),
      sst_files: files.length,
      sst_bytes: files.reduce((n, f) => n + f.file_size, 0),
      sst_rows: files.reduce((n, f) => n + f.num_rows, 0),
    };
  }

  async info(id: RegionId): Promise<RegionInfo> {
    const r = this.engine.region(id);
    const m = r.manifestInfo();
    const window = m.compaction_time_window ?? r.metadata.options.compaction_time_window;
    return {
      state: 'Leader(Writable)',
      role: 'Leader',
      writable: true,
      committed_sequence: r.committedSequence,
      flushed_sequence: m.flushed_sequence,
      manifest_version: m.manifest_version,
      ...(window !== undefined && { compaction_time_window: window }),
      region_options: JSON.stringify(r.metadata.options),
    };
  }

  async ssts(id: RegionId): Promise<RegionSsts> {
    const r = this.engine.region(id);
    const md = r.metadata;
    const perTick = NANOS_PER_TICK[md.columns.find((c) => c.column_id === md.time_index)!.type as TimestampType];
    const nanos = (v: number) => (BigInt(Math.round(v)) * perTick).toString();
    const manifest = r.files().map((f) => ({
      file_id: f.file_id,
      level: f.level,
      file_path: sstPath(r.dir, f.file_id),
      file_size: f.file_size,
      index_file_path: f.index_file_size === undefined ? null : indexPath(r.dir, f.file_id),
      index_file_size: f.index_file_size ?? null,
      num_rows: f.num_rows,
      num_row_groups: f.num_row_groups,
      min_ts: nanos(f.time_range[0]),
      max_ts: nanos(f.time_range[1]),
      sequence: f.max_sequence,
    }));
    const storage = (await r.storedFiles()).map((e) => ({ file_path: e.path, file_size: e.size }));
    const index_meta = (await r.indexBlocks()).flatMap((b) =>
      b.columns.map((c) => ({
        file_id: b.file.file_id,
        index_file_path: indexPath(r.dir, b.file.file_id),
        index_file_size: b.file.index_file_size!,
        index_type: 'inverted',
        column_id: c.column_id,
        offset: c.offset,
        size: c.size,
        value_kind: c.kind,
        distinct_values: c.distinct,
        segment_row_count: b.segment_row_count,
        row_count: b.row_count,
      })),
    );
    return { manifest, storage, index_meta };
  }

  async scanRelation(id: RegionId, scan: ScanRequest, signal?: AbortSignal): Promise<ScanRelation> {
    const s = await this.engine.scan(id, scan, signal);
    try {
      return { sql: s.relation(), release: () => s.release() };
    } catch (err) {
      s.release();
      throw err;
    }
  }

  async query(id: RegionId, query: RegionQuery, signal?: AbortSignal): Promise<RegionQueryStream> {
    signal?.throwIfAborted();
    const metadata = this.engine.region(id).metadata;
    const scan = await this.engine.scan(id, query.scan ?? {}, signal);
    let conn: DuckDBConnection | undefined;
    let released = false;
    const done = () => {
      conn?.closeSync();
      conn = undefined;
      if (!released) scan.release();
      released = true;
    };
    try {
      const condition = query.scan === undefined ? undefined : scanCondition(metadata, query.scan);
      const rows = `SELECT * FROM (${scan.relation()})${condition === undefined ? '' : ` WHERE ${condition}`}`;
      const fragment = query.sql ?? `SELECT * FROM ${quoteIdent(REGION_RELATION)}`;
      // The rows are a CTE of the fragment when it starts with SELECT or `(`; any other fragment
      // (one with a WITH of its own, which a second WITH cannot precede) reads them as a view of its
      // connection's own.
      const asCte = /^\s*(SELECT\b|\()/i.test(fragment);
      const sql = asCte ? `WITH ${quoteIdent(REGION_RELATION)} AS (${rows}) ${fragment}` : fragment;
      conn = await (this.queries ?? this.engine.duckdb).connect();
      // A fragment may be a frontend's whole query, calling tsdb's functions.
      const installing = (this.functions ??= installFunctions(conn));
      await installing.catch((err: unknown) => {
        // Tried again by the next query: a failure here (DuckDB's memory used up) is not for good.
        if (this.functions === installing) this.functions = undefined;
        throw duckdbError(err);
      });
      // DuckDB runs every statement of a text it streams: a fragment with a `;` in it would run
      // statements of its own (CREATE, SET…) in the DuckDB all region queries share.
      const statements = await conn.extractStatements(sql).catch((err: unknown) => {
        throw duckdbError(err);
      });
      if (statements.count !== 1) {
        throw new TsdbError(StatusCode.InvalidArguments, `A region query's fragment is one SELECT statement, not ${statements.count} statements`);
      }
      if (!asCte) {
        await conn.run(`CREATE TEMPORARY VIEW ${quoteIdent(REGION_RELATION)} AS ${rows}`).catch((err: unknown) => {
          throw duckdbError(err);
        });
      }
      const result = await queryArrow(conn, sql, { ...(signal !== undefined && { signal }) }).catch((err: unknown) => {
        throw duckdbError(err);
      });
      const batches = result.batches;
      // The scan and connection live as long as the stream is read: released at its end, on an
      // error, or when the reader stops early.
      const stream: AsyncIterableIterator<RecordBatch> = {
        [Symbol.asyncIterator]() {
          return this;
        },
        async next() {
          try {
            const r = await batches.next();
            if (r.done === true) done();
            return r;
          } catch (err) {
            done();
            throw duckdbError(err);
          }
        },
        async return(value?: unknown) {
          try {
            await batches.return?.(value);
          } finally {
            done();
          }
          return { done: true, value: undefined };
        },
      };
      return { schema: result.schema, batches: stream };
    } catch (err) {
      done();
      throw err;
    }
  }

  toString(): string {
    return `regions of this process (${this.engine.regionIds().map(formatRegionId).join(', ')})`;
  }
}
