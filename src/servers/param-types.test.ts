import assert from 'node:assert/strict';
import { test } from 'node:test';
import { inferParamTypes, type ColumnLookup } from './param-types.js';

const TABLES: Record<string, Record<string, string>> = {
  't': { ts: 'TimestampMillisecond', host: 'String', v: 'Float64', n: 'Int64', bin: 'Binary' },
  'other.u': { ts: 'TimestampNanosecond', Mixed: 'UInt64' },
};
const lookup: ColumnLookup = async (name) => {
  const cols = TABLES[name.join('.')];
  return cols && new Map(Object.entries(cols));
};
const infer = async (sql: string, style: 'dollar' | 'question' = 'dollar') => Object.fromEntries(await inferParamTypes(sql, style, lookup));

test('an INSERT value that is a lone parameter takes its column type; with and without a column list', async () => {
  assert.deepEqual(await infer('INSERT INTO t (host, ts, v) VALUES ($1, $2, $3), ($4, now(), $5 + 1)'), { 1: 'String', 2: 'TimestampMillisecond', 3: 'Float64', 4: 'String' });
  assert.deepEqual(await infer('INSERT INTO t VALUES (?, ?, ?, ?, ?)', 'question'), { 1: 'TimestampMillisecond', 2: 'String', 3: 'Float64', 4: 'Int64', 5: 'Binary' });
  assert.deepEqual(await infer('REPLACE INTO other.u ("Mixed", ts) VALUES ($2, $1)'), { 1: 'TimestampNanosecond', 2: 'UInt64' });
});

test('parameters compared with a column, in a list, a range, a LIKE, or cast', async () => {
  assert.deepEqual(await infer('SELECT * FROM t WHERE t.ts >= $1 AND $2 < v AND host IN ($3, $4) AND n BETWEEN $5 AND $6 AND host LIKE $7'), {
    1: 'TimestampMillisecond', 2: 'Float64', 3: 'String', 4: 'String', 5: 'Int64', 6: 'Int64', 7: 'String',
  });
  assert.deepEqual(await infer('SELECT $1::BIGINT + CAST($2 AS INT UNSIGNED), CAST($3 AS TIMESTAMP(9)), $4'), { 1: 'Int64', 2: 'UInt32', 3: 'TimestampNanosecond' });
  assert.deepEqual(await infer('DELETE FROM t WHERE host = ? AND ts < ?', 'question'), { 1: 'String', 2: 'TimestampMillisecond' });
  // `?` inside strings and comments is no placeholder; unknown columns and tables infer nothing.
  assert.deepEqual(await infer("SELECT '?' FROM t WHERE /* ? */ n = ? AND nope = ?", 'question'), { 1: 'Int64' });
  assert.deepEqual(await infer('SELECT * FROM missing WHERE a = $1'), {});
  assert.deepEqual(await infer("SELECT 'unterminated"), {});
});

test('a long literal list beside the parameters changes nothing they infer', async () => {
  const ints = Array.from({ length: 5000 }, (_, i) => String(i)).join(', ');
  assert.deepEqual(await infer(`SELECT * FROM t WHERE n IN (${ints}) AND host = ? AND v NOT IN (${ints}) AND ts > ?`, 'question'), { 1: 'String', 2: 'TimestampMillisecond' });
  assert.deepEqual(await infer(`SELECT * FROM t WHERE n IN (${ints}) AND host IN ($1, $2)`), { 1: 'String', 2: 'String' });
});
