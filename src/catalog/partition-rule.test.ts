import assert from 'node:assert/strict';
import { test } from 'node:test';
import { StatusCode } from '../common/error/status-code.js';
import { TsdbError } from '../common/error/tsdb-error.js';
import type { ColumnType } from '../types/region-metadata.js';
import { OP_DELETE, OP_PUT, type Vector, type WriteBatch } from '../types/write-batch.js';
import { checkedPartition, compareStrings, parsePartitionExpr, partitionRuleOf, PartitionRule, type PartitionColumn } from './partition-rule.js';
import type { ColumnSchema, TableInfo } from './table-info.js';

function col(name: string, data_type: ColumnType, column_id: number, extra: Partial<ColumnSchema> = {}): ColumnSchema {
  return { column_id, name, data_type, semantic_type: 'tag', nullable: true, ...extra };
}

/** A table with the columns the cases partition on. */
const TABLE: Pick<TableInfo, 'columns' | 'name'> = {
  name: 't',
  columns: [
    col('a', 'Int32', 0),
    col('b', 'String', 1),
    col('f', 'Float64', 2, { semantic_type: 'field' }),
    col('big', 'Int64', 3),
    col('flag', 'Boolean', 4),
    col('ts', 'TimestampMillisecond', 5, { semantic_type: 'timestamp', nullable: false }),
    col('bin', 'Binary', 6, { semantic_type: 'field' }),
    col('Mixed', 'String', 7),
    col('tiny', 'Int8', 8),
    col('d', 'Date', 9, { semantic_type: 'field' }),
    col('g', 'Float32', 10, { semantic_type: 'field' }),
  ],
};

function failure(f: () => unknown): TsdbError {
  try {
    f();
  } catch (err) {
    assert.ok(err instanceof TsdbError, `expected a TsdbError, got ${String(err)}`);
    return err;
  }
  assert.fail('expected an error');
}

function refused(columns: string[], exprs: string[], code: StatusCode, message: string): void {
  const err = failure(() => checkedPartition({ columns, exprs }, TABLE));
  assert.equal(err.message, message);
  assert.equal(err.code, code, err.message);
}

function checked(columns: string[], exprs: string[]): string[] {
  return checkedPartition({ columns, exprs }, TABLE).exprs;
}

test('expressions parse to their canonical form: the column on the left, != as <>, parentheses only where needed', () => {
  assert.deepEqual(checked(['a'], ['1000 > a', 'a >= 1000 AND (a < 2000)', '((a >= 2000))']), ['a < 1000', 'a >= 1000 AND a < 2000', 'a >= 2000']);
  assert.deepEqual(checked(['b'], ["b != 'x'", "'x' = b"]), ["b <> 'x'", "b = 'x'"]);
  assert.deepEqual(checked(['a', 'b'], ["(a < 10 OR a > 20) AND b < 'm'", "(a < 10 OR a > 20) AND b >= 'm'", 'a >= 10 AND a <= 20']), [
    "(a < 10 OR a > 20) AND b < 'm'",
    "(a < 10 OR a > 20) AND b >= 'm'",
    'a >= 10 AND a <= 20',
  ]);
  // Quotes and case: unquoted names fold to lower case, quoted ones stay, and print quoted when needed.
  assert.deepEqual(checked(['Mixed'], [`"Mixed" < 'it''s'`, `"Mixed" >= 'it''s'`]), [`"Mixed" < 'it''s'`, `"Mixed" >= 'it''s'`]);
  assert.deepEqual(checked(['A'.toLowerCase()], ['A < -5', 'a >= -5']), ['a < -5', 'a >= -5']);
  // Literals of each type: negative floats, booleans, timestamps (strings read in UTC), big integers.
  assert.deepEqual(checked(['f'], ['f < -1', 'f >= -1 AND f < -0', 'f >= 0']), ['f < -1', 'f >= -1 AND f < -0', 'f >= 0']);
  // Every type is taken as dense, as GreptimeDB's checker takes it: a value below false is a gap to cover.
  assert.deepEqual(checked(['flag'], ['flag = true', 'flag <> TRUE']), ['flag = true', 'flag <> true']);
  refused(['flag'], ['flag = true', 'flag = false'], StatusCode.InvalidArguments, 'Checkpoint `flag<false` is not covered');
  assert.deepEqual(checked(['ts'], ["ts < '2024-01-01 00:00:00'", 'ts >= 1704067200000']), ["ts < '2024-01-01T00:00:00Z'", "ts >= '2024-01-01T00:00:00Z'"]);
  assert.deepEqual(checked(['big'], ['big < 9007199254740993', 'big >= 9007199254740993']), ['big < 9007199254740993', 'big >= 9007199254740993']);
  assert.deepEqual(checked(['d'], ["d < '2024-02-29'", "d >= '2024-02-29'"]), ["d < '2024-02-29'", "d >= '2024-02-29'"]);
  // The stored form reads back as itself.
  const types = new Map<string, ColumnType>([['a', 'Int32'], ['b', 'String']]);
  const text = "(a < 10 OR a > 20) AND b <> 'it''s'";
  const rule = new PartitionRule([{ name: 'a', type: 'Int32', column_id: 0 }, { name: 'b', type: 'String', column_id: 1 }], [parsePartitionExpr(text, types)]);
  assert.deepEqual(rule.sqlTexts(), [text]);
  assert.deepEqual(rule.descriptions(), ["(a < 10 OR a > 20) AND b <> it's"]);
});

