import assert from 'node:assert/strict';
import { test } from 'node:test';
import { area, contains, distance, distanceSphereM, intersects, parseWkt, readPoint, rustFloat, wktPoint } from './wkt-functions.js';

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

const POLY = 'POLYGON ((-121.491698 38.653343, -121.582353 38.556757, -121.469721 38.449287, -121.315883 38.541721, -121.491698 38.653343))';

test('st_area and st_distance give GreptimeDB (geo crate) values', () => {
  assert.equal(area(parseWkt(POLY)), 0.027022178074000106);
  assert.equal(area(parseWkt('POINT(1 2)')), 0);
  assert.equal(area(parseWkt('POLYGON((0 0, 4 0, 4 4, 0 4, 0 0), (1 1, 2 1, 2 2, 1 2, 1 1))')), 15);
  assert.equal(area(parseWkt('MULTIPOLYGON(((0 0, 1 0, 1 1, 0 0)), ((0 0, 2 0, 2 2, 0 0)))')), 2.5);
  assert.equal(area(parseWkt('LINESTRING(0 0, 1 1)')), 0);
  assert.equal(distance(parseWkt('POINT(-122.3889 37.76938)'), parseWkt('POINT(-121.4247 38.5216)')), 1.2229131483470166);
  assert.equal(distance(parseWkt('POINT(-122.3889 37.76938)'), parseWkt(POLY)), 1.1271559800391486);
  assert.equal(distance(parseWkt('POINT(1 1)'), parseWkt('POLYGON((0 0, 4 0, 4 4, 0 4, 0 0))')), 0);
  assert.equal(distance(parseWkt('POINT(1.5 1.5)'), parseWkt('POLYGON((0 0, 4 0, 4 4, 0 4, 0 0), (1 1, 2 1, 2 2, 1 2, 1 1))')), 0.5);
  assert.equal(distance(parseWkt('LINESTRING(0 0, 2 2)'), parseWkt('LINESTRING(0 2, 2 0)')), 0);
  assert.equal(distance(parseWkt('LINESTRING(0 0, 1 0)'), parseWkt('LINESTRING(0 3, 1 3)')), 3);
  assert.equal(distance(parseWkt('POLYGON((0 0, 1 0, 1 1, 0 0))'), parseWkt('POLYGON((3 0, 4 0, 4 1, 3 0))')), 2);
  assert.equal(distance(parseWkt('MULTIPOINT((0 0), (5 5))'), parseWkt('POINT(5 6)')), 1);
  for (const bad of ['POINT(1)', 'POINT EMPTY', 'CIRCLE(1 2 3)', 'POINT(1 2', 'POINT(1 2) x', '']) assert.throws(() => parseWkt(bad), /Fail to parse WKT/, bad);
});

test('relations: contains / within / intersects as DE-9IM says for points, lines and polygons', () => {
  const sq = parseWkt('POLYGON((0 0, 4 0, 4 4, 0 4, 0 0))');
  const holed = parseWkt('POLYGON((0 0, 4 0, 4 4, 0 4, 0 0), (1 1, 2 1, 2 2, 1 2, 1 1))');
  assert.equal(contains(sq, parseWkt('POINT(1 1)')), true);
  assert.equal(contains(sq, parseWkt('POINT(0 1)')), false, 'a point on the boundary is not contained');
  assert.equal(contains(holed, parseWkt('POINT(1.5 1.5)')), false);
  assert.equal(contains(sq, parseWkt('LINESTRING(1 1, 3 3)')), true);
  assert.equal(contains(sq, parseWkt('LINESTRING(0 0, 4 0)')), false, 'a line along the boundary only');
  assert.equal(contains(sq, parseWkt('LINESTRING(1 1, 5 5)')), false);
  assert.equal(contains(sq, sq), true);
  assert.equal(contains(sq, parseWkt('POLYGON((1 1, 2 1, 2 2, 1 1))')), true);
  assert.equal(contains(holed, parseWkt('POLYGON((0.5 0.5, 3 0.5, 3 3, 0.5 3, 0.5 0.5))')), false, 'the hole is inside it');
  assert.equal(contains(parseWkt('POINT(1 1)'), sq), false);
  assert.equal(contains(parseWkt('MULTIPOINT(1 1, 2 2)'), parseWkt('POINT(2 2)')), true);
  assert.equal(intersects(sq, parseWkt('POLYGON((4 4, 5 4, 5 5, 4 4))')), true, 'touching at a corner');
  assert.equal(intersects(sq, parseWkt('POLYGON((5 5, 6 5, 6 6, 5 5))')), false);
  assert.equal(intersects(sq, parseWkt('POLYGON((1 1, 2 1, 2 2, 1 1))')), true, 'one inside the other');
  assert.throws(() => contains(parseWkt('LINESTRING(0 0, 1 1)'), parseWkt('POINT(0.5 0.5)')), /not supported/);
});
