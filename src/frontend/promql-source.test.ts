import assert from 'node:assert/strict';
import { test, type TestContext } from 'node:test';
import { testEngineOptions } from '../../test/support/engine.js';
import { tempDir } from '../../test/support/temp.js';
import { CatalogManager } from '../catalog/catalog-manager.js';
import { LocalRegionServer } from '../datanode/local-region-server.js';
import { RegionEngine } from '../engine/region-engine.js';
import { LevelKvBackend } from '../meta/kv/level-kv-backend.js';
import type { LabelMatcher } from '../promql/ast.js';
import { PromqlError } from '../promql/errors.js';
import { labelsObject } from '../promql/labels.js';
import type { SeriesData } from '../promql/source.js';
import { isStaleNaN, STALE_NAN_BITS } from '../promql/values.js';
import type { RegionId } from '../types/region-id.js';
import type { ScanRequest } from '../types/scan-request.js';
import type { IngestTable } from './ingest-request.js';
import { FrontendInstance } from './instance.js';
import { SqlPromSource, type PromTableAccess } from './promql-source.js';
import { newSession, type Session } from './session.js';

/** Region access that records every scan request (time range and key values). */
class RecordingAccess extends LocalRegionServer {
  readonly scans: ScanRequest[] = [];
  override scanRelation(id: RegionId, range: ScanRequest = {}) {
    this.scans.push(range);
    return super.scanRelation(id, range);
  }
}

interface Opened {
  readonly fe: FrontendInstance;
  readonly regions: RecordingAccess;
  close(): Promise<void>;
}

async function open(dir: string): Promise<Opened> {
  const engine = await RegionEngine.open(testEngineOptions(dir, { compactAfterFlush: false }));
  const kv = await LevelKvBackend.open(`${dir}/metadata`);
  const regions = new RecordingAccess(engine);
  const fe = new FrontendInstance(await CatalogManager.open(kv), regions, engine.duckdb);
  await fe.openTables();
  return {
    fe,
    regions,
    close: async () => {
      fe.close();
      await engine.close();
      await kv.close();
    },
  };
}

async function opened(t: TestContext): Promise<Opened> {
  const o = await open(tempDir(t));
  t.after(() => o.close());
  return o;
}

export function accessOf(fe: FrontendInstance, session: Session = newSession(), arrow = true): PromTableAccess {
  const run = async (sql: string, s: Session) => {
    const [out] = await fe.executeSql(sql, s);
    return out?.kind === 'records' ? out : undefined;
  };
  return {
    tables: (names) => fe.tableSummaries(session, names),
    rows: async (sql) => (await run(sql, { ...session }))?.rows ?? [],
    ...(arrow && { arrow: async (sql: string) => (await run(sql, { ...session, arrow: true }))?.arrow }),
  };
}

/**
 * A remote-write shaped table (tsdb_timestamp, tsdb_value, string tags). A value given as a bigint
 * is the bits of the double: V8 canonicalizes NaNs stored in JavaScript arrays of doubles, so a
 * stale marker must not pass through one (remote write decodes into a Float64Array).
 */
function promTable(name: string, rows: Array<{ labels: Record<string, string>; t: number; v: number | bigint }>): IngestTable {
  const tagNames = [...new Set(rows.flatMap((r) => Object.keys(r.labels)))].sort();
  const values = new Float64Array(rows.length);
  const bits = new BigUint64Array(values.buffer);
  rows.forEach((r, i) => {
    if (typeof r.v === 'bigint') bits[i] = r.v;
    else values[i] = r.v;
  });
  return {
    name,
    rowCount: rows.length,
    columns: [
      { name: 'tsdb_timestamp', semantic: 'timestamp', type: 'TimestampMillisecond', vector: { type: 'int64', data: BigInt64Array.from(rows.map((r) => BigInt(r.t))) } },
      { name: 'tsdb_value', semantic: 'field', type: 'Float64', vector: { type: 'float64', data: values } },
      ...tagNames.map((n) => ({ name: n, semantic: 'tag' as const, type: 'String' as const, vector: { type: 'string' as const, data: rows.map((r) => r.labels[n] ?? null) } })),
    ],
  };
}

const m = (name: string, type: LabelMatcher['type'], value: string): LabelMatcher => ({ name, type, value });
const shown = (s: SeriesData[]) => s.map((x) => ({ labels: labelsObject(x.labels), t: [...x.t], v: [...x.v] }));
const ALL = { startMs: -1e15, endMs: 1e15, maxSamples: 1e6 };

