/**
 * A real datanode's region service (DESIGN.md D13) through its client, `RemoteRegionServer`: what a
 * frontend of a cluster asks of a datanode process (`tsdb datanode start`), end to end — region
 * requests, region queries with fragments, restarts (WAL replay), cancellation, concurrency and
 * what the client sends wrong. The service's unit tests (src/servers/grpc/region-service.test.ts)
 * run against a double; these run the engine, its DuckDB and the process's shutdown.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { test, type TestContext } from 'node:test';
import type { RecordBatch } from 'apache-arrow';
import { StatusCode } from '../../src/common/error/status-code.js';
import { TsdbError } from '../../src/common/error/tsdb-error.js';
import { isArrowTypeUnsupported } from '../../src/query/arrow-result.js';
import { RemoteRegionServer } from '../../src/servers/grpc/region-client.js';
import { regionDirName, regionId, type RegionId } from '../../src/types/region-id.js';
import type { ColumnMetadata, RegionMetadata } from '../../src/types/region-metadata.js';
import type { RegionQuery } from '../../src/types/region-server.js';
import { OP_DELETE, OP_PUT, type Vector, type WriteBatch } from '../../src/types/write-batch.js';
import { tempDir } from '../support/temp.js';
import { startTsdb, type TsdbProcess } from '../support/tsdb-process.js';

interface Datanode {
  readonly proc: TsdbProcess;
  readonly addr: string;
  readonly client: RemoteRegionServer;
}

async function startDatanode(t: TestContext, home: string = tempDir(t)): Promise<Datanode> {
  const s = await startTsdb(t, ['datanode', 'start', '--node-id', '1', '--http-addr', '127.0.0.1:0', '--rpc-addr', '127.0.0.1:0', '--data-home', home]);
  assert.ok(s.grpc !== undefined, 'the datanode serves the region service');
  const client = new RemoteRegionServer(s.grpc);
  t.after(() => client.close());
  return { proc: s.proc, addr: s.grpc, client };
}

const TABLE_ID = 1024;

/** host: string tag; ts: ms time index; v: double; n: bigint. */
const COLUMNS: readonly ColumnMetadata[] = [
  { column_id: 0, name: 'host', type: 'String', semantic_type: 'tag', nullable: true },
  { column_id: 1, name: 'ts', type: 'TimestampMillisecond', semantic_type: 'timestamp', nullable: false },
  { column_id: 2, name: 'v', type: 'Float64', semantic_type: 'field', nullable: true },
  { column_id: 3, name: 'n', type: 'Int64', semantic_type: 'field', nullable: true },
];

function metadataOf(id: RegionId, columns: readonly ColumnMetadata[] = COLUMNS, schemaVersion = 0): RegionMetadata {
  return { region_id: String(id), schema_version: schemaVersion, columns, primary_key: [0], time_index: 1, options: { append_mode: false, merge_mode: 'last_row' } };
}

function dirOf(id: RegionId): string {
  return `data/greptime/public/${TABLE_ID}/${regionDirName(id)}/`;
}

async function create(client: RemoteRegionServer, regionNumber: number): Promise<RegionId> {
  const id = regionId(TABLE_ID, regionNumber);
  await client.createRegion(metadataOf(id), dirOf(id));
  return id;
}

type Row = readonly [host: string, ts: number, v: number, n: bigint];

function puts(rows: readonly Row[]): WriteBatch {
  const columns = new Map<number, Vector>([
    [0, { type: 'string', data: rows.map((r) => r[0]) }],
    [1, { type: 'int64', data: BigInt64Array.from(rows, (r) => BigInt(r[1])) }],
    [2, { type: 'float64', data: Float64Array.from(rows, (r) => r[2]) }],
    [3, { type: 'int64', data: BigInt64Array.from(rows, (r) => r[3]) }],
  ]);
  return { op: OP_PUT, rowCount: rows.length, columns };
}

function deletes(keys: ReadonlyArray<readonly [host: string, ts: number]>): WriteBatch {
  const columns = new Map<number, Vector>([
    [0, { type: 'string', data: keys.map((k) => k[0]) }],
    [1, { type: 'int64', data: BigInt64Array.from(keys, (k) => BigInt(k[1])) }],
  ]);
  return { op: OP_DELETE, rowCount: keys.length, columns };
}