test('no expressions (PARTITION ON COLUMNS (a) ()): one region, nothing to check', () => {
  assert.deepEqual(checkedPartition({ columns: ['a'], exprs: [] }, TABLE), { columns: ['a'], exprs: [] });
});

test('a rule that is not AND/OR of column-op-literal over the listed columns is refused with GreptimeDB’s words', () => {
  refused(['x'], [], StatusCode.InvalidSyntax, 'Invalid SQL, error: Partition column "x" not defined');
  refused(['a'], ['b < 1', 'b >= 1'], StatusCode.InvalidSyntax, 'Invalid SQL, error: Column "b" in rule expr is not referenced in PARTITION ON');
  refused(['a'], ['a'], StatusCode.InvalidSyntax, 'Invalid SQL, error: Partition rule expr a is not a binary expr');
  refused(['a', 'tiny'], ['a < tiny'], StatusCode.InvalidArguments, 'Invalid partition rule: invalid partition expr a < tiny');
  refused(['a'], ['1 < 2'], StatusCode.InvalidArguments, 'Invalid partition rule: invalid partition expr 1 < 2');
  refused(['a'], ['a + 1 < 2'], StatusCode.InvalidArguments, 'Invalid partition rule: unsupported operator in partition expr +');
  refused(['a'], ['a IN (1, 2)'], StatusCode.InvalidArguments, 'Invalid partition rule: unsupported operator in partition expr IN');
  refused(['a'], ['a < 1 AND'], StatusCode.InvalidSyntax, 'Invalid SQL syntax: sql parser error: Expected an expression, found: EOF');
  refused(['a'], ['(a < 1'], StatusCode.InvalidSyntax, 'Invalid SQL syntax: sql parser error: Expected ), found: EOF');
  refused(['a'], ['a = NULL'], StatusCode.InvalidArguments, 'Invalid partition rule: NULL is not a partition bound (column a)');
  refused(['a', 'a'], [], StatusCode.InvalidArguments, "Invalid partition rule: duplicate partition column 'a'");
  refused(['bin'], [], StatusCode.Unsupported, 'Not supported: partitioning by the binary column bin');
});

