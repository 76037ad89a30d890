/**
 * A database's TTL applies to its tables as it is now, not as it was when they were created
 * (GreptimeDB's dynamic database options): ALTER DATABASE … SET ttl expires the rows of a table
 * without a TTL of its own — in its files and its memtables, in a standalone server and on a
 * cluster's datanodes (a table partitioned over two of them) — and leaves a table with its own TTL
 * alone; UNSET keeps rows forever again. SHOW CREATE TABLE follows.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startCluster } from '../support/cluster.js';
import { sqlRows } from '../support/sql-rows.js';
import { tempDir } from '../support/temp.js';
import { startTsdb } from '../support/tsdb-process.js';

async function count(url: string, table: string): Promise<number> {
  return Number((await sqlRows(url, `SELECT count(*) FROM ${table}`, { db: 'dbttl' }))[0]![0]);
}

async function ttlFollowsDatabase(url: string): Promise<void> {
  const q = (sql: string) => sqlRows(url, sql, { db: 'dbttl' });
  await sqlRows(url, "CREATE DATABASE dbttl WITH (ttl = '1h')");
  await q("CREATE TABLE t (host STRING, ts TIMESTAMP TIME INDEX, v INT, PRIMARY KEY (host)) PARTITION ON COLUMNS (host) (host < 'm', host >= 'm')");
  await q("CREATE TABLE own (ts TIMESTAMP TIME INDEX, v INT) WITH (ttl = '1h')");
  const old = Date.now() - 5000;
  await q(`INSERT INTO t VALUES ('a', ${old}, 1), ('z', ${old}, 2)`);
  await q(`INSERT INTO own VALUES (${old}, 1)`);
  await q("ADMIN flush_table('t')");
  await q(`INSERT INTO t VALUES ('b', ${old + 1}, 3)`); // in a memtable
  assert.equal(await count(url, 't'), 3, 'the database TTL of 1h keeps rows 5s old');
  assert.doesNotMatch(String((await q('SHOW CREATE TABLE t'))[0]![1]), /ttl = '1s'/);

  await q("ALTER DATABASE dbttl SET ttl = '1s'");
  assert.match(String((await q('SHOW CREATE TABLE t'))[0]![1]), /ttl = '1s'/);
  assert.equal(await count(url, 't'), 0, "rows 5s old are past the database's new TTL of 1s");
  assert.equal(await count(url, 'own'), 1, "a table with a TTL of its own keeps it");
  await q("ADMIN compact_table('t')");
  assert.equal(await count(url, 't'), 0);

  await q("ALTER DATABASE dbttl UNSET 'ttl'");
  assert.doesNotMatch(String((await q('SHOW CREATE TABLE t'))[0]![1]), /ttl/);
  await q(`INSERT INTO t VALUES ('c', ${Date.now() - 5000}, 4)`);
  assert.equal(await count(url, 't'), 1, 'without a database TTL rows are kept forever');
}

test('ALTER DATABASE SET ttl reaches the regions of its tables in a standalone server', async (t) => {
  const { baseUrl } = await startTsdb(t, ['standalone', 'start', '--http-addr', '127.0.0.1:0', '--data-home', tempDir(t)]);
  await ttlFollowsDatabase(baseUrl);
});

test("ALTER DATABASE SET ttl reaches the regions of its tables on a cluster's datanodes", async (t) => {
  const cluster = await startCluster(t, { datanodes: 2 });
  await ttlFollowsDatabase(cluster.url);
});
