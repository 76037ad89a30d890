import assert from 'node:assert/strict';
import { test } from 'node:test';
import { StatusCode } from '../common/error/status-code.js';
import { TsdbError } from '../common/error/tsdb-error.js';
import { agg, atTime, BASE, bin, call, evalAt, evalRange, m, mat, MemorySource, neg, num, probed, sel, show, str, sub } from '../../test/support/promql-eval.js';
import { checkResolution, evaluateQueryWith } from './engine.js';
import { PromqlError } from './errors.js';

// x{a=3} is added first: the engine orders series by labels, whatever the source's order.
function xs(): MemorySource {
  return new MemorySource()
    .add({ __name__: 'x', a: '3' }, [[30, 5]])
    .add({ __name__: 'x', a: '1' }, [
      [0, 1],
      [60, 2],
      [120, 3],
    ])
    .add({ __name__: 'x', a: '2' }, [
      [0, 10],
      [60, 'stale'],
    ]);
}

/** y = t/10 every 10 s from 0 to 200 s. */
function ys(): MemorySource {
  return new MemorySource().add(
    { __name__: 'y' },
    Array.from({ length: 21 }, (_, i) => [i * 10, i] as const),
  );
}

const fails = (type: string, msg: string | RegExp) => (err: unknown) => {
  assert.ok(err instanceof PromqlError, String(err));
  assert.equal(err.errorType, type);
  if (typeof msg === 'string') assert.equal(err.message, msg);
  else assert.match(err.message, msg);
  return true;
};

test('instant selectors: latest sample in [t - lookback, t], none when it is a stale marker', async () => {
  const src = xs();
  assert.deepEqual(show(await evalAt(src, sel('x'), 120)), ['{__name__=x,a=1} 3', '{__name__=x,a=3} 5']);
  // 330 - 300 = 30: a sample exactly lookback old is still seen; a millisecond later it is not.
  assert.deepEqual(show(await evalAt(src, sel('x'), 330)), ['{__name__=x,a=1} 3', '{__name__=x,a=3} 5']);
  assert.deepEqual(show(await evaluateQueryWith(sel('x'), src, { ...BASE, startMs: 330_001, endMs: 330_001 }, {})), ['{__name__=x,a=1} 3']);
  assert.deepEqual(show(await evalAt(src, sel('x'), 59)), ['{__name__=x,a=1} 1', '{__name__=x,a=2} 10', '{__name__=x,a=3} 5']);
  const r = await evalAt(src, sel('x'), 59);
  assert.ok(r.type === 'vector' && r.vector.every((s) => s.t === 59_000), 'samples carry the evaluation time');
});

test('instant selectors across steps: short hops and long jumps between samples', async () => {
  assert.deepEqual(show(await evalRange(ys(), sel('y'), 0, 200, 100)), ['{__name__=y} 0@0 10@100 20@200']);
  assert.deepEqual(show(await evalRange(ys(), sel('y'), 5, 45, 20)), ['{__name__=y} 0@5 2@25 4@45']);
});

test('offset and @ (time, start(), end()) move the selection', async () => {
  const src = xs();
  assert.deepEqual(show(await evalAt(src, sel('x', {}, { offset: 60_000 }), 120)), ['{__name__=x,a=1} 2', '{__name__=x,a=3} 5']);
  assert.deepEqual(show(await evalAt(src, sel('x', {}, { at: atTime(60) }), 1000)), ['{__name__=x,a=1} 2', '{__name__=x,a=3} 5']);
  assert.deepEqual(show(await evalRange(src, sel('x', { a: '1' }, { at: { kind: 'end' } }), 0, 120, 60)), ['{__name__=x,a=1} 3@0 3@60 3@120']);
  assert.deepEqual(show(await evalRange(src, sel('x', { a: '1' }, { at: { kind: 'start' } }), 0, 120, 60)), ['{__name__=x,a=1} 1@0 1@60 1@120']);
  assert.deepEqual(show(await evalRange(src, sel('x', { a: '1' }, { at: atTime(60), offset: 60_000 }), 0, 60, 60)), ['{__name__=x,a=1} 1@0 1@60']);
});