test('literals must be values of the column type', () => {
  refused(['a'], ["a < 'x'"], StatusCode.InvalidArguments, 'Column a expect type: Int32, actual: String');
  refused(['a'], ['a < true'], StatusCode.InvalidArguments, 'Column a expect type: Int32, actual: Boolean');
  refused(['a'], ['a < 1.5'], StatusCode.InvalidSyntax, 'Failed to parse value: Fail to parse number 1.5, invalid column type: Int32');
  refused(['tiny'], ['tiny < 300'], StatusCode.InvalidArguments, 'Value 300 is out of range for column type Int8');
  refused(['tiny'], ['tiny < -129'], StatusCode.InvalidArguments, 'Value -129 is out of range for column type Int8');
  refused(['b'], ['b < 10'], StatusCode.InvalidSyntax, 'Failed to parse value: Fail to parse number 10, invalid column type: String');
  refused(['b'], ["b < -'x'"], StatusCode.InvalidArguments, 'Invalid unary operator - for value x');
  refused(['ts'], ["ts < 'yesterday'"], StatusCode.InvalidSyntax, 'Failed to parse value: Failed to parse yesterday to Timestamp value');
  refused(['d'], ["d < '2024-02-30'"], StatusCode.InvalidSyntax, 'Failed to parse value: Failed to parse 2024-02-30 to Date value');
  refused(['flag'], ['flag = 2'], StatusCode.InvalidSyntax, 'Failed to parse value: Fail to parse number 2, invalid column type: Boolean');
});

test('a rule must cover every value once: the first uncovered or overlapped checkpoint is named', () => {
  // GreptimeDB's sqlness cases (tests/cases/standalone/common/partition.sql).
  refused(['a'], ['a < 10', 'a > 10 AND a < 20', 'a >= 20'], StatusCode.InvalidArguments, 'Checkpoint `a=10` is not covered');
  refused(['b'], ["b < 'abc'", "b >= 'abca' AND b < 'o'", "b >= 'o'"], StatusCode.InvalidArguments, 'Checkpoint `b=abc` is not covered');
  refused(['b'], ["b >= 'a'", "b <= 'o'"], StatusCode.InvalidArguments, 'Checkpoint `b=a` is overlapped');
  assert.equal(checked(['a', 'b'], ['a < 10', "a = 10 AND b < 'a'", "a = 10 AND b >= 'a' AND b < 'o'", "a = 10 AND b >= 'o'", 'a > 10']).length, 5);
  // Gaps below, between and above the literals.
  refused(['a'], ['a >= 10'], StatusCode.InvalidArguments, 'Checkpoint `a<10` is not covered');
  refused(['a'], ['a <= 10', 'a > 20'], StatusCode.InvalidArguments, 'Checkpoint `10<a<20` is not covered');
  refused(['a'], ['a < 10', 'a = 10'], StatusCode.InvalidArguments, 'Checkpoint `a>10` is not covered');
  refused(['f'], ['f < 1.5', 'f >= 1', 'f > 1.5'], StatusCode.InvalidArguments, 'Checkpoint `f=1` is overlapped');
  refused(['f'], ['f < 1', 'f > 1.5', 'f >= 1 AND f <= 1.5', 'f > 1 AND f < 1.5'], StatusCode.InvalidArguments, 'Checkpoint `1<f<1.5` is overlapped');
  // Integers too: GreptimeDB's checker sees a gap between 10 and 11.
  refused(['a'], ['a <= 10', 'a >= 11'], StatusCode.InvalidArguments, 'Checkpoint `10<a<11` is not covered');
  // Several columns: named in name order, joined by ", ".
  refused(['b', 'a'], ['a < 10', "a >= 10 AND b < 'x'"], StatusCode.InvalidArguments, 'Checkpoint `a=10, b=x` is not covered');
  refused(['a', 'b'], ['a < 10', "a >= 10 AND b < 'x'", "b >= 'x'"], StatusCode.InvalidArguments, 'Checkpoint `a<10, b=x` is overlapped');
  // != and = split the line at one point; OR within one expression is no overlap.
  assert.deepEqual(checked(['a'], ['a = 5', 'a <> 5']), ['a = 5', 'a <> 5']);
  assert.deepEqual(checked(['a'], ['a < 0 OR a > 100', 'a >= 0 AND a <= 100']), ['a < 0 OR a > 100', 'a >= 0 AND a <= 100']);
  refused(['a'], ['a < 0 OR a > 100', 'a >= 0 AND a <= 101'], StatusCode.InvalidArguments, 'Checkpoint `100<a<101` is overlapped');
  // -0 and 0 are one value.
  assert.equal(checked(['f'], ['f < -0', 'f >= 0']).length, 2);
});

