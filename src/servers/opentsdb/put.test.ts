import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { MAX_COLUMNS_PER_TABLE } from '../../catalog/limits.js';
import { StatusCode } from '../../common/error/status-code.js';
import { inTimestampRange } from '../../common/time/timestamp.js';
import { TsdbError } from '../../common/error/tsdb-error.js';
import type { IngestTable } from '../../frontend/ingest-request.js';
import { cellLimitProblem, INGEST_CELLS_PER_BYTE, INGEST_MIN_CELLS, ingestCellLimit } from '../ingest-budget.js';
import { decodePut, MAX_JSON_DEPTH, nestedDeeperThan, putAnswer, type DecodedPut } from './put.js';

const FIXTURES = new URL('../../../../test/fixtures/opentsdb/', import.meta.url);
const fixture = (name: string): string => readFileSync(new URL(name, FIXTURES), 'utf8');

/** A table as plain data: vectors as arrays, so deepEqual shows the values. */
function plain(t: IngestTable): unknown {
  return {
    name: t.name,
    rowCount: t.rowCount,
    columns: t.columns.map((c) => ({ name: c.name, semantic: c.semantic, type: c.type, vector: c.vector.type, data: Array.from(c.vector.data as ArrayLike<unknown>) })),
  };
}

const tag = (name: string, data: Array<string | null>) => ({ name, semantic: 'tag', type: 'String', vector: 'string', data });
const value = (data: number[]) => ({ name: 'tsdb_value', semantic: 'field', type: 'Float64', vector: 'float64', data });
const time = (data: bigint[]) => ({ name: 'tsdb_timestamp', semantic: 'timestamp', type: 'TimestampMillisecond', vector: 'int64', data });

function decodeOne(point: Record<string, unknown>): DecodedPut {
  return decodePut(JSON.stringify(point));
}

/** The error message decoding `point` gives (it must be refused). */
function refusal(point: Record<string, unknown>): string {
  const d = decodeOne(point);
  assert.equal(d.tables.length, 0, `accepted: ${JSON.stringify(point)}`);
  assert.equal(d.errors.length, 1);
  assert.equal(d.errors[0]!.datapoint, d.points[0]);
  return d.errors[0]!.error;
}

const GOOD = { metric: 'sys.cpu.nice', timestamp: 1346846400, value: 18, tags: { host: 'web01' } };

test('fixture single-point.json: one table, tags sorted by key, seconds turned into milliseconds', () => {
  const body = fixture('single-point.json');
  const d = decodePut(body);
  assert.deepEqual(d.tables.map(plain), [
    { name: 'sys.cpu.nice', rowCount: 1, columns: [tag('dc', ['lga']), tag('host', ['web01']), value([18]), time([1346846400000n])] },
  ]);
  assert.deepEqual(d.rowPoints, [[0]]);
  assert.deepEqual(d.points, [JSON.parse(body)]);
  assert.deepEqual(d.errors, []);
});

test('fixture array.json: one table per metric in order of first appearance, with the request index of each row', () => {
  const d = decodePut(fixture('array.json'));
  assert.deepEqual(d.tables.map(plain), [
    { name: 'sys.cpu.nice', rowCount: 2, columns: [tag('dc', ['lga', 'lga']), tag('host', ['web01', 'web02']), value([18, 9]), time([1346846400000n, 1346846400000n])] },
    { name: 'sys.cpu.user', rowCount: 1, columns: [tag('host', ['web01']), value([3.5]), time([1346846400000n])] },
  ]);
  assert.deepEqual(d.rowPoints, [[0, 2], [1]]);
  assert.equal(d.points.length, 3);
  assert.deepEqual(d.errors, []);
});

test('fixture timestamps.json: fewer than 13 digits are seconds, 13 are milliseconds, integer strings too', () => {
  const d = decodePut(fixture('timestamps.json'));
  assert.deepEqual(d.tables.map(plain), [
    {
      name: 'sys.load',
      rowCount: 4,
      columns: [tag('host', ['web01', 'web01', 'web01', 'web01']), value([1, 2, 3, 4]), time([1346846400000n, 1346846400500n, 1346846401000n, 1346846401500n])],
    },
  ]);
  assert.deepEqual(d.errors, []);
});

