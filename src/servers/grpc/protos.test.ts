import { test } from 'node:test';
import assert from 'node:assert/strict';
import { greptimePackageDefinition, greptimeServiceDefinition } from './protos.js';

test('protos: the greptime.v1 services load with their methods and streaming kinds', () => {
  const db = greptimeServiceDefinition('greptime.v1.GreptimeDatabase');
  assert.equal(db.Handle?.path, '/greptime.v1.GreptimeDatabase/Handle');
  assert.equal(db.Handle?.requestStream, false);
  assert.equal(db.HandleRequests?.path, '/greptime.v1.GreptimeDatabase/HandleRequests');
  assert.equal(db.HandleRequests?.requestStream, true);
  assert.equal(db.HandleRequests?.responseStream, false);
  const health = greptimeServiceDefinition('greptime.v1.HealthCheck');
  assert.equal(health.HealthCheck?.path, '/greptime.v1.HealthCheck/HealthCheck');
});

test('protos: a GreptimeRequest round-trips with GreptimeDB field numbers, 64-bit values as strings', () => {
  const db = greptimeServiceDefinition('greptime.v1.GreptimeDatabase');
  const req = {
    header: { dbname: 'public', timezone: '+08:00', authorization: { basic: { username: 'u', password: 'p' } } },
    row_inserts: {
      inserts: [{
        table_name: 'cpu',
        rows: {
          schema: [
            { column_name: 'host', datatype: 12, semantic_type: 0 },
            { column_name: 'ts', datatype: 18, semantic_type: 2 },
            { column_name: 'u', datatype: 8, semantic_type: 1 },
          ],
          rows: [{ values: [{ string_value: 'a' }, { timestamp_nanosecond_value: '1700000000123456789' }, { u64_value: '18446744073709551615' }] }],
        },
      }],
    },
  };
  const bytes = db.Handle!.requestSerialize(req);
  // Field 6 (row_inserts), wire type 2 → tag byte 0x32 follows the header (field 1, tag 0x0a).
  assert.equal(bytes[0], 0x0a);
  assert.ok(bytes.includes(0x32));
  const back = db.Handle!.requestDeserialize(bytes) as any;
  assert.equal(back.request, 'row_inserts');
  assert.equal(back.header.dbname, 'public');
  assert.equal(back.header.authorization.auth_scheme, 'basic');
  const row = back.row_inserts.inserts[0].rows.rows[0].values;
  assert.equal(row[1].value_data, 'timestamp_nanosecond_value');
  assert.equal(row[1].timestamp_nanosecond_value, '1700000000123456789');
  assert.equal(row[2].u64_value, '18446744073709551615');
  assert.ok(greptimePackageDefinition()['greptime.v1.ColumnDataType']);
});

test('protos: the bytes of a hand-encoded GreptimeResponse{affected_rows{value: 3}} decode', () => {
  const db = greptimeServiceDefinition('greptime.v1.GreptimeDatabase');
  // field 2 (affected_rows, len 2) { field 1 varint 3 }
  const resp = db.Handle!.responseDeserialize(Buffer.from([0x12, 0x02, 0x08, 0x03])) as any;
  assert.equal(resp.response, 'affected_rows');
  assert.equal(resp.affected_rows.value, 3);
});