test('an expression given twice (or as a disjunct of two) is a duplicate, named as GreptimeDB prints it', () => {
  refused(['a'], ['a < 10', '10 > a', 'a >= 10'], StatusCode.InvalidArguments, 'Duplicate expr: PartitionExpr { lhs: Column("a"), op: Lt, rhs: Value(Int32(10)) }');
  refused(['b'], ["b < 'm' OR b > 'x'", "b > 'x'", "b >= 'm' AND b <= 'x'"], StatusCode.InvalidArguments, [
    'Duplicate expr: PartitionExpr { lhs: Expr(PartitionExpr { lhs: Column("b"), op: Lt, rhs: Value(String(StringBytes("m"))) }), op: Or,',
    'rhs: Expr(PartitionExpr { lhs: Column("b"), op: Gt, rhs: Value(String(StringBytes("x"))) }) }',
  ].join(' '));
});

test('the rule of a metric table’s logical table must match its physical table’s: compared in any order, listed as GreptimeDB sorts them', () => {
  const cols: PartitionColumn[] = [{ name: 'b', type: 'String', column_id: 1 }];
  const one = PartitionRule.parse(cols, ["b <= 'h1'", "b > 'h1' AND b <= 'h2'", "b > 'h2'"]);
  const two = PartitionRule.parse(cols, ["b > 'h2'", "'h1' >= b", "b > 'h1' AND b <= 'h2'"]);
  assert.ok(one.sameExprs(two));
  assert.ok(!one.sameExprs(PartitionRule.parse(cols, ["b <= 'h1'", "b > 'h1'"])));
  // Operators in GreptimeDB's order: =, <>, <, <=, >, >=.
  assert.equal(
    PartitionRule.parse(cols, ["b >= 'x'", "b < 'x'", "b = 'x'", "b <> 'x'"]).debugList().match(/op: \w+/g)!.join(' '),
    'op: Eq op: NotEq op: Lt op: GtEq',
  );
  assert.equal(
    two.debugList(),
    '[PartitionExpr { lhs: Column("b"), op: LtEq, rhs: Value(String(StringBytes("h1"))) }, PartitionExpr { lhs: Column("b"), op: Gt, rhs: Value(String(StringBytes("h2"))) }, ' +
      'PartitionExpr { lhs: Expr(PartitionExpr { lhs: Column("b"), op: Gt, rhs: Value(String(StringBytes("h1"))) }), op: And, rhs: Expr(PartitionExpr { lhs: Column("b"), op: LtEq, rhs: Value(String(StringBytes("h2"))) }) }]',
  );
});

function f64(values: Array<number | null>): Vector {
  return { type: 'float64', data: Float64Array.from(values.map((v) => v ?? 0)), valid: Uint8Array.from(values.map((v) => (v === null ? 0 : 1))) };
}

function batch(columns: Record<number, Vector>, op: typeof OP_PUT | typeof OP_DELETE = OP_PUT): WriteBatch {
  const map = new Map(Object.entries(columns).map(([k, v]) => [Number(k), v]));
  return { op, rowCount: [...map.values()][0]!.data.length, columns: map };
}

function rowsOf(parts: ReturnType<PartitionRule['split']>, id: number): Array<[number, unknown[]]> {
  return parts.map((p) => {
    const v = p.batch.columns.get(id)!;
    const data = Array.from(v.data as ArrayLike<unknown>).map((x, i) => ('valid' in v && v.valid !== undefined && v.valid[i] === 0 ? null : x));
    return [p.index, data];
  });
}

const A = { name: 'a', type: 'Int32' as const, column_id: 0 };
const B = { name: 'b', type: 'String' as const, column_id: 1 };

