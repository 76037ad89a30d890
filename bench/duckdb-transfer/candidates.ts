/**
 * The transfer candidates. Each runs one repetition of its phases (loading, queries, flushes) and
 * reports the time of each; `verify` adds untimed checks of the results.
 *
 *   a  per-query temporary table, DuckDBAppender value by value
 *   b  per-query temporary table, appendDataChunk with bulk-copied vectors
 *   c  table function filling output chunks in bulk, queried directly
 *   d  the memtable kept as a DuckDB table, written in chunks as rows arrive
 */
import { join } from 'node:path';
import {
  DuckDBDataChunk,
  DuckDBTimestampMillisecondsValue,
  type DuckDBConnection,
} from '@duckdb/node-api';
import { ArrivalAppender, type ArrivalRows } from './arrival-batches.js';
import {
  CHUNK_ROWS,
  ChunkWriter,
  SeriesCursor,
  relationLayout,
  seriesOrder,
  type Piece,
  type RelationLayout,
  type ScanPlan,
  type TagEncoding,
} from './chunk-writer.js';
import { timePhase, yieldToEventLoop } from './measure.js';
import { sortDedupSeries, type Memtable } from './memtable-fixture.js';
import { createMemtableScanFunction } from './memtable-scan-function.js';
import { WorkloadSql, checkParquet, runAggregate, runPoint } from './workloads.js';

export interface PhaseResult {
  readonly phase: string;
  readonly ms: number;
  readonly loopDelayMaxMs: number | undefined;
  /** Rows the phase moved or scanned; 0 where a rate means nothing (point queries). */
  readonly rows: number;
  readonly digest: string | undefined;
}

export interface RunContext {
  readonly con: DuckDBConnection;
  readonly mt: Memtable;
  /** The memtable holds duplicates: run the deduplicating flushes instead of the plain workloads. */
  readonly dup: boolean;
  readonly dir: string;
  /** First (warm-up) repetition: also check results. */
  readonly verify: boolean;
  readonly arrival: ArrivalRows | undefined;
  /** Run only these phases (and the loading phases they need); all when undefined. */
  readonly only: ReadonlySet<string> | undefined;
}

/** Phases that load the data the others read; never skipped. */
const LOADING_PHASES: ReadonlySet<string> = new Set(['fill', 'fill-dedup', 'write-10k']);

export interface Candidate {
  readonly name: string;
  /** Whether the candidate runs on memtables with duplicates. */
  readonly dedupWorkloads: boolean;
  setup(ctx: RunContext): Promise<void>;
  runRep(ctx: RunContext): Promise<PhaseResult[]>;
}

/** Times one phase and appends its result; `check` runs after the timing when verifying. */
async function phase(
  ctx: RunContext,
  out: PhaseResult[],
  name: string,
  rows: number,
  fn: () => Promise<string | void>,
  check?: () => Promise<string>,
): Promise<void> {
  if (ctx.only !== undefined && !ctx.only.has(name) && !LOADING_PHASES.has(name)) return;
  const { sample, value } = await timePhase(fn);
  let digest = typeof value === 'string' ? value : undefined;
  if (ctx.verify && check !== undefined) digest = await check();
  out.push({ phase: name, ms: sample.ms, loopDelayMaxMs: sample.loopDelayMaxMs, rows, digest });
}

function createTableSql(name: string, layout: RelationLayout, temp: boolean): string {
  const columns = layout.names.map((n, i) => `${n} ${layout.types[i]!.toString()}`).join(', ');
  return `CREATE OR REPLACE ${temp ? 'TEMP ' : ''}TABLE ${name} (${columns})`;
}

const TEMP_TABLE = 'memtable_tmp';

/** Candidate a: one appender call per value. */
async function fillByValues(con: DuckDBConnection, mt: Memtable, plan: ScanPlan): Promise<void> {
  const appender = await con.createAppender(TEMP_TABLE, 'main', 'temp');
  let n = 0;
  for (const index of plan.series) {
    const s = mt.series[index]!;
    const order = plan.dedup ? sortDedupSeries(s) : undefined;
    const count = order?.length ?? s.length;
    for (let k = 0; k < count; k++) {
      const i = order === undefined ? k : order[k]!;
      for (const tag of s.key) appender.appendVarchar(tag);
      appender.appendTimestampMilliseconds(new DuckDBTimestampMillisecondsValue(s.ts[i]!));
      appender.appendDouble(s.seq[i]!);
      appender.appendUTinyInt(s.op[i]!);
      for (const field of s.fields) {
        if (field.valid?.[i] === 0) appender.appendNull();
        else appender.appendDouble(field.data[i]!);
      }
      appender.endRow();
      if (++n % 8_192 === 0) await yieldToEventLoop();
    }
  }
  appender.closeSync();
}