async function withPromData(fe: FrontendInstance, physical = true): Promise<void> {
  await fe.ingest(
    [
      promTable('http_requests_total', [
        { labels: { job: 'api', instance: 'a:1', code: '200' }, t: 1000, v: 1 },
        { labels: { job: 'api', instance: 'a:1', code: '200' }, t: 2000, v: 2 },
        { labels: { job: 'api', instance: 'b:1', code: '500' }, t: 1000, v: 10 },
        { labels: { job: 'db', instance: 'c:1' }, t: 1500, v: 100 },
      ]),
      promTable('up', [
        { labels: { job: 'api', instance: 'a:1' }, t: 1000, v: 1 },
        { labels: { job: 'api', instance: 'a:1' }, t: 2000, v: 0 },
      ]),
    ],
    newSession(),
    { columnOrder: 'as_given', ...(physical && { physicalTable: 'tsdb_physical_table' }) },
  );
}

for (const arrow of [true, false]) {
  test(`select: matchers of the four kinds, absent labels, __name__ regexes, time range (${arrow ? 'Arrow' : 'rows'})`, async (t) => {
    const { fe } = await opened(t);
    await withPromData(fe);
    const src = new SqlPromSource(accessOf(fe, newSession(), arrow));
    const sel = async (ms: LabelMatcher[], range: Partial<typeof ALL> = {}) => shown(await src.select({ matchers: ms, ...ALL, ...range }));
    assert.deepEqual(await sel([m('__name__', '=', 'http_requests_total')]), [
      { labels: { __name__: 'http_requests_total', code: '200', instance: 'a:1', job: 'api' }, t: [1000, 2000], v: [1, 2] },
      { labels: { __name__: 'http_requests_total', code: '500', instance: 'b:1', job: 'api' }, t: [1000], v: [10] },
      { labels: { __name__: 'http_requests_total', instance: 'c:1', job: 'db' }, t: [1500], v: [100] },
    ]);
    // The physical table is not a metric; a regex over names reads every logical table.
    assert.deepEqual((await sel([m('__name__', '=~', '.+'), m('instance', '=', 'a:1')])).map((s) => s.labels['__name__']), ['http_requests_total', 'up']);
    assert.deepEqual((await sel([m('__name__', '=~', 'tsdb_.*')])), []);
    assert.deepEqual((await sel([m('__name__', '!~', 'http.*'), m('job', '!=', '')])).map((s) => s.labels['__name__']), ['up']);
    // code is absent ("") on c:1: `code=""` and `code!~"2.."` match it.
    assert.deepEqual((await sel([m('__name__', '=', 'http_requests_total'), m('code', '=', '')])).map((s) => s.labels['instance']), ['c:1']);
    assert.deepEqual((await sel([m('__name__', '=', 'http_requests_total'), m('code', '!~', '2..')])).map((s) => s.labels['instance']), ['b:1', 'c:1']);
    assert.deepEqual((await sel([m('__name__', '=', 'http_requests_total'), m('code', '=~', '|5.*')])).map((s) => s.labels['instance']), ['b:1', 'c:1']);
    assert.deepEqual((await sel([m('__name__', '=', 'http_requests_total'), m('code', '!=', '200')])).map((s) => s.labels['instance']), ['b:1', 'c:1']);
    // `up` has no `code`: `code="200"` selects nothing there, `code=""` everything.
    assert.deepEqual(await sel([m('__name__', '=', 'up'), m('code', '=', '200')]), []);
    assert.deepEqual((await sel([m('__name__', '=', 'up'), m('code', '=~', '(?i)|X')])).length, 1);
    assert.deepEqual(await sel([m('__name__', '=', 'nope')]), []);
    // Both bounds are included.
    assert.deepEqual((await sel([m('__name__', '=', 'http_requests_total')], { startMs: 1500, endMs: 2000 })).map((s) => s.t), [[2000], [1500]]);
    // Too many samples: refused.
    await assert.rejects(
      src.select({ matchers: [m('__name__', '=~', '.*_total|up')], ...ALL, maxSamples: 5 }),
      (err: unknown) => err instanceof PromqlError && err.errorType === 'execution' && err.message === 'query processing would load too many samples into memory in query execution',
    );
    assert.equal((await src.select({ matchers: [m('__name__', '=~', '.*_total|up')], ...ALL, maxSamples: 6 })).length, 4);
    await assert.rejects(src.select({ matchers: [m('__name__', '=~', '(')], ...ALL }), (err: unknown) => err instanceof PromqlError && err.errorType === 'bad_data');
  });
}

