/**
 * The conversions bench/tsbs's correctness checks rest on: the TSV rows ClickHouse and PostgreSQL
 * load (the same values as line protocol's, full double precision), and ClickHouse's and
 * PostgreSQL's answers turned into the records `compareRows` compares with tsdb's and InfluxDB's
 * (times in epoch ms under `time`, 64-bit counts and numerics as numbers).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { chRows } from './clickhouse.js';
import { compareRows, tsdbRows } from './clients.js';
import { clickhouseTime, FIELDS, generate, lineProtocol, postgresTime, TAGS, TSV_COLUMNS, tsvBatch } from './data.js';
import { pgRows } from './postgresql.js';

test('TSV rows carry the tags, the time as each server parses it and the exact doubles', () => {
  const ds = generate(3, 1, 7);
  const text = tsvBatch(ds, 2, 5, postgresTime);
  const lines = text.split('\n');
  assert.equal(lines.pop(), '', 'ends with a newline');
  assert.equal(lines.length, 3);
  // Row 3 is host 0 at the second step (time-major, 3 hosts).
  const cells = (lines[1] ?? '').split('\t');
  assert.equal(cells.length, TSV_COLUMNS.length);
  assert.deepEqual(cells.slice(0, TAGS.length), ds.tagValues[0]);
  assert.equal(cells[TAGS.length], '2016-01-01 00:00:10+00');
  for (let f = 0; f < FIELDS.length; f++) assert.equal(Number(cells[TAGS.length + 1 + f]), ds.values[3 * FIELDS.length + f]);
  // The same numbers as the line protocol the other systems load.
  const lp = lineProtocol(ds, 3);
  for (let f = 0; f < FIELDS.length; f++) assert.ok(lp.includes(`${FIELDS[f]}=${cells[TAGS.length + 1 + f]}`));
  assert.equal(clickhouseTime(Date.UTC(2016, 0, 1, 13, 5, 10)), '2016-01-01 13:05:10');
});

test("ClickHouse's JSONCompact answer becomes records: DateTime → time (ms, UTC), quoted UInt64 → number", () => {
  const body = JSON.stringify({
    meta: [{ name: 'minute', type: "DateTime('Etc/UTC')" }, { name: 'hostname', type: 'String' }, { name: 'n', type: 'UInt64' }, { name: 'max_usage_user', type: 'Float64' }],
    data: [['2016-01-01 00:01:00', 'host_1', '42', 12.345678901234567]],
    rows: 1,
  });
  assert.deepEqual(chRows(body), [{ time: Date.UTC(2016, 0, 1, 0, 1), hostname: 'host_1', n: 42, max_usage_user: 12.345678901234567 }]);
});

test("PostgreSQL's text answer becomes records: timestamptz → time (ms), numbers parsed, NULL kept", () => {
  const rows = pgRows({
    fields: [{ name: 'hour', dataTypeID: 1184 }, { name: 'hostname', dataTypeID: 25 }, { name: 'mean_usage_user', dataTypeID: 701 }, { name: 'n', dataTypeID: 20 }],
    rows: [
      ['2016-01-01 01:00:00+00', 'host_2', '50.5', '7'],
      ['2016-01-01 03:30:00+02:30', 'host_3', null, '0'],
    ],
  });
  assert.deepEqual(rows, [
    { time: Date.UTC(2016, 0, 1, 1), hostname: 'host_2', mean_usage_user: 50.5, n: 7 },
    { time: Date.UTC(2016, 0, 1, 1), hostname: 'host_3', mean_usage_user: null, n: 0 },
  ]);
});

test('the records of ClickHouse, PostgreSQL and tsdb for one answer compare equal, and a changed value does not', () => {
  const ch = chRows(JSON.stringify({ meta: [{ name: 'ts', type: 'DateTime' }, { name: 'hostname', type: 'String' }, { name: 'usage_user', type: 'Float64' }], data: [['2016-01-01 00:00:10', 'host_0', 91.25]], rows: 1 }));
  const pg = pgRows({ fields: [{ name: 'ts', dataTypeID: 1184 }, { name: 'hostname', dataTypeID: 25 }, { name: 'usage_user', dataTypeID: 701 }], rows: [['2016-01-01 00:00:10+00', 'host_0', '91.25']] });
  const tsdb = tsdbRows(JSON.stringify({
    code: 0,
    output: [{ records: { schema: { column_schemas: [{ name: 'ts', data_type: 'TimestampMillisecond' }, { name: 'hostname', data_type: 'String' }, { name: 'usage_user', data_type: 'Float64' }] }, rows: [[Date.UTC(2016, 0, 1, 0, 0, 10), 'host_0', 91.25]] } }],
  }));
  assert.ok(compareRows(tsdb, ch).ok);
  assert.ok(compareRows(tsdb, pg).ok);
  const off = compareRows(tsdb, [{ ...pg[0], usage_user: 91.26 }]);
  assert.equal(off.ok, false);
  assert.match(off.mismatches.join('\n'), /usage_user/);
});
