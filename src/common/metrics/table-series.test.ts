import assert from 'node:assert/strict';
import { test } from 'node:test';
import { metricsRegistry } from './registry.js';
import { registerSeriesSource, setTableNameResolver, summarizeSeries } from './table-series.js';

const region = (table: number, n: number): bigint => (BigInt(table) << 32n) | BigInt(n);

test('series are summed over the regions of each table; the largest tables first, ties by table id', () => {
  const s = summarizeSeries([
    [region(1024, 0), 10],
    [region(1025, 0), 7],
    [region(1024, 1), 5],
    [region(1026, 0), 15],
    [region(1027, 0), 0],
    [region(1028, 2), 15],
  ], 3);
  assert.deepEqual(s.top, [
    { tableId: 1024, series: 15 },
    { tableId: 1026, series: 15 },
    { tableId: 1028, series: 15 },
  ]);
  assert.equal(s.total, 10 + 7 + 5 + 15 + 15);
  // A table whose regions hold no series is not counted.
  assert.equal(s.tables, 4);
  assert.deepEqual(summarizeSeries([], 5), { top: [], total: 0, tables: 0 });
  assert.deepEqual(summarizeSeries([[region(7, 0), 3]], 0).top, []);
});

test("a metric engine's physical region counts as its logical tables, not as one table", () => {
  const s = summarizeSeries([
    [region(1024, 0), 10],
    // A physical table (2000) of two regions holding logical tables 2001..2003.
    [region(2000, 0), 9, new Map([[2001, 4], [2002, 5]])],
    [region(2000, 1), 6, new Map([[2001, 2], [2003, 4]])],
  ], 10);
  assert.deepEqual(s.top, [
    { tableId: 1024, series: 10 },
    { tableId: 2001, series: 6 },
    { tableId: 2002, series: 5 },
    { tableId: 2003, series: 4 },
  ]);
  assert.equal(s.total, 10 + 6 + 5 + 4);
  assert.equal(s.tables, 4);
});

test('tsdb_table_series: the top tables with their names, the total and the table count', async () => {
  const off = registerSeriesSource({ regionSeries: () => [[region(2000, 0), 4], [region(2000, 1), 2], [region(2001, 0), 9]] });
  const asked: number[][] = [];
  const unset = setTableNameResolver(async (ids) => {
    asked.push([...ids]);
    return new Map(ids.filter((id) => id === 2000).map((id) => [id, { db: 'public', table: 'cpu' }]));
  });
  try {
    const text = await metricsRegistry.getSingleMetricAsString('tsdb_table_series');
    assert.match(text, /^tsdb_table_series\{db="public",table="cpu",table_id="2000"\} 6$/m);
    // A table the catalog does not know keeps its id.
    assert.match(text, /^tsdb_table_series\{db="",table="",table_id="2001"\} 9$/m);
    assert.match(await metricsRegistry.getSingleMetricAsString('tsdb_series'), /^tsdb_series 15$/m);
    assert.match(await metricsRegistry.getSingleMetricAsString('tsdb_tables_with_series'), /^tsdb_tables_with_series 2$/m);
    // Names found are cached: the next scrape asks only about the unknown table.
    await new Promise((r) => setImmediate(r));
    await metricsRegistry.getSingleMetricAsString('tsdb_table_series');
    assert.deepEqual(asked, [[2001, 2000], [2001]]);
  } finally {
    off();
    unset();
  }
});
