/** Go's %f formatting, strconv.ParseFloat and FMA as reproduced for the functions. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { goFormatF } from '../go-format.js';
import { exactFma, fma } from '../go-math.js';
import { goParseFloat } from './go-parse-float.js';

test('goFormatF: Go %f — ties to even on the exact binary value, -0, non-finite, no exponent form', () => {
  assert.equal(goFormatF(2, 6), '2.000000');
  assert.equal(goFormatF(0.0078125, 6), '0.007812');
  assert.equal(goFormatF(-0.0078125, 6), '-0.007812');
  assert.equal(goFormatF(0.0000005, 6), '0.000000');
  assert.equal(goFormatF(-0, 6), '-0.000000');
  assert.equal(goFormatF(1e21, 6), '1000000000000000000000.000000');
  assert.equal(goFormatF(Number.NaN, 6), 'NaN');
  assert.equal(goFormatF(Infinity, 6), '+Inf');
  assert.equal(goFormatF(-Infinity, 6), '-Inf');
  assert.equal(goFormatF(1.0000001, 6), '1.000000');
});

test('goParseFloat: Go strconv.ParseFloat forms; errors (syntax or range) give undefined', () => {
  assert.equal(goParseFloat('0.25'), 0.25);
  assert.equal(goParseFloat('+Inf'), Infinity);
  assert.equal(goParseFloat('-inf'), -Infinity);
  assert.equal(goParseFloat('Infinity'), Infinity);
  assert.ok(Number.isNaN(goParseFloat('NaN')!));
  assert.equal(goParseFloat('+NaN'), undefined);
  assert.equal(goParseFloat('infin'), undefined);
  assert.equal(goParseFloat('0x1p-2'), 0.25);
  assert.equal(goParseFloat('0x1.8p1'), 3);
  assert.equal(goParseFloat('0x_1p0'), 1);
  assert.equal(goParseFloat('0x1'), undefined);
  assert.equal(goParseFloat('1_000'), undefined);
  assert.equal(goParseFloat('1e400'), undefined);
  assert.equal(goParseFloat('1e-400'), 0);
  assert.equal(goParseFloat('.5'), 0.5);
  assert.equal(goParseFloat('5.'), 5);
  assert.equal(goParseFloat('.'), undefined);
  assert.equal(goParseFloat(''), undefined);
  assert.equal(goParseFloat(' 1'), undefined);
});

test('fma rounds once', () => {
  // (1 + 2^-30)^2 - 1 = 2^-29 + 2^-60: a separate multiply would lose the 2^-60.
  const a = 1 + 2 ** -30;
  assert.equal(fma(a, a, -1), 2 ** -29 + 2 ** -60);
  assert.equal(a * a - 1, 2 ** -29);
  assert.equal(fma(2, 3, 4), 10);
  assert.equal(fma(1e308, 10, -Infinity), -Infinity);
  assert.ok(Number.isNaN(fma(Number.NaN, 1, 1)));
});

test('fma: the fast double-double route equals the exact BigInt route', () => {
  // A deterministic spread of magnitudes, signs and near-cancellations.
  let seed = 12345;
  const rnd = (): number => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed / 2 ** 31;
  };
  for (let i = 0; i < 20000; i++) {
    const a = (rnd() - 0.5) * 2 ** Math.floor(rnd() * 60 - 30);
    const b = (rnd() - 0.5) * 2 ** Math.floor(rnd() * 60 - 30);
    const c = i % 3 === 0 ? -a * b * (1 + (rnd() - 0.5) * 1e-12) : (rnd() - 0.5) * 2 ** Math.floor(rnd() * 60 - 30);
    assert.equal(fma(a, b, c), exactFma(a, b, c), `fma(${a}, ${b}, ${c})`);
  }
});