test('a write splits by region: first true expression, NULL before every value, every column gathered', () => {
  const rule = PartitionRule.parse([A], ['a < 1000', 'a >= 1000 AND a < 2000', 'a >= 2000']);
  const b = batch({ 0: f64([100, 2500, 1500, null, 2000, 999]), 1: { type: 'string', data: ['p', 'q', 'r', 's', 't', 'u'] }, 2: { type: 'int64', data: BigInt64Array.of(1n, 2n, 3n, 4n, 5n, 6n) } });
  const parts = rule.split(b);
  assert.deepEqual(rowsOf(parts, 0), [[0, [100, null, 999]], [1, [1500]], [2, [2500, 2000]]]);
  assert.deepEqual(rowsOf(parts, 1), [[0, ['p', 's', 'u']], [1, ['r']], [2, ['q', 't']]]);
  assert.deepEqual(rowsOf(parts, 2), [[0, [1n, 4n, 6n]], [1, [3n]], [2, [2n, 5n]]]);
  assert.deepEqual(parts.map((p) => [p.batch.op, p.batch.rowCount]), [[OP_PUT, 3], [OP_PUT, 1], [OP_PUT, 2]]);
  // All rows in one region: the batch itself, not a copy.
  const one = batch({ 0: f64([1, 2, 3]) });
  const same = rule.split(one);
  assert.equal(same.length, 1);
  assert.equal(same[0]!.batch, one);
  assert.equal(same[0]!.index, 0);
});

test('strings, 64-bit integers, booleans and 32-bit floats compare as the column stores them', () => {
  const strings = PartitionRule.parse([B], ["b < 'm'", "b >= 'm'"]);
  assert.deepEqual(rowsOf(strings.split(batch({ 1: { type: 'string', data: ['zebra', 'apple', null, 'm', '\u{1F600}', '\uFFFD'] } })), 1), [[0, ['apple', null]], [1, ['zebra', 'm', '\u{1F600}', '\uFFFD']]]);
  // Code point order (UTF-8 bytes), not UTF-16 units: U+FFFD sorts before U+1F600.
  assert.ok(compareStrings('\uFFFD', '\u{1F600}') < 0);
  assert.ok(compareStrings('a', 'ab') < 0 && compareStrings('b', 'ab') > 0 && compareStrings('x', 'x') === 0);
  const big = PartitionRule.parse([{ name: 'big', type: 'Int64', column_id: 3 }], ['big < 9007199254740993', 'big >= 9007199254740993']);
  assert.deepEqual(rowsOf(big.split(batch({ 3: { type: 'int64', data: BigInt64Array.of(9007199254740992n, 9007199254740993n) } })), 3), [[0, [9007199254740992n]], [1, [9007199254740993n]]]);
  // A NULL matches neither = true nor = false: it goes to the default region (index 0, region 0).
  const flags = PartitionRule.parse([{ name: 'flag', type: 'Boolean', column_id: 4 }], ['flag = true', 'flag = false']);
  assert.deepEqual(rowsOf(flags.split(batch({ 4: { type: 'bool', data: Uint8Array.of(1, 0, 1), valid: Uint8Array.of(1, 1, 0) } })), 4), [[0, [1, null]], [1, [0]]]);
  const g = PartitionRule.parse([{ name: 'g', type: 'Float32', column_id: 10 }], ['g < 0.1', 'g >= 0.1']);
  assert.deepEqual(rowsOf(g.split(batch({ 10: f64([0.1, 0.09, NaN]) })), 10), [[0, [0.09]], [1, [0.1, NaN]]]);
});

test('rows no expression matches go to region 0; a partition column the batch lacks holds its default', () => {
  // An unchecked rule (as a table from elsewhere may have): rows of no region go to region 0.
  const partial = new PartitionRule([A], [parsePartitionExpr('a >= 10', new Map([['a', 'Int32']])), parsePartitionExpr('a < 0', new Map([['a', 'Int32']]))], 1);
  assert.deepEqual(rowsOf(partial.split(batch({ 0: f64([5, 20, -1]) })), 0), [[0, [20]], [1, [5, -1]]]);
  const withDefault = PartitionRule.parse([{ ...A, default: 1500 }, B], ['a < 1000', 'a >= 1000']);
  const lacking = batch({ 1: { type: 'string', data: ['x', 'y'] } });
  assert.deepEqual(withDefault.split(lacking).map((p) => p.index), [1]);
  assert.ok(!withDefault.covers(lacking));
  assert.ok(withDefault.covers(batch({ 0: f64([1]) })));
  // No default: NULL, which sorts first.
  assert.deepEqual(PartitionRule.parse([A], ['a < 1000', 'a >= 1000']).split(lacking).map((p) => p.index), [0]);
});

