/**
 * Tests of the remote write codec: byte fixtures built by hand (protobuf and snappy), grouping by
 * metric with NULLs, the special labels, sample values bit for bit, and every rejected input.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MAX_COLUMNS_PER_TABLE } from '../../catalog/limits.js';
import { StatusCode } from '../../common/error/status-code.js';
import { TsdbError } from '../../common/error/tsdb-error.js';
import type { IngestTable } from '../../frontend/ingest-request.js';
import { knownDictionary, NULL_CODE } from '../../types/string-dictionary.js';
import { vectorLength, type Vector } from '../../types/write-batch.js';
import { cellLimitProblem, INGEST_CELLS_PER_BYTE, INGEST_MIN_CELLS, ingestCellLimit } from '../ingest-budget.js';
import { decodeRemoteWrite, encodeWriteRequest, type RemoteWriteGroup } from './remote-write.js';
import { snappyCompress, snappyDecompress } from './snappy-block.js';

// --- protobuf by hand --------------------------------------------------------------------------

function varint(n: bigint | number): number[] {
  let v = BigInt.asUintN(64, BigInt(n));
  const out: number[] = [];
  while (v >= 0x80n) {
    out.push(Number(v & 0x7fn) | 0x80);
    v >>= 7n;
  }
  out.push(Number(v));
  return out;
}
const key = (field: number, wire: number): number[] => varint((field << 3) | wire);
const bytes = (s: string): number[] => [...Buffer.from(s, 'utf8')];
/** A length-delimited field. */
const ld = (field: number, payload: number[]): number[] => [...key(field, 2), ...varint(payload.length), ...payload];
const label = (name: string | number[], value: string | number[]): number[] =>
  ld(1, [...ld(1, typeof name === 'string' ? bytes(name) : name), ...ld(2, typeof value === 'string' ? bytes(value) : value)]);
/** A Sample with the value given as its 64 bits. */
function sampleBits(bits: bigint, ts: bigint | number): number[] {
  const b = Buffer.alloc(8);
  b.writeBigUInt64LE(bits);
  return ld(2, [...key(1, 1), ...b, ...key(2, 0), ...varint(ts)]);
}
function sample(value: number, ts: bigint | number): number[] {
  const b = Buffer.alloc(8);
  b.writeDoubleLE(value);
  return sampleBits(b.readBigUInt64LE(), ts);
}
const series = (...fields: number[][]): number[] => ld(1, fields.flat());
const request = (...parts: number[][]): Buffer => snappyCompress(Buffer.from(parts.flat()));

/**
 * WriteRequest { timeseries { labels { "__name__" "up" } labels { "job" "a" } samples { 1.5 @ 1000 } } }:
 *   0a 28                               WriteRequest.timeseries, 40 bytes
 *     0a 0e 0a 08 "__name__" 12 02 "up"   labels, 14 bytes
 *     0a 08 0a 03 "job" 12 01 "a"         labels, 8 bytes
 *     12 0c 09 <1.5 as f64 LE> 10 e8 07   samples, 12 bytes: value (fixed64), timestamp 1000 (varint)
 */
const ONE_SERIES = Buffer.from(
  '0a28' + '0a0e0a085f5f6e616d655f5f1202' + '7570' + '0a080a036a6f62120161' + '120c09000000000000f83f' + '10e807',
  'hex',
);

function onlyGroup(groups: RemoteWriteGroup[]): IngestTable {
  assert.equal(groups.length, 1);
  return groups[0]!.table;
}

function column(table: IngestTable, name: string): unknown[] {
  const c = table.columns.find((col) => col.name === name);
  assert.ok(c, `column ${name}`);
  return [...c.vector.data];
}

function rejects(body: Buffer, message: RegExp): void {
  assert.throws(() => decodeRemoteWrite(body), (err: unknown) => {
    assert.ok(err instanceof TsdbError, `TsdbError, got ${String(err)}`);
    assert.equal(err.code, StatusCode.InvalidArguments);
    assert.match(err.message, message);
    return true;
  });
}

// --- snappy ------------------------------------------------------------------------------------

test('snappy block format: a literal-only block by hand', () => {
  // Uncompressed length 3 (varint), then a literal element of 3 bytes: tag (3 − 1) << 2 = 0x08.
  const block = Buffer.from('030861626' + '3', 'hex');
  assert.deepEqual(snappyCompress(Buffer.from('abc')), block);
  assert.deepEqual(snappyDecompress(block, 'x'), Buffer.from('abc'));
  // A copy element: "abcabcabc" = literal "abc" then copy-1 of length 6 at offset 3 (tag 0b000_010_01).
  assert.deepEqual(snappyDecompress(Buffer.from('09086162630903', 'hex'), 'x'), Buffer.from('abcabcabc'));
});