test('range selectors in instant queries: [t - range, t] both included, stale markers removed, sorted', async () => {
  const src = xs();
  assert.deepEqual(show(await evalAt(src, mat(sel('x'), 60), 120)), ['{__name__=x,a=1} 2@60 3@120']);
  assert.deepEqual(show(await evalAt(src, mat(sel('x'), 90), 120)), ['{__name__=x,a=1} 2@60 3@120', '{__name__=x,a=3} 5@30']);
});

test('range queries: points at start + k·step, series sorted by labels; scalars; refused types', async () => {
  const src = xs();
  assert.deepEqual(show(await evalRange(src, sel('x'), 0, 120, 60)), ['{__name__=x,a=1} 1@0 2@60 3@120', '{__name__=x,a=2} 10@0', '{__name__=x,a=3} 5@60 5@120']);
  assert.deepEqual(show(await evalRange(src, num(2), 0, 120, 60)), ['{} 2@0 2@60 2@120']);
  assert.deepEqual(show(await evalAt(src, num(2), 7)), ['scalar 2@7']);
  assert.deepEqual(show(await evalAt(src, str('hi'), 7)), ['string hi@7']);
  await assert.rejects(evalRange(src, str('hi'), 0, 60, 60), fails('bad_data', 'invalid expression type "string" for range query, must be Scalar or instant Vector'));
  await assert.rejects(evalRange(src, mat(sel('x'), 60), 0, 60, 60), fails('bad_data', 'invalid expression type "range vector" for range query, must be Scalar or instant Vector'));
});

test('preparation: each distinct selector is fetched once, over the union of the ranges its uses need', async () => {
  const src = xs();
  const e = { kind: 'binary', op: '+', lhs: sel('x'), rhs: sel('x', {}, { offset: 60_000 }), returnBool: false } as const;
  await evalRange(src, e, 0, 120, 60);
  assert.equal(src.selects.length, 1);
  assert.equal(src.selects[0]!.startMs, -360_000);
  assert.equal(src.selects[0]!.endMs, 120_000);

  const src2 = xs();
  await evalAt(src2, { kind: 'binary', op: '+', lhs: call('sum_over_time', mat(sel('x'), 60)), rhs: sel(undefined, [m('__name__', '=', 'x')]), returnBool: false, matching: { card: 'one-to-one', on: false, labels: [], include: [] } }, 100);
  assert.equal(src2.selects.length, 1, 'x[60s] and x share one fetch');
  assert.deepEqual([src2.selects[0]!.startMs, src2.selects[0]!.endMs], [-200_000, 100_000]);

  // A subquery's inner selector needs its aligned grid [40, 95] plus the lookback.
  const src3 = ys();
  await evalAt(src3, call('sum_over_time', sub(sel('y'), 60, 20)), 95);
  assert.deepEqual([src3.selects[0]!.startMs, src3.selects[0]!.endMs], [-260_000, 95_000]);
  assert.equal(src3.selects[0]!.maxSamples, BASE.maxSamples);
});

test('range functions: one window per series per step, __name__ dropped unless the function keeps it, parameters per step', async () => {
  const src = xs();
  assert.deepEqual(show(await evalAt(src, call('sum_over_time', mat(sel('x'), 60)), 120)), ['{a=1} 5']);
  assert.deepEqual(show(await evalAt(src, call('last_over_time', mat(sel('x'), 90)), 120)), ['{__name__=x,a=1} 3', '{__name__=x,a=3} 5']);
  assert.deepEqual(show(await evalAt(src, call('quantile_over_time', num(0.5), mat(sel('x', { a: '1' }), 60)), 120)), ['{a=1} 2.5']);
  assert.deepEqual(show(await evalRange(src, call('quantile_over_time', call('time'), mat(sel('x', { a: '1' }), 60)), 60, 120, 60)), ['{a=1} 62@60 122@120']);
  probed.length = 0;
  assert.deepEqual(show(await evalAt(src, call('changes', mat(sel('x', { a: '1' }, { offset: 30_000 }), 60)), 150)), ['{a=1} 150']);
  assert.deepEqual(probed, ['{"__name__":"x","a":"1"} [60,120] 60,120']);
  probed.length = 0;
  await evalAt(src, call('changes', mat(sel('x', { a: '1' }, { at: atTime(120) }), 60)), 1000);
  assert.deepEqual(probed, ['{"__name__":"x","a":"1"} [60,120] 60,120']);
});

