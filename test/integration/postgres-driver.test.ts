/**
 * The PostgreSQL server with the `pg` driver (node-postgres): simple queries, and parameterized
 * queries over the extended protocol (Parse/Bind/Describe/Execute/Sync) with text parameters.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import pg from 'pg';
import { tempDir } from '../support/temp.js';
import { startTsdb } from '../support/tsdb-process.js';

test('pg: simple and parameterized queries, errors with SQLSTATE, the session goes on', async (t) => {
  const s = await startTsdb(t, ['standalone', 'start', '--http-addr', '127.0.0.1:0', '--postgres-addr', '127.0.0.1:0', '--data-home', tempDir(t)]);
  const addr = s.postgres!;
  const client = new pg.Client({ host: addr.slice(0, addr.lastIndexOf(':')), port: Number(addr.slice(addr.lastIndexOf(':') + 1)), user: 'tsdb', database: 'public' });
  await client.connect();
  try {
    await client.query('CREATE TABLE m (host STRING PRIMARY KEY, ts TIMESTAMP TIME INDEX, v DOUBLE, n BIGINT)');
    const ins = await client.query("INSERT INTO m VALUES ('a', 1000, 1.5, 7), ('b', 2000, 2.5, 8)");
    assert.equal(ins.rowCount, 2);
    const all = await client.query('SELECT host, v, n FROM m ORDER BY host');
    assert.deepEqual(all.rows, [{ host: 'a', v: 1.5, n: '7' }, { host: 'b', v: 2.5, n: '8' }]);
    assert.deepEqual(all.fields.map((f) => f.dataTypeID), [1043, 701, 20]);
    // Parameters go through the extended protocol.
    const one = await client.query('SELECT host, v FROM m WHERE host = $1 AND v > $2', ['b', 2]);
    assert.deepEqual(one.rows, [{ host: 'b', v: 2.5 }]);
    await client.query('INSERT INTO m (host, ts, v, n) VALUES ($1, $2, $3, $4)', ['c', '1970-01-01 00:00:03', 3.5, 9]);
    assert.deepEqual((await client.query('SELECT count(*) AS c FROM m')).rows, [{ c: '3' }]);
    await assert.rejects(client.query('SELECT * FROM nope WHERE x = $1', [1]), (err: Error & { code?: string }) => err.code === '42P01');
    await assert.rejects(client.query('SELECT * FROM nope'), (err: Error & { code?: string }) => err.code === '42P01');
    assert.deepEqual((await client.query('SELECT $1::BIGINT + 1 AS x', [41])).rows, [{ x: '42' }]);
  } finally {
    // Before the server stops (t.after), or the driver reports the closed connection as an error.
    await client.end();
  }
});
