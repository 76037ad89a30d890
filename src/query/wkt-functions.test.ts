import assert from 'node:assert/strict';
import { test } from 'node:test';
import { distanceSphereM, readPoint, rustFloat, wktPoint } from './wkt-functions.js';

test('a point WKT is written as GreptimeDB writes it (longitude first, Rust f64 digits)', () => {
  assert.equal(wktPoint(37.76938, -122.3889), 'POINT(-122.3889 37.76938)');
  assert.equal(wktPoint(1, 0), 'POINT(0 1)');
  assert.equal(rustFloat(1e-7), '0.0000001');
  assert.equal(rustFloat(-1.5e-7), '-0.00000015');
  assert.equal(rustFloat(1e21), '1000000000000000000000');
  assert.equal(rustFloat(1.25e22), '12500000000000000000000');
});

test('sphere distance of points is geo crate haversine; other geometries are refused', () => {
  assert.equal(distanceSphereM('POINT(-122.3889 37.76938)', 'POINT(-121.4247 38.5216)'), 118766.03647159638);
  assert.equal(distanceSphereM('point ( 1 2 )', 'POINT Z (1 2 3)'), 0);
  assert.deepEqual(readPoint('POINT(1.5 -2)'), [1.5, -2]);
  assert.throws(() => distanceSphereM('POINT(0 0)', 'POLYGON ((0 0, 1 0, 1 1, 0 0))'), /Great circle distance between non-point objects are not supported for now\./);
  assert.throws(() => distanceSphereM('POINT(0 0)', 'nonsense'), /Fail to parse WKT/);
});
