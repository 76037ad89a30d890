import assert from 'node:assert/strict';
import { test } from 'node:test';
import { bin, evalAt, evalRange, m, MemorySource, num, sel, show } from '../../test/support/promql-eval.js';
import { PromqlError } from './errors.js';

const fails = (msg: string) => (err: unknown) => {
  assert.ok(err instanceof PromqlError, String(err));
  assert.equal(err.errorType, 'execution');
  assert.equal(err.message, msg);
  return true;
};

function src(): MemorySource {
  return new MemorySource()
    .add({ __name__: 'v', i: '1' }, [[0, 1]])
    .add({ __name__: 'v', i: '2' }, [[0, 5]])
    .add({ __name__: 'l', i: '1', k: 'a' }, [[0, 10]])
    .add({ __name__: 'l', i: '2', k: 'b' }, [[0, 20]])
    .add({ __name__: 'r', i: '1', k: 'x' }, [[0, 2]])
    .add({ __name__: 'r', i: '2', k: 'y' }, [[0, 4]])
    .add({ __name__: 'l2', i: '1', k: 'a' }, [[0, 10]])
    .add({ __name__: 'l2', i: '1', k: 'b' }, [[0, 20]])
    .add({ __name__: 'r2', i: '1', z: 'q' }, [[0, 2]])
    .add({ __name__: 'lx', i: '1' }, [[0, 1]])
    .add({ __name__: 'ly', i: '1' }, [[0, 1]]);
}

const scalar = async (e: Parameters<typeof evalAt>[1]): Promise<number> => {
  const r = await evalAt(src(), e, 10);
  assert.equal(r.type, 'scalar');
  return r.type === 'scalar' ? r.v : Number.NaN;
};

test('scalar–scalar: Go math.Mod / math.Pow / Atan2, IEEE division, comparisons as 0/1', async () => {
  assert.equal(await scalar(bin('%', num(7), num(-3))), 1);
  assert.equal(await scalar(bin('%', num(-7), num(3))), -1);
  assert.ok(Number.isNaN(await scalar(bin('%', num(7), num(0)))));
  assert.equal(await scalar(bin('%', num(5), num(Number.POSITIVE_INFINITY))), 5);
  assert.equal(await scalar(bin('^', num(2), num(10))), 1024);
  assert.equal(await scalar(bin('^', num(1), num(Number.NaN))), 1, 'Go: Pow(1, y) = 1 for any y');
  assert.equal(await scalar(bin('^', num(-1), num(Number.POSITIVE_INFINITY))), 1, 'Go: Pow(-1, ±Inf) = 1');
  assert.ok(Number.isNaN(await scalar(bin('^', num(-8), num(1 / 3)))));
  // Go's repeated squaring, not V8's pow: values from Prometheus 2.42, several differ from JS's `**`.
  for (const [x, y, want] of [
    [1.1, 50, 117.39085287969571],
    [0.7, 13, 0.00968890104069999],
    [3.3, -7, 0.00023464020037983855],
    [1.0001, 10000, 2.718145926824356],
    [17.17, 17, 979704307962097800000],
    [123.456, 3, 1881640.2952028161],
    [1.3, 2, 1.6900000000000002],
    [2.5, -3, 0.064],
    [2, 0.3, 1.2311444133449163],
    [10, 0.5, 3.1622776601683795],
    [2, -1074.5, 5e-324],
    [-2, 3, -8],
    [Number.NEGATIVE_INFINITY, 3, Number.NEGATIVE_INFINITY],
    [Number.NEGATIVE_INFINITY, 0.5, Number.POSITIVE_INFINITY],
    [-0, -3, Number.NEGATIVE_INFINITY],
    [0.5, Number.POSITIVE_INFINITY, 0],
  ] as const) {
    assert.equal(await scalar(bin('^', num(x), num(y))), want, `${x} ^ ${y}`);
  }
  assert.equal(await scalar(bin('/', num(1), num(0))), Number.POSITIVE_INFINITY);
  assert.equal(await scalar(bin('/', num(-1), num(0))), Number.NEGATIVE_INFINITY);
  assert.ok(Number.isNaN(await scalar(bin('/', num(0), num(0)))));
  assert.equal(await scalar(bin('atan2', num(1), num(1))), Math.PI / 4);
  // Go's Atan2, not V8's: these differ from Math.atan2 in the last place (values from Prometheus 2.42).
  assert.equal(await scalar(bin('atan2', num(10), num(3))), 1.2793395323170293);
  assert.equal(await scalar(bin('atan2', num(10), num(2))), 1.3734007669450157);
  assert.equal(await scalar(bin('atan2', num(-20), num(2))), -1.4711276743037345);
  assert.equal(await scalar(bin('atan2', num(0), num(-1))), Math.PI);
  assert.equal(await scalar(bin('atan2', num(-1), num(Number.NEGATIVE_INFINITY))), -Math.PI);
  assert.equal(await scalar(bin('>', num(5), num(3), { bool: true })), 1);
  assert.equal(await scalar(bin('==', num(5), num(3), { bool: true })), 0);
});

