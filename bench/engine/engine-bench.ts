/**
 * Region engine benchmark on a TSBS-cpu-like schema (10 tags, 10 float fields, one row per host
 * every 10 s): write rows/s (sync_write off and on), memtable bytes per row, flush rows/s, SST bytes
 * per row and per float value, full-scan and time-range-scan rows/s through DuckDB, WAL replay rows/s.
 *
 *   npm run build && node dist/bench/engine/engine-bench.js [--rows 1000000] [--hosts 1000] [--batch 5000] [--writers 8] [--memtable time_series|partition_tree]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, cpus, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { silentLogger } from '../../src/common/logging.js';
import { GIB, MIB } from '../../src/common/size/size.js';
import { OP_PUT, type Vector, type WriteBatch } from '../../src/types/write-batch.js';
import type { ColumnMetadata, RegionMetadata } from '../../src/types/region-metadata.js';
import { regionId } from '../../src/types/region-id.js';
import { DEFAULT_MEMTABLE_OPTIONS, type MemtableOptions } from '../../src/engine/memtable/memtable.js';
import { RegionEngine } from '../../src/engine/region-engine.js';
import { fileStorage } from '../../test/support/engine.js';

const { values } = parseArgs({
  options: {
    rows: { type: 'string', default: '1000000' },
    hosts: { type: 'string', default: '1000' },
    batch: { type: 'string', default: '5000' },
    writers: { type: 'string', default: '8' },
    memtable: { type: 'string', default: 'time_series' },
  },
});
const ROWS = Number(values.rows);
const HOSTS = Number(values.hosts);
const BATCH = Number(values.batch);
const WRITERS = Number(values.writers);
if (values.memtable !== 'time_series' && values.memtable !== 'partition_tree') throw new Error(`--memtable: time_series or partition_tree, not ${values.memtable}`);
const MEMTABLE: MemtableOptions = { ...DEFAULT_MEMTABLE_OPTIONS, type: values.memtable };

const TAGS = ['hostname', 'region', 'datacenter', 'rack', 'os', 'arch', 'team', 'service', 'service_version', 'service_environment'];
const FIELDS = ['usage_user', 'usage_system', 'usage_idle', 'usage_nice', 'usage_iowait', 'usage_irq', 'usage_softirq', 'usage_steal', 'usage_guest', 'usage_guest_nice'];
const ID = regionId(1024, 0);
const DIR = 'data/bench/1024_0000000000/';
const T0 = 1_700_000_000_000;

function metadata(): RegionMetadata {
  const columns: ColumnMetadata[] = [
    ...TAGS.map((name, i) => ({ column_id: i, name, type: 'String' as const, semantic_type: 'tag' as const, nullable: true })),
    { column_id: 10, name: 'ts', type: 'TimestampMillisecond', semantic_type: 'timestamp', nullable: false },
    ...FIELDS.map((name, i) => ({ column_id: 11 + i, name, type: 'Float64' as const, semantic_type: 'field' as const, nullable: true })),
  ];
  return { region_id: String(ID), schema_version: 0, columns, primary_key: TAGS.map((_, i) => i), time_index: 10, options: { append_mode: false, merge_mode: 'last_row' } };
}

/** Tag values of host h (TSBS-like: region/datacenter/rack… derived from the host number). */
function tagValues(h: number): string[] {
  return [
    `host_${h}`,
    `region_${h % 9}`,
    `dc_${h % 27}`,
    `rack_${h % 100}`,
    ['Ubuntu16.10', 'Ubuntu16.04LTS', 'Ubuntu15.10'][h % 3]!,
    ['x86', 'x64'][h % 2]!,
    ['SF', 'NYC', 'LON', 'CHI'][h % 4]!,
    `service_${h % 20}`,
    `version_${h % 2}`,
    ['production', 'staging', 'test'][h % 3]!,
  ];
}

/** Rows in arrival order: every host at t, then every host at t + 10 s, … */
function batches(): WriteBatch[] {
  const out: WriteBatch[] = [];
  const tags = Array.from({ length: HOSTS }, (_, h) => tagValues(h));
  let value = 0;
  for (let start = 0; start < ROWS; start += BATCH) {
    const n = Math.min(BATCH, ROWS - start);
    const columns = new Map<number, Vector>();
    for (let t = 0; t < TAGS.length; t++) columns.set(t, { type: 'string', data: Array.from({ length: n }, (_, i) => tags[(start + i) % HOSTS]![t]!) });
    columns.set(10, { type: 'int64', data: BigInt64Array.from({ length: n }, (_, i) => BigInt(T0 + Math.floor((start + i) / HOSTS) * 10_000)) });
    for (let f = 0; f < FIELDS.length; f++) {
      // Values like TSBS's: a random walk, kept to two decimals.
      columns.set(11 + f, { type: 'float64', data: Float64Array.from({ length: n }, () => Math.round(((value = (value + Math.random() * 10) % 100) * 100)) / 100) });
    }
    out.push({ op: OP_PUT, rowCount: n, columns });
  }
  return out;
}

async function openEngine(dir: string, syncWrite: boolean): Promise<RegionEngine> {
  return RegionEngine.open({
    wal: { dir: join(dir, 'wal'), fileSize: 256 * MIB, syncWrite, readBatchSize: 128, purgeInterval: 0, purgeThreshold: 4 * GIB },
    globalWriteBufferSize: 4 * GIB,
    globalWriteBufferRejectSize: 8 * GIB,
    manifestCheckpointDistance: 10,
    maxBackgroundJobs: 4,
    autoFlushInterval: 0,
    scanParallelism: Math.max(1, availableParallelism()),
    compactAfterFlush: false,
    memtable: MEMTABLE,
    storage: fileStorage(dir),
    logger: silentLogger(),
  });
}

