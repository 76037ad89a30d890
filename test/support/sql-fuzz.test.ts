import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fuzzTokens, mutants, mutate, OPERATIONS, Rng } from './sql-fuzz.js';

const CORPUS = [
  "SELECT ts, avg(v) RANGE '5m' FROM t ALIGN '1m' BY (h) ORDER BY h",
  "INSERT INTO t VALUES ('a', 1, 1.5), ('b''c', 2, NULL)",
  'CREATE TABLE t (h STRING PRIMARY KEY, ts TIMESTAMP TIME INDEX, v DOUBLE)',
];

test('Rng: a seed gives one sequence; integers stay in range', () => {
  const a = new Rng(42);
  const b = new Rng(42);
  const xs = Array.from({ length: 1000 }, () => a.next());
  assert.deepEqual(xs, Array.from({ length: 1000 }, () => b.next()));
  assert.ok(xs.every((x) => x >= 0 && x < 1));
  assert.notDeepEqual(xs.slice(0, 10), Array.from({ length: 10 }, (() => { const c = new Rng(43); return () => c.next(); })()));
  const r = new Rng(7);
  for (let i = 0; i < 1000; i++) {
    const n = r.between(3, 5);
    assert.ok(n >= 3 && n <= 5 && Number.isInteger(n));
  }
});

test('fuzzTokens: joined, the tokens are the text; quotes and comments stay whole, even unterminated', () => {
  for (const sql of [...CORPUS, "SELECT 'unterminated", 'SELECT "a""b" /* c */ -- d\n1e-3', 'x\u0000y😀z', '']) {
    assert.equal(fuzzTokens(sql).join(''), sql);
  }
  assert.deepEqual(fuzzTokens("a 'b''c' /* d */"), ['a', ' ', "'b''c'", ' ', '/* d */']);
  assert.deepEqual(fuzzTokens("'open"), ["'open"]);
});

test('mutants: deterministic for a seed, different for another, every operation used, each differs from its base', () => {
  const one = [...mutants(1234, CORPUS, 500)];
  assert.deepEqual(one, [...mutants(1234, CORPUS, 500)]);
  assert.notDeepEqual(one.map((m) => m.sql), [...mutants(1235, CORPUS, 500)].map((m) => m.sql));
  const used = new Set(one.flatMap((m) => m.ops));
  assert.deepEqual([...used].sort(), [...OPERATIONS].sort());
  const changed = one.filter((m) => m.sql !== CORPUS[m.base]).length;
  // A swap of two equal tokens or a cut at the very end can leave a statement as it was; rarely.
  assert.ok(changed > 450, `only ${changed} of 500 mutants differ from their statement`);
  assert.ok(one.every((m) => m.sql.length <= 200_000));
});

test('mutants reach the awkward inputs: NUL bytes, unterminated strings, deep parentheses, long identifiers', () => {
  const sqls = [...mutants(99, CORPUS, 3000)].map((m) => m.sql);
  assert.ok(sqls.some((s) => s.includes('\u0000')));
  assert.ok(sqls.some((s) => /\({40}/.test(s)));
  assert.ok(sqls.some((s) => /[a-zA-Z_9]{255}/.test(s)));
  assert.ok(sqls.some((s) => /'abc$|'abc\s/.test(s)));
  assert.ok(sqls.some((s) => /9{19}/.test(s)));
});

test('mutate draws from the whole corpus', () => {
  const r = new Rng(5);
  const bases = new Set(Array.from({ length: 100 }, () => mutate(r, CORPUS).base));
  assert.deepEqual([...bases].sort(), [0, 1, 2]);
});