// --- fixtures ----------------------------------------------------------------------------------

test('the encoder writes the hand-made fixture byte for byte', () => {
  const body = encodeWriteRequest([{ labels: [{ name: '__name__', value: 'up' }, { name: 'job', value: 'a' }], samples: [{ value: 1.5, timestampMs: 1000 }] }]);
  assert.deepEqual(snappyDecompress(body, 'WriteRequest'), ONE_SERIES);
});

test('the hand-made fixture decodes to one table: tags, tsdb_timestamp, tsdb_value', () => {
  const { groups, samples } = decodeRemoteWrite(snappyCompress(ONE_SERIES));
  assert.equal(samples, 1);
  assert.equal(groups[0]!.database, undefined);
  assert.equal(groups[0]!.physicalTable, undefined);
  assert.ok(!('database' in groups[0]!) && !('physicalTable' in groups[0]!));
  const table = onlyGroup(groups);
  assert.equal(table.name, 'up');
  assert.equal(table.rowCount, 1);
  assert.deepEqual(
    table.columns.map((c) => [c.name, c.semantic, c.type, c.vector.type]),
    [
      ['job', 'tag', 'String', 'string'],
      ['tsdb_timestamp', 'timestamp', 'TimestampMillisecond', 'int64'],
      ['tsdb_value', 'field', 'Float64', 'float64'],
    ],
  );
  const ts = table.columns[1]!.vector.data;
  assert.ok(ts instanceof BigInt64Array);
  assert.deepEqual([...ts], [1000n]);
  const vs = table.columns[2]!.vector.data;
  assert.ok(vs instanceof Float64Array);
  assert.deepEqual([...vs], [1.5]);
  assert.deepEqual(column(table, 'job'), ['a']);
});

test('a WriteRequest cut at every offset is rejected as invalid', () => {
  for (let cut = 1; cut < ONE_SERIES.length; cut++) {
    rejects(snappyCompress(ONE_SERIES.subarray(0, cut)), /^invalid WriteRequest: /);
  }
  // The empty message is a valid WriteRequest without series.
  assert.deepEqual(decodeRemoteWrite(snappyCompress(Buffer.alloc(0))), { groups: [], samples: 0 });
});

// --- grouping ----------------------------------------------------------------------------------

test('series of one metric share a table; labels a series lacks are NULL; tags sorted by name', () => {
  const body = encodeWriteRequest([
    { labels: [{ name: '__name__', value: 'cpu' }, { name: 'host', value: 'a' }], samples: [{ value: 1, timestampMs: 10 }, { value: 2, timestampMs: 20 }] },
    { labels: [{ name: '__name__', value: 'mem' }, { name: 'host', value: 'a' }], samples: [{ value: 100, timestampMs: 10 }] },
    { labels: [{ name: 'zone', value: 'z1' }, { name: '__name__', value: 'cpu' }, { name: 'dc', value: 'x' }], samples: [{ value: 3, timestampMs: 30 }] },
    { labels: [{ name: '__name__', value: 'cpu' }, { name: 'host', value: 'b' }, { name: 'dc', value: 'y' }], samples: [{ value: 4, timestampMs: 40 }] },
  ]);
  const { groups, samples } = decodeRemoteWrite(body);
  assert.equal(samples, 5);
  assert.deepEqual(groups.map((g) => g.table.name), ['cpu', 'mem']);
  const cpu = groups[0]!.table;
  assert.equal(cpu.rowCount, 4);
  assert.deepEqual(cpu.columns.map((c) => c.name), ['dc', 'host', 'zone', 'tsdb_timestamp', 'tsdb_value']);
  assert.deepEqual(column(cpu, 'host'), ['a', 'a', null, 'b']);
  assert.deepEqual(column(cpu, 'dc'), [null, null, 'x', 'y']);
  assert.deepEqual(column(cpu, 'zone'), [null, null, 'z1', null]);
  assert.deepEqual(column(cpu, 'tsdb_timestamp'), [10n, 20n, 30n, 40n]);
  assert.deepEqual(column(cpu, 'tsdb_value'), [1, 2, 3, 4]);
  const mem = groups[1]!.table;
  assert.deepEqual(mem.columns.map((c) => c.name), ['host', 'tsdb_timestamp', 'tsdb_value']);
  assert.deepEqual(column(mem, 'tsdb_value'), [100]);
  for (const g of groups) for (const c of g.table.columns) assert.equal(c.vector.data.length, g.table.rowCount);
});