test('fixture string-value.json: numeric strings are values', () => {
  const d = decodePut(fixture('string-value.json'));
  assert.deepEqual(d.tables.map(plain), [
    { name: 'sys.mem.free', rowCount: 3, columns: [tag('host', ['web01', 'web01', 'web01']), value([42.5, -7, 1300]), time([1346846400000n, 1346846401000n, 1346846402000n])] },
  ]);
  assert.deepEqual(d.errors, []);
});

test('fixture missing-tags.json: the point is refused with "Missing tags"', () => {
  const body = fixture('missing-tags.json');
  const d = decodePut(body);
  assert.deepEqual(d.tables, []);
  assert.deepEqual(d.rowPoints, []);
  assert.deepEqual(d.errors, [{ datapoint: JSON.parse(body), error: 'Missing tags' }]);
});

test('fixture empty-tags.json: empty tags are accepted (GreptimeDB), a table without tag columns', () => {
  const d = decodePut(fixture('empty-tags.json'));
  assert.deepEqual(d.tables.map(plain), [{ name: 'sys.uptime', rowCount: 1, columns: [value([86400]), time([1346846400000n])] }]);
  assert.deepEqual(d.errors, []);
});

test('fixture bad-metric.json: an illegal character in the metric refuses the point', () => {
  const body = fixture('bad-metric.json');
  const d = decodePut(body);
  assert.deepEqual(d.tables, []);
  assert.deepEqual(d.errors, [{ datapoint: JSON.parse(body), error: 'Invalid metric name ("sys.cpu@nice"): illegal character: @' }]);
});

test('fixture mixed.json: bad points are refused one by one, good ones share a table with NULLs for absent tags', () => {
  const body = fixture('mixed.json');
  const sent = JSON.parse(body) as unknown[];
  const d = decodePut(body);
  assert.deepEqual(d.tables.map(plain), [
    {
      name: 'sys.cpu.nice',
      rowCount: 2,
      columns: [tag('dc', ['lga', null]), tag('host', ['web01', 'web02']), tag('rack', [null, 'r1']), value([18, 9]), time([1346846400000n, 1346846401000n])],
    },
  ]);
  assert.deepEqual(d.rowPoints, [[0, 5]]);
  assert.deepEqual(d.points, sent);
  assert.deepEqual(d.errors, [
    { datapoint: sent[1], error: 'Metric name was empty' },
    { datapoint: sent[2], error: 'Invalid timestamp' },
    { datapoint: sent[3], error: 'Unable to parse value to a number' },
    { datapoint: sent[4], error: 'Empty value' },
    { datapoint: sent[6], error: 'Invalid tag value ("web#05"): illegal character: #' },
  ]);
  assert.deepEqual(putAnswer(2, d.errors, false), { success: 2, failed: 5 });
});

function assertInvalidRequest(body: string): void {
  assert.throws(
    () => decodePut(body),
    (err: unknown) => err instanceof TsdbError && err.code === StatusCode.InvalidArguments && err.message === 'Invalid OpenTSDB Json request',
    `body ${JSON.stringify(body)}`,
  );
}

test('fixture not-json.txt (and other non-JSON bodies): the whole request is refused', () => {
  assertInvalidRequest(fixture('not-json.txt'));
  assertInvalidRequest('');
  assertInvalidRequest('{"metric": "m", ');
  assertInvalidRequest('put sys.cpu.nice 1346846400 18 host=web01');
});

test('fixture not-an-object.json (and other non-objects): the whole request is refused', () => {
  assertInvalidRequest(fixture('not-an-object.json'));
  for (const body of ['42', 'null', 'true', '[1]', '[[]]', `[${JSON.stringify(GOOD)}, null]`, `[${JSON.stringify(GOOD)}, "x"]`]) assertInvalidRequest(body);
});

/** Asserts that decoding `body` refuses the whole request with InvalidArguments and `message`. */
function assertRefused(body: string, message: string): void {
  assert.throws(
    () => decodePut(body),
    (err: unknown) => {
      assert.ok(err instanceof TsdbError, String(err));
      assert.equal(err.code, StatusCode.InvalidArguments);
      assert.equal(err.message, message);
      return true;
    },
  );
}