/** Writes every batch with `writers` writes in flight; returns seconds. */
async function writeAll(engine: RegionEngine, data: WriteBatch[], writers: number, id = ID): Promise<number> {
  const started = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: writers }, async () => {
      while (next < data.length) await engine.write(id, data[next++]!);
    }),
  );
  return (performance.now() - started) / 1000;
}

async function query(engine: RegionEngine, sql: string, range?: { start: bigint; end: bigint }): Promise<{ seconds: number; rows: number }> {
  const conn = await engine.duckdb.connect();
  const started = performance.now();
  const scan = await engine.scan(ID, range ?? {});
  await scan.attach(conn, 'cpu');
  const result = await conn.runAndReadAll(sql);
  const seconds = (performance.now() - started) / 1000;
  await scan.detach(conn);
  scan.release();
  conn.closeSync();
  return { seconds, rows: Number(result.getRows()[0]![0]) };
}

function fmt(n: number): string {
  return Math.round(n).toLocaleString('en-US');
}

async function main(): Promise<void> {
  const root = mkdtempSync(join(tmpdir(), 'tsdb-engine-bench-'));
  const results: Array<[string, string]> = [];
  const record = (name: string, value: string) => {
    results.push([name, value]);
    console.log(`${name.padEnd(44)} ${value}`);
  };
  try {
    console.log(`engine benchmark: ${fmt(ROWS)} rows, ${HOSTS} hosts, batches of ${BATCH}, ${WRITERS} writes in flight, ${MEMTABLE.type} memtable; ${cpus().length} cores, ${Math.round(totalmem() / GIB)} GiB, node ${process.version}`);
    const data = batches();

    // Writes, sync_write = false, after a warm-up (the same rows into a region then dropped), so
    // that the figure is the steady state, not the JIT compiling the write path.
    const dirA = join(root, 'a');
    let engine = await openEngine(dirA, false);
    const warm = { ...metadata(), region_id: String(regionId(1025, 0)) };
    await engine.createRegion(warm, 'data/bench/warmup/');
    // Fresh batch objects: a batch remembers its tag dictionaries once written.
    await writeAll(engine, batches().slice(0, Math.ceil(data.length / 2)), WRITERS, BigInt(warm.region_id));
    await engine.dropRegion(BigInt(warm.region_id));
    await engine.createRegion(metadata(), DIR);
    const writeSeconds = await writeAll(engine, data, WRITERS);
    record('write, sync_write=false (rows/s)', fmt(ROWS / writeSeconds));
    const memBytes = engine.writeBuffer.totalBytes();
    record('memtable bytes per row', (memBytes / ROWS).toFixed(1));

    // Scans over the memtable.
    const memScan = await query(engine, 'SELECT count(*) FROM cpu');
    record('full scan of the memtable (rows/s)', fmt(memScan.rows / memScan.seconds));

    // Flush.
    const flushStart = performance.now();
    const [file] = await engine.flushRegion(ID);
    const flushSeconds = (performance.now() - flushStart) / 1000;
    record('flush (rows/s)', fmt(ROWS / flushSeconds));
    record('SST bytes per row', (file!.file_size / ROWS).toFixed(2));
    record('SST bytes per float field value (all columns)', (file!.file_size / (ROWS * FIELDS.length)).toFixed(2));

    // Scans over the SST.
    const full = await query(engine, 'SELECT count(*), avg(usage_user), max(usage_system) FROM cpu');
    record('full scan, count/avg/max over the SST (rows/s)', fmt(full.rows / full.seconds));
    const groupBy = await query(engine, 'SELECT count(*) FROM (SELECT hostname, avg(usage_user) FROM cpu GROUP BY hostname)');
    record('group by host over the SST (rows/s)', fmt(ROWS / groupBy.seconds));
    const hourEnd = BigInt(T0 + 3_600_000 - 1);
    const hour = await query(engine, "SELECT count(*) FROM cpu WHERE hostname = 'host_7'", { start: BigInt(T0), end: hourEnd });
    record('one host, one hour (ms)', (hour.seconds * 1000).toFixed(1));
    const range = await query(engine, 'SELECT count(*) FROM cpu', { start: BigInt(T0), end: hourEnd });
    record('time-range scan, first hour (rows/s)', fmt(range.rows / range.seconds));
    await engine.close();

    // WAL replay: write again into a fresh directory, close without flushing, reopen.
    const dirB = join(root, 'b');
    engine = await openEngine(dirB, false);
    await engine.createRegion(metadata(), DIR);
    await writeAll(engine, data, WRITERS);
    await engine.close();
    engine = await openEngine(dirB, false);
    const replayStart = performance.now();
    await engine.openRegion(ID, DIR);
    record('WAL replay (rows/s)', fmt(ROWS / ((performance.now() - replayStart) / 1000)));
    await engine.close();

    // Writes, sync_write = true.
    const dirC = join(root, 'c');
    engine = await openEngine(dirC, true);
    await engine.createRegion(metadata(), DIR);
    const syncSeconds = await writeAll(engine, data, WRITERS);
    record(`write, sync_write=true, ${WRITERS} in flight (rows/s)`, fmt(ROWS / syncSeconds));
    await engine.close();
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

await main();