test('many series grow the column buffers without losing rows', () => {
  const input = Array.from({ length: 1000 }, (_, i) => ({
    labels: [{ name: '__name__', value: `m${i % 3}` }, { name: 'i', value: String(i) }],
    samples: Array.from({ length: (i % 4) + 1 }, (_, k) => ({ value: i + k / 10, timestampMs: i * 1000 + k })),
  }));
  const { groups, samples } = decodeRemoteWrite(encodeWriteRequest(input));
  assert.equal(samples, input.reduce((n, s) => n + s.samples.length, 0));
  for (const g of groups) {
    const m = Number(g.table.name.slice(1));
    const expected = input.filter((_, i) => i % 3 === m);
    assert.deepEqual(column(g.table, 'i'), expected.flatMap((s) => s.samples.map(() => s.labels[1]!.value)));
    assert.deepEqual(column(g.table, 'tsdb_timestamp'), expected.flatMap((s) => s.samples.map((p) => BigInt(p.timestampMs))));
    assert.deepEqual(column(g.table, 'tsdb_value'), expected.flatMap((s) => s.samples.map((p) => p.value)));
    const ts = g.table.columns.find((c) => c.name === 'tsdb_timestamp')!.vector.data as BigInt64Array;
    assert.equal(ts.buffer.byteLength, 8 * g.table.rowCount, 'no spare capacity handed on');
  }
});

test('a series without samples writes nothing; labels may follow samples on the wire', () => {
  const body = request(
    series(label('__name__', 'empty'), label('a', 'b')),
    series(sample(7, 70), label('__name__', 'late'), label('a', 'b'), sample(8, 80)),
  );
  const { groups, samples } = decodeRemoteWrite(body);
  assert.equal(samples, 2);
  const t = onlyGroup(groups);
  assert.equal(t.name, 'late');
  assert.deepEqual(column(t, 'a'), ['b', 'b']);
  assert.deepEqual(column(t, 'tsdb_timestamp'), [70n, 80n]);
});

// --- special labels ----------------------------------------------------------------------------

test('database and physical table labels route the series and are not stored', () => {
  const s = (db: Record<string, string>, v: number) => ({
    labels: [{ name: '__name__', value: 'up' }, { name: 'job', value: 'j' }, ...Object.entries(db).map(([name, value]) => ({ name, value }))],
    samples: [{ value: v, timestampMs: v }],
  });
  const { groups } = decodeRemoteWrite(
    encodeWriteRequest([
      s({}, 1),
      s({ __database__: 'd1' }, 2),
      s({ x_tsdb_database: 'd1' }, 3),
      s({ __schema__: 'd2' }, 4),
      s({ __database__: 'd1', __physical_table__: 'p1' }, 5),
      s({ x_tsdb_physical_table: 'p2' }, 6),
      // The strongest label wins: x_tsdb_database > __database__ > __schema__.
      s({ __schema__: 'd2', __database__: 'd3', x_tsdb_database: 'd4' }, 7),
      s({ __schema__: 'd2', __database__: 'd3' }, 8),
      s({ __physical_table__: 'p1', x_tsdb_physical_table: 'p3' }, 9),
      // An empty value picks nothing.
      s({ __database__: '' }, 10),
    ]),
  );
  const summary = groups.map((g) => [g.database ?? null, g.physicalTable ?? null, column(g.table, 'tsdb_value')]);
  assert.deepEqual(summary, [
    [null, null, [1, 10]],
    ['d1', null, [2, 3]],
    ['d2', null, [4]],
    ['d1', 'p1', [5]],
    [null, 'p2', [6]],
    ['d4', null, [7]],
    ['d3', null, [8]],
    [null, 'p3', [9]],
  ]);
  for (const g of groups) {
    assert.equal(g.table.name, 'up');
    assert.deepEqual(g.table.columns.map((c) => c.name), ['job', 'tsdb_timestamp', 'tsdb_value']);
  }
});

// --- values and timestamps ---------------------------------------------------------------------

test('stale markers and other NaNs are kept bit for bit; timestamps cover the range of a millisecond column', () => {
  const STALE = 0x7ff0000000000002n;
  const QUIET_NAN = 0x7ff8000000000001n;
  const NEG_ZERO = 0x8000000000000000n;
  const body = request(
    series(
      label('__name__', 'm'),
      sampleBits(STALE, 1),
      sampleBits(QUIET_NAN, -1),
      sampleBits(NEG_ZERO, 9223372036854775n),
      sample(Infinity, -9223372022400000n),
      sample(-1e300, 1700000000123),
      sample(0.1, 0x7fffffffn), // 31 bits
      sample(2, 0x80000000n), // 32 bits: the low word's top bit
      sample(3, 0x800000000n), // 35 bits: the fifth varint byte splits between words
    ),
  );
  const t = onlyGroup(decodeRemoteWrite(body).groups);
  assert.deepEqual(column(t, 'tsdb_timestamp'), [1n, -1n, 9223372036854775n, -9223372022400000n, 1700000000123n, 0x7fffffffn, 0x80000000n, 0x800000000n]);
  const values = t.columns.find((c) => c.name === 'tsdb_value')!.vector.data as Float64Array;
  const bits = new BigUint64Array(values.buffer, values.byteOffset, values.length);
  assert.equal(bits[0], STALE);
  assert.equal(bits[1], QUIET_NAN);
  assert.equal(bits[2], NEG_ZERO);
  assert.deepEqual([...values].slice(3), [Infinity, -1e300, 0.1, 2, 3]);
});

