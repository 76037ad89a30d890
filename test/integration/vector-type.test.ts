/**
 * VECTOR(n) columns as each protocol shows them, as GreptimeDB does: over HTTP the column is typed
 * `Vector(n)` and its values are the bytes GreptimeDB stores (n float32, little-endian) as arrays of
 * numbers; over MySQL a BLOB of those bytes; over PostgreSQL a bytea. With the regions on a
 * datanode, the bytes cross as Arrow and the vector functions still read them.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import mysql from 'mysql2/promise';
import pg from 'pg';
import { tempDir } from '../support/temp.js';
import { startTsdb, type Started } from '../support/tsdb-process.js';

const REMOTE_STANDALONE = fileURLToPath(new URL('../support/remote-standalone-child.js', import.meta.url));

const ONE_TWO_THREE = '0000803f0000004000004040';

async function sql(baseUrl: string, query: string): Promise<Record<string, unknown>> {
  const res = await fetch(`${baseUrl}/v1/sql?db=public`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ sql: query }).toString() });
  return (await res.json()) as Record<string, unknown>;
}

type Records = { schema: { column_schemas: Array<{ name: string; data_type: string }> }; rows: unknown[][] };

async function checkHttp(baseUrl: string): Promise<void> {
  for (const s of ['CREATE TABLE vecs (ts TIMESTAMP TIME INDEX, v VECTOR(3))', "INSERT INTO vecs VALUES (1, '[1.0, 2.0, 3.0]'), (2, parse_vec('[4, 5, 6]')), (3, NULL)"]) {
    assert.equal((await sql(baseUrl, s))['code'], 0, s);
  }
  const out = await sql(baseUrl, "SELECT v, vec_to_string(v) AS s, vec_l2sq_distance(v, '[0, 0, 0]') AS d FROM vecs ORDER BY ts");
  const records = (out['output'] as Array<{ records: Records }>)[0]!.records;
  assert.deepEqual(
    records.schema.column_schemas.map((c) => c.data_type),
    ['Vector(3)', 'String', 'Float32'],
  );
  assert.deepEqual(records.rows, [
    [Array.from(Buffer.from(ONE_TWO_THREE, 'hex')), '[1,2,3]', 14],
    [Array.from(Buffer.from('000080400000a0400000c040', 'hex')), '[4,5,6]', 77],
    [null, null, null],
  ]);
  const bad = await sql(baseUrl, "INSERT INTO vecs VALUES (4, '[1.0]')");
  assert.deepEqual([bad['code'], bad['error']], [1004, 'Invalid Vector: Failed to parse [1.0] to Vector value: wrong dimension']);
}

test('VECTOR columns over HTTP, MySQL and PostgreSQL show the stored float32 bytes, as GreptimeDB does', async (t) => {
  const s = await startTsdb(t, ['standalone', 'start', '--http-addr', '127.0.0.1:0', '--mysql-addr', '127.0.0.1:0', '--postgres-addr', '127.0.0.1:0', '--data-home', tempDir(t)]);
  await checkHttp(s.baseUrl);
  const at = (addr: string) => ({ host: addr.slice(0, addr.lastIndexOf(':')), port: Number(addr.slice(addr.lastIndexOf(':') + 1)) });

  const my = await mysql.createConnection({ ...at(s.mysql!), user: 'root', database: 'public' });
  try {
    const [rows, fields] = await my.query<mysql.RowDataPacket[]>('SELECT v FROM vecs ORDER BY ts');
    assert.deepEqual(fields.map((f) => f.columnType), [252]);
    assert.deepEqual(rows.map((r) => (r['v'] === null ? null : (r['v'] as Buffer).toString('hex'))), [ONE_TWO_THREE, '000080400000a0400000c040', null]);
    const [binary] = await my.execute<mysql.RowDataPacket[]>('SELECT v FROM vecs WHERE ts < ? ORDER BY ts', [2]);
    assert.deepEqual(binary.map((r) => (r['v'] as Buffer).toString('hex')), [ONE_TWO_THREE]);
  } finally {
    await my.end();
  }

  const client = new pg.Client({ ...at(s.postgres!), user: 'tsdb', database: 'public' });
  await client.connect();
  try {
    const r = await client.query('SELECT v FROM vecs ORDER BY ts');
    assert.deepEqual(r.fields.map((f) => f.dataTypeID), [17]);
    assert.deepEqual(r.rows.map((x: Record<string, unknown>) => (x['v'] === null ? null : (x['v'] as Buffer).toString('hex'))), [ONE_TWO_THREE, '000080400000a0400000c040', null]);
  } finally {
    await client.end();
  }
});

test('VECTOR columns with the regions on a datanode: the bytes cross as Arrow, the functions read them', async (t) => {
  const datanode: Started = await startTsdb(t, ['datanode', 'start', '--node-id', '1', '--http-addr', '127.0.0.1:0', '--rpc-addr', '127.0.0.1:0', '--data-home', tempDir(t)]);
  const { baseUrl } = await startTsdb(t, ['standalone', 'start', '--http-addr', '127.0.0.1:0', '--data-home', tempDir(t)], { script: REMOTE_STANDALONE, scriptArgs: [datanode.grpc!] });
  await checkHttp(baseUrl);
  const out = await sql(baseUrl, 'SELECT vec_to_string(vec_sum(v)) AS s FROM vecs');
  assert.deepEqual((out['output'] as Array<{ records: Records }>)[0]!.records.rows, [['[5,7,9]']]);
});