test('pruning keeps the regions key values can reach; an unconstrained column can hold anything', () => {
  const rule = PartitionRule.parse([A, B], ['a < 10', "a = 10 AND b < 'a'", "a = 10 AND b >= 'a' AND b < 'o'", "a = 10 AND b >= 'o'", 'a > 10']);
  assert.deepEqual(rule.prune(undefined), [0, 1, 2, 3, 4]);
  assert.deepEqual(rule.prune(new Map([['a', [5n]]])), [0]);
  assert.deepEqual(rule.prune(new Map([['a', [5n, 20n]]])), [0, 4]);
  assert.deepEqual(rule.prune(new Map([['a', [10n]], ['b', ['z']]])), [3]);
  // b unconstrained: every region of a = 10, and region 0 (a NULL b matches none of them).
  assert.deepEqual(rule.prune(new Map([['a', [10n]]])), [0, 1, 2, 3]);
  // b alone: the a < 10 and a > 10 regions may hold any b.
  assert.deepEqual(rule.prune(new Map([['b', ['z']]])), [0, 3, 4]);
  // A string for a number column would need DuckDB's cast: not used.
  assert.deepEqual(rule.prune(new Map([['a', ['5']]])), [0, 1, 2, 3, 4]);
  assert.deepEqual(rule.prune(new Map([['other', ['5']]])), [0, 1, 2, 3, 4]);
  // Beyond 4096 combinations, every region.
  const many = Array.from({ length: 100 }, (_, i) => BigInt(i));
  const strings = Array.from({ length: 50 }, (_, i) => `s${i}`);
  assert.deepEqual(rule.prune(new Map<string, Array<string | bigint>>([['a', many], ['b', strings]])), [0, 1, 2, 3, 4]);
});

test('a table’s rule is parsed once per table info, with region 0 as the default region', () => {
  const info: TableInfo = {
    table_id: 1024,
    catalog: 'tsdb',
    database: 'public',
    name: 't',
    columns: TABLE.columns,
    primary_key: ['a', 'b'],
    time_index: 'ts',
    engine: 'mito',
    options: {},
    region_numbers: [0, 1, 2],
    partition: { columns: ['a'], exprs: ['a < 10', 'a >= 10 AND a < 20', 'a >= 20'] },
    next_column_id: 11,
    schema_version: 0,
    created_at: 0,
  };
  const rule = partitionRuleOf(info)!;
  assert.equal(partitionRuleOf(info), rule);
  assert.equal(rule.regionCount, 3);
  assert.equal(partitionRuleOf({ ...info, partition: { columns: ['a'], exprs: [] }, region_numbers: [0] }), undefined);
  assert.equal(partitionRuleOf({ ...info, partition: undefined, region_numbers: [0] }), undefined);
  assert.equal(failure(() => partitionRuleOf({ ...info, region_numbers: [0] })).code, StatusCode.Unexpected);
});

test('a deeply nested or very long rule is refused or handled, never a stack overflow', () => {
  const types = new Map([['host', 'String' as const]]);
  const deep = `${'('.repeat(5000)}host <= 'a'${')'.repeat(5000)}`;
  assert.throws(() => parsePartitionExpr(deep, types), (e: unknown) => e instanceof TsdbError && e.code === StatusCode.InvalidSyntax && /recursion limit exceeded/.test(e.message));
  assert.doesNotThrow(() => parsePartitionExpr(`${'('.repeat(40)}host <= 'a'${')'.repeat(40)}`, types));
  const long = Array.from({ length: 20_000 }, (_, i) => `host <> 'h${i}'`).join(' AND ');
  try {
    parsePartitionExpr(long, types);
  } catch (e) {
    assert.ok(e instanceof TsdbError && e.code !== StatusCode.Internal, String(e));
  }
});