test('a timestamp outside the range of a millisecond column (290309 BC to 294247 AD) refuses the request, naming the value, the column and the range', () => {
  const range = 'column tsdb_timestamp (TimestampMillisecond): it must be between -290308-12-22T00:00:00Z and +294247-01-10T04:00:54.775Z';
  const cases: Array<[bigint, string]> = [
    [9223372036854776n, '+294247-01-10T04:00:54.776Z'],
    [-9223372022400001n, '-290308-12-21T23:59:59.999Z'],
    [9223372036854775807n, '+292278994-08-17T07:12:55.807Z'],
    [-9223372036854775808n, '-292275055-05-16T16:47:04.192Z'],
  ];
  for (const [ts, date] of cases) {
    const body = request(series(label('__name__', 'ok'), sample(1, 1)), series(label('__name__', 'up'), label('job', 'a'), sample(1, 1000), sample(2, ts)));
    assert.throws(() => decodeRemoteWrite(body), (err: unknown) => {
      assert.ok(err instanceof TsdbError);
      assert.equal(err.code, StatusCode.InvalidArguments);
      assert.equal(err.message, `invalid WriteRequest: a sample of metric up: Timestamp ${ts} (${date}) is out of range for ${range}`);
      return true;
    });
  }
});

test('a metric has at most MAX_COLUMNS_PER_TABLE - 2 labels besides __name__ (its table also has the timestamp and the value)', () => {
  const labels = (n: number, prefix = 'l') => Array.from({ length: n }, (_, i) => label(`${prefix}${String(i).padStart(5, '0')}`, 'v'));
  const most = MAX_COLUMNS_PER_TABLE - 2;
  const t = onlyGroup(decodeRemoteWrite(request(series(label('__name__', 'wide'), ...labels(most), sample(1, 1)))).groups);
  assert.equal(t.columns.length, MAX_COLUMNS_PER_TABLE);
  const message = `invalid WriteRequest: too many labels for metric wide: at most ${most} (a table has at most ${MAX_COLUMNS_PER_TABLE} columns, tsdb_timestamp and tsdb_value included)`;
  rejects(request(series(label('__name__', 'wide'), ...labels(most + 1), sample(1, 1))), new RegExp(`^${message.replace(/[()]/g, '\\$&')}$`));
  rejects(request(series(label('__name__', 'wide'), ...labels(10_000), sample(1, 1))), /too many labels for metric wide/);
  // Across the series of one metric.
  rejects(request(series(label('__name__', 'wide'), ...labels(most), sample(1, 1)), series(label('__name__', 'wide'), label('more', 'v'), sample(1, 2))), /too many labels for metric wide/);
  // Other metrics have their own tables.
  const groups = decodeRemoteWrite(request(series(label('__name__', 'a'), ...labels(most), sample(1, 1)), series(label('__name__', 'b'), ...labels(most), sample(1, 1)))).groups;
  assert.deepEqual(groups.map((g) => g.table.columns.length), [MAX_COLUMNS_PER_TABLE, MAX_COLUMNS_PER_TABLE]);
});

test('the cell budget: one series with 4,000 labels, then 200,000 samples of the metric without them, is refused before its rows are made', () => {
  const labels = [{ name: '__name__', value: 'wide' }, ...Array.from({ length: 4000 }, (_, i) => ({ name: `l${String(i).padStart(4, '0')}`, value: 'v' }))];
  const samples = Array.from({ length: 200_000 }, (_, i) => ({ timestampMs: i, value: i }));
  const body = encodeWriteRequest([
    { labels, samples: [{ timestampMs: 0, value: 1 }] },
    { labels: [{ name: '__name__', value: 'wide' }], samples },
  ]);
  const raw = snappyDecompress(body, 'WriteRequest').length;
  // 200,000 rows of 4,002 cells: 800 million (about 6.4 GB of tag column slots alone).
  const limit = ingestCellLimit(raw);
  assert.ok(limit < 200_000 * 4002);
  rejects(body, new RegExp(`^invalid WriteRequest: ${cellLimitProblem(limit, raw).replace(/[()×^$*+?.|[\]{}]/g, '\\$&')}$`));
});