test('subqueries: inner steps aligned to multiples of the step, offset, @, default step, nesting', async () => {
  const src = ys();
  assert.deepEqual(show(await evalAt(src, call('sum_over_time', sub(sel('y'), 60, 20)), 95)), ['{} 18']);
  probed.length = 0;
  await evalAt(src, call('changes', sub(sel('y'), 60, 20)), 95);
  await evalAt(src, call('changes', sub(sel('y'), 60, 20, { offset: 30_000 })), 95);
  await evalAt(src, call('changes', sub(sel('y'), 120)), 100);
  await evalAt(src, call('changes', sub(sel('y'), 60, 20, { at: atTime(100) })), 1000);
  assert.deepEqual(probed, ['{"__name__":"y"} [35,95] 40,60,80', '{"__name__":"y"} [5,65] 20,40,60', '{"__name__":"y"} [-20,100] 0,60', '{"__name__":"y"} [40,100] 40,60,80,100']);
  // Inner: at T ∈ {60, 80, 100}, y(T-20) + y(T-10) + y(T) = (3T - 30)/10.
  assert.deepEqual(show(await evalAt(src, call('sum_over_time', sub(call('sum_over_time', sub(sel('y'), 20, 10)), 40, 20)), 100)), ['{} 63']);
  assert.deepEqual(show(await evalAt(src, sub(sel('y'), 30, 10), 95)), ['{__name__=y} 7@70 8@80 9@90']);
  assert.deepEqual(show(await evalRange(src, call('sum_over_time', sub(sel('y'), 20, 10)), 50, 70, 10)), ['{} 12@50 15@60 18@70']);
  assert.deepEqual(show(await evalAt(src, call('sum_over_time', sub(num(2), 30, 10)), 95)), ['{} 6']);
});

test('step-invariant subtrees (all pinned by @) are evaluated once, at the first step, as 2.42 does', async () => {
  const src = xs();
  probed.length = 0;
  assert.deepEqual(show(await evalRange(src, call('changes', mat(sel('x', { a: '1' }, { at: atTime(120) }), 60)), 0, 120, 60)), ['{a=1} 0@0 0@60 0@120']);
  assert.equal(probed.length, 1, 'one window for three steps');
  // 2.42 looks only at an aggregation's expression: the parameter is evaluated at the first step too.
  const k = bin('-', call('time'), num(59));
  assert.deepEqual(show(await evalRange(src, agg('topk', sel('x', {}, { at: atTime(120) }), { param: k }), 0, 120, 60)), []);
  assert.deepEqual(show(await evalRange(src, agg('topk', sel('x'), { param: k }), 0, 120, 60)), ['{__name__=x,a=1} 3@120', '{__name__=x,a=3} 5@60 5@120']);
  assert.deepEqual(show(await evalRange(src, bin('+', agg('sum', sel('x', {}, { at: atTime(120) })), call('time')), 0, 120, 60)), ['{} 8@0 68@60 128@120']);
});

test('two series with one label set after dropping __name__ is an error (range functions: over the whole range, as 2.42)', async () => {
  const src = new MemorySource().add({ __name__: 'a', j: '1' }, [[0, 1]]).add({ __name__: 'b', j: '1' }, [[0, 2]]);
  const both = sel(undefined, [m('__name__', '=~', 'a|b')]);
  const msg = 'vector cannot contain metrics with the same labelset';
  await assert.rejects(evalAt(src, call('sum_over_time', mat(both, 60)), 10), fails('execution', msg));
  await assert.rejects(evalAt(src, { kind: 'binary', op: '*', lhs: both, rhs: num(2), returnBool: false }, 10), fails('execution', msg));
  await assert.rejects(evalAt(src, call('abs', both), 10), fails('execution', msg));
  await assert.rejects(evalAt(src, neg(both), 10), fails('execution', msg));
  assert.equal(show(await evalAt(src, call('last_over_time', mat(both, 60)), 10)).length, 2);

  const apart = new MemorySource().add({ __name__: 'a', j: '1' }, [[0, 1]]).add({ __name__: 'b', j: '1' }, [[600, 2]]);
  assert.deepEqual(show(await evalRange(apart, { kind: 'binary', op: '*', lhs: both, rhs: num(2), returnBool: false }, 0, 600, 600)), ['{j=1} 2@0 4@600']);
  await assert.rejects(evalRange(apart, call('sum_over_time', mat(both, 60)), 0, 600, 600), fails('execution', msg));
});