for (const physical of [false, true]) {
  test(`select: tag matchers reach the region scan as key conditions; the time range as the scan range (${physical ? 'logical metric table' : 'plain table'})`, async (t) => {
    const { fe, regions } = await opened(t);
    await withPromData(fe, physical);
    const src = new SqlPromSource(accessOf(fe));
    regions.scans.length = 0;
    const got = await src.select({ matchers: [m('__name__', '=', 'http_requests_total'), m('job', '=', 'api'), m('code', '=~', '5..')], startMs: 1000, endMs: 1999, maxSamples: 100 });
    assert.deepEqual(got.map((s) => labelsObject(s.labels)['instance']), ['b:1']);
    const scan = regions.scans.at(-1)!;
    assert.equal(scan.start, 1000n);
    assert.equal(scan.end, 1999n);
    const keyValues = [...(scan.keys ?? new Map()).values()].flat();
    assert.ok(keyValues.includes('api'), `job = 'api' narrows the scan: ${String(keyValues)}`);
    // A logical table's scan is narrowed to its own rows of the physical table.
    if (physical) assert.ok(keyValues.some((v) => typeof v === 'bigint'), 'the __table_id key');
    assert.ok(scan.conditions !== undefined && scan.conditions.size >= 1, 'the regex reaches the scan');
  });
}

test('plain tables: the first numeric field is the value (tsdb_value when present), __field__ picks another; non-numeric fields are no samples', async (t) => {
  const { fe } = await opened(t);
  const s = newSession();
  await fe.executeSql("CREATE TABLE cpu (host STRING, region STRING, ts TIMESTAMP(3) TIME INDEX, note STRING, usr DOUBLE, sys BIGINT, PRIMARY KEY (host, region))", s);
  await fe.executeSql("INSERT INTO cpu VALUES ('h1', 'eu', 1000, 'x', 0.5, 7), ('h1', 'eu', 2000, 'y', NULL, 8), ('h2', NULL, 1000, 'z', 1.5, 9)", s);
  await fe.executeSql("CREATE TABLE notes (host STRING PRIMARY KEY, ts TIMESTAMP TIME INDEX, note STRING)", s);
  await fe.executeSql("CREATE TABLE secs (host STRING PRIMARY KEY, ts TIMESTAMP(0) TIME INDEX, a INT, tsdb_value FLOAT)", s);
  await fe.executeSql("INSERT INTO secs VALUES ('h', 1, 5, 2.5), ('h', 3, 6, 3.5)", s);
  const src = new SqlPromSource(accessOf(fe));
  assert.deepEqual(shown(await src.select({ matchers: [m('__name__', '=', 'cpu')], ...ALL })), [
    { labels: { __name__: 'cpu', host: 'h1', region: 'eu' }, t: [1000], v: [0.5] },
    { labels: { __name__: 'cpu', host: 'h2' }, t: [1000], v: [1.5] },
  ]);
  assert.deepEqual(shown(await src.select({ matchers: [m('__name__', '=', 'cpu'), m('__field__', '=', 'sys')], ...ALL })), [
    { labels: { __name__: 'cpu', host: 'h1', region: 'eu' }, t: [1000, 2000], v: [7, 8] },
    { labels: { __name__: 'cpu', host: 'h2' }, t: [1000], v: [9] },
  ]);
  assert.deepEqual(await src.select({ matchers: [m('__name__', '=', 'cpu'), m('__field__', '=', 'note')], ...ALL }), []);
  assert.deepEqual(await src.select({ matchers: [m('__name__', '=', 'notes')], ...ALL }), []);
  // Seconds: the range converts to the column's unit.
  assert.deepEqual(shown(await src.select({ matchers: [m('__name__', '=', 'secs')], startMs: 1001, endMs: 3000, maxSamples: 10 })), [{ labels: { __name__: 'secs', host: 'h' }, t: [3000], v: [3.5] }]);
  assert.deepEqual(shown(await src.select({ matchers: [m('__name__', '=', 'secs'), m('__field__', '!=', 'tsdb_value')], ...ALL })), [{ labels: { __name__: 'secs', host: 'h' }, t: [1000, 3000], v: [5, 6] }]);
  // Metadata.
  const meta = { matcherSets: [], ...ALL, limit: 0 };
  assert.deepEqual(await src.labelNames(meta), ['__name__', 'host', 'region']);
  assert.deepEqual(await src.labelValues('__name__', meta), ['cpu', 'secs']);
  assert.deepEqual(await src.labelValues('host', { ...meta, matcherSets: [[m('__name__', '=', 'cpu')]] }), ['h1', 'h2']);
  assert.deepEqual(await src.labelValues('region', meta), ['eu']);
  assert.deepEqual(await src.labelValues('__field__', meta), ['a', 'sys', 'tsdb_value', 'usr']);
  assert.deepEqual(await src.labelValues('__field__', { ...meta, matcherSets: [[m('__name__', '=', 'cpu')]] }), ['sys', 'usr']);
  assert.deepEqual((await src.series({ ...meta, matcherSets: [[m('__name__', '=~', 'cpu|secs')]] })).map(labelsObject), [
    { __name__: 'cpu', host: 'h1', region: 'eu' },
    { __name__: 'cpu', host: 'h2' },
    { __name__: 'secs', host: 'h' },
  ]);
  assert.deepEqual((await src.series({ ...meta, matcherSets: [[m('__name__', '=~', 'cpu|secs')]], limit: 2 })).length, 2);
  // Series existing in the range only.
  assert.deepEqual((await src.series({ ...meta, matcherSets: [[m('__name__', '=~', '.+')]], startMs: 2500, endMs: 4000 })).map(labelsObject), [{ __name__: 'secs', host: 'h' }]);
  assert.deepEqual(await src.labelNames({ ...meta, startMs: 2500, endMs: 4000 }), ['__name__', 'host']);
});