test('the cell budget: INGEST_MIN_CELLS cells whatever the size; a late label counts its NULLs; all metrics together', () => {
  // 1,022 labels besides __name__, the timestamp and the value: 1,024 cells a sample.
  const labels = (n: number) => Array.from({ length: n }, (_, i) => label(`l${String(i).padStart(4, '0')}`, 'v'));
  const samples = (n: number, from = 0) => Array.from({ length: n }, (_, i) => sample(1, from + i));
  assert.equal(INGEST_MIN_CELLS, 1024 * 1024);
  const full = request(series(label('__name__', 'm'), ...labels(1022), ...samples(1000)), series(label('__name__', 'm'), ...samples(24, 1000)));
  assert.ok(INGEST_CELLS_PER_BYTE * snappyDecompress(full, 'WriteRequest').length < INGEST_MIN_CELLS);
  const t = onlyGroup(decodeRemoteWrite(full).groups);
  assert.equal(t.rowCount, 1024);
  assert.equal(t.columns.length, 1024);
  assert.deepEqual(column(t, 'l1021'), [...Array<string>(1000).fill('v'), ...Array<null>(24).fill(null)]);
  const over = /^invalid WriteRequest: the request decodes to more than 1048576 values/;
  rejects(request(series(label('__name__', 'm'), ...labels(1022), ...samples(1025))), over);
  // A label first seen after 1,100 samples: 1,000 labels × 1,100 NULLs.
  rejects(request(series(label('__name__', 'late'), ...samples(1100)), series(label('__name__', 'late'), ...labels(1000), sample(1, 1100))), over);
  const late = onlyGroup(decodeRemoteWrite(request(series(label('__name__', 'late'), ...samples(1000)), series(label('__name__', 'late'), ...labels(1000), sample(1, 1000)))).groups);
  assert.deepEqual(column(late, 'l0999'), [...Array<null>(1000).fill(null), 'v']);
  // Two metrics of 512 rows × 1,024 cells fill the budget together.
  const half = (metric: string) => series(label('__name__', metric), ...labels(1022), ...samples(512));
  assert.deepEqual(decodeRemoteWrite(request(half('a'), half('b'))).groups.map((g) => [g.table.name, g.table.rowCount]), [['a', 512], ['b', 512]]);
  rejects(request(half('a'), half('b'), series(label('__name__', 'c'), sample(1, 1))), over);
});

test('the cell budget: a request as Prometheus sends it (many metrics, 20 labels, a sample per series) uses a small part of it', () => {
  const ts = [];
  for (let i = 0; i < 20_000; i++) {
    const labels = [{ name: '__name__', value: `metric_${i % 300}` }, { name: 'instance', value: `host-${i % 500}:9100` }];
    for (let l = 0; l < 19; l++) labels.push({ name: `label_${String(l).padStart(2, '0')}`, value: `value_${l}_${i % 37}` });
    labels.sort((a, b) => (a.name < b.name ? -1 : 1));
    ts.push({ labels, samples: [{ timestampMs: 1_700_000_000_000 + i, value: i }] });
  }
  const body = encodeWriteRequest(ts);
  const raw = snappyDecompress(body, 'WriteRequest').length;
  const { groups, samples } = decodeRemoteWrite(body);
  assert.equal(samples, 20_000);
  const cells = groups.reduce((n, g) => n + g.table.rowCount * g.table.columns.length, 0);
  assert.equal(cells, 20_000 * 22);
  // Under a tenth of a cell per byte, against a budget of INGEST_CELLS_PER_BYTE.
  assert.ok(cells / raw < 0.1, `${cells} cells in ${raw} bytes`);
});

test('absent Sample fields are zero, repeated ones take the last', () => {
  const body = request(
    series(
      label('__name__', 'm'),
      ld(2, []),
      ld(2, [...key(2, 0), ...varint(5), ...key(2, 0), ...varint(6)]),
    ),
  );
  const t = onlyGroup(decodeRemoteWrite(body).groups);
  assert.deepEqual(column(t, 'tsdb_timestamp'), [0n, 6n]);
  assert.deepEqual(column(t, 'tsdb_value'), [0, 0]);
});

