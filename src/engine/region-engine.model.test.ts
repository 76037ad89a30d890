/**
 * Model-based test of the region engine: random puts, deletes, overlapping rewrites, flushes,
 * compactions (also in the background after flushes), alters, truncates, closes and reopens; after every step the region, read through a DuckDB scan,
 * must equal a simple in-memory model — for each merge mode and for append mode; on File, and on S3
 * (s3rver) through the file cache.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { rmSync } from 'node:fs';
import { after, before, describe, test, type TestContext } from 'node:test';
import { tempDir } from '../../test/support/temp.js';
import { silentLogger } from '../common/logging.js';
import { MIB } from '../common/size/size.js';
import { OP_DELETE, OP_PUT, type Vector, type WriteBatch } from '../types/write-batch.js';
import type { ColumnMetadata, MergeMode, RegionMetadata } from '../types/region-metadata.js';
import { regionId } from '../types/region-id.js';
import { DEFAULT_MEMTABLE_OPTIONS, type MemtableOptions } from './memtable/memtable.js';
import { RegionEngine } from './region-engine.js';
import type { StorageProviders } from '../storage/storage-provider.js';
import { fileStorage, s3Storage } from '../../test/support/engine.js';
import { startS3rver, type S3Server } from '../../test/support/object-servers.js';

const ID = regionId(2000, 1);
const DIR = 'data/model/2000_0000000001/';

type Mode = MergeMode | 'append';
type Fields = Record<string, number | string | null>;
interface Row {
  host: string;
  ts: number;
  fields: Fields;
}

function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

const BASE_COLUMNS: ColumnMetadata[] = [
  { column_id: 0, name: 'host', type: 'String', semantic_type: 'tag', nullable: true },
  { column_id: 1, name: 'ts', type: 'TimestampMillisecond', semantic_type: 'timestamp', nullable: false },
  { column_id: 2, name: 'cpu', type: 'Float64', semantic_type: 'field', nullable: true },
  { column_id: 3, name: 'note', type: 'String', semantic_type: 'field', nullable: true },
];

function metadataFor(mode: Mode, columns: ColumnMetadata[], version: number): RegionMetadata {
  return {
    region_id: String(ID),
    schema_version: version,
    columns,
    primary_key: [0],
    time_index: 1,
    options: { append_mode: mode === 'append', merge_mode: mode === 'append' ? 'last_row' : mode },
  };
}

class Model {
  rows = new Map<string, Row>();
  all: Row[] = [];
  constructor(readonly mode: Mode) {}
  put(r: Row, columns: ColumnMetadata[]): void {
    const full: Fields = {};
    for (const c of columns) {
      if (c.semantic_type !== 'field') continue;
      full[c.name] = c.name in r.fields ? r.fields[c.name]! : ((c.default as number | string | undefined) ?? null);
    }
    if (this.mode === 'append') {
      this.all.push({ ...r, fields: full });
      return;
    }
    const key = `${r.host}\u0000${r.ts}`;
    const old = this.rows.get(key);
    if (this.mode === 'last_non_null' && old) {
      const merged: Fields = { ...old.fields };
      for (const [k, v] of Object.entries(full)) if (v !== null) merged[k] = v;
      this.rows.set(key, { ...r, fields: merged });
    } else this.rows.set(key, { ...r, fields: full });
  }
  delete(host: string, ts: number): void {
    this.rows.delete(`${host}\u0000${ts}`);
  }
  addColumn(c: ColumnMetadata): void {
    for (const r of [...this.rows.values(), ...this.all]) r.fields[c.name] = (c.default as number | null | undefined) ?? null;
  }
  truncate(): void {
    this.rows.clear();
    this.all = [];
  }
  expected(columns: ColumnMetadata[]): string[] {
    const rows = this.mode === 'append' ? this.all : [...this.rows.values()];
    return rows.map((r) => render(r.host, r.ts, columns.filter((c) => c.semantic_type === 'field').map((c) => r.fields[c.name] ?? null))).sort();
  }
}

function render(host: string, ts: number, fields: Array<number | string | null | bigint>): string {
  return JSON.stringify([host, ts, ...fields.map((f) => (typeof f === 'bigint' ? Number(f) : f))]);
}

function batchOf(rows: Row[], op: typeof OP_PUT | typeof OP_DELETE, columns: ColumnMetadata[]): WriteBatch {
  const cols = new Map<number, Vector>([
    [0, { type: 'string', data: rows.map((r) => r.host) }],
    [1, { type: 'int64', data: BigInt64Array.from(rows.map((r) => BigInt(r.ts))) }],
  ]);
  if (op === OP_PUT) {
    for (const c of columns.filter((c) => c.semantic_type === 'field')) {
      if (rows.every((r) => !(c.name in r.fields))) continue; // absent column: its default applies
      if (c.type === 'String') cols.set(c.column_id, { type: 'string', data: rows.map((r) => (r.fields[c.name] as string | null | undefined) ?? null) });
      else {
        const valid = Uint8Array.from(rows.map((r) => (r.fields[c.name] === null || r.fields[c.name] === undefined ? 0 : 1)));
        cols.set(c.column_id, { type: 'float64', data: Float64Array.from(rows.map((r) => Number(r.fields[c.name] ?? 0))), valid });
      }
    }
  }
  return { op, rowCount: rows.length, columns: cols };
}

const storages = new WeakMap<RegionEngine, StorageProviders>();

/** Closes the engine, then its storage (a file cache is closed before another opens on its directory). */
async function closeEngine(engine: RegionEngine): Promise<void> {
  await engine.close();
  await storages.get(engine)?.close();
}

