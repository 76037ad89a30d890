import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DuckDBInstance } from '@duckdb/node-api';
import { quoteLiteral } from '../../common/sql-quote.js';
import { likeMatcher, MAX_TESTED_LENGTH, regexMatcher } from './index-regex.js';

const VALUES = ['host_1', 'host_10', 'host_2', 'HOST_3', 'a.b', 'a-b', 'x{2}', 'é', '😀', 'line\nbreak', '', 'ab]', 'aab'];

/** Patterns inside the shared subset: JavaScript must agree with DuckDB (RE2) on every value. */
const SHARED = ['host_1', '^host_1$', 'host_[0-9]+', 'host_(1|2)$', '^.$', 'a\\.b', 'a.b', '[^a-z]', '\\d{2}', '\\w+', '^a{2}b', 'b$', '^$', 'é|😀', 'x\\{2\\}', '^(host|HOST)_\\d$', '[a-c]-b', 'line.break', '.*_1.*', 'a?b', '\\d{1,3}', 'h.*?_', 'a\\*?'];
/** Patterns whose meaning differs or that RE2 reads otherwise: refused. */
const REFUSED = ['\\sa', '(?i)host', '[[:alpha:]]', 'x{2', '[]a]', 'a\\-b', '\\bhost', '(?P<n>a)', '\\pL', 'ab]', '\\Q.\\E'];
/** Patterns JavaScript's backtracking would take too long over (exponential, or of a high degree): refused. */
const SLOW = ['(.*)*x', '(a+)+$', '(a|aa)*b', '(a?){20}', '.*.*.*x', 'a+b+c+', 'a?a?a?a?aaaa', 'x{0,1000}y', '.*a{2,}b+'];

test('regexes in the shared subset match what DuckDB matches, anywhere and whole', async (t) => {
  const db = await DuckDBInstance.create(':memory:');
  const conn = await db.connect();
  t.after(() => {
    conn.closeSync();
    db.closeSync();
  });
  const list = VALUES.map(quoteLiteral).join(', ');
  for (const p of SHARED) {
    for (const full of [false, true]) {
      const re = regexMatcher(p, full);
      assert.ok(re !== undefined, `${p} should be in the subset`);
      const fn = full ? 'regexp_full_match' : 'regexp_matches';
      const rows = (await conn.runAndReadAll(`SELECT v FROM unnest([${list}]) AS t(v) WHERE ${fn}(v, ${quoteLiteral(p)}) ORDER BY v`)).getRows().map((r) => r[0]);
      const mine = VALUES.filter((v) => re(v)).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
      assert.deepEqual([...mine].sort(), [...(rows as string[])].sort(), `${fn}(v, '${p}')`);
    }
  }
});

test('regexes outside the shared subset are refused', () => {
  for (const p of REFUSED) assert.equal(regexMatcher(p, false), undefined, p);
});

test('patterns that would backtrack for long are refused; long values are not tested, counting as matching', () => {
  for (const p of SLOW) assert.equal(regexMatcher(p, false), undefined, p);
  const m = regexMatcher('.*a.*b', false)!;
  assert.equal(m('a'.repeat(MAX_TESTED_LENGTH - 1) + 'c'), false);
  assert.equal(m('a'.repeat(MAX_TESTED_LENGTH - 1) + 'b'), true);
  assert.equal(m('x'.repeat(MAX_TESTED_LENGTH + 1)), true, 'too long to test: counts as matching');
  // A LIKE of many % over a long value is linear in value × pattern.
  const like = likeMatcher('%a%a%a%a%a%a%a%a%a%a%b')!;
  assert.equal(like('a'.repeat(20_000)), false);
  assert.equal(like('a'.repeat(20_000) + 'b'), true);
});

test('LIKE patterns match what DuckDB matches; a backslash is refused', async (t) => {
  const db = await DuckDBInstance.create(':memory:');
  const conn = await db.connect();
  t.after(() => {
    conn.closeSync();
    db.closeSync();
  });
  const list = VALUES.map(quoteLiteral).join(', ');
  for (const p of ['host%', 'host\\_1', '%b', '_', '%', 'a_b', 'x{2}', 'line%', '', '%_%', '%%b', 'h%_1', '_%_', '%ab%', 'a%b%']) {
    const re = likeMatcher(p);
    if (p.includes('\\')) {
      assert.equal(re, undefined);
      continue;
    }
    const rows = (await conn.runAndReadAll(`SELECT v FROM unnest([${list}]) AS t(v) WHERE v LIKE ${quoteLiteral(p)}`)).getRows().map((r) => r[0] as string);
    assert.deepEqual(VALUES.filter((v) => re!(v)).sort(), rows.sort(), `LIKE '${p}'`);
  }
});