/** A value as a test compares it: timestamps as epoch milliseconds, other values as Arrow gives them. */
function plain(v: unknown): unknown {
  if (v instanceof Date) return v.getTime();
  return v;
}

function rowsOfBatches(batches: readonly RecordBatch[]): unknown[][] {
  const out: unknown[][] = [];
  for (const b of batches) {
    const cols = b.schema.fields.map((_, i) => b.getChildAt(i)!);
    for (let r = 0; r < b.numRows; r++) out.push(cols.map((c) => plain(c.get(r))));
  }
  return out;
}

/** Runs `query` on region `id`: its column names and rows. */
async function query(client: RemoteRegionServer, id: RegionId, q: RegionQuery, signal?: AbortSignal): Promise<{ names: string[]; rows: unknown[][] }> {
  const s = await client.query(id, q, signal);
  const batches: RecordBatch[] = [];
  for await (const b of s.batches) batches.push(b);
  return { names: s.schema.fields.map((f) => f.name), rows: rowsOfBatches(batches) };
}

async function count(client: RemoteRegionServer, id: RegionId): Promise<number> {
  const { rows } = await query(client, id, { sql: 'SELECT count(*)::BIGINT AS c FROM region' });
  return Number(rows[0]![0]);
}

/** `promise`'s rejection, which must be a TsdbError. */
async function failure(promise: Promise<unknown>): Promise<TsdbError> {
  try {
    await promise;
  } catch (err) {
    assert.ok(err instanceof TsdbError, `a TsdbError, not ${String(err)}`);
    return err;
  }
  assert.fail('expected a failure');
}

