/**
 * JSON columns as each protocol shows them, as GreptimeDB does: over HTTP the column is typed `Json`
 * and its values are the JSON they hold (objects, arrays, numbers, strings); over MySQL the column
 * is MYSQL_TYPE_JSON (245) with the canonical text (keys sorted, no spaces: jsonb's `to_string`) in
 * text and binary rows; over PostgreSQL it is `json` (OID 114) with the same text. The same holds
 * with the regions on a datanode, the values crossing as Arrow.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import mysql from 'mysql2/promise';
import pg from 'pg';
import { fileURLToPath } from 'node:url';
import { tempDir } from '../support/temp.js';
import { startTsdb, type Started } from '../support/tsdb-process.js';

const REMOTE_STANDALONE = fileURLToPath(new URL('../support/remote-standalone-child.js', import.meta.url));

const SETUP = [
  'CREATE TABLE docs (host STRING PRIMARY KEY, j JSON, ts TIMESTAMP TIME INDEX)',
  `INSERT INTO docs VALUES ('a', '{"b": [1, 2.5, true], "a": null}', 1), ('b', parse_json('"text"'), 2), ('c', NULL, 3), ('d', '1e100', 4)`,
];

const TEXTS = ['{"a":null,"b":[1,2.5,true]}', '"text"', null, '1e100'];

async function sql(baseUrl: string, query: string): Promise<Record<string, unknown>> {
  const res = await fetch(`${baseUrl}/v1/sql?db=public`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ sql: query }).toString() });
  return (await res.json()) as Record<string, unknown>;
}

async function checkHttp(baseUrl: string): Promise<void> {
  for (const s of SETUP) assert.equal((await sql(baseUrl, s))['code'], 0, s);
  const out = await sql(baseUrl, 'SELECT j, json_get_object(j, \'$\') AS o, json_to_string(j) AS s FROM docs ORDER BY ts');
  const records = (out['output'] as Array<{ records: { schema: { column_schemas: Array<{ name: string; data_type: string }> }; rows: unknown[][] } }>)[0]!.records;
  assert.deepEqual(
    records.schema.column_schemas.map((c) => c.data_type),
    ['Json', 'Json', 'String'],
  );
  assert.deepEqual(records.rows, [
    [{ a: null, b: [1, 2.5, true] }, { a: null, b: [1, 2.5, true] }, TEXTS[0]],
    ['text', null, TEXTS[1]],
    [null, null, null],
    [1e100, null, TEXTS[3]],
  ]);
  // The statement that fails, as GreptimeDB fails it.
  assert.deepEqual(await sql(baseUrl, "INSERT INTO docs VALUES ('e', '{\"a\":', 5)").then((o) => [o['code'], o['error']]), [1004, 'Invalid JSON: {"a":']);
  const bad = await sql(baseUrl, "SELECT parse_json('{\"a\":1, \"b\":2, \"c\":3')");
  assert.deepEqual([bad['code'], bad['error']], [3001, `Execution error: cannot parse '{"a":1, "b":2, "c":3': EOF while parsing a value, pos 20`]);
}

test('JSON columns over HTTP, MySQL (text and binary rows) and PostgreSQL show the canonical JSON as GreptimeDB does', async (t) => {
  const s = await startTsdb(t, ['standalone', 'start', '--http-addr', '127.0.0.1:0', '--mysql-addr', '127.0.0.1:0', '--postgres-addr', '127.0.0.1:0', '--data-home', tempDir(t)]);
  await checkHttp(s.baseUrl);

  const at = (addr: string) => ({ host: addr.slice(0, addr.lastIndexOf(':')), port: Number(addr.slice(addr.lastIndexOf(':') + 1)) });
  const my = await mysql.createConnection({ ...at(s.mysql!), user: 'root', database: 'public' });
  try {
    const [rows, fields] = await my.query<mysql.RowDataPacket[]>('SELECT j FROM docs ORDER BY ts');
    assert.deepEqual(fields.map((f) => f.columnType), [245]);
    // mysql2 parses JSON columns: the text it parsed is the canonical one.
    assert.deepEqual(rows.map((r) => r['j']), [{ a: null, b: [1, 2.5, true] }, 'text', null, 1e100]);
    const [texts] = await my.query<mysql.RowDataPacket[]>({ sql: 'SELECT j FROM docs ORDER BY ts', typeCast: (field, next) => (field.type === 'JSON' ? field.string('utf8') : next()) });
    assert.deepEqual(texts.map((r) => r['j']), TEXTS);
    const [binary, binaryFields] = await my.execute<mysql.RowDataPacket[]>('SELECT j FROM docs WHERE ts < ? ORDER BY ts', [3]);
    assert.deepEqual(binaryFields.map((f) => f.columnType), [245]);
    assert.deepEqual(binary.map((r) => r['j']), [{ a: null, b: [1, 2.5, true] }, 'text']);
  } finally {
    await my.end();
  }

  const client = new pg.Client({ ...at(s.postgres!), user: 'tsdb', database: 'public', types: { getTypeParser: () => (v: string) => v } });
  await client.connect();
  try {
    const r = await client.query('SELECT j FROM docs ORDER BY ts');
    assert.deepEqual(r.fields.map((f) => f.dataTypeID), [114]);
    assert.deepEqual(r.rows.map((x: Record<string, unknown>) => x['j']), TEXTS);
  } finally {
    await client.end();
  }
});

test('JSON columns keep their type and values with the regions on a datanode (rows cross as Arrow)', async (t) => {
  const datanode: Started = await startTsdb(t, ['datanode', 'start', '--node-id', '1', '--http-addr', '127.0.0.1:0', '--rpc-addr', '127.0.0.1:0', '--data-home', tempDir(t)]);
  const { baseUrl } = await startTsdb(t, ['standalone', 'start', '--http-addr', '127.0.0.1:0', '--data-home', tempDir(t)], { script: REMOTE_STANDALONE, scriptArgs: [datanode.grpc!] });
  await checkHttp(baseUrl);
  // A query the datanode answers whole (pushed down): its answer's JSON column is still Json.
  const out = await sql(baseUrl, "SELECT j FROM docs WHERE host = 'a'");
  const records = (out['output'] as Array<{ records: { schema: { column_schemas: Array<{ data_type: string }> }; rows: unknown[][] } }>)[0]!.records;
  assert.deepEqual([records.schema.column_schemas[0]!.data_type, records.rows], ['Json', [[{ a: null, b: [1, 2.5, true] }]]]);
});