test('timestamp(): the samples own times for a plain selector, else the step time', async () => {
  const src = xs();
  assert.deepEqual(show(await evalAt(src, call('timestamp', sel('x', { a: '1' })), 100)), ['{a=1} 60']);
  assert.deepEqual(show(await evalAt(src, call('timestamp', sel('x', { a: '1' }, { offset: 60_000 })), 100)), ['{a=1} 0']);
  assert.deepEqual(show(await evalAt(src, call('timestamp', call('abs', sel('x', { a: '1' }))), 100)), ['{a=1} 100']);
  assert.deepEqual(show(await evalRange(src, call('timestamp', sel('x', { a: '1' })), 0, 120, 30)), ['{a=1} 0@0 0@30 60@60 60@90 120@120']);
  // Checked against Prometheus 2.42: both `@` and `offset` apply.
  assert.deepEqual(show(await evalAt(src, call('timestamp', sel('x', { a: '1' }, { at: atTime(120), offset: 60_000 })), 500)), ['{a=1} 60']);
});

test('absent_over_time / absent: the selector fixed labels at steps with no sample', async () => {
  const src = xs();
  assert.deepEqual(show(await evalAt(src, call('absent_over_time', mat(sel('x', { a: '9' }), 60)), 100)), ['{a=9} 1']);
  assert.deepEqual(show(await evalAt(src, call('absent_over_time', mat(sel('x', { a: '1' }), 60)), 100)), []);
  assert.deepEqual(show(await evalRange(src, call('absent_over_time', mat(sel('x', { a: '1' }), 60)), 0, 240, 60)), ['{a=1} 1@240']);
  assert.deepEqual(show(await evalAt(src, call('absent', sel('x', [m('__name__', '=', 'x'), m('a', '=', '9'), m('b', '=~', '.+')])), 100)), ['{a=9} 1']);
  assert.deepEqual(show(await evalAt(src, call('absent', sel('x')), 100)), []);
});

test('instant vectors keep their evaluation order (sort_desc), scalar functions become scalars', async () => {
  const src = xs();
  assert.deepEqual(show(await evalAt(src, call('sort_desc', sel('x')), 120)), ['{__name__=x,a=3} 5', '{__name__=x,a=1} 3']);
  assert.deepEqual(show(await evalAt(src, call('scalar', sel('x', { a: '1' })), 120)), ['scalar 3@120']);
  assert.deepEqual(show(await evalAt(src, call('vector', call('time')), 120)), ['{} 120']);
  assert.deepEqual(show(await evalAt(src, neg(sel('x', { a: '1' })), 120)), ['{a=1} -3']);
});

test('sample limit: points held at once against maxSamples', async () => {
  const src = xs();
  const tooMany = 'query processing would load too many samples into memory in query execution';
  assert.equal(show(await evalRange(src, sel('x'), 0, 120, 60, { maxSamples: 6 })).length, 3);
  await assert.rejects(evalRange(src, sel('x'), 0, 120, 60, { maxSamples: 5 }), fails('execution', tooMany));
  const y = ys();
  // The 21-sample window is still held when its output is counted (Prometheus 2.42 needs 22 too).
  assert.deepEqual(show(await evalAt(y, call('sum_over_time', mat(sel('y'), 200)), 200, { maxSamples: 22 })), ['{} 210']);
  await assert.rejects(evalAt(y, call('sum_over_time', mat(sel('y'), 200)), 200, { maxSamples: 21 }), fails('execution', tooMany));
  // A subquery's points are held once, whether answered or windowed (2.42: 4 and 9).
  await evalAt(y, sub(sel('y'), 30, 10), 100, { maxSamples: 4 });
  await assert.rejects(evalAt(y, sub(sel('y'), 30, 10), 100, { maxSamples: 3 }), fails('execution', tooMany));
  await evalAt(y, call('sum_over_time', sub(sel('y'), 30, 10)), 100, { maxSamples: 9 });
  await assert.rejects(evalAt(y, call('sum_over_time', sub(sel('y'), 30, 10)), 100, { maxSamples: 8 }), fails('execution', tooMany));
});