/** On S3 (an OpenDAL s3 config) through a file cache, or else on File. */
/** Opens an engine; `opened` gets it, for the test to close before its directory is removed. */
async function openEngine(opened: RegionEngine[], dir: string, memtable: MemtableOptions, s3?: Record<string, string>): Promise<RegionEngine> {
  const storage = s3 === undefined ? fileStorage(dir) : await s3Storage(dir, s3);
  const engine = await RegionEngine.open({
    wal: { dir: join(dir, 'wal'), fileSize: 256 * 1024, syncWrite: false, readBatchSize: 64, purgeInterval: 0, purgeThreshold: 1 << 30 },
    globalWriteBufferSize: 64 * MIB,
    globalWriteBufferRejectSize: 128 * MIB,
    manifestCheckpointDistance: 3,
    maxBackgroundJobs: 2,
    autoFlushInterval: 0,
    scanParallelism: 1,
    memtable,
    storage,
    logger: silentLogger(),
  });
  storages.set(engine, storage);
  opened.push(engine);
  return engine;
}

async function actual(engine: RegionEngine, columns: ColumnMetadata[]): Promise<string[]> {
  const scan = await engine.scan(ID);
  const conn = await engine.duckdb.connect();
  try {
    await scan.attach(conn, 'r');
    const fields = columns.filter((c) => c.semantic_type === 'field').map((c) => `"${c.name}"`);
    const result = await conn.runAndReadAll(`SELECT host, epoch_ms(ts) AS ts${fields.length ? ', ' : ''}${fields.join(', ')} FROM r`);
    await scan.detach(conn);
    return result.getRows().map((r) => render(r[0] as string, Number(r[1]), r.slice(2) as Array<number | string | null>)).sort();
  } finally {
    scan.release();
    conn.closeSync();
  }
}

/** Each seed runs with one memtable kind (partition_tree with small shards and parts). */
const MEMTABLES: ReadonlyArray<MemtableOptions> = [
  DEFAULT_MEMTABLE_OPTIONS,
  { ...DEFAULT_MEMTABLE_OPTIONS, type: 'partition_tree', indexMaxKeysPerShard: 2, dataFreezeThreshold: 16 },
];

/**
 * Random steps checked against the model after each. On S3 a reopen sometimes starts with an empty
 * file cache, so that later scans and compactions download what they read.
 */
