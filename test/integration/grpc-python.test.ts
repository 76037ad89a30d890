/**
 * An independent client in another language: Python stubs generated at test time by Debian's
 * `python3 -m grpc_tools.protoc` (python3-grpc-tools) from the repository's proto/ files, run
 * with python3-grpcio against a real standalone server (test/support/greptime_grpc_client.py):
 * health check, row inserts (read back over HTTP), a HandleRequests stream, a wrong value type,
 * authentication, and Arrow Flight DoGet (a query and a statement without rows; stubs of Flight.proto).
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { promisify } from 'node:util';
import { PROTO_ROOT } from '../../src/servers/grpc/protos.js';
import { sqlRows } from '../support/sql-rows.js';
import { tempDir } from '../support/temp.js';
import { startTsdb } from '../support/tsdb-process.js';

const run = promisify(execFile);

/** Debian's interpreter, which has python3-grpcio and python3-grpc-tools (not a pyenv or venv one first on PATH). */
const PYTHON = process.env['TSDB_TEST_PYTHON'] ?? '/usr/bin/python3';
const CLIENT = new URL('../../../test/support/greptime_grpc_client.py', import.meta.url).pathname;

/** Generates the Python modules of proto/greptime/v1/*.proto and Arrow's Flight.proto into a temp dir. */
async function generateStubs(dir: string): Promise<string> {
  const protos = readdirSync(join(PROTO_ROOT, 'greptime/v1')).filter((f) => f.endsWith('.proto')).map((f) => join(PROTO_ROOT, 'greptime/v1', f));
  protos.push(join(PROTO_ROOT, 'arrow/flight/protocol/Flight.proto'));
  await run(PYTHON, ['-m', 'grpc_tools.protoc', `-I${PROTO_ROOT}`, `--python_out=${dir}`, `--grpc_python_out=${dir}`, ...protos]);
  const generated = readdirSync(join(dir, 'greptime/v1')).sort();
  assert.ok(generated.includes('database_pb2_grpc.py') && generated.includes('row_pb2.py'), generated.join());
  return dir;
}

async function python(stubs: string, addr: string, command: string, opts: Record<string, unknown> = {}): Promise<Record<string, unknown>> {
  const { stdout } = await run(PYTHON, [CLIENT, stubs, addr, command, JSON.stringify(opts)], { timeout: 60_000 });
  return JSON.parse(stdout.trim().split('\n').at(-1)!) as Record<string, unknown>;
}

test('Python grpcio client on stubs generated from proto/: health, row inserts, a stream, a wrong type', async (t) => {
  const stubs = await generateStubs(tempDir(t));
  const { baseUrl, grpc } = await startTsdb(t, ['standalone', 'start', '--http-addr', '127.0.0.1:0', '--data-home', tempDir(t)]);
  assert.deepEqual(await python(stubs, grpc!, 'health'), { health: 'ok' });
  assert.deepEqual(await python(stubs, grpc!, 'row-inserts', { table: 'py_cpu' }), { affected_rows: 2, status_code: 0 });
  assert.deepEqual(await sqlRows(baseUrl, 'SELECT host, ts, usage, CAST(count AS VARCHAR), ok FROM py_cpu ORDER BY host'), [
    ['py-a', 1700000000000, 0.25, '9007199254740993', true],
    ['py-b', 1700000001000, null, '-3', false],
  ]);
  assert.deepEqual(await python(stubs, grpc!, 'stream', { table: 'py_stream', messages: 4 }), { affected_rows: 40 });
  assert.deepEqual(await sqlRows(baseUrl, 'SELECT count(*), count(DISTINCT host) FROM py_stream'), [[40, 4]]);
  const bad = await python(stubs, grpc!, 'bad-type', { table: 'py_cpu' });
  assert.equal(bad['code'], 'INVALID_ARGUMENT');
  assert.equal(bad['err_code'], '1004');
  assert.match(String(bad['details']), /column usage expect type FLOAT64/);
});

test('Python client with a static user provider: basic credentials in the request header', async (t) => {
  const stubs = await generateStubs(tempDir(t));
  const { baseUrl, grpc } = await startTsdb(t, ['standalone', 'start', '--http-addr', '127.0.0.1:0', '--data-home', tempDir(t), '--user-provider', 'static_user_provider:cmd:py=secret']);
  assert.deepEqual(await python(stubs, grpc!, 'row-inserts', { table: 'py_auth', username: 'py', password: 'secret' }), { affected_rows: 2, status_code: 0 });
  const denied = await python(stubs, grpc!, 'row-inserts', { table: 'py_auth', username: 'py', password: 'wrong' });
  assert.deepEqual([denied['code'], denied['err_code']], ['UNAUTHENTICATED', '7002']);
  assert.deepEqual(await sqlRows(baseUrl, 'SELECT count(*) FROM py_auth', { auth: 'py:secret' }), [[2]]);
});

test('Python client: Arrow Flight DoGet of a query (schema then record batches) and of an INSERT (affected rows)', async (t) => {
  const stubs = await generateStubs(tempDir(t));
  const { grpc } = await startTsdb(t, ['standalone', 'start', '--http-addr', '127.0.0.1:0', '--data-home', tempDir(t)]);
  assert.deepEqual(await python(stubs, grpc!, 'row-inserts', { table: 'py_flight' }), { affected_rows: 2, status_code: 0 });
  const query = await python(stubs, grpc!, 'flight-query', { sql: 'SELECT count FROM py_flight ORDER BY host' });
  assert.deepEqual(query, { messages: ['Schema', 'RecordBatch'], rows: 2, first_column: [9007199254740993, -3], affected_rows: null });
  const insert = await python(stubs, grpc!, 'flight-query', { sql: "INSERT INTO py_flight (host, ts, count) VALUES ('py-c', 1, 7)" });
  assert.deepEqual(insert, { messages: ['NONE'], rows: 0, first_column: [], affected_rows: 1 });
  const bad = await python(stubs, grpc!, 'flight-query', { sql: 'SELECT * FROM py_missing' });
  assert.match(String(bad['err_code']), /^[2-4]\d{3}$/, JSON.stringify(bad));
  assert.ok(!['INTERNAL', 'UNKNOWN'].includes(String(bad['code'])), JSON.stringify(bad));
});