test('vector–scalar: comparisons filter (keeping __name__) or answer 0/1 with bool; arithmetic drops __name__, atan2 keeps it', async () => {
  const s = src();
  const v = sel('v');
  assert.deepEqual(show(await evalAt(s, bin('>', v, num(2)), 10)), ['{__name__=v,i=2} 5']);
  assert.deepEqual(show(await evalAt(s, bin('>', v, num(2), { bool: true }), 10)), ['{i=1} 0', '{i=2} 1']);
  assert.deepEqual(show(await evalAt(s, bin('<', num(2), v), 10)), ['{__name__=v,i=2} 5'], 'the vector element keeps its value');
  assert.deepEqual(show(await evalAt(s, bin('-', num(2), v), 10)), ['{i=1} 1', '{i=2} -3']);
  assert.deepEqual(show(await evalAt(s, bin('/', v, num(0)), 10)), ['{i=1} Infinity', '{i=2} Infinity']);
  assert.deepEqual(show(await evalAt(s, bin('atan2', v, num(0)), 10)), [`{__name__=v,i=1} ${Math.PI / 2}`, `{__name__=v,i=2} ${Math.PI / 2}`]);
});

test('vector–vector one-to-one: on keeps only the on labels, ignoring drops the listed ones, no match no sample', async () => {
  const s = src();
  assert.deepEqual(show(await evalAt(s, bin('/', sel('l'), sel('r'), { on: ['i'] }), 10)), ['{i=1} 5', '{i=2} 5']);
  assert.deepEqual(show(await evalAt(s, bin('/', sel('l'), sel('r'), { ignoring: ['k'] }), 10)), ['{i=1} 5', '{i=2} 5']);
  assert.deepEqual(show(await evalAt(s, bin('/', sel('l'), sel('r')), 10)), []);
  assert.deepEqual(show(await evalAt(s, bin('>', sel('l'), sel('r'), { on: ['i'] }), 10)), ['{i=1} 10', '{i=2} 20']);
  assert.deepEqual(show(await evalAt(s, bin('>', sel('l'), sel('r'), { ignoring: ['k'] }), 10)), ['{__name__=l,i=1} 10', '{__name__=l,i=2} 20']);
  assert.deepEqual(show(await evalAt(s, bin('<', sel('l'), sel('r'), { ignoring: ['k'], bool: true }), 10)), ['{i=1} 0', '{i=2} 0']);
});

test('group_left / group_right: the many side labels plus the included labels of the one side', async () => {
  const s = src();
  assert.deepEqual(show(await evalAt(s, bin('*', sel('l2'), sel('r2'), { on: ['i'], groupLeft: ['z'] }), 10)), ['{i=1,k=a,z=q} 20', '{i=1,k=b,z=q} 40']);
  assert.deepEqual(show(await evalAt(s, bin('*', sel('r2'), sel('l2'), { on: ['i'], groupRight: ['z'] }), 10)), ['{i=1,k=a,z=q} 20', '{i=1,k=b,z=q} 40']);
  // A comparison answers the left operand's value, on the many side's labels.
  assert.deepEqual(show(await evalAt(s, bin('<', sel('r2'), sel('l2'), { on: ['i'], groupRight: [] }), 10)), ['{__name__=l2,i=1,k=a} 2', '{__name__=l2,i=1,k=b} 2']);
});