async function modelRun(t: TestContext, mode: Mode, seed: number, memtable: MemtableOptions, s3?: Record<string, string>): Promise<void> {
      const r = rng(seed);
      // Engines are closed before the directory goes (hooks run in the order they were added): one
      // still open could write into it while it is removed.
      const opened: RegionEngine[] = [];
      t.after(async () => {
        for (const e of opened) await closeEngine(e);
      });
      const dir = tempDir(t);
      let engine = await openEngine(opened, dir, memtable, s3);
      let columns = [...BASE_COLUMNS];
      let version = 0;
      await engine.createRegion(metadataFor(mode, columns, version), DIR);
      const model = new Model(mode);
      const hosts = ['a', 'b', 'c', 'd'];
      const steps: string[] = [];
      for (let step = 0; step < 60; step++) {
        const p = r();
        let what: string;
        if (p < 0.5 || step < 3) {
          const n = 1 + Math.floor(r() * 30);
          const rows: Row[] = [];
          for (let i = 0; i < n; i++) {
            const fields: Fields = {};
            for (const c of columns.filter((c) => c.semantic_type === 'field')) {
              if (r() < 0.15) continue; // column absent from this row's batch? (per batch below)
              fields[c.name] = r() < 0.2 ? null : c.type === 'String' ? `n${Math.floor(r() * 9)}` : Math.floor(r() * 1000) / 4;
            }
            rows.push({ host: hosts[Math.floor(r() * hosts.length)]!, ts: Math.floor(r() * 60) * 1000, fields });
          }
          // A column missing from some rows is NULL there; missing from all, it takes its default.
          for (const row of rows) for (const c of columns.filter((c) => c.semantic_type === 'field')) if (!(c.name in row.fields) && rows.some((o) => c.name in o.fields)) row.fields[c.name] = null;
          await engine.write(ID, batchOf(rows, OP_PUT, columns));
          for (const row of rows) model.put(row, columns);
          what = `put ${n}`;
        } else if (p < 0.62 && mode !== 'append') {
          const n = 1 + Math.floor(r() * 5);
          const rows = Array.from({ length: n }, () => ({ host: hosts[Math.floor(r() * hosts.length)]!, ts: Math.floor(r() * 60) * 1000, fields: {} }));
          await engine.write(ID, batchOf(rows, OP_DELETE, columns));
          for (const row of rows) model.delete(row.host, row.ts);
          what = `delete ${n}`;
        } else if (p < 0.72) {
          await engine.flushRegion(ID);
          what = 'flush';
        } else if (p < 0.8) {
          await engine.flushRegion(ID);
          await engine.compactRegion(ID);
          // Every row is in one time window and every file overlaps the others: one file is left.
          assert.ok(engine.region(ID).files().length <= 1, `${engine.region(ID).files().length} files after a compaction`);
          what = 'flush+compact';
        } else if (p < 0.9) {
          await closeEngine(engine);
          const emptyCache = s3 !== undefined && r() < 0.5;
          if (emptyCache) rmSync(join(dir, 'cache'), { recursive: true, force: true });
          engine = await openEngine(opened, dir, memtable, s3);
          await engine.openRegion(ID, DIR);
          what = emptyCache ? 'reopen with an empty cache' : 'reopen';
        } else if (p < 0.95 && columns.length < 7) {
          const id = Math.max(...columns.map((c) => c.column_id)) + 1;
          const col: ColumnMetadata = { column_id: id, name: `f${id}`, type: 'Float64', semantic_type: 'field', nullable: true, ...(r() < 0.5 ? { default: 0.5 } : {}) };
          columns = [...columns, col];
          version++;
          await engine.alterRegion(ID, metadataFor(mode, columns, version));
          model.addColumn(col);
          what = `add column ${col.name}`;
        } else {
          await engine.truncateRegion(ID);
          model.truncate();
          what = 'truncate';
        }
        steps.push(what);
        assert.deepEqual(await actual(engine, columns), model.expected(columns), `after step ${step} (${steps.join(', ')})`);
      }
}

for (const mode of ['last_row', 'last_non_null', 'append'] as const) {
  for (const [i, seed] of [7, 99].entries()) {
    const memtable = MEMTABLES[i % MEMTABLES.length]!;
    test(`model-based: random operations in ${mode} mode read back like the model (seed ${seed}, ${memtable.type} memtable)`, (t) => modelRun(t, mode, seed, memtable));
  }
}

describe('model-based on S3 (s3rver, through the file cache)', () => {
  let server: S3Server | undefined;
  before(async () => {
    server = await startS3rver();
  });
  after(() => server?.stop());
  for (const [i, mode] of (['last_row', 'last_non_null', 'append'] as const).entries()) {
    const seed = 31 + i;
    const memtable = MEMTABLES[i % MEMTABLES.length]!;
    test(`random operations in ${mode} mode read back like the model (seed ${seed}, ${memtable.type} memtable)`, (t) => modelRun(t, mode, seed, memtable, server!.config(`model-${process.pid}-${mode}`)));
  }
});