test('a datanode drives a region: create, write, query fragments, delete, flush, compact, truncate, alter, drop', async (t) => {
  const { client, proc } = await startDatanode(t);
  const id = await create(client, 1);
  const rows: Row[] = [
    ['a', 1000, 1.5, 10n],
    ['a', 2000, 2.5, 20n],
    ['a', 3000, 3.5, 2n ** 60n],
    ['b', 1000, -1, -5n],
    ['b', 2000, 4, 7n],
    ['c', 1500, 0.25, 0n],
  ];
  assert.equal(await client.write(id, puts(rows)), rows.length);

  const all = await query(client, id, { sql: 'SELECT host, ts, v, n FROM region ORDER BY host, ts' });
  assert.deepEqual(all.names, ['host', 'ts', 'v', 'n']);
  assert.deepEqual(all.rows, rows.map((r) => [...r]));

  const filtered = await query(client, id, { sql: 'SELECT host, ts FROM region WHERE v > 2 ORDER BY host, ts' });
  assert.deepEqual(filtered.rows, [['a', 2000], ['a', 3000], ['b', 2000]]);

  // The scan part applies exactly: the time range inclusive, the key values only.
  const scanned = await query(client, id, { scan: { start: 1000n, end: 2000n, keys: new Map([[0, ['a', 'c']]]) }, sql: 'SELECT host, ts FROM region ORDER BY host, ts' });
  assert.deepEqual(scanned.rows, [['a', 1000], ['a', 2000], ['c', 1500]]);

  const partial = await query(client, id, { sql: 'SELECT host, sum(v) AS s, count(*) AS c FROM region GROUP BY host ORDER BY host' });
  assert.deepEqual(partial.names, ['host', 's', 'c']);
  assert.deepEqual(partial.rows, [['a', 7.5, 3n], ['b', 3, 2n], ['c', 0.25, 1n]]);

  const top = await query(client, id, { scan: { start: 1000n }, sql: 'SELECT host, ts, n FROM region ORDER BY n DESC LIMIT 2' });
  assert.deepEqual(top.rows, [['a', 3000, 2n ** 60n], ['a', 2000, 20n]]);

  // Without a fragment: every column of every row.
  assert.equal((await query(client, id, {})).rows.length, rows.length);

  // Deletes hide their rows; a put of the same key overwrites (last_row).
  assert.equal(await client.write(id, deletes([['a', 2000], ['b', 1000]])), 2);
  assert.equal(await client.write(id, puts([['c', 1500, 9, 9n]])), 1);
  const afterDelete = await query(client, id, { sql: 'SELECT host, ts, v FROM region ORDER BY host, ts' });
  assert.deepEqual(afterDelete.rows, [['a', 1000, 1.5], ['a', 3000, 3.5], ['b', 2000, 4], ['c', 1500, 9]]);

  const before = await client.statistics(id);
  assert.ok(before.memtable_rows > 0 && before.sst_files === 0, JSON.stringify(before));
  await client.flushRegion(id);
  const flushed = await client.statistics(id);
  assert.ok(flushed.sst_files >= 1 && flushed.sst_rows > 0 && flushed.memtable_rows === 0, JSON.stringify(flushed));

  // A second file overlapping the first (TWCS merges overlapping files of a window), then
  // compaction: one file, the rows read the same.
  await client.write(id, puts([['d', 2500, 5, 5n]]));
  await client.compactRegion(id);
  const compacted = await client.statistics(id);
  assert.equal(compacted.memtable_rows, 0);
  assert.equal(compacted.sst_files, 1, `compaction merged the files: ${JSON.stringify(compacted)}`);
  assert.deepEqual((await query(client, id, { sql: 'SELECT host, ts FROM region ORDER BY host, ts' })).rows, [['a', 1000], ['a', 3000], ['b', 2000], ['c', 1500], ['d', 2500]]);

  await client.truncateRegion(id);
  assert.equal(await count(client, id), 0);
  const truncated = await client.statistics(id);
  assert.equal(truncated.sst_files + truncated.memtable_rows, 0, JSON.stringify(truncated));

  // ADD COLUMN: rows written before read its default.
  await client.write(id, puts([['e', 1000, 1, 1n]]));
  const altered = [...COLUMNS, { column_id: 4, name: 'status', type: 'String', semantic_type: 'field', nullable: true, default: 'ok' } satisfies ColumnMetadata];
  await client.alterRegion(id, metadataOf(id, altered, 1));
  await client.write(id, { op: OP_PUT, rowCount: 1, columns: new Map<number, Vector>([...puts([['f', 2000, 2, 2n]]).columns, [4, { type: 'string', data: ['bad'] }]]) });
  assert.deepEqual((await query(client, id, { sql: 'SELECT host, status FROM region ORDER BY host' })).rows, [['e', 'ok'], ['f', 'bad']]);

  await client.dropRegion(id);
  const gone = await failure(query(client, id, {}));
  assert.equal(gone.code, StatusCode.RegionNotFound, gone.message);
  assert.equal((await failure(client.write(id, puts(rows)))).code, StatusCode.RegionNotFound);
  assert.ok(proc.running);
});

test("a datanode runs a frontend's whole query as a fragment: a WITH of its own, tsdb's functions, every type Arrow carries; one it does not carry is refused before the query runs", async (t) => {
  const { client, proc } = await startDatanode(t);
  const id = await create(client, 1);
  await client.write(id, puts([['a', 1000, 1.5, 2n ** 62n], ['a', 2000, 2.5, 2n ** 62n], ['b', 1000, 4, 1n]]));
  // A WITH of the fragment's own: the region's rows are then a view of the query's connection.
  const cte = await query(client, id, { scan: { start: 1000n }, sql: '-- the whole query\nWITH r AS (SELECT host, v FROM region WHERE v > 2) SELECT host, max(v) AS m FROM r GROUP BY host ORDER BY host' });
  assert.deepEqual(cte.rows, [['a', 2.5], ['b', 4]]);
  // tsdb's functions (session-functions.ts), as the frontend's rewrites leave them.
  const fns = await query(client, id, { sql: "SELECT date_bin(INTERVAL '1 hour', ts) AS b, date_format(max(ts), '%H:%M:%S') AS f, to_unixtime(min(ts)) AS u, __tsdb_instant(TIMESTAMP '1970-01-01 00:00:00', TIMESTAMP '1970-01-01 00:00:00', 'Europe/Paris') AS i FROM region GROUP BY b" });
  assert.deepEqual(fns.rows, [[0, '00:00:02', 1n, -3_600_000]]);
  // HUGEINT (a sum past 64 bits) and DECIMAL cross exactly; names may repeat.
  const sums = await query(client, id, { sql: "SELECT sum(n) AS s, sum(n) AS s, CAST(sum(v) AS DECIMAL(20, 3)) AS d FROM region WHERE host = 'a'" });
  assert.deepEqual(sums.names, ['s', 's', 'd']);
  assert.equal(String(sums.rows[0]![0]), String(2n ** 63n));
  // An interval: refused once bound, with the error the frontend falls back on.
  const refused = await failure(query(client, id, { sql: 'SELECT max(ts) - min(ts) AS span FROM region' }));
  assert.equal(refused.code, StatusCode.Unsupported);
  assert.ok(isArrowTypeUnsupported(refused), refused.message);
  // Still one statement, whatever its form.
  const two = await failure(query(client, id, { sql: 'WITH r AS (SELECT 1) SELECT * FROM r; SELECT 2' }));
  assert.equal(two.code, StatusCode.InvalidArguments, two.message);
  assert.ok(proc.running);
});