test('a body nested deeper than MAX_JSON_DEPTH is refused whole, however deep (no stack overflow)', () => {
  const tooDeep = `Invalid OpenTSDB Json request: arrays and objects nested deeper than ${MAX_JSON_DEPTH} levels`;
  const n = 100_000;
  assertRefused('['.repeat(n) + ']'.repeat(n), tooDeep);
  assertRefused('{"a":'.repeat(n) + '1' + '}'.repeat(n), tooDeep);
  // Deep values in any field of a point: the ones checked, and the ones ignored.
  const deep = '['.repeat(n) + ']'.repeat(n);
  for (const field of ['metric', 'timestamp', 'value', 'extra']) assertRefused(`[{"metric":"m","timestamp":1,"value":1,"tags":{"h":"a"},"${field}":${deep}}]`, tooDeep);
  assertRefused(`{"metric":"m","timestamp":1,"value":1,"tags":{"h":${deep}}}`, tooDeep);
  // Not even closed: refused before JSON.parse sees it.
  assertRefused('['.repeat(n), tooDeep);
  // Exactly MAX_JSON_DEPTH levels: an array, a point, and an ignored field nested down to the limit.
  const nested = (levels: number) => '['.repeat(levels) + ']'.repeat(levels);
  const atLimit = decodePut(`[{"metric":"m","timestamp":1,"value":1,"tags":{"h":"a"},"extra":${nested(MAX_JSON_DEPTH - 2)}}]`);
  assert.equal(atLimit.tables.length, 1);
  assert.deepEqual(atLimit.errors, []);
  assertRefused(`[{"metric":"m","timestamp":1,"value":1,"tags":{"h":"a"},"extra":${nested(MAX_JSON_DEPTH - 1)}}]`, tooDeep);
  // A deep value at the limit is refused as a point, and its message (and details) can be written.
  const refused = decodePut(`[{"metric":${nested(MAX_JSON_DEPTH - 2)},"timestamp":1,"value":1,"tags":{"h":"a"}}]`);
  assert.equal(refused.errors.length, 1);
  assert.match(refused.errors[0]!.error, /^Invalid metric name: \[\[\[/);
  assert.ok(JSON.stringify(putAnswer(0, refused.errors, true)).length > 0);
});

test('nestedDeeperThan: brackets in strings, after escaped quotes, do not count', () => {
  assert.equal(nestedDeeperThan('[[1]]', 2), false);
  assert.equal(nestedDeeperThan('[[[1]]]', 2), true);
  assert.equal(nestedDeeperThan('[{"a":[1]}]', 2), true);
  assert.equal(nestedDeeperThan('["[[[[", {"k]]]{{{": "\\"[[["}]', 2), false);
  assert.equal(nestedDeeperThan('["\\\\", [[1]]]', 2), true);
  assert.equal(nestedDeeperThan('[][][][]', 1), false);
  assert.equal(nestedDeeperThan('', 0), false);
});

test('a metric with more tags than a table may have columns (besides its timestamp and value) refuses the whole request', () => {
  const most = MAX_COLUMNS_PER_TABLE - 2;
  const tags = (n: number, prefix = 't') => Object.fromEntries(Array.from({ length: n }, (_, i) => [`${prefix}${i}`, 'v']));
  const ok = decodeOne({ ...GOOD, tags: tags(most) });
  assert.equal(ok.tables[0]!.columns.length, MAX_COLUMNS_PER_TABLE);
  const message = (n: number) => `Too many tags for metric sys.cpu.nice: ${n}, maximum allowed: ${most} (a table has at most ${MAX_COLUMNS_PER_TABLE} columns, tsdb_timestamp and tsdb_value included)`;
  assertRefused(JSON.stringify([GOOD, { ...GOOD, tags: tags(most + 1) }]), message(most + 1));
  assertRefused(JSON.stringify({ ...GOOD, tags: tags(10_000) }), message(10_000));
  // The union of the tag keys of a metric's points.
  assertRefused(JSON.stringify([{ ...GOOD, tags: tags(most) }, GOOD, { ...GOOD, tags: { other: 'v' } }]), message(most + 1));
  // Each metric has its own table.
  const two = decodePut(JSON.stringify([{ ...GOOD, tags: tags(most) }, { ...GOOD, metric: 'other', tags: tags(most, 'u') }]));
  assert.deepEqual(two.tables.map((t) => t.columns.length), [MAX_COLUMNS_PER_TABLE, MAX_COLUMNS_PER_TABLE]);
});

test('the cell budget: one point with 4,000 tags among 200,000 without refuses the whole request before the columns are made', () => {
  const tags = Object.fromEntries(Array.from({ length: 4000 }, (_, i) => [`t${i}`, 'v']));
  const points: object[] = [{ ...GOOD, tags }];
  for (let i = 1; i <= 200_000; i++) points.push({ metric: GOOD.metric, timestamp: 1346846400 + i, value: i, tags: {} });
  const body = JSON.stringify(points);
  // 200,001 rows of 4,002 cells: 800 million.
  assert.ok(ingestCellLimit(body.length) < 200_001 * 4002);
  assertRefused(body, `OpenTSDB put refused: ${cellLimitProblem(ingestCellLimit(body.length), body.length)}`);
});

test('the cell budget: INGEST_MIN_CELLS cells whatever the size; a late tag counts its NULLs; refused points do not count', () => {
  // 1,022 tags, the value and the timestamp: 1,024 cells a row.
  const tags = Object.fromEntries(Array.from({ length: 1022 }, (_, i) => [`t${i}`, 'v']));
  const narrow = (n: number, from = 0) => Array.from({ length: n }, (_, i) => ({ ...GOOD, timestamp: 1346846400 + from + i, tags: {} }));
  assert.equal(INGEST_MIN_CELLS, 1024 * 1024);
  const full = [{ ...GOOD, tags }, ...narrow(1023, 1)];
  assert.ok(INGEST_CELLS_PER_BYTE * JSON.stringify(full).length < INGEST_MIN_CELLS);
  const d = decodePut(JSON.stringify([...full, ...narrow(100).map((p) => ({ ...p, value: 'x' }))]));
  assert.equal(d.errors.length, 100);
  assert.deepEqual(d.tables.map((t) => [t.rowCount, t.columns.length]), [[1024, 1024]]);
  const over = (body: string) =>
    assert.throws(() => decodePut(body), (err: unknown) => err instanceof TsdbError && err.code === StatusCode.InvalidArguments && /^OpenTSDB put refused: the request decodes to more than 1048576 values/.test(err.message));
  over(JSON.stringify([...full, ...narrow(1, 2000)]));
  // A point with 1,000 tags after 1,100 without: 1,100,000 NULLs.
  const thousand = Object.fromEntries(Array.from({ length: 1000 }, (_, i) => [`t${i}`, 'v']));
  over(JSON.stringify([...narrow(1100), { ...GOOD, tags: thousand }]));
  const late = decodePut(JSON.stringify([...narrow(1000), { ...GOOD, tags: thousand }]));
  assert.deepEqual(late.tables.map((t) => [t.rowCount, t.columns.length]), [[1001, 1002]]);
});

test('every timestamp a point may have is within the range of its millisecond column', () => {
  for (const timestamp of [1, 999999999999, 1000000000000, 9999999999999]) {
    const times = decodeOne({ ...GOOD, timestamp }).tables[0]!.columns.at(-1)!.vector.data as BigInt64Array;
    assert.ok(inTimestampRange(times[0]!, 'ms'), String(timestamp));
  }
});

test('an empty array decodes to nothing (GreptimeDB accepts it; OpenTSDB answers 400)', () => {
  assert.deepEqual(decodePut('[]'), { tables: [], rowPoints: [], points: [], errors: [] });
});

test('metric checks: missing, null or empty is "Metric name was empty"; non-strings and illegal characters are refused', () => {
  assert.equal(refusal({ ...GOOD, metric: undefined }), 'Metric name was empty');
  assert.equal(refusal({ ...GOOD, metric: null }), 'Metric name was empty');
  assert.equal(refusal({ ...GOOD, metric: '' }), 'Metric name was empty');
  assert.equal(refusal({ ...GOOD, metric: 7 }), 'Invalid metric name: 7 is not a string');
  assert.equal(refusal({ ...GOOD, metric: 'sys cpu' }), 'Invalid metric name ("sys cpu"): illegal character:  ');
  assert.equal(refusal({ ...GOOD, metric: 'sys:cpu' }), 'Invalid metric name ("sys:cpu"): illegal character: :');
  assert.equal(refusal({ ...GOOD, metric: 'cpu{host=a}' }), 'Invalid metric name ("cpu{host=a}"): illegal character: {');
});

test('timestamp checks: missing, zero, negative, fractional and non-integer text are "Invalid timestamp"; more than 13 digits is out of range', () => {
  for (const timestamp of [undefined, null, 0, -1, -1346846400, 1346846400.5, 'abc', '-5', '1346846400.5', '', true, {}, [1346846400]]) {
    assert.equal(refusal({ ...GOOD, timestamp }), 'Invalid timestamp', `timestamp ${JSON.stringify(timestamp)}`);
  }
  assert.equal(refusal({ ...GOOD, timestamp: 10000000000000 }), 'bad timestamp=10000000000000 when trying to add value=18 to metric=sys.cpu.nice, tags={host=web01}');
  assert.equal(refusal({ ...GOOD, timestamp: '99999999999999999999', tags: { host: 'web01', dc: 'lga' } }), 'bad timestamp=99999999999999999999 when trying to add value=18 to metric=sys.cpu.nice, tags={host=web01, dc=lga}');
});

test('timestamps: 12 digits are seconds, 13 digits milliseconds, "+" and leading zeros read as OpenTSDB does', () => {
  const ms = (timestamp: unknown): bigint => {
    const d = decodeOne({ ...GOOD, timestamp });
    assert.deepEqual(d.errors, []);
    return (d.tables[0]!.columns.at(-1)!.vector.data as BigInt64Array)[0]!;
  };
  assert.equal(ms(1), 1000n);
  assert.equal(ms(999999999999), 999999999999000n);
  assert.equal(ms(1000000000000), 1000000000000n);
  assert.equal(ms(9999999999999), 9999999999999n);
  assert.equal(ms('+1346846400'), 1346846400000n);
  assert.equal(ms('001346846400'), 1346846400000n);
});

test('value checks: missing, null or "" is "Empty value"; what is not a number cannot be parsed; NaN and infinities are refused', () => {
  for (const v of [undefined, null, '']) assert.equal(refusal({ ...GOOD, value: v }), 'Empty value', `value ${JSON.stringify(v)}`);
  for (const v of ['abc', true, {}, [1], '0x10', '1f', '1,5', ' 1', '1e', '--1', '99999999999999999999']) {
    assert.equal(refusal({ ...GOOD, value: v }), 'Unable to parse value to a number', `value ${JSON.stringify(v)}`);
  }
  assert.equal(refusal({ ...GOOD, value: 'NaN' }), 'value is NaN or Infinite: NaN for metric=sys.cpu.nice timestamp=1346846400');
  assert.equal(refusal({ ...GOOD, value: '-Infinity' }), 'value is NaN or Infinite: -Infinity for metric=sys.cpu.nice timestamp=1346846400');
  assert.equal(decodePut('{"metric":"m","timestamp":1,"value":1e999,"tags":{"h":"a"}}').errors[0]!.error, 'value is NaN or Infinite: Infinity for metric=m timestamp=1');
});

test('values: numbers and decimal strings in every form Double.parseDouble reads', () => {
  const val = (v: unknown): number => {
    const d = decodeOne({ ...GOOD, value: v });
    assert.deepEqual(d.errors, [], `value ${JSON.stringify(v)}`);
    return (d.tables[0]!.columns.at(-2)!.vector.data as Float64Array)[0]!;
  };
  assert.equal(val(0), 0);
  assert.equal(val(-1.5e-3), -0.0015);
  assert.equal(val('.5'), 0.5);
  assert.equal(val('5.'), 5);
  assert.equal(val('+2'), 2);
  assert.equal(val('1e3'), 1000);
  assert.equal(val('9223372036854775807'), 9223372036854775807);
  assert.equal(val('1.5e300'), 1.5e300);
});

test('tag checks: missing or non-object tags, empty or illegal names and values, non-strings and reserved names are refused', () => {
  for (const tags of [undefined, null, [], ['host=web01'], 'host=web01', 1]) {
    assert.equal(refusal({ ...GOOD, tags }), 'Missing tags', `tags ${JSON.stringify(tags)}`);
  }
  assert.equal(refusal({ ...GOOD, tags: { '': 'web01' } }), 'Invalid tag name: empty string');
  assert.equal(refusal({ ...GOOD, tags: { 'ho st': 'web01' } }), 'Invalid tag name ("ho st"): illegal character:  ');
  assert.equal(refusal({ ...GOOD, tags: { host: '' } }), 'Invalid tag value: empty string');
  assert.equal(refusal({ ...GOOD, tags: { host: 'a,b' } }), 'Invalid tag value ("a,b"): illegal character: ,');
  assert.equal(refusal({ ...GOOD, tags: { host: 'a=b' } }), 'Invalid tag value ("a=b"): illegal character: =');
  assert.equal(refusal({ ...GOOD, tags: { host: null } }), 'Invalid tag value: null');
  assert.equal(refusal({ ...GOOD, tags: { cpu: 0 } }), 'Invalid tag value: 0 is not a string');
  assert.equal(refusal({ ...GOOD, tags: { host: { a: 1 } } }), 'Invalid tag value: {"a":1} is not a string');
  assert.equal(refusal({ ...GOOD, tags: { tsdb_value: 'x' } }), 'Invalid tag name ("tsdb_value"): reserved for the value column');
  assert.equal(refusal({ ...GOOD, tags: { tsdb_timestamp: 'x' } }), 'Invalid tag name ("tsdb_timestamp"): reserved for the timestamp column');
});

test('checks run in OpenTSDB order: metric, timestamp, value, tags, value parsing, timestamp range, names', () => {
  assert.equal(refusal({ timestamp: -1, tags: { 'a b': 'c' } }), 'Metric name was empty');
  assert.equal(refusal({ metric: 'm', timestamp: 0 }), 'Invalid timestamp');
  assert.equal(refusal({ metric: 'm', timestamp: 1 }), 'Empty value');
  assert.equal(refusal({ metric: 'm b', timestamp: 1, value: 'x' }), 'Missing tags');
  assert.equal(refusal({ metric: 'm b', timestamp: 1e14, value: 'x', tags: {} }), 'Unable to parse value to a number');
  assert.equal(refusal({ metric: 'm b', timestamp: 1e14, value: 1, tags: { 'c d': 'e' } }), 'bad timestamp=100000000000000 when trying to add value=1 to metric=m b, tags={c d=e}');
  assert.equal(refusal({ metric: 'm b', timestamp: 1, value: 1, tags: { 'c d': 'e' } }), 'Invalid metric name ("m b"): illegal character:  ');
  assert.equal(refusal({ metric: 'm', timestamp: 1, value: 1, tags: { ok: 'a', 'c d': 'e f' } }), 'Invalid tag name ("c d"): illegal character:  ');
});

test('names: letters of any script, digits and - _ . / are allowed', () => {
  const d = decodeOne({ metric: 'Système.CPU-usage_1/总', timestamp: 1, value: 1, tags: { '主机': 'web-01.lga/é_2' } });
  assert.deepEqual(d.errors, []);
  assert.deepEqual(d.tables.map(plain), [{ name: 'Système.CPU-usage_1/总', rowCount: 1, columns: [tag('主机', ['web-01.lga/é_2']), value([1]), time([1000n])] }]);
});

test('points of one metric with different tag keys share one table; the union of keys is sorted', () => {
  const d = decodePut(
    JSON.stringify([
      { metric: 'm', timestamp: 1, value: 1, tags: { zone: 'z1' } },
      { metric: 'other', timestamp: 1, value: 5, tags: { a: 'x' } },
      { metric: 'm', timestamp: 2, value: 2, tags: { host: 'h2', app: 'a2' } },
      { metric: 'm', timestamp: 3, value: 3, tags: {} },
    ]),
  );
  assert.deepEqual(d.tables.map(plain), [
    { name: 'm', rowCount: 3, columns: [tag('app', [null, 'a2', null]), tag('host', [null, 'h2', null]), tag('zone', ['z1', null, null]), value([1, 2, 3]), time([1000n, 2000n, 3000n])] },
    { name: 'other', rowCount: 1, columns: [tag('a', ['x']), value([5]), time([1000n])] },
  ]);
  assert.deepEqual(d.rowPoints, [[0, 2, 3], [1]]);
});

test('points are kept as sent, a single object as a one-point request', () => {
  const d = decodeOne({ ...GOOD, extra: [1, 2] });
  assert.deepEqual(d.points, [{ ...GOOD, extra: [1, 2] }]);
});

test('putAnswer: summary is {success, failed}; details adds the errors, empty when none', () => {
  const errors = [{ datapoint: { metric: 'm', timestamp: 1, value: 'NaN', tags: { host: 'web01' } }, error: 'Unable to parse value to a number' }];
  assert.deepEqual(putAnswer(3, errors, false), { success: 3, failed: 1 });
  assert.equal(JSON.stringify(putAnswer(3, errors, false)), '{"success":3,"failed":1}');
  assert.equal(
    JSON.stringify(putAnswer(0, errors, true)),
    '{"success":0,"failed":1,"errors":[{"datapoint":{"metric":"m","timestamp":1,"value":"NaN","tags":{"host":"web01"}},"error":"Unable to parse value to a number"}]}',
  );
  assert.equal(JSON.stringify(putAnswer(2, [], true)), '{"success":2,"failed":0,"errors":[]}');
  assert.equal(JSON.stringify(putAnswer(2, [], false)), '{"success":2,"failed":0}');
});
