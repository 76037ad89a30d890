import assert from 'node:assert/strict';
import { test } from 'node:test';
import { agg, evalAt, evalRange, MemorySource, num, sel, show, str } from '../../test/support/promql-eval.js';
import { PromqlError } from './errors.js';
import { formatFloatF, formatFloatV } from './go-format.js';

function src(): MemorySource {
  return new MemorySource()
    .add({ __name__: 'h', job: 'a', inst: '1' }, [[0, 1]])
    .add({ __name__: 'h', job: 'a', inst: '2' }, [[0, 3]])
    .add({ __name__: 'h', job: 'b', inst: '1' }, [[0, Number.NaN]])
    .add({ __name__: 'h', job: 'b', inst: '2' }, [[0, 5]])
    .add({ __name__: 'h', job: 'b', inst: '3' }, [[0, 2]])
    .add({ __name__: 'cv', i: '1' }, [[0, 1e21]])
    .add({ __name__: 'cv', i: '2' }, [[0, 1e21]])
    .add({ __name__: 'cv', i: '3' }, [[0, 0.5]])
    .add({ __name__: 'av', i: '1' }, [[0, Number.POSITIVE_INFINITY]])
    .add({ __name__: 'av', i: '2' }, [[0, Number.POSITIVE_INFINITY]])
    .add({ __name__: 'av', i: '3' }, [[0, 1]])
    .add({ __name__: 'an', i: '1' }, [[0, Number.POSITIVE_INFINITY]])
    .add({ __name__: 'an', i: '2' }, [[0, Number.NEGATIVE_INFINITY]]);
}

const h = sel('h');
const at = (e: Parameters<typeof evalAt>[1]) => evalAt(src(), e, 10).then(show);

test('sum, avg, count, min, max, group, stddev, stdvar by a label', async () => {
  assert.deepEqual(await at(agg('sum', h, { by: ['job'] })), ['{job=a} 4', '{job=b} NaN']);
  assert.deepEqual(await at(agg('avg', h, { by: ['job'] })), ['{job=a} 2', '{job=b} NaN']);
  assert.deepEqual(await at(agg('count', h, { by: ['job'] })), ['{job=a} 2', '{job=b} 3']);
  // min/max replace a NaN with the next value.
  assert.deepEqual(await at(agg('min', h, { by: ['job'] })), ['{job=a} 1', '{job=b} 2']);
  assert.deepEqual(await at(agg('max', h, { by: ['job'] })), ['{job=a} 3', '{job=b} 5']);
  assert.deepEqual(await at(agg('group', h, { by: ['job'] })), ['{job=a} 1', '{job=b} 1']);
  assert.deepEqual(await at(agg('stddev', sel('h', { job: 'a' }))), ['{} 1']);
  assert.deepEqual(await at(agg('stdvar', sel('h', { job: 'a' }))), ['{} 1']);
  assert.deepEqual(await at(agg('sum', sel('h', { job: 'a' }))), ['{} 4']);
});

test('without drops the listed labels and __name__; groups in order of first appearance', async () => {
  assert.deepEqual(await at(agg('sum', h, { without: ['job'] })), ['{inst=1} NaN', '{inst=2} 8', '{inst=3} 2']);
  assert.deepEqual(await at(agg('max', h, { without: [] })), ['{inst=1,job=a} 1', '{inst=1,job=b} NaN', '{inst=2,job=a} 3', '{inst=2,job=b} 5', '{inst=3,job=b} 2']);
});

test('avg keeps an infinite mean, and +Inf with -Inf is NaN', async () => {
  assert.deepEqual(await at(agg('avg', sel('av'))), ['{} Infinity']);
  assert.deepEqual(await at(agg('avg', sel('an'))), ['{} NaN']);
});

