import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DuckDBInstance } from '@duckdb/node-api';
import { quoteLiteral } from '../common/sql-quote.js';
import { constantSpans, type TextSpan } from './constant-splice.js';
import { rewriteSessionTime } from './session-time.js';
import { parseSqlJson, stringifySqlJson } from './sql-json.js';
import { rewriteTimeLiterals } from './time-predicates.js';
import type { TimeUnit } from '../types/time-unit.js';

const db = await DuckDBInstance.create(':memory:');
const conn = await db.connect();

async function parse(sql: string): Promise<unknown> {
  return parseSqlJson((await conn.runAndReadAll(`SELECT json_serialize_sql(${quoteLiteral(sql)})`)).getRows()[0]![0] as string);
}

function apply(sql: string, spans: readonly TextSpan[]): string {
  let out = '';
  let from = 0;
  for (const s of [...spans].sort((a, b) => a.start - b.start)) {
    out += sql.slice(from, s.start) + s.text;
    from = s.end;
  }
  return out + sql.slice(from);
}

/** A tree with every query_location 0: what two texts of one meaning share. */
function located(tree: unknown): string {
  return stringifySqlJson(tree).replace(/"query_location":\d+/g, '"query_location":0');
}

const COLUMNS = new Map<string, TimeUnit>([
  ['ts', 'ms'],
  ['t_s', 's'],
  ['t_ns', 'ns'],
]);

/** `sql` rewritten as runQuery rewrites time literals and the session's time; the spliced text, or undefined. */
async function spliced(sql: string, zone = 'UTC'): Promise<{ text: string | undefined; tree: unknown }> {
  const parsed = await parse(sql);
  const tree = structuredClone(parsed);
  rewriteSessionTime(tree, { zone, nowMs: Date.UTC(2026, 10, 28, 9, 30), timestampColumns: COLUMNS, columnNames: new Set(['ts', 't_s', 't_ns', 'v', 'h']) });
  rewriteTimeLiterals(tree, COLUMNS);
  const spans = constantSpans(parsed, tree, sql);
  return { text: spans === undefined ? undefined : apply(sql, spans), tree };
}

test('time literals made timestamps are written into the text: its parse is the rewritten tree', async () => {
  const cases = [
    'SELECT v FROM m WHERE h = 1 AND ts = 1451606400000',
    "SELECT v FROM m WHERE ts >= '2016-01-01 00:00:00' AND ts < '2016-01-01 01:00:00'",
    'SELECT v FROM m WHERE t_s BETWEEN 1 AND 2000000000 OR t_ns IN (5, 6)',
    'SELECT v FROM m WHERE ts > now() AND ts <= NOW ( )',
    "SELECT count(*) FROM m WHERE ts = 1000 AND h = 'it''s'",
  ];
  for (const sql of cases) {
    const { text, tree } = await spliced(sql);
    assert.notEqual(text, undefined, sql);
    // (A string compared with a time index in UTC is no rewrite: DuckDB casts it alike.)
    if (!sql.includes("'2016")) assert.notEqual(text, sql, `${sql}: rewritten`);
    assert.equal(located(await parse(text!)), located(tree), `${sql} → ${text}`);
  }
  assert.equal((await spliced('SELECT v FROM m WHERE ts = 1000')).text, 'SELECT v FROM m WHERE ts = CAST(epoch_ms(1000) AS TIMESTAMP_MS)');
});

test('in another time zone the spliced text keeps the zone rewrite, or is left to the deserialization', async () => {
  for (const sql of ["SELECT v FROM m WHERE ts >= '2016-01-01 00:00:00'", "SELECT v FROM m WHERE ts > now() - INTERVAL '5 minutes'"]) {
    const { text, tree } = await spliced(sql, 'Asia/Shanghai');
    if (text !== undefined) assert.equal(located(await parse(text)), located(tree), `${sql} → ${text}`);
  }
});

test('a change other than a constant, a named constant, a literal not where DuckDB put it: undefined', async () => {
  // `now() - INTERVAL …` compared with a millisecond time index is wrapped in a cast to its type: a
  // change of the operator, whose extent in the text the tree does not give.
  assert.equal((await spliced("SELECT v FROM m WHERE ts > now() - INTERVAL '1 hour'")).text, undefined);
  const parsed = await parse('SELECT v FROM m WHERE ts = 1000');
  // A column reference changed: not a constant.
  const renamed = structuredClone(parsed) as Record<string, unknown>;
  const text = stringifySqlJson(renamed).replace('"column_names":["v"]', '"column_names":["w"]');
  assert.equal(constantSpans(parsed, parseSqlJson(text), 'SELECT v FROM m WHERE ts = 1000'), undefined);
  // A constant given an alias (a select item named otherwise).
  const item = await parse('SELECT 5');
  const named = parseSqlJson(stringifySqlJson(item).replace('"alias":""', '"alias":"x"'));
  assert.equal(constantSpans(item, named, 'SELECT 5'), undefined);
  // The text at the location does not hold the value.
  const changed = parseSqlJson(stringifySqlJson(parsed).replace('"value":1000', '"value":2000'));
  assert.equal(constantSpans(parsed, changed, 'SELECT v FROM m WHERE ts = 1001'), undefined);
  // Non-ASCII text: offsets are bytes.
  const wide = await parse("SELECT 'é', 5");
  assert.equal(constantSpans(wide, parseSqlJson(stringifySqlJson(wide).replace('"value":5', '"value":6')), "SELECT 'é', 5"), undefined);
  // Unchanged: no spans.
  assert.deepEqual(constantSpans(parsed, structuredClone(parsed), 'SELECT v FROM m WHERE ts = 1000'), []);
});

test('new constants are written as literals: strings quoted, integers in parentheses', async () => {
  const sql = "SELECT v FROM m WHERE h = 'a' AND v = -3 AND w = database()";
  const parsed = await parse(sql);
  const rewritten = parseSqlJson(stringifySqlJson(parsed).replace('"value":"a"', '"value":"b\'c"')) as unknown;
  const spans = constantSpans(parsed, rewritten, sql);
  assert.notEqual(spans, undefined);
  assert.equal(apply(sql, spans!), "SELECT v FROM m WHERE h = 'b''c' AND v = -3 AND w = database()");
});
