/**
 * EXPLAIN / EXPLAIN ANALYZE in GreptimeDB's shapes over a sandboxed DuckDB (as the query path has
 * it): a logical and a physical plan, one operator a line; ANALYZE's metrics and total rows; no
 * DuckDB catalog name anywhere.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DuckDBInstance } from '@duckdb/node-api';
import { sandboxDuckDb } from '../common/duckdb-sandbox.js';
import { explainAnalyze, explainPlan, planText } from './explain-plan.js';

const db = await DuckDBInstance.create(':memory:');
const conn = await db.connect();
await conn.run('CREATE TABLE t AS SELECT range AS v, range % 3 AS h FROM range(10)');
await sandboxDuckDb(conn, []);

test('EXPLAIN: plan_type | plan, a logical_plan and a physical_plan row, indented operators, no memory.main', async () => {
  const out = await explainPlan(conn, 'SELECT h, sum(v) FROM t WHERE v > 2 GROUP BY h ORDER BY h');
  assert.equal(out.kind, 'records');
  if (out.kind !== 'records') return;
  assert.deepEqual(out.columns, [
    { name: 'plan_type', data_type: 'String' },
    { name: 'plan', data_type: 'String' },
  ]);
  assert.deepEqual(out.rows.map((r) => r[0]), ['logical_plan', 'physical_plan']);
  const [logical, physical] = out.rows.map((r) => String(r[1]));
  assert.match(logical!, /^ {2}ORDER_BY: Order By=t\.h$/m);
  assert.match(logical!, /^ +SEQ_SCAN: Filters=v>2, Table=t, /m);
  assert.match(physical!, /^ +SEQ_SCAN/m);
  assert.ok(physical!.endsWith('\n'));
  for (const text of [logical!, physical!]) {
    assert.doesNotMatch(text, /memory|main\./);
    assert.doesNotMatch(text, /[┌│└]/);
  }
});

test('EXPLAIN VERBOSE: the logical plan before optimization first, as initial_logical_plan', async () => {
  const out = await explainPlan(conn, 'SELECT v FROM t WHERE v > 2 + 3', true);
  assert.equal(out.kind, 'records');
  if (out.kind !== 'records') return;
  assert.deepEqual(out.rows.map((r) => r[0]), ['initial_logical_plan', 'logical_plan', 'physical_plan']);
  const [initial, logical] = out.rows.map((r) => String(r[1]));
  // Before: the filter as written, over the scan; after: folded and pushed into the scan.
  assert.match(initial!, /^ +FILTER: Expressions=\(v > CAST\(\(2 \+ 3\) AS BIGINT\)\)\n +SEQ_SCAN: Table=t/m);
  assert.doesNotMatch(logical!, /FILTER/);
  assert.match(logical!, /SEQ_SCAN: Filters=v>5/);
  assert.doesNotMatch(initial!, /memory|main\./);
});

test('EXPLAIN ANALYZE: stage | node | plan with each operator\'s rows, then Total rows', async () => {
  const out = await explainAnalyze(conn, 'SELECT h, sum(v) FROM t WHERE v > 2 GROUP BY h');
  assert.equal(out.kind, 'records');
  if (out.kind !== 'records') return;
  assert.deepEqual(out.columns.map((c) => [c.name, c.data_type]), [
    ['stage', 'UInt32'],
    ['node', 'UInt32'],
    ['plan', 'String'],
  ]);
  assert.equal(out.rows.length, 2);
  assert.deepEqual(out.rows[0]!.slice(0, 2), [0, 0]);
  const plan = String(out.rows[0]![2]);
  assert.doesNotMatch(plan, /EXPLAIN_ANALYZE|memory|main\./);
  assert.match(plan.split('\n')[0]!, /metrics=\[output_rows: 3, elapsed_compute: [\d.]+(ns|µs|ms|s)\]$/);
  assert.match(plan, /SEQ_SCAN.* metrics=\[output_rows: 7, /);
  assert.deepEqual(out.rows[1], [null, null, 'Total rows: 3']);
});

test('planText: details as key=value, lists in brackets, estimates and file paths left out', () => {
  assert.equal(
    planText([
      {
        name: 'PROJECTION',
        extra_info: { Expressions: ['a', 'b'], 'Estimated Cardinality': '3' },
        children: [{ name: 'READ_PARQUET', extra_info: { Function: 'READ_PARQUET', Filters: "c0='x'", 'Filename(s)': '/data/x.parquet' } }],
      },
    ]),
    "PROJECTION: Expressions=[a, b]\n  READ_PARQUET: Filters=c0='x'",
  );
  assert.equal(planText([{ name: 'SEQ_SCAN', extra_info: { Table: 'memory.main.t' } }]), 'SEQ_SCAN: Table=t');
});
