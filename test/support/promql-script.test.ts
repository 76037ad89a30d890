/**
 * The PromQL test-script parser and comparison (promql-script.ts): expanding notation as
 * Prometheus's series-description grammar expands it, the commands, and Prometheus's tolerance.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { almostEqual, compareAnswer, parseDuration, parseScript, parseSeriesDesc, STALE, type EvalCommand } from './promql-script.js';

test('series values expand as in Prometheus: AxN is N+1 values, _xN is N blanks, no hexadecimal', () => {
  const d = parseSeriesDesc('m{a="x", b=\'y\\n\'} 0x2 1+2x3 10-1x2 _x2 _ stale -Inf Inf NaN 1e3 .5');
  assert.deepEqual(d.labels, { __name__: 'm', a: 'x', b: 'y\n' });
  assert.deepEqual(d.values, [0, 0, 0, 1, 3, 5, 7, 10, 9, 8, undefined, undefined, undefined, STALE, -Infinity, Infinity, Number.NaN, 1000, 0.5]);
  assert.deepEqual(parseSeriesDesc('{} 1').labels, {});
  assert.deepEqual(parseSeriesDesc('up').values, []);
  assert.throws(() => parseSeriesDesc('m 1+2'), /bad series value/);
  assert.throws(() => parseSeriesDesc('m stalex2'), /bad series value/);
  assert.throws(() => parseSeriesDesc('m{a=x} 1'), /quoted/);
});

test('durations are Prometheus model durations', () => {
  assert.equal(parseDuration('0'), 0);
  assert.equal(parseDuration('1h30m'), 5_400_000);
  assert.equal(parseDuration('1d2s'), 86_402_000);
  assert.equal(parseDuration('250ms'), 250);
  assert.throws(() => parseDuration('5'));
  assert.throws(() => parseDuration('1m1h'));
});

test('scripts: load, clear, eval instant/range/fail/ordered; comments end blocks', () => {
  const cmds = parseScript(
    ['load 1m', '  m{a="1"} 1 2', '# ends the load block', '', 'eval instant at 1m m', '  m{a="1"} 2', '', 'eval_ordered instant at 1m sort(m)', '  m{a="1"} 2',
      '', 'eval instant at 0 1', '  0x10', '', 'eval range from 0 to 2m step 1m m', '  m{a="1"} 1 2', '', 'eval_fail instant at 0 m{', '  expected_fail_message boom', '  expected_fail_regexp ^b.*m$', '', 'clear'].join('\n'),
    'x.test',
  );
  assert.deepEqual(cmds.map((c) => c.kind), ['load', 'eval', 'eval', 'eval', 'eval', 'eval', 'clear']);
  const [, inst, ord, scal, rng, fail] = cmds as [unknown, EvalCommand, EvalCommand, EvalCommand, EvalCommand, EvalCommand];
  assert.equal(inst.startMs, 60_000);
  assert.equal(ord.ordered, true);
  assert.equal(scal.scalar, 16);
  assert.deepEqual([rng.range, rng.startMs, rng.endMs, rng.stepMs], [true, 0, 120_000, 60_000]);
  assert.deepEqual([fail.fail, fail.failMessage, String(fail.failRegexp)], [true, 'boom', '/^b.*m$/']);
  assert.throws(() => parseScript('eval instant at 0 m\n  m 1 2', 'y.test'), /y\.test:2: an instant eval expects exactly one value/);
  assert.throws(() => parseScript('bogus', 'z.test'), /z\.test:1: invalid command/);
});

test('comparison: Prometheus epsilon, NaN equals NaN, labels exact, order only when asked', () => {
  assert.ok(almostEqual(Number.NaN, Number.NaN));
  assert.ok(almostEqual(1, 1 + 1e-7));
  assert.ok(!almostEqual(1, 1 + 1e-5));
  assert.ok(!almostEqual(0, 1e-300));
  assert.ok(!almostEqual(Infinity, -Infinity));
  const [, cmd] = parseScript('load 1m\n  m{a="1"} 1\n\neval_ordered instant at 0 m\n  m{a="1"} 1\n  m{a="2"} NaN', 'c.test') as [unknown, EvalCommand];
  const got = (a: string, b: string, v = 1) => ({ ok: true as const, resultType: 'vector' as const, series: [{ labels: { __name__: 'm', a }, value: v }, { labels: { __name__: 'm', a: b }, value: Number.NaN }] });
  assert.deepEqual(compareAnswer(cmd, got('1', '2')), []);
  assert.equal(compareAnswer(cmd, got('1', '2', 2)).length, 1);
  assert.match(compareAnswer(cmd, got('1', '3')).join('\n'), /unexpected series m\{a="3"\}[\s\S]*missing series m\{a="2"\}/);
  const swapped = { ok: true as const, resultType: 'vector' as const, series: [got('1', '2').series[1]!, got('1', '2').series[0]!] };
  assert.equal(compareAnswer(cmd, swapped).length, 2);
  assert.deepEqual(compareAnswer({ ...cmd, ordered: false }, swapped), []);
});