test('stale markers written by remote write come back bit for bit: memtable, SST after a flush, WAL after a restart', async (t) => {
  const dir = tempDir(t);
  let o = await open(dir);
  try {
    const stale = STALE_NAN_BITS;
    const otherNaN = 0x7ff8000000000001n;
    await o.fe.ingest([promTable('m', [{ labels: { a: 'x' }, t: 1000, v: 1 }, { labels: { a: 'x' }, t: 2000, v: stale }, { labels: { a: 'x' }, t: 3000, v: otherNaN }])], newSession(), { columnOrder: 'as_given', physicalTable: 'tsdb_physical_table' });
    await o.fe.ingest([promTable('p', [{ labels: { a: 'y' }, t: 2000, v: stale }])], newSession(), { columnOrder: 'as_given' });
    const check = async (what: string) => {
      for (const arrow of [true, false]) {
        const src = new SqlPromSource(accessOf(o.fe, newSession(), arrow));
        const [s] = await src.select({ matchers: [m('__name__', '=', 'm')], ...ALL });
        assert.ok(s !== undefined, what);
        // Read as bits from the typed array: a JavaScript array of doubles would canonicalize the NaN.
        const bits = new BigUint64Array(s.v.buffer, s.v.byteOffset, s.v.length);
        assert.equal(bits[1], STALE_NAN_BITS, `${what} (${arrow ? 'Arrow' : 'rows'}): the stale marker, got 0x${bits[1]!.toString(16)}`);
        assert.ok(isStaleNaN(s.v[1]!), what);
        assert.equal(bits[2], 0x7ff8000000000001n, `${what}: another NaN keeps its bits`);
        assert.ok(!isStaleNaN(s.v[2]!) && Number.isNaN(s.v[2]!), `${what}: another NaN is no stale marker`);
        const [p] = await src.select({ matchers: [m('__name__', '=', 'p')], ...ALL });
        assert.ok(isStaleNaN(p!.v[0]!), `${what}: plain table`);
      }
    };
    await check('memtable');
    await o.close();
    o = await open(dir);
    await check('WAL replay');
    await o.fe.executeSql("ADMIN FLUSH_TABLE('tsdb_physical_table'); ADMIN FLUSH_TABLE('p')", newSession());
    await check('SST');
    await o.close();
    o = await open(dir);
    await check('SST after a restart');
  } finally {
    await o.close();
  }
});

/** An access that counts the SQL statements that read tables. */
function counting(access: PromTableAccess): PromTableAccess & { statements: string[] } {
  const statements: string[] = [];
  return {
    statements,
    tables: (names) => access.tables(names),
    rows: (sql, signal) => {
      statements.push(sql);
      return access.rows(sql, signal);
    },
    ...(access.arrow !== undefined && {
      arrow: (sql: string, signal?: AbortSignal) => {
        statements.push(sql);
        return access.arrow!(sql, signal);
      },
    }),
  };
}