test('strings: UTF-8, long, and repeated ones; an empty value is no label, as in Prometheus', () => {
  const long = 'x'.repeat(300);
  const body = encodeWriteRequest([
    { labels: [{ name: '__name__', value: 'métrique' }, { name: 'ville', value: 'Zürich 東京 🚀' }, { name: 'long', value: long }, { name: 'e', value: '' }], samples: [{ value: 1, timestampMs: 1 }] },
    { labels: [{ name: '__name__', value: 'métrique' }, { name: 'ville', value: 'Zürich 東京 🚀' }, { name: 'long', value: long }, { name: 'e', value: '' }], samples: [{ value: 2, timestampMs: 2 }] },
  ]);
  for (let round = 0; round < 2; round++) {
    const t = onlyGroup(decodeRemoteWrite(body).groups);
    assert.equal(t.name, 'métrique');
    assert.deepEqual(column(t, 'ville'), ['Zürich 東京 🚀', 'Zürich 東京 🚀']);
    assert.deepEqual(column(t, 'long'), [long, long]);
    assert.ok(!t.columns.some((c) => c.name === 'e'), 'a label with an empty value is absent');
  }
});

test('metadata, exemplars, histograms, unknown fields and groups are skipped', () => {
  const exemplar = ld(3, [...label('trace_id', 'abc'), ...key(2, 1), 0, 0, 0, 0, 0, 0, 0xf0, 0x3f, ...key(3, 0), ...varint(5)]);
  const histogram = ld(4, [...key(1, 0), ...varint(10), ...key(3, 1), 1, 2, 3, 4, 5, 6, 7, 8]);
  const unknown = [...key(9, 5), 1, 2, 3, 4, ...key(10, 3), ...key(1, 0), 1, ...key(10, 4), ...key(11, 1), 1, 2, 3, 4, 5, 6, 7, 8];
  const metadata = ld(3, [...key(1, 0), 1, ...ld(2, bytes('up')), ...ld(4, bytes('help'))]);
  const body = request(
    metadata,
    series(label('__name__', 'up'), exemplar, sample(1, 1), histogram, unknown, label('a', 'b')),
    unknown,
    series(label('__name__', 'hist_only'), histogram),
  );
  const { groups, samples } = decodeRemoteWrite(body);
  assert.equal(samples, 1);
  const t = onlyGroup(groups);
  assert.deepEqual(t.columns.map((c) => c.name), ['a', 'tsdb_timestamp', 'tsdb_value']);
});

// --- errors ------------------------------------------------------------------------------------

test('a body that decompresses to more than maxRawBytes is refused from its snappy header, before it is decompressed', () => {
  const body = request(series(label('__name__', 'm'), label('big', 'x'.repeat(5000)), sample(1, 1)));
  const raw = snappyDecompress(body, 'WriteRequest').length;
  assert.ok(body.length < 1000 && raw > 5000, `${body.length} → ${raw}`);
  assert.equal(onlyGroup(decodeRemoteWrite(body, raw).groups).rowCount, 1);
  assert.throws(() => decodeRemoteWrite(body, raw - 1), (err: unknown) => {
    assert.ok(err instanceof TsdbError);
    assert.equal(err.code, StatusCode.InvalidArguments);
    assert.equal(err.message, `The decompressed request body is larger than http.body_limit (${raw - 1} bytes): the snappy-compressed WriteRequest holds ${raw}`);
    return true;
  });
});

test('a body that is not snappy is rejected', () => {
  rejects(Buffer.alloc(0), /^invalid snappy-compressed WriteRequest: empty body$/);
  rejects(Buffer.from('hello, world'), /^invalid snappy-compressed WriteRequest: /);
  rejects(Buffer.from([0x0a, 0x05, 0x61]), /^invalid snappy-compressed WriteRequest: /); // a copy before any output
  rejects(Buffer.from([0xff, 0xff, 0xff, 0xff, 0x0f, 0x00]), /header claims 4294967295 bytes/); // 4 GiB from 6 bytes
  rejects(Buffer.from([0xff, 0xff, 0xff, 0xff, 0xff, 0x01]), /bad length header/);
  const good = snappyCompress(ONE_SERIES);
  rejects(good.subarray(0, good.length - 1), /^invalid snappy-compressed WriteRequest: /);
});