/** Candidate b: chunks filled by bulk copies, appended whole. */
async function fillByChunks(
  con: DuckDBConnection,
  mt: Memtable,
  layout: RelationLayout,
  tags: TagEncoding,
  plan: ScanPlan,
): Promise<void> {
  const appender = await con.createAppender(TEMP_TABLE, 'main', 'temp');
  const chunk = DuckDBDataChunk.create(layout.types);
  const writer = new ChunkWriter(mt, layout, tags);
  const cursor = new SeriesCursor(mt, plan);
  const columns = layout.names.map((_, i) => i);
  const pieces: Piece[] = [];
  for (let chunks = 1; ; chunks++) {
    const rows = cursor.next(CHUNK_ROWS, pieces);
    if (rows === 0) break;
    writer.write(chunk.chunk, columns, pieces, rows);
    appender.appendDataChunk(chunk);
    chunk.reset();
    if (chunks % 8 === 0) await yieldToEventLoop();
  }
  appender.closeSync();
}

export function temporaryTableCandidate(name: string, mode: 'values' | TagEncoding): Candidate {
  return {
    name,
    dedupWorkloads: mode !== 'values',
    setup: async () => {},
    runRep: async (ctx) => {
      const { con, mt } = ctx;
      const layout = relationLayout(mt, 'assign');
      const sql = new WorkloadSql(mt);
      const out: PhaseResult[] = [];
      const file = join(ctx.dir, `${name}.parquet`);
      const fill = async (plan: ScanPlan): Promise<void> => {
        await con.run(createTableSql(TEMP_TABLE, layout, true));
        if (mode === 'values') await fillByValues(con, mt, plan);
        else await fillByChunks(con, mt, layout, mode, plan);
      };
      const keyOrder: ScanPlan = { series: seriesOrder(mt, true), dedup: false };
      await phase(ctx, out, 'fill', mt.rowCount, () => fill(keyOrder));
      if (!ctx.dup) {
        await phase(ctx, out, 'aggregate', mt.rowCount, () => runAggregate(con, sql.aggregate(TEMP_TABLE)));
        await phase(ctx, out, 'point', 0, () => runPoint(con, sql.point(TEMP_TABLE)));
        await phase(ctx, out, 'flush-sort', mt.rowCount, () => con.run(sql.flushSorted(TEMP_TABLE, file)).then(() => {}),
          () => checkParquet(con, mt, file));
        // The table was filled in key order from per-series sorted rows: a table scan keeps it.
        await phase(ctx, out, 'flush-presorted', mt.rowCount, () => con.run(sql.flushPresorted(TEMP_TABLE, file)).then(() => {}),
          () => checkParquet(con, mt, file));
      } else {
        await phase(ctx, out, 'dedup-qualify', mt.rowCount, () => con.run(sql.dedupQualify(TEMP_TABLE, file)).then(() => {}),
          () => checkParquet(con, mt, file));
        await phase(ctx, out, 'dedup-argmax', mt.rowCount, () => con.run(sql.dedupArgMax(TEMP_TABLE, file)).then(() => {}),
          () => checkParquet(con, mt, file));
        await phase(ctx, out, 'fill-dedup', mt.rowCount, () => fill({ series: keyOrder.series, dedup: true }));
        await phase(ctx, out, 'dedup-js', mt.rowCount, () => con.run(sql.flushPresorted(TEMP_TABLE, file)).then(() => {}),
          () => checkParquet(con, mt, file));
      }
      await con.run(`DROP TABLE ${TEMP_TABLE}`);
      return out;
    },
  };
}

const SCAN = 'memtable_scan';