test('cancellation: a deadline is a timeout, any other abort is canceled', async () => {
  const deadline = new AbortController();
  deadline.abort(new TsdbError(StatusCode.DeadlineExceeded, 'deadline'));
  await assert.rejects(evalAt(xs(), sel('x'), 10, { signal: deadline.signal }), fails('timeout', 'query timed out in expression evaluation'));
  const cancel = new AbortController();
  cancel.abort();
  await assert.rejects(evalAt(xs(), sel('x'), 10, { signal: cancel.signal }), fails('canceled', 'query was canceled in expression evaluation'));
  // Aborted while the source reads: noticed before the steps run.
  const during = new AbortController();
  const src = xs();
  const select = src.select.bind(src);
  src.select = async (req) => {
    during.abort(new TsdbError(StatusCode.DeadlineExceeded, 'deadline'));
    return select(req);
  };
  await assert.rejects(evalRange(src, sel('x'), 0, 120, 60, { signal: during.signal }), fails('timeout', /timed out/));
});

test('checkResolution refuses more than 11,000 points per series', () => {
  checkResolution(0, 11_000_000, 1000);
  assert.throws(() => checkResolution(0, 11_001_000, 1000), fails('bad_data', 'exceeded maximum resolution of 11,000 points per timeseries. Try decreasing the query resolution (?step=XX)'));
});

test('a function missing from the library is an internal error', async () => {
  await assert.rejects(evaluateQueryWith(call('rate', mat(sel('x'), 60)), xs(), { ...BASE, startMs: 1000, endMs: 1000 }, { functions: new Map() }), fails('internal', /rate/));
});

test('a long evaluation gives the event loop turns: a timer fires during it and its abort stops the query', async () => {
  // 2,000 series × 20,000 steps of a range query, and of a subquery: long enough to be cut short.
  const src = new MemorySource();
  for (let i = 0; i < 2000; i++) src.add({ __name__: 'big', i: String(i) }, Array.from({ length: 50 }, (_, k) => [k * 60, k] as const));
  const cases = [
    () => evalRange(src, agg('sum', sel('big')), 0, 240_000, 12, { signal: ac.signal }),
    () => evalAt(src, call('count_over_time', sub(agg('sum', sel('big')), 240_000, 12)), 240_000, { signal: ac.signal }),
  ];
  let ac = new AbortController();
  for (const run of cases) {
    ac = new AbortController();
    let ticks = 0;
    const ticker = setInterval(() => ticks++, 5);
    const timer = setTimeout(() => ac.abort(new TsdbError(StatusCode.DeadlineExceeded, 'deadline')), 150);
    const started = performance.now();
    await assert.rejects(run(), fails('timeout', 'query timed out in expression evaluation'));
    clearInterval(ticker);
    clearTimeout(timer);
    assert.ok(ticks >= 2, `the event loop ran timers ${ticks} times during the evaluation`);
    assert.ok(performance.now() - started < 2000, 'stopped soon after the deadline');
  }
});

test('the selectors of one query are read one after the other (each read holds a slot of the SQL query limiter)', async () => {
  const src = xs();
  let running = 0;
  let most = 0;
  const select = src.select.bind(src);
  src.select = async (req) => {
    running++;
    most = Math.max(most, running);
    await new Promise((r) => setTimeout(r, 5));
    try {
      return await select(req);
    } finally {
      running--;
    }
  };
  const r = await evalAt(src, bin('+', bin('+', sel('x', { a: '1' }), sel('x', { a: '2' }), { on: [] }), sel('x', { a: '3' }), { on: [] }), 30);
  assert.equal(r.type, 'vector');
  assert.equal(most, 1);
});