test('topk / bottomk: Go heap order, NaN last, k truncated, k < 1 empty, k must fit int64', async () => {
  assert.deepEqual(await at(agg('topk', h, { param: num(2) })), ['{__name__=h,inst=2,job=b} 5', '{__name__=h,inst=2,job=a} 3']);
  assert.deepEqual(await at(agg('topk', h, { param: num(2.9) })), ['{__name__=h,inst=2,job=b} 5', '{__name__=h,inst=2,job=a} 3']);
  assert.deepEqual(await at(agg('topk', h, { param: num(3) })), ['{__name__=h,inst=2,job=b} 5', '{__name__=h,inst=2,job=a} 3', '{__name__=h,inst=3,job=b} 2']);
  assert.deepEqual(
    (await at(agg('topk', h, { param: num(5) }))).map((l) => l.split(' ')[1]),
    ['5', '3', '2', '1', 'NaN'],
  );
  assert.deepEqual(await at(agg('bottomk', h, { param: num(2) })), ['{__name__=h,inst=1,job=a} 1', '{__name__=h,inst=3,job=b} 2']);
  assert.deepEqual(await at(agg('topk', h, { param: num(1), by: ['job'] })), ['{__name__=h,inst=2,job=a} 3', '{__name__=h,inst=2,job=b} 5']);
  assert.deepEqual(await at(agg('topk', h, { param: num(0) })), []);
  assert.deepEqual(await at(agg('topk', h, { param: num(-1) })), []);
  await assert.rejects(at(agg('topk', h, { param: num(Number.NaN) })), (e: unknown) => e instanceof PromqlError && e.message === 'Scalar value NaN overflows int64');
  await assert.rejects(at(agg('topk', h, { param: num(1e19) })), (e: unknown) => e instanceof PromqlError && e.message === 'Scalar value 1e+19 overflows int64');
});

test('quantile: interpolated, NaN sorted first, φ outside [0, 1] is ∓Inf', async () => {
  assert.deepEqual(await at(agg('quantile', h, { param: num(0.5), by: ['job'] })), ['{job=a} 2', '{job=b} 2']);
  assert.deepEqual(await at(agg('quantile', sel('h', { job: 'a' }), { param: num(0.25) })), ['{} 1.5']);
  assert.deepEqual(await at(agg('quantile', h, { param: num(-1) })), ['{} -Infinity']);
  assert.deepEqual(await at(agg('quantile', h, { param: num(2) })), ['{} Infinity']);
  assert.deepEqual(await at(agg('quantile', h, { param: num(Number.NaN) })), ['{} NaN']);
});

test('count_values: the value as Go formats it (no exponent) becomes the label; label names are checked', async () => {
  assert.deepEqual(await at(agg('count_values', sel('cv'), { param: str('v') })), ['{v=1000000000000000000000} 2', '{v=0.5} 1']);
  assert.deepEqual(await at(agg('count_values', sel('cv'), { param: str('v'), by: ['i'] })), ['{i=1,v=1000000000000000000000} 1', '{i=2,v=1000000000000000000000} 1', '{i=3,v=0.5} 1']);
  assert.deepEqual(await at(agg('count_values', sel('cv'), { param: str('v'), without: ['i'] })), ['{v=1000000000000000000000} 2', '{v=0.5} 1']);
  assert.deepEqual(await at(agg('count_values', h, { param: str('job') })), ['{job=1} 1', '{job=NaN} 1', '{job=3} 1', '{job=5} 1', '{job=2} 1']);
  await assert.rejects(at(agg('count_values', h, { param: str('1x') })), (e: unknown) => e instanceof PromqlError && e.errorType === 'execution' && e.message === 'invalid label name "1x"');
  assert.deepEqual(
    [1e21, 1.5e-7, -0, 123456789012345680000, 0.1, Number.POSITIVE_INFINITY].map(formatFloatF),
    ['1000000000000000000000', '0.00000015', '-0', '123456789012345680000', '0.1', '+Inf'],
  );
});

test('Go %v spelling of floats in messages', () => {
  assert.deepEqual([1e19, 1e6, 100000, 1234567, 0.0001, 0.00001, 2.5, -3e-7].map(formatFloatV), ['1e+19', '1e+06', '100000', '1.234567e+06', '0.0001', '1e-05', '2.5', '-3e-07']);
});

test('aggregation parameters are evaluated per step', async () => {
  const s = new MemorySource()
    .add({ __name__: 'q', i: '1' }, [[0, 1]])
    .add({ __name__: 'q', i: '2' }, [[0, 2]]);
  // topk(time() / 60, q): k = 0 at t = 0, 1 at 60, 2 at 120.
  const k = { kind: 'binary', op: '/', lhs: { kind: 'call', func: 'time', args: [] }, rhs: num(60), returnBool: false } as const;
  assert.deepEqual(show(await evalRange(s, agg('topk', sel('q'), { param: k }), 0, 120, 60)), ['{__name__=q,i=1} 1@120', '{__name__=q,i=2} 2@60 2@120']);
});