export function scanFunctionCandidate(name: string, tags: TagEncoding, threads: number): Candidate {
  const ordered = threads === 1;
  return {
    name,
    dedupWorkloads: true,
    setup: async (ctx) => {
      ctx.con.registerTableFunction(createMemtableScanFunction(ctx.mt, { name: SCAN, tags, threads }));
    },
    runRep: async (ctx) => {
      const { con, mt } = ctx;
      const sql = new WorkloadSql(mt);
      const out: PhaseResult[] = [];
      const file = join(ctx.dir, `${name}.parquet`);
      const all = `${SCAN}()`;
      if (!ctx.dup) {
        await phase(ctx, out, 'aggregate', mt.rowCount, () => runAggregate(con, sql.aggregate(all)));
        await phase(ctx, out, 'point', 0, () => runPoint(con, sql.point(all)));
        await phase(ctx, out, 'point-pruned', 0, () => runPoint(con, sql.point(`${SCAN}(${sql.pointPruneArgs()})`)));
        await phase(ctx, out, 'flush-sort', mt.rowCount, () => con.run(sql.flushSorted(all, file)).then(() => {}),
          () => checkParquet(con, mt, file));
        if (ordered) {
          await phase(ctx, out, 'flush-presorted', mt.rowCount,
            () => con.run(sql.flushPresorted(`${SCAN}(read_order := 'key')`, file)).then(() => {}),
            () => checkParquet(con, mt, file));
        }
      } else {
        await phase(ctx, out, 'dedup-qualify', mt.rowCount, () => con.run(sql.dedupQualify(all, file)).then(() => {}),
          () => checkParquet(con, mt, file));
        await phase(ctx, out, 'dedup-argmax', mt.rowCount, () => con.run(sql.dedupArgMax(all, file)).then(() => {}),
          () => checkParquet(con, mt, file));
        if (ordered) {
          await phase(ctx, out, 'dedup-js', mt.rowCount,
            () => con.run(sql.flushPresorted(`${SCAN}(read_order := 'dedup')`, file)).then(() => {}),
            () => checkParquet(con, mt, file));
        }
      }
      return out;
    },
  };
}

/** Write requests of `batchRows` rows, each appended and flushed (made visible) before the next. */
async function writeArrival(ctx: RunContext, table: string, layout: RelationLayout, batchRows: number): Promise<void> {
  const arrival = ctx.arrival!;
  await ctx.con.run(createTableSql(table, layout, false));
  const appender = await ctx.con.createAppender(table);
  const writer = new ArrivalAppender(ctx.mt, arrival, appender, DuckDBDataChunk.create(layout.types));
  for (let start = 0; start < arrival.rowCount; start += batchRows) {
    writer.appendBatch(start, Math.min(arrival.rowCount, start + batchRows));
    await yieldToEventLoop();
  }
  appender.closeSync();
}

export function durableTableCandidate(name: string): Candidate {
  return {
    name,
    dedupWorkloads: true,
    setup: async () => {},
    runRep: async (ctx) => {
      const { con, mt } = ctx;
      const layout = relationLayout(mt, 'string-t');
      const sql = new WorkloadSql(mt);
      const out: PhaseResult[] = [];
      const file = join(ctx.dir, `${name}.parquet`);
      const table = 'memtable_rows';
      if (!ctx.dup) {
        await phase(ctx, out, 'write-1k', mt.rowCount, () => writeArrival(ctx, table, layout, 1_000));
      }
      await phase(ctx, out, 'write-10k', mt.rowCount, () => writeArrival(ctx, table, layout, 10_000));
      if (!ctx.dup) {
        await phase(ctx, out, 'aggregate', mt.rowCount, () => runAggregate(con, sql.aggregate(table)));
        await phase(ctx, out, 'point', 0, () => runPoint(con, sql.point(table)));
        await phase(ctx, out, 'flush-sort', mt.rowCount, () => con.run(sql.flushSorted(table, file)).then(() => {}),
          () => checkParquet(con, mt, file));
      } else {
        await phase(ctx, out, 'dedup-qualify', mt.rowCount, () => con.run(sql.dedupQualify(table, file)).then(() => {}),
          () => checkParquet(con, mt, file));
        await phase(ctx, out, 'dedup-argmax', mt.rowCount, () => con.run(sql.dedupArgMax(table, file)).then(() => {}),
          () => checkParquet(con, mt, file));
      }
      await con.run(`DROP TABLE ${table}`);
      return out;
    },
  };
}

export const CANDIDATES: readonly Candidate[] = [
  temporaryTableCandidate('a-append-values', 'values'),
  temporaryTableCandidate('b-append-chunks', 'assign'),
  temporaryTableCandidate('b-append-chunks-strt', 'string-t'),
  scanFunctionCandidate('c-scan', 'assign', 1),
  scanFunctionCandidate('c-scan-strt', 'string-t', 1),
  scanFunctionCandidate('c-scan-enum', 'enum', 1),
  scanFunctionCandidate('c-scan-strt-2threads', 'string-t', 2),
  durableTableCandidate('d-table'),
];
