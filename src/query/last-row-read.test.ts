/**
 * Which queries read only the last row of each series (`last-row-read.ts`), through `runQuery`
 * with a table whose relation records whether it was asked for last rows: the lastpoint shapes
 * (DISTINCT ON, QUALIFY row_number, last_value … GROUP BY) with filters that keep whole series or
 * an exact time range, and not the shapes whose answer another row could change.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DuckDBInstance } from '@duckdb/node-api';
import type { TableSource, QueryContext } from './query-executor.js';
import { runQuery } from './query-executor.js';

const db = await DuckDBInstance.create(':memory:');
const conn = await db.connect();
await conn.run("SET TimeZone = 'UTC'");
await conn.run(
  "CREATE TABLE cpu AS SELECT 'h' || (i % 3) AS host, 'dc' || (i % 2) AS dc, CAST(epoch_ms(1000 * i) AS TIMESTAMP_MS) AS ts, i * 1.5 AS v, i % 4 AS w FROM range(12) r(i)",
);

/** Whether each scan of the last query was asked for last rows. */
const asked: boolean[] = [];

const ctx: QueryContext = {
  database: 'public',
  timezone: 'UTC',
  resolve: async (_c, _d, name): Promise<TableSource> => ({
    key: name,
    timeIndex: { name: 'ts', unit: 'ms' },
    primaryKey: ['host', 'dc'],
    timestampColumns: new Map([['ts', 'ms']]),
    columnNames: ['host', 'dc', 'ts', 'v', 'w'],
    relation: async (_range, _keys, _signal, _columns, hints) => {
      asked.push(hints?.lastRow === true);
      return { sql: 'SELECT * FROM cpu' };
    },
  }),
};

async function lastRows(sql: string): Promise<boolean> {
  asked.length = 0;
  await runQuery(conn, sql, ctx);
  assert.equal(asked.length, 1, sql);
  return asked[0]!;
}

test('the lastpoint shapes over primary key columns (all or some) read last rows, with filters that keep whole series or an exact time range', async () => {
  for (const sql of [
    'SELECT DISTINCT ON (host, dc) * FROM cpu ORDER BY host, dc, ts DESC',
    'SELECT DISTINCT ON (host) host, v FROM cpu ORDER BY host, ts DESC',
    'SELECT * FROM cpu QUALIFY row_number() OVER (PARTITION BY host ORDER BY ts DESC) = 1',
    'SELECT * FROM cpu QUALIFY 1 = row_number() OVER (PARTITION BY host, dc ORDER BY ts DESC, v)',
    'SELECT * FROM cpu QUALIFY row_number() OVER (ORDER BY ts DESC) = 1',
    'SELECT * FROM cpu QUALIFY row_number() OVER (PARTITION BY upper(host) ORDER BY cpu.ts DESC) = 1',
    'SELECT host, dc, last_value(v ORDER BY ts) AS v, last_value(ts ORDER BY ts) AS ts FROM cpu GROUP BY host, dc',
    'SELECT last_value(host ORDER BY ts), last_value(v ORDER BY ts) FROM cpu GROUP BY host',
    'SELECT host, first_value(v ORDER BY ts DESC) FROM cpu GROUP BY host',
    "SELECT DISTINCT ON (host) * FROM cpu WHERE host IN ('h1', 'h2') AND dc <> 'x' ORDER BY host, ts DESC",
    'SELECT DISTINCT ON (host) * FROM cpu WHERE ts > 1500 AND ts <= 7500 ORDER BY host, ts DESC',
    "SELECT DISTINCT ON (host) * FROM cpu WHERE ts >= '1970-01-01 00:00:02' AND ts < 9000 ORDER BY host, ts DESC",
    "SELECT DISTINCT ON (host) * FROM cpu WHERE ts BETWEEN '1970-01-01 00:00:02' AND '1970-01-01 00:00:07.5' ORDER BY host, ts DESC",
    'SELECT * FROM (SELECT DISTINCT ON (host) * FROM cpu ORDER BY host, ts DESC) ORDER BY v LIMIT 2',
  ]) {
    assert.equal(await lastRows(sql), true, sql);
  }
});

test('shapes another row could change read every row', async () => {
  for (const sql of [
    // The first row, not the last; a field filter; a WHERE the scan's range holds only loosely.
    'SELECT DISTINCT ON (host) * FROM cpu ORDER BY host, ts',
    'SELECT host, first_value(v ORDER BY ts) FROM cpu GROUP BY host',
    'SELECT DISTINCT ON (host) * FROM cpu WHERE v > 3 ORDER BY host, ts DESC',
    "SELECT DISTINCT ON (host) * FROM cpu WHERE ts >= '1970-01-01 00:00:02.0005' ORDER BY host, ts DESC",
    "SELECT DISTINCT ON (host) * FROM cpu WHERE ts < '1970-01-01 00:00:07' ORDER BY host, ts DESC",
    'SELECT DISTINCT ON (host) * FROM cpu WHERE ts <> 7000 ORDER BY host, ts DESC',
    "SELECT DISTINCT ON (host) * FROM cpu WHERE ts > 1000 OR host = 'h1' ORDER BY host, ts DESC",
    'SELECT DISTINCT ON (host) * FROM cpu WHERE random() < 2 ORDER BY host, ts DESC',
    // A partition by a field, an order not by the time index first.
    'SELECT * FROM cpu QUALIFY row_number() OVER (PARTITION BY host, w ORDER BY ts DESC) = 1',
    'SELECT * FROM cpu QUALIFY row_number() OVER (PARTITION BY host ORDER BY v DESC, ts DESC) = 1',
    'SELECT * FROM cpu QUALIFY row_number() OVER (PARTITION BY host ORDER BY ts DESC) = 2',
    'SELECT * FROM cpu QUALIFY rank() OVER (PARTITION BY host ORDER BY ts DESC) = 1',
    // Something else sees every row: another window, an aggregate, a subquery.
    'SELECT *, count(*) OVER () AS n FROM cpu QUALIFY row_number() OVER (PARTITION BY host ORDER BY ts DESC) = 1',
    'SELECT *, (SELECT 1) AS one FROM cpu QUALIFY row_number() OVER (PARTITION BY host ORDER BY ts DESC) = 1',
    'SELECT host, last_value(v ORDER BY ts), count(*) FROM cpu GROUP BY host',
    'SELECT host, last_value(v ORDER BY ts) FROM cpu GROUP BY host HAVING count(*) > 1',
    'SELECT host, last_value(v ORDER BY v) FROM cpu GROUP BY host',
  ]) {
    assert.equal(await lastRows(sql), false, sql);
  }
});

test('a table read twice reads every row both times', async () => {
  asked.length = 0;
  await runQuery(conn, 'SELECT * FROM (SELECT DISTINCT ON (host) * FROM cpu ORDER BY host, ts DESC) a JOIN cpu b USING (host, ts)', ctx);
  assert.deepEqual(asked, [false]);
});
