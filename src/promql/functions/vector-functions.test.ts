/**
 * sort/sort_desc order (ties, NaN, ±Inf) against a real Prometheus 2.42 server; sort_by_label's
 * natural order, absent()'s labels, scalar/vector by hand.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Expr } from '../ast.js';
import type { PromqlError } from '../errors.js';
import { compareLabels, labelsFrom } from '../labels.js';
import type { Vector } from '../values.js';
import { PROMETHEUS, startPrometheus } from '../../../test/support/prometheus-oracle.js';
import { FUNCTIONS } from './index.js';
import type { InstantFunction } from './types.js';
import { absentLabels, natsortLess } from './vector-functions.js';

function fn(name: string): InstantFunction {
  const f = FUNCTIONS.get(name);
  assert.ok(f !== undefined && f.kind === 'instant');
  return f;
}

const ctx = { evalTimeMs: 1000, args: [] as Expr[] };

function omValue(v: number): string {
  if (Number.isNaN(v)) return 'NaN';
  if (v === Infinity) return '+Inf';
  if (v === -Infinity) return '-Inf';
  return String(v);
}

const VECTORS: Record<string, number[]> = {
  small_ties: [2, 1, Number.NaN, 2, 1, Number.NaN, 3, 0],
  pdq_ties: Array.from({ length: 30 }, (_, i) => [1, 2, Number.NaN, 3, 1, 2][i % 6]!),
  many: Array.from({ length: 100 }, (_, i) => (i % 9 === 0 ? Number.NaN : i % 13 === 0 ? Infinity : i % 17 === 0 ? -Infinity : (i * 7) % 5)),
  all_nan: Array.from({ length: 14 }, () => Number.NaN),
  descending: Array.from({ length: 60 }, (_, i) => 60 - i),
  ascending_dups: Array.from({ length: 55 }, (_, i) => Math.floor(i / 4)),
  // Long enough and badly ordered enough to take pdqsort's pattern-breaking (xorshift) path.
  organ_pipe: Array.from({ length: 200 }, (_, i) => (i < 100 ? i : 199 - i) % 37),
};

test('sort and sort_desc order ties, NaN and ±Inf exactly as Prometheus 2.42 (Go 1.19 pdqsort)', async () => {
  const tSec = Math.floor(Date.now() / 1000) - 3600;
  let om = '';
  for (const [name, values] of Object.entries(VECTORS)) {
    om += `# TYPE ${name} gauge\n`;
    values.forEach((v, i) => (om += `${name}{i="${String(i).padStart(3, '0')}"} ${omValue(v)} ${tSec}\n`));
  }
  const prom = await startPrometheus(om);
  try {
    for (const [name, values] of Object.entries(VECTORS)) {
      // The selector hands the series in label order.
      const vec: Vector = values
        .map((v, i) => ({ labels: labelsFrom({ __name__: name, i: String(i).padStart(3, '0') }), t: 0, v }))
        .sort((a, b) => compareLabels(a.labels, b.labels));
      for (const f of ['sort', 'sort_desc']) {
        const want = (await prom.query(`${f}(${name})`, tSec + 1)).map((s) => s.metric['i']);
        const got = fn(f)
          .apply([vec], ctx)
          .map((s) => s.labels.find((l) => l.name === 'i')!.value);
        assert.deepEqual(got, want, `${f}(${name})`);
      }
    }
  } finally {
    await prom.stop();
  }
});

test('sort does not change its input and keeps __name__', () => {
  const vec: Vector = [
    { labels: labelsFrom({ __name__: 'x', a: '1' }), t: 0, v: 3 },
    { labels: labelsFrom({ __name__: 'x', a: '2' }), t: 0, v: 1 },
  ];
  const out = fn('sort').apply([vec], ctx);
  assert.deepEqual(
    out.map((s) => s.v),
    [1, 3],
  );
  assert.equal(vec[0]!.v, 3);
  assert.equal(out[0]!.labels[0]!.value, 'x');
});

test('natsort: digit runs compare as integers, the rest as strings (facette/natsort)', () => {
  assert.equal(natsortLess('a2', 'a10'), true);
  assert.equal(natsortLess('a10', 'a2'), false);
  assert.equal(natsortLess('a', 'b'), true);
  assert.equal(natsortLess('x1y', 'x1z'), true);
  assert.equal(natsortLess('007', '7'), true, 'equal numbers: the shorter chunk list (A ends first) sorts first');
  assert.equal(natsortLess('', 'a'), false);
  assert.equal(natsortLess('a', ''), false);
  assert.equal(natsortLess('99999999999999999999', '1'), false, 'beyond int64 the chunks compare as strings');
});

test('sort_by_label and sort_by_label_desc: natural order by the named labels, then the full label set', () => {
  const mk = (host: string, extra: string): { labels: ReturnType<typeof labelsFrom>; t: number; v: number } => ({ labels: labelsFrom({ __name__: 'up', host, z: extra }), t: 0, v: 1 });
  const vec: Vector = [mk('node10', 'a'), mk('node2', 'b'), mk('node2', 'a'), mk('node1', 'c')];
  const asc = fn('sort_by_label').apply([vec, 'host'], ctx);
  assert.deepEqual(
    asc.map((s) => `${s.labels[1]!.value}/${s.labels[2]!.value}`),
    ['node1/c', 'node2/a', 'node2/b', 'node10/a'],
  );
  const desc = fn('sort_by_label_desc').apply([vec, 'host'], ctx);
  assert.deepEqual(
    desc.map((s) => `${s.labels[1]!.value}/${s.labels[2]!.value}`),
    ['node10/a', 'node2/b', 'node2/a', 'node1/c'],
  );
});

test('absent labels: equality matchers of a plain selector, a label named twice dropped, none for other expressions', () => {
  const sel = (matchers: [string, '=' | '!=' | '=~' | '!~', string][]): Expr => ({ kind: 'vector', matchers: matchers.map(([name, type, value]) => ({ name, type, value })), offsetMs: 0 });
  assert.deepEqual(absentLabels(sel([['__name__', '=', 'x'], ['job', '=', 'a'], ['env', '=~', 'p.*']])), labelsFrom({ job: 'a' }));
  assert.deepEqual(absentLabels(sel([['job', '=', 'a'], ['job', '=', 'b'], ['x', '=', 'y']])), labelsFrom({ x: 'y' }));
  assert.deepEqual(absentLabels({ kind: 'paren', expr: sel([['job', '=', 'a']]) }), labelsFrom({ job: 'a' }));
  assert.deepEqual(absentLabels({ kind: 'matrix', selector: sel([['job', '=', 'a']]) as never, rangeMs: 60_000 }), labelsFrom({ job: 'a' }));
  assert.deepEqual(absentLabels({ kind: 'call', func: 'rate', args: [] }), []);
  const absent = fn('absent');
  assert.deepEqual(absent.apply([[]], { evalTimeMs: 5000, args: [sel([['job', '=', 'a']])] }), [{ labels: labelsFrom({ job: 'a' }), t: 5000, v: 1 }]);
  assert.deepEqual(absent.apply([[{ labels: [], t: 0, v: 1 }]], { evalTimeMs: 5000, args: [sel([['job', '=', 'a']])] }), []);
});

test('errors raised while evaluating functions have Prometheus 2.42\'s type (execution) and wording', async () => {
  const tSec = Math.floor(Date.now() / 1000) - 3600;
  const prom = await startPrometheus(`# TYPE x gauge\nx{a="v"} 1 ${tSec}\nx{a="v"} 2 ${tSec + 15}\n`);
  const vec: Vector = [{ labels: labelsFrom({ __name__: 'x', a: 'v' }), t: 0, v: 2 }];
  const win = { labels: vec[0]!.labels, t: [0, 15_000], v: [1, 2], from: 0, to: 2, rangeStartMs: -285_000, rangeEndMs: 15_000 };
  const cases: [string, () => unknown][] = [
    ['holt_winters(x[5m], 2, 0.5)', () => (FUNCTIONS.get('holt_winters') as { apply: (w: typeof win, p: number[], t: number) => unknown }).apply(win, [2, 0.5], 0)],
    ['holt_winters(x[5m], 0.5, 0)', () => (FUNCTIONS.get('holt_winters') as { apply: (w: typeof win, p: number[], t: number) => unknown }).apply(win, [0.5, 0], 0)],
    ['label_replace(x, "1a", "", "a", "")', () => fn('label_replace').apply([vec, '1a', '', 'a', ''], ctx)],
    ['label_replace(x, "a", "", "a", "(")', () => fn('label_replace').apply([vec, 'a', '', 'a', '('], ctx)],
    ['label_join(x, "a", ",", "1b")', () => fn('label_join').apply([vec, 'a', ',', '1b'], ctx)],
    ['label_join(x, "-", ",", "a")', () => fn('label_join').apply([vec, '-', ',', 'a'], ctx)],
  ];
  try {
    for (const [q, ours] of cases) {
      const want = await prom.query(q, tSec + 20).then(
        () => 'no error',
        (e: Error) => e.message.replace(/^prometheus: /, ''),
      );
      let got = 'no error';
      try {
        ours();
      } catch (e) {
        got = `${(e as PromqlError).errorType}: ${(e as Error).message}`;
      }
      assert.equal(got, want, q);
    }
  } finally {
    await prom.stop();
  }
});