test('malformed protobuf is rejected with the reason', () => {
  const ok = [...label('__name__', 'm'), ...sample(1, 1)];
  rejects(request([0x0a]), /truncated varint/);
  rejects(request([0x0a, 0x05, 0x0a]), /runs past the end/);
  rejects(request([0x00, 0x00]), /invalid field key 0/);
  rejects(request(key(2, 7)), /invalid wire type 7/);
  rejects(request(key(2, 4)), /invalid wire type 4/); // an end group without start
  rejects(request(key(1, 7)), /WriteRequest.timeseries has wire type 7/);
  rejects(request([...key(1, 0), 1]), /WriteRequest.timeseries has wire type 0/);
  rejects(request(series(...[ok], [...key(1, 0), 1])), /TimeSeries.labels has wire type 0/);
  rejects(request(series(label('__name__', 'm'), ld(2, [...key(2, 1), 1, 2, 3, 4, 5, 6, 7, 8]))), /Sample.timestamp has wire type 1/);
  rejects(request(series(label('__name__', 'm'), ld(2, [...key(1, 0), 1]))), /Sample.value has wire type 0/);
  rejects(request(series(label('__name__', 'm'), ld(2, [...key(1, 1), 1, 2, 3]))), /truncated Sample.value/);
  rejects(request(series(label('__name__', 'm'), ld(2, [...key(2, 0), 0x80, 0x80]))), /truncated Sample.timestamp/);
  rejects(request(series(label('__name__', 'm'), ld(2, [...key(2, 0), ...Array<number>(10).fill(0xff), 0x01]))), /longer than 10 bytes/);
  rejects(request(series(label('__name__', 'm'), ld(1, [...key(1, 2), 5, 0x61]))), /runs past the end/);
  rejects(request([...key(5, 3), ...key(6, 4)]), /mismatched end of group/);
  rejects(request(Array<number>(40).fill(0x2b)), /groups nested deeper/);
});

test('a series without __name__ is rejected, naming its labels', () => {
  rejects(request(series(label('job', 'a'), label('instance', 'b'), sample(1, 1))), /^invalid WriteRequest: series without __name__ label: \{job="a", instance="b"\}$/);
  rejects(request(series(label('__name__', ''), label('job', 'a'), sample(1, 1))), /series without __name__ label/);
  rejects(request(series(sample(1, 1))), /series without __name__ label: \{\}/);
  // Even without samples: the request is checked whole.
  rejects(request(series(label('__name__', 'm'), sample(1, 1)), series(label('job', 'a'))), /series without __name__/);
});

test('label names and values that are not UTF-8 are rejected', () => {
  rejects(request(series(label('__name__', 'm'), label([0x66, 0xff], 'v'), sample(1, 1))), /label name at byte \d+ is not valid UTF-8/);
  rejects(request(series(label('__name__', 'm'), label('k', [0xc3, 0x28]), sample(1, 1))), /label value at byte \d+ is not valid UTF-8/);
  rejects(request(series(label('__name__', [0xed, 0xa0, 0x80]), sample(1, 1))), /label value .* not valid UTF-8/); // a UTF-16 surrogate
  rejects(request(series(label('__name__', 'm'), label('k', [...bytes('x'.repeat(100)), 0xe2, 0x82]), sample(1, 1))), /label value .* not valid UTF-8/);
  // Strings decoded before (the label name at the same position, an interned value) are no shortcut
  // for bytes that are not UTF-8: `é` is one UTF-16 unit 0xe9, the lone byte 0xe9 is invalid.
  rejects(request(series(label('__name__', 'm'), label('é', 'é'), sample(1, 1)), series(label('__name__', 'm'), label([0xe9], 'v'), sample(1, 1))), /label name .* not valid UTF-8/);
  rejects(request(series(label('__name__', 'm'), label('k', 'é'), sample(1, 1)), series(label('__name__', 'm'), label('k', [0xe9]), sample(1, 1))), /label value .* not valid UTF-8/);
});

test('duplicate, empty and reserved label names are rejected', () => {
  rejects(request(series(label('__name__', 'm'), label('a', '1'), label('a', '2'), sample(1, 1))), /duplicate label name a in series \{__name__="m", a="1", a="2"\}/);
  rejects(request(series(label('__name__', 'm'), label('__name__', 'n'), sample(1, 1))), /duplicate label name __name__/);
  rejects(request(series(label('__name__', 'm'), label('__database__', 'a'), label('__database__', 'b'), sample(1, 1))), /duplicate label name __database__/);
  rejects(request(series(label('__name__', 'm'), label('', 'v'), sample(1, 1))), /empty label name/);
  rejects(request(series(label('__name__', 'm'), label('tsdb_value', 'v'), sample(1, 1))), /label tsdb_value of metric m clashes/);
  rejects(request(series(label('__name__', 'm'), label('tsdb_timestamp', 'v'), sample(1, 1))), /label tsdb_timestamp of metric m clashes/);
  // A failed request leaves no state behind for the next one.
  const t = onlyGroup(decodeRemoteWrite(request(series(label('__name__', 'm'), label('a', '1'), sample(1, 1)))).groups);
  assert.deepEqual(column(t, 'a'), ['1']);
});