/** `count` rows of host `host` at ts `from`, `from + 1`, …: v = ts, n = ts. */
function series(host: string, from: number, rowCount: number): WriteBatch {
  return puts(Array.from({ length: rowCount }, (_, i): Row => [host, from + i, from + i, BigInt(from + i)]));
}

async function hostCounts(client: RemoteRegionServer, id: RegionId): Promise<unknown[][]> {
  return (await query(client, id, { sql: 'SELECT host, count(*) AS c, count(DISTINCT ts) AS d, min(ts) AS lo, max(ts) AS hi FROM region GROUP BY host ORDER BY host' })).rows;
}

test('a datanode restarted (SIGTERM, then SIGKILL) reopens its regions with every acknowledged row, flushed or not', async (t) => {
  const home = tempDir(t);
  let dn = await startDatanode(t, home);
  const id = await create(dn.client, 1);
  await dn.client.write(id, series('flushed', 0, 500));
  await dn.client.flushRegion(id);
  await dn.client.write(id, series('wal', 0, 300));
  await dn.client.write(id, deletes([['flushed', 0], ['flushed', 1]]));
  const expected = [['flushed', 498n, 498n, 2, 499], ['wal', 300n, 300n, 0, 299]];
  assert.deepEqual(await hostCounts(dn.client, id), expected);
  assert.equal((await dn.proc.stop('SIGTERM')).code, 0, dn.proc.stderr);

  dn = await startDatanode(t, home);
  assert.equal((await failure(count(dn.client, id))).code, StatusCode.RegionNotFound, 'a datanode opens no region by itself');
  await dn.client.openRegion(id, dirOf(id));
  assert.deepEqual(await hostCounts(dn.client, id), expected, 'the rows after a SIGTERM, the unflushed ones replayed from the WAL');

  // Writes in a loop, killed mid-run: every acknowledged batch is there after the reopen, and the
  // batch in flight at the kill is there whole or not at all.
  const BATCH = 200;
  let acked = 0;
  let failed: unknown;
  const writer = (async () => {
    try {
      for (;;) {
        await dn.client.write(id, series('killed', acked * BATCH, BATCH));
        acked++;
      }
    } catch (err) {
      failed = err;
    }
  })();
  while (acked < 5) await new Promise((r) => setTimeout(r, 5));
  await dn.proc.stop('SIGKILL');
  await writer;
  assert.ok(failed instanceof TsdbError && failed.code === StatusCode.StorageUnavailable, `the write in flight fails as unavailable: ${String(failed)}`);
  const ackedAtKill = acked;

  dn = await startDatanode(t, home);
  await dn.client.openRegion(id, dirOf(id));
  const after = await hostCounts(dn.client, id);
  assert.deepEqual(after.slice(0, 1), expected.slice(0, 1));
  const killed = after.find((r) => r[0] === 'killed');
  assert.ok(killed !== undefined, 'the acknowledged batches of the killed run are there');
  const rowsThere = Number(killed[1]);
  assert.ok(rowsThere === ackedAtKill * BATCH || rowsThere === (ackedAtKill + 1) * BATCH, `${rowsThere} rows after ${ackedAtKill} acknowledged batches of ${BATCH}`);
  assert.deepEqual(killed, ['killed', BigInt(rowsThere), BigInt(rowsThere), 0, rowsThere - 1], 'a prefix of the batches, without gaps');
  assert.deepEqual(after.find((r) => r[0] === 'wal'), expected[1]);
});