for (const arrow of [true, false]) {
  test(`selectAll: a query's selectors in one statement (logical tables of one physical table in one scan) answer as one by one (${arrow ? 'Arrow' : 'rows'})`, async (t) => {
    const { fe } = await opened(t);
    const HOUR = 3_600_000;
    const series = (name: string) =>
      promTable(name, [0, 1, 2, 3].flatMap((h): Array<{ labels: Record<string, string>; t: number; v: number }> => [
        { labels: { job: 'api', instance: `h${h}`, zone: h % 2 === 0 ? 'a' : '' }, t: h * HOUR, v: h + name.length },
        { labels: { job: 'api', instance: `h${h}`, zone: h % 2 === 0 ? 'a' : '' }, t: h * HOUR + 1000, v: -h },
        { labels: { job: 'db', instance: `h${h}` }, t: h * HOUR + 500, v: h * 10 },
      ]));
    await fe.ingest([series('m_one'), series('m_two'), series('m_three'), promTable('other', [{ labels: { x: '1' }, t: 5, v: 7 }])], newSession(), {
      columnOrder: 'as_given',
      physicalTable: 'tsdb_physical_table',
    });
    const requests = [
      { matchers: [m('__name__', '=', 'm_one'), m('job', '=', 'api')], startMs: 0, endMs: 4 * HOUR },
      { matchers: [m('__name__', '=', 'm_two'), m('job', '=', 'api')], startMs: 0, endMs: 4 * HOUR },
      { matchers: [m('__name__', '=~', 'm_.*|other'), m('zone', '!=', 'a')], startMs: 0, endMs: 4 * HOUR },
      { matchers: [m('__name__', '=~', 'm_t.*'), m('instance', '=~', 'h[12]')], startMs: 0, endMs: 90 * 60_000 },
      { matchers: [m('__name__', '=', 'm_one'), m('instance', '=', 'h1')], startMs: HOUR, endMs: HOUR + 1000 },
      { matchers: [m('__name__', '=', 'none')], startMs: 0, endMs: 4 * HOUR },
    ].map((r) => ({ ...r, maxSamples: 1e6 }));
    const one = new SqlPromSource(accessOf(fe, newSession(), arrow));
    const expected = [];
    for (const r of requests) expected.push(shown(await one.select(r)));
    assert.ok(expected[2]!.length > 4 && expected[0]!.length === 4, 'the data has series to compare');
    // Long ranges (two statements: samples, then labels) and short ones (one).
    for (const [reqs, statements] of [[requests, arrow ? 2 : 1], [requests.slice(3), 1]] as const) {
      const access = counting(accessOf(fe, newSession(), arrow));
      const got = await new SqlPromSource(access).selectAll(reqs);
      assert.deepEqual(got.map(shown), expected.slice(requests.length - reqs.length));
      assert.equal(access.statements.length, statements, access.statements.join('\n'));
      assert.match(access.statements[0]!, /FROM "tsdb_physical_table" WHERE "__table_id" IN \(\d+, \d+\)/);
    }
  });
}

test('selectAll: a request past its maxSamples fails, also when its tables are one scan', async (t) => {
  const { fe } = await opened(t);
  const rows = (n: number) => Array.from({ length: n }, (_, i) => ({ labels: { job: 'api' }, t: i, v: i }));
  await fe.ingest([promTable('s_a', rows(5)), promTable('s_b', rows(5))], newSession(), { columnOrder: 'as_given', physicalTable: 'tsdb_physical_table' });
  const src = new SqlPromSource(accessOf(fe));
  const req = (maxSamples: number) => ({ matchers: [m('__name__', '=~', 's_.*')], startMs: 0, endMs: 100, maxSamples });
  assert.equal((await src.selectAll([req(10)]))[0]!.length, 2);
  await assert.rejects(src.selectAll([req(9)]), (e: unknown) => e instanceof PromqlError && /too many samples/.test(e.message));
  await assert.rejects(src.selectAll([req(10), req(4)]), (e: unknown) => e instanceof PromqlError && /too many samples/.test(e.message));
});

test('selectAll: a selector over more tables than one statement reads is split into statements, answers unchanged', async (t) => {
  const { fe } = await opened(t);
  // Plain tables: one scan each, 70 > 64 per statement.
  await fe.ingest(Array.from({ length: 70 }, (_, i) => promTable(`c_${i}`, [{ labels: { job: `j${i % 3}` }, t: i, v: i }])), newSession(), { columnOrder: 'as_given' });
  const access = counting(accessOf(fe));
  const [got] = await new SqlPromSource(access).selectAll([{ matchers: [m('__name__', '=~', 'c_.*')], startMs: 0, endMs: 100, maxSamples: 1000 }]);
  assert.equal(access.statements.length, 2);
  assert.equal(got!.length, 70);
  assert.deepEqual(got!.map((s) => [labelsObject(s.labels)['__name__'], s.t[0], s.v[0]]).sort((a, b) => Number(a[1]) - Number(b[1])), Array.from({ length: 70 }, (_, i) => [`c_${i}`, i, i]));
});