test('matching errors, with 2.42 messages', async () => {
  const s = src();
  await assert.rejects(
    evalAt(s, bin('*', sel('r2'), sel('l2'), { on: ['i'] }), 10),
    fails('found duplicate series for the match group {i="1"} on the right hand-side of the operation: [{__name__="l2", i="1", k="b"}, {__name__="l2", i="1", k="a"}];many-to-many matching not allowed: matching labels must be unique on one side'),
  );
  await assert.rejects(
    evalAt(s, bin('*', sel('l2'), sel('r2'), { on: ['i'], groupRight: [] }), 10),
    fails('found duplicate series for the match group {i="1"} on the left hand-side of the operation: [{__name__="l2", i="1", k="b"}, {__name__="l2", i="1", k="a"}];many-to-many matching not allowed: matching labels must be unique on one side'),
  );
  await assert.rejects(evalAt(s, bin('*', sel('l2'), sel('r2'), { on: ['i'] }), 10), fails('multiple matches for labels: many-to-one matching must be explicit (group_left/group_right)'));
  await assert.rejects(
    evalAt(s, bin('*', sel(undefined, [m('__name__', '=~', 'lx|ly')]), sel('r2'), { on: ['i'], groupLeft: [] }), 10),
    fails('multiple matches for labels: grouping labels must ensure unique matches'),
  );
});

test('set operators: and / or / unless, many-to-many, with on/ignoring', async () => {
  const s = src();
  assert.deepEqual(show(await evalAt(s, bin('and', sel('l'), sel('r'), { on: ['i'] }), 10)), ['{__name__=l,i=1,k=a} 10', '{__name__=l,i=2,k=b} 20']);
  assert.deepEqual(show(await evalAt(s, bin('and', sel('l'), sel('r')), 10)), []);
  assert.deepEqual(show(await evalAt(s, bin('and', sel('l'), sel('r'), { ignoring: ['k'] }), 10)), ['{__name__=l,i=1,k=a} 10', '{__name__=l,i=2,k=b} 20']);
  assert.deepEqual(show(await evalAt(s, bin('or', sel('l'), sel('r')), 10)), ['{__name__=l,i=1,k=a} 10', '{__name__=l,i=2,k=b} 20', '{__name__=r,i=1,k=x} 2', '{__name__=r,i=2,k=y} 4']);
  assert.deepEqual(show(await evalAt(s, bin('or', sel('l'), sel('r'), { on: ['i'] }), 10)), ['{__name__=l,i=1,k=a} 10', '{__name__=l,i=2,k=b} 20']);
  assert.deepEqual(show(await evalAt(s, bin('unless', sel('l'), sel('r', { i: '1' }), { on: ['i'] }), 10)), ['{__name__=l,i=2,k=b} 20']);
  assert.deepEqual(show(await evalAt(s, bin('unless', sel('l'), sel('nothing')), 10)), ['{__name__=l,i=1,k=a} 10', '{__name__=l,i=2,k=b} 20']);
  // Many-to-many: both l2 series match the one r2 series.
  assert.deepEqual(show(await evalAt(s, bin('and', sel('l2'), sel('r2'), { on: ['i'] }), 10)), ['{__name__=l2,i=1,k=a} 10', '{__name__=l2,i=1,k=b} 20']);
});

test('binary operators in range queries match per step', async () => {
  const s = new MemorySource()
    .add({ __name__: 'a', i: '1' }, [
      [0, 1],
      [60, 2],
    ])
    .add({ __name__: 'b', i: '1' }, [[60, 10]]);
  assert.deepEqual(show(await evalRange(s, bin('+', sel('a'), sel('b'), { on: ['i'] }), 0, 60, 60)), ['{i=1} 12@60']);
  assert.deepEqual(show(await evalRange(s, bin('or', sel('b'), sel('a')), 0, 60, 60)), ['{__name__=a,i=1} 1@0', '{__name__=b,i=1} 10@60'], 'a{i=1} at 60 matches b{i=1} (__name__ is ignored)');
});