/** CPU seconds process `pid` has used (Linux /proc). */
function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // utime and stime, fields 14 and 15 of the line (11 and 12 after the command), in clock ticks.
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** CPU seconds process `pid` uses during the next `ms` milliseconds. */
async function cpuDuring(pid: number, ms: number): Promise<number> {
  const before = cpuSeconds(pid);
  await new Promise((r) => setTimeout(r, ms));
  return cpuSeconds(pid) - before;
}

/** Seconds of CPU per second of a datanode left running a query that nobody reads (2 cores shared). */
const BUSY = 0.5;

/**
 * The most CPU seconds `pid` used in one 0.8 s window, watching until one passes BUSY (at most 8
 * windows): on a machine busy with other work a running query may get less than BUSY in a window
 * (0.26 s at a load average of 11). Then at least RUNNING shows the query runs, and a stopped query
 * is told by the datanode using under a third of that afterwards (`stopped`).
 */
async function busyWindow(pid: number): Promise<number> {
  let most = 0;
  for (let i = 0; i < 8 && most <= BUSY; i++) most = Math.max(most, await cpuDuring(pid, 800));
  return most;
}
/** ... and of a datanode doing nothing. */
const IDLE = 0.25;
/** CPU seconds in 0.8 s that show a query running, on however loaded a machine (an idle datanode: ~0.01). */
const RUNNING = 0.1;

/** Whether `quiet` CPU seconds in 1 s after a stop show the query stopped, given `busy` in 0.8 s while it ran. */
function stopped(quiet: number, busy: number): boolean {
  return quiet < Math.min(IDLE, busy / 0.8 / 3);
}

/** A fragment that runs for minutes: a sum over a cross join of the region's 100 rows with itself and 10⁹ numbers. */
const ENDLESS = 'SELECT sum(a.v * b.v * g) AS s FROM region a, region b, range(0, 1000000000) t(g)';

