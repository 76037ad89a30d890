import assert from 'node:assert/strict';
import { test } from 'node:test';
import { f32Text, parseVectorText, vectorBytes, vectorOfBytes, vectorText, VectorTextError } from './vector-text.js';

test('parseVectorText: brackets, floats and the dimension, with GreptimeDB messages', () => {
  assert.deepEqual(Array.from(parseVectorText('[1.0, 2.0,3]', 3)), [1, 2, 3]);
  assert.deepEqual(Array.from(parseVectorText(' [ ] ', 0)), []);
  assert.deepEqual(Array.from(parseVectorText('[inf, -Infinity, 1e3]')), [Infinity, -Infinity, 1000]);
  const fails = (text: string, dim: number | undefined, why: string) =>
    assert.throws(() => parseVectorText(text, dim), (e: unknown) => e instanceof VectorTextError && e.message === `Invalid Vector: Failed to parse ${text} to Vector value: ${why}`, text);
  fails('[1.0]', 3, 'wrong dimension');
  fails('[]', 2, 'wrong dimension');
  fails('1.0,2.0,3.0', 3, 'not properly enclosed in brackets');
  fails('[30h, 40s, 50m]', 3, 'elements are not all float32');
  fails('[1,,2]', undefined, 'elements are not all float32');
});

test('vector bytes are float32 little-endian, as GreptimeDB stores them', () => {
  const bytes = vectorBytes(parseVectorText('[1.0, 2.0, 3.0]'));
  assert.equal(Buffer.from(bytes).toString('hex'), '0000803f0000004000004040');
  assert.deepEqual(Array.from(vectorOfBytes(bytes)), [1, 2, 3]);
  assert.deepEqual(Array.from(vectorOfBytes(Buffer.from('000080400000a0400000c040', 'hex'))), [4, 5, 6]);
});

test('f32Text and vectorText print as Rust prints f32: shortest digits, no exponent', () => {
  const cases: Array<[number, string]> = [
    [1, '1'],
    [-2, '-2'],
    [0, '0'],
    [1 / 3, '0.33333334'],
    [0.5547002, '0.5547002'],
    [3.4028235e38, '340282350000000000000000000000000000000'],
    [1.1754944e-38, '0.000000000000000000000000000000000000011754944'],
    [1.1, '1.1'],
    [Infinity, 'inf'],
    [-Infinity, '-inf'],
    [NaN, 'NaN'],
  ];
  for (const [v, text] of cases) assert.equal(f32Text(v), text, String(v));
  assert.equal(vectorText(Float32Array.from([1, 2.5, -3])), '[1,2.5,-3]');
  assert.equal(vectorText([]), '[]');
});