test('the encoder rejects timestamps that are not integers', () => {
  for (const ts of [NaN, Infinity, 1.5, 2 ** 60]) {
    assert.throws(
      () => encodeWriteRequest([{ labels: [{ name: '__name__', value: 'm' }], samples: [{ value: 1, timestampMs: ts }] }]),
      (err: unknown) => err instanceof TsdbError && err.code === StatusCode.InvalidArguments && /invalid sample timestamp/.test(err.message),
    );
  }
});

// --- tag columns as dictionaries ---------------------------------------------------------------

test('tag columns come as dictionaries (distinct values, a code per row) whose rows are not made until read', () => {
  const body = encodeWriteRequest([
    { labels: [{ name: '__name__', value: 'up' }, { name: 'host', value: 'a' }, { name: 'job', value: 'j' }], samples: [{ value: 1, timestampMs: 1 }, { value: 2, timestampMs: 2 }] },
    // The same series again in one request: its rows are added again, with the same codes.
    { labels: [{ name: '__name__', value: 'up' }, { name: 'host', value: 'a' }, { name: 'job', value: 'j' }], samples: [{ value: 3, timestampMs: 1 }] },
    { labels: [{ name: '__name__', value: 'up' }, { name: 'host', value: 'b' }], samples: [{ value: 4, timestampMs: 4 }] },
  ]);
  const t = onlyGroup(decodeRemoteWrite(body).groups);
  const host = t.columns.find((c) => c.name === 'host')!.vector as Extract<Vector, { type: 'string' }>;
  const job = t.columns.find((c) => c.name === 'job')!.vector as Extract<Vector, { type: 'string' }>;
  const hostDict = knownDictionary(host)!;
  const jobDict = knownDictionary(job)!;
  assert.deepEqual(hostDict.values, ['a', 'b']);
  assert.deepEqual([...hostDict.codes], [0, 0, 0, 1]);
  assert.deepEqual(jobDict.values, ['j']);
  assert.deepEqual([...jobDict.codes], [0, 0, 0, NULL_CODE]);
  assert.equal(vectorLength(host), 4);
  assert.deepEqual(host.data, ['a', 'a', 'a', 'b']);
  assert.deepEqual(job.data, ['j', 'j', 'j', null]);
  assert.deepEqual(decodeRemoteWrite(snappyCompress(Buffer.alloc(0))).groups, [], 'an empty request');
});

test('a request of the same metric after a larger or smaller one decodes exactly (buffers sized from the last)', () => {
  for (const n of [5, 3, 7, 7, 1, 40]) {
    const input = Array.from({ length: n }, (_, i) => ({ labels: [{ name: '__name__', value: 'sized' }, { name: 'i', value: String(i % 4) }], samples: [{ value: i, timestampMs: i }] }));
    const t = onlyGroup(decodeRemoteWrite(encodeWriteRequest(input)).groups);
    assert.equal(t.rowCount, n);
    assert.deepEqual(column(t, 'i'), input.map((s) => s.labels[1]!.value));
    assert.deepEqual(column(t, 'tsdb_value'), input.map((s) => s.samples[0]!.value));
    const ts = t.columns.find((c) => c.name === 'tsdb_timestamp')!.vector.data as BigInt64Array;
    assert.equal(ts.buffer.byteLength, 8 * n);
  }
});

test('label values guessed from the series before are only taken when every byte matches (random label sets)', () => {
  let s = 7;
  const random = () => {
    s = (Math.imul(s, 1103515245) + 12345) >>> 0;
    return s / 2 ** 32;
  };
  // Same lengths but different text: 'Ã©' has the code units of the UTF-8 bytes of 'é'; one letter off; long ones.
  const choices = ['ab', 'é', 'Ã©', 'ac', 'ab', '', 'x'.repeat(70), 'x'.repeat(69) + 'y', 'Zürich', 'ok'];
  const names = ['a', 'b', 'c', 'd'];
  for (let round = 0; round < 3; round++) {
    const input = Array.from({ length: 400 }, () => {
      const labels = [{ name: '__name__', value: random() < 0.5 ? 'm1' : 'm2' }];
      for (const name of names) if (random() < 0.8) labels.push({ name, value: choices[Math.floor(random() * choices.length)]! });
      return { labels, samples: [{ value: random(), timestampMs: Math.floor(random() * 1000) }] };
    });
    const { groups } = decodeRemoteWrite(encodeWriteRequest(input));
    for (const g of groups) {
      const rows = input.filter((x) => x.labels[0]!.value === g.table.name);
      for (const c of g.table.columns) {
        if (c.semantic !== 'tag') continue;
        assert.deepEqual(column(g.table, c.name), rows.map((x) => x.labels.find((l) => l.name === c.name)?.value || null), `${g.table.name}.${c.name}`);
      }
    }
  }
});