test('a region query the client aborts, or whose client is killed, stops on the datanode; the datanode keeps serving', async (t) => {
  const { client, proc, addr } = await startDatanode(t);
  const id = await create(client, 1);
  await client.write(id, series('h', 0, 100));

  // A blocking aggregation aborted before its answer.
  const controller = new AbortController();
  const running = query(client, id, { sql: ENDLESS }, controller.signal);
  running.catch(() => {});
  const busy = await busyWindow(proc.pid);
  assert.ok(busy > RUNNING, `the query runs on the datanode: ${busy} CPU seconds in 0.8 s at most`);
  const aborted = Date.now();
  controller.abort(new Error('stop'));
  await assert.rejects(running, /stop/);
  assert.ok(Date.now() - aborted < 500, `the client's query rejects promptly (${Date.now() - aborted} ms)`);
  await new Promise((r) => setTimeout(r, 200));
  const quiet = await cpuDuring(proc.pid, 1000);
  assert.ok(stopped(quiet, busy), `the datanode stopped the query: ${quiet} CPU seconds in the second after (${busy} in 0.8 s while it ran)`);
  assert.equal(await count(client, id), 100);

  // A streamed answer aborted after its first batches.
  const streamed = new AbortController();
  const s = await client.query(id, { sql: 'SELECT a.host, a.ts, g FROM region a, range(0, 100000000) t(g)' }, streamed.signal);
  let read = 0;
  await assert.rejects(async () => {
    for await (const b of s.batches) {
      read += b.numRows;
      if (read > 10_000) streamed.abort(new Error('enough'));
    }
  }, /enough/);
  await new Promise((r) => setTimeout(r, 200));
  const quietAfterStream = await cpuDuring(proc.pid, 1000);
  assert.ok(stopped(quietAfterStream, busy), `the datanode stopped the streamed query: ${quietAfterStream} CPU seconds`);
  assert.equal(await count(client, id), 100);

  // A client process killed while its query runs.
  const child = spawn(process.execPath, [new URL('../support/region-query-child.js', import.meta.url).pathname, addr, String(id), ENDLESS], { stdio: ['ignore', 'pipe', 'pipe'] });
  t.after(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr.on('data', (c: Buffer) => (err += c.toString()));
  const deadline = Date.now() + 10_000;
  while (!out.includes('querying')) {
    assert.ok(Date.now() < deadline && child.exitCode === null, `the child started its query: ${out} ${err}`);
    await new Promise((r) => setTimeout(r, 20));
  }
  const childBusy = await busyWindow(proc.pid);
  assert.ok(childBusy > RUNNING, `the child's query runs on the datanode: ${childBusy} CPU seconds in 0.8 s at most`);
  child.kill('SIGKILL');
  await new Promise((r) => child.once('close', r));
  await new Promise((r) => setTimeout(r, 200));
  const quietAfterKill = await cpuDuring(proc.pid, 1000);
  assert.ok(stopped(quietAfterKill, childBusy), `the datanode stopped the query of the killed client: ${quietAfterKill} CPU seconds (${childBusy} in 0.8 s while it ran)`);
  assert.equal(await count(client, id), 100);
  assert.ok(proc.running);
});

test('64 concurrent streams, 32 writers and 32 queries over 4 regions through 4 clients: all succeed, the counts are exact', async (t) => {
  const dn = await startDatanode(t);
  const clients = [dn.client, ...Array.from({ length: 3 }, () => new RemoteRegionServer(dn.addr))];
  t.after(() => clients.slice(1).forEach((c) => c.close()));
  const ids = await Promise.all([1, 2, 3, 4].map((n) => create(dn.client, n)));
  const WRITES = 5;
  const ROWS = 200;
  const writers = Array.from({ length: 32 }, async (_, w) => {
    const client = clients[w % 4]!;
    const id = ids[w % 4]!;
    let written = 0;
    for (let k = 0; k < WRITES; k++) written += await client.write(id, series(`w${w}`, k * ROWS, ROWS));
    return written;
  });
  const queries = Array.from({ length: 32 }, async (_, q) => {
    const client = clients[(q + 1) % 4]!;
    const id = ids[q % 4]!;
    const rows = (await query(client, id, { sql: 'SELECT host, count(*) AS c, sum(n) AS s FROM region GROUP BY host' })).rows;
    // Whatever part of the writes a query sees, it sees whole rows of its region's writers only.
    for (const [host, c] of rows) {
      assert.ok(typeof host === 'string' && Number(host.slice(1)) % 4 === q % 4, `host ${String(host)} in region ${q % 4}`);
      assert.ok(Number(c) <= WRITES * ROWS);
    }
    return rows.length;
  });
  const [written] = await Promise.all([Promise.all(writers), Promise.all(queries)]);
  assert.deepEqual(written, Array(32).fill(WRITES * ROWS));
  const perHostSum = BigInt(((WRITES * ROWS - 1) * WRITES * ROWS) / 2);
  for (let r = 0; r < 4; r++) {
    const rows = (await query(clients[r]!, ids[r]!, { sql: 'SELECT host, count(*) AS c, sum(n)::BIGINT AS s FROM region GROUP BY host ORDER BY host' })).rows;
    const hosts = Array.from({ length: 8 }, (_, k) => `w${r + 4 * k}`).sort();
    assert.deepEqual(rows, hosts.map((h) => [h, BigInt(WRITES * ROWS), perHostSum]));
  }
});

test('what a client sends wrong is its error, by code; the datanode stays up', async (t) => {
  const { client, proc } = await startDatanode(t);
  const id = await create(client, 1);
  await client.write(id, series('h', 0, 10));

  const unknownColumn = await failure(client.write(id, { op: OP_PUT, rowCount: 1, columns: new Map<number, Vector>([...series('x', 0, 1).columns, [42, { type: 'float64', data: new Float64Array([1]) }]]) }));
  assert.equal(unknownColumn.code, StatusCode.InvalidArguments, unknownColumn.message);
  const wrongType = await failure(client.write(id, { op: OP_PUT, rowCount: 1, columns: new Map<number, Vector>([...series('x', 0, 1).columns, [2, { type: 'string', data: ['1.5'] }]]) }));
  assert.equal(wrongType.code, StatusCode.InvalidArguments, wrongType.message);
  const noTimeIndexValues = await failure(client.write(id, { op: OP_PUT, rowCount: 1, columns: new Map<number, Vector>([[0, { type: 'string', data: ['x'] }]]) }));
  assert.equal(noTimeIndexValues.code, StatusCode.InvalidArguments, noTimeIndexValues.message);
  assert.equal(await count(client, id), 10, 'no rejected write left a row');

  const never = await failure(query(client, regionId(TABLE_ID, 99), {}));
  assert.equal(never.code, StatusCode.RegionNotFound, never.message);
  assert.equal((await failure(client.statistics(regionId(TABLE_ID, 99)))).code, StatusCode.RegionNotFound);
  assert.equal((await failure(client.openRegion(regionId(TABLE_ID, 98), 'data/greptime/public/1024/nothing_here/'))).code, StatusCode.RegionNotFound);
  assert.equal((await failure(client.createRegion(metadataOf(id), dirOf(id)))).code, StatusCode.RegionAlreadyExists);

  // Metadata a region cannot be read by is refused, not written to a manifest (every later
  // request of the region would fail as Internal).
  const other = regionId(TABLE_ID, 2);
  const noTimeIndex2 = await failure(client.createRegion({ ...metadataOf(other), time_index: 2 }, dirOf(other)));
  assert.equal(noTimeIndex2.code, StatusCode.InvalidArguments, noTimeIndex2.message);
  assert.equal((await failure(client.createRegion({ ...metadataOf(other), columns: [] }, dirOf(other)))).code, StatusCode.InvalidArguments);
  assert.equal((await failure(client.statistics(other))).code, StatusCode.RegionNotFound, 'no region was created');
  const dropsTimeIndex = await failure(client.alterRegion(id, metadataOf(id, COLUMNS.filter((c) => c.name !== 'ts'), 1)));
  assert.equal(dropsTimeIndex.code, StatusCode.InvalidArguments, dropsTimeIndex.message);
  assert.equal(await count(client, id), 10, 'the refused alter changed nothing');

  // A fragment is one statement: a second one would run in the DuckDB every region query shares.
  const two = await failure(query(client, id, { sql: 'SELECT 1 AS a; CREATE TABLE t AS SELECT 42 AS x' }));
  assert.equal(two.code, StatusCode.InvalidArguments, two.message);
  assert.equal((await failure(query(client, id, { sql: 'SELECT * FROM t' }))).code, StatusCode.PlanQuery, 'the second statement did not run');

  const syntax = await failure(query(client, id, { sql: 'SELEC host FROM region' }));
  assert.equal(syntax.code, StatusCode.InvalidSyntax, syntax.message);
  const plan = await failure(query(client, id, { sql: 'SELECT nope FROM region' }));
  assert.equal(plan.code, StatusCode.PlanQuery, plan.message);

  for (const sql of ["SELECT * FROM read_csv('/etc/passwd')", "SELECT * FROM read_text('/etc/passwd')", "COPY (SELECT 1) TO '/tmp/x.csv'"]) {
    const denied = await failure(query(client, id, { sql }));
    assert.ok(denied.code !== StatusCode.Internal && denied.code !== StatusCode.Success, `${sql}: ${denied.code} ${denied.message}`);
    assert.ok(!/root:/.test(denied.message), `${sql}: no file contents in ${denied.message}`);
  }
  const csv = await failure(query(client, id, { sql: "SELECT * FROM read_csv('/etc/passwd')" }));
  assert.equal(csv.code, StatusCode.PermissionDenied, csv.message);

  assert.ok(proc.running);
  assert.equal(await count(client, id), 10);
});
