/**
 * The queries Grafana's MySQL data source writes (its macros `$__timeFilter`, `$__timeGroupAlias`,
 * `$__timeFrom`/`$__timeTo`, `$__unixEpochFilter` expand to `FROM_UNIXTIME`, `UNIX_TIMESTAMP`
 * and integer `DIV`), and the session functions a MySQL client reads (`user()`, `current_user`,
 * `version()`, `@@version`), over the MySQL wire with the `mysql2` driver as a logged-in user.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import mysql from 'mysql2/promise';
import { tempDir } from '../support/temp.js';
import { startTsdb } from '../support/tsdb-process.js';

test("Grafana's MySQL macros and the session functions over the MySQL wire", async (t) => {
  const s = await startTsdb(t, ['standalone', 'start', '--http-addr', '127.0.0.1:0', '--mysql-addr', '127.0.0.1:0', '--data-home', tempDir(t), '--user-provider', 'static_user_provider:cmd:grafana=s3cret']);
  const addr = s.mysql!;
  const conn = await mysql.createConnection({
    host: addr.slice(0, addr.lastIndexOf(':')),
    port: Number(addr.slice(addr.lastIndexOf(':') + 1)),
    user: 'grafana',
    password: 's3cret',
    database: 'public',
    supportBigNumbers: true,
    bigNumberStrings: true,
    dateStrings: true,
    timezone: 'Z',
  });
  t.after(() => conn.end());
  await conn.query('CREATE TABLE cpu (host STRING PRIMARY KEY, ts TIMESTAMP TIME INDEX, usage DOUBLE)');
  // 2017-05-10 10:00:00, :00:30, :01:10, :02:00 UTC.
  await conn.query("INSERT INTO cpu VALUES ('a', 1494410400000, 1), ('a', 1494410430000, 2), ('a', 1494410470000, 3), ('b', 1494410520000, 4)");

  // $__timeGroupAlias(ts, '1m'), $__timeFilter(ts): the Time series query Grafana's editor builds.
  const [series, fields] = await conn.query<mysql.RowDataPacket[]>(
    'SELECT UNIX_TIMESTAMP(ts) DIV 60 * 60 AS time, avg(usage) AS usage FROM cpu WHERE ts BETWEEN FROM_UNIXTIME(1494410400) AND FROM_UNIXTIME(1494410500) GROUP BY 1 ORDER BY 1',
  );
  assert.deepEqual(series, [
    { time: '1494410400', usage: 1.5 },
    { time: '1494410460', usage: 3 },
  ]);
  assert.deepEqual(fields.map((f) => f.columnType), [8, 5]); // BIGINT, DOUBLE
  // $__timeFrom() / $__timeTo() as values, $__unixEpochFilter on seconds.
  const [bounds] = await conn.query<mysql.RowDataPacket[]>('SELECT FROM_UNIXTIME(1494410400) AS t0, UNIX_TIMESTAMP(FROM_UNIXTIME(1494410400)) AS s, 7 DIV 2 AS q');
  assert.deepEqual(bounds, [{ t0: '2017-05-10 10:00:00', s: '1494410400', q: 3 }]);
  const [epoch] = await conn.query<mysql.RowDataPacket[]>('SELECT host FROM cpu WHERE UNIX_TIMESTAMP(ts) >= 1494410470 AND UNIX_TIMESTAMP(ts) <= 1494410520 ORDER BY ts');
  assert.deepEqual(epoch.map((r) => r['host']), ['a', 'b']);

  // The session: the logged-in user, not DuckDB's; MySQL's version string first.
  const [who] = await conn.query<mysql.RowDataPacket[]>('SELECT user() AS u, current_user() AS cu, current_user AS c, version() AS v, @@version AS vv');
  const row = who[0]!;
  assert.equal(row['u'], 'grafana');
  assert.equal(row['cu'], 'grafana');
  assert.equal(row['c'], 'grafana');
  assert.match(String(row['v']), /^8\.4\.2-tsdb-/);
  assert.equal(row['vv'], row['v']);
  const [plain] = await conn.query<mysql.RowDataPacket[]>('SELECT @@version');
  assert.equal(plain[0]!['@@version'], row['v']);
});
