/**
 * Tests of the TQL result shapes (GreptimeDB's column names and order, its sqlness .result files):
 * selectors in table order, `__field__` and aliases, aggregations, range functions, binary
 * operators between one table or two, and the labels known before the answer.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Expr, LabelMatcher, MatrixSelector, VectorSelector } from '../../promql/ast.js';
import type { TableSummary } from '../table-summary.js';
import { selectorsOf, ShapeOf, type SelectorTable } from './tql-columns.js';

function table(name: string, columns: Array<[string, 'tag' | 'field' | 'timestamp', string]>): TableSummary {
  return { name, engine: 'mito', physical: false, columns: columns.map(([n, semantic, type]) => ({ name: n, semantic, type })) };
}

const TEST = table('test', [['i', 'field', 'Float64'], ['j', 'timestamp', 'TimestampMillisecond'], ['k', 'tag', 'String']]);
const METRICS = table('metrics', [['ts', 'timestamp', 'TimestampMillisecond'], ['val', 'field', 'Float64'], ['host', 'tag', 'String'], ['service', 'tag', 'String']]);
const PROMPT = table('prompt', [['ts', 'timestamp', 'TimestampMillisecond'], ['model', 'tag', 'String'], ['val', 'field', 'Float64']]);
const TABLES = [TEST, METRICS, PROMPT];

function sel(name: string, more: LabelMatcher[] = []): VectorSelector {
  return { kind: 'vector', name, matchers: [{ name: '__name__', type: '=', value: name }, ...more], offsetMs: 0 };
}
const range = (s: VectorSelector, rangeMs: number): MatrixSelector => ({ kind: 'matrix', selector: s, rangeMs });
const num = (value: number): Expr => ({ kind: 'number', value });

function shapeOf(expr: Expr, alias?: string) {
  const tables = new Map<VectorSelector, SelectorTable>();
  for (const s of selectorsOf(expr)) {
    const summary = TABLES.find((t) => t.name === s.name);
    tables.set(s, { name: s.name!, ...(summary !== undefined && { summary }) });
  }
  return new ShapeOf(tables).shape(expr, alias);
}

test('a selector: the table columns in table order; with __field__ or an alias: value, tags, time', () => {
  assert.deepEqual(shapeOf(sel('test')), { timeName: 'j', valueName: 'i', tags: ['k'], layout: 'table', order: ['i', 'j', 'k'] });
  assert.deepEqual(shapeOf(sel('metrics')).order, ['ts', 'val', 'host', 'service']);
  const field = shapeOf(sel('test', [{ name: '__field__', type: '=', value: 'i' }]));
  assert.deepEqual([field.layout, field.valueName, field.tags], ['field', 'i', ['k']]);
  const aliased = shapeOf(sel('test'), 'test_series');
  assert.deepEqual([aliased.layout, aliased.valueName, aliased.timeName], ['field', 'test_series', 'j']);
});

test('aggregations: grouping labels, time, `op(table.field)`; unknown grouping labels dropped', () => {
  const sum = shapeOf({ kind: 'aggregate', op: 'sum', expr: sel('metrics'), grouping: ['host', 'nope'], without: false });
  assert.deepEqual([sum.layout, sum.valueName, sum.tags, sum.timeName], ['tags-time-value', 'sum(metrics.val)', ['host'], 'ts']);
  const without = shapeOf({ kind: 'aggregate', op: 'avg', expr: sel('metrics'), grouping: ['service'], without: true });
  assert.deepEqual(without.tags, ['host']);
  const rate = { kind: 'call', func: 'rate', args: [range(sel('metrics'), 60_000)] } as const;
  assert.equal(shapeOf({ kind: 'aggregate', op: 'sum', expr: rate, grouping: [], without: false }).valueName, 'sum(prom_rate(ts_range,val,ts,Int64(60000)))');
  const cv = shapeOf({ kind: 'aggregate', op: 'count_values', param: { kind: 'string', value: 'v' }, expr: sel('test'), grouping: [], without: false });
  assert.deepEqual([cv.valueName, cv.tags], ['count(test.i)', ['v']]);
});

test('range functions: time, prom_<fn>(<ts>_range,<field>[,…]), tags', () => {
  const q = shapeOf({ kind: 'call', func: 'quantile_over_time', args: [num(0.5), range(sel('test'), 120_000)] });
  assert.deepEqual([q.layout, q.valueName, q.tags], ['time-value-tags', 'prom_quantile_over_time(j_range,i,Float64(0.5))', ['k']]);
  assert.equal(shapeOf({ kind: 'call', func: 'irate', args: [range(sel('metrics'), 2000)] }).valueName, 'prom_irate(ts_range,val)');
  const lr = shapeOf({ kind: 'call', func: 'label_replace', args: [sel('test'), { kind: 'string', value: 'dst' }, { kind: 'string', value: '$1' }, { kind: 'string', value: 'k' }, { kind: 'string', value: '(.*)' }] });
  assert.deepEqual(lr.tags, ['k', 'dst']);
});

test('binary operators: Float64 literals, lhs/rhs of one table, the tables of two, atan2, vector matching labels', () => {
  const scaled = shapeOf({ kind: 'binary', op: '*', lhs: { kind: 'aggregate', op: 'sum', expr: sel('metrics'), grouping: ['host'], without: false }, rhs: num(100), returnBool: false });
  assert.deepEqual([scaled.layout, scaled.valueName, scaled.tags], ['tags-time-value', 'sum(metrics.val) * Float64(100)', ['host']]);
  const self = shapeOf({ kind: 'binary', op: '/', lhs: sel('test'), rhs: sel('test'), returnBool: false, matching: { card: 'one-to-one', on: false, labels: [], include: [] } });
  assert.equal(self.valueName, 'lhs.i / rhs.i');
  const two = shapeOf({ kind: 'binary', op: 'atan2', lhs: sel('metrics'), rhs: sel('prompt'), returnBool: false, matching: { card: 'one-to-one', on: true, labels: ['host'], include: [] } });
  assert.deepEqual([two.valueName, two.tags], ['atan2(metrics.val,prompt.val)', ['host']]);
  const groupLeft = shapeOf({ kind: 'binary', op: '-', lhs: sel('metrics'), rhs: sel('prompt'), returnBool: false, matching: { card: 'many-to-one', on: false, labels: ['service'], include: ['model'] } });
  assert.deepEqual(groupLeft.tags, ['host', 'model']);
});

test('no table (literals, a table that does not exist): time | value', () => {
  assert.deepEqual(shapeOf(num(1)), { timeName: 'time', valueName: 'value', tags: [], layout: 'plain' });
  assert.deepEqual(shapeOf(sel('no_such_table')), { timeName: 'time', valueName: 'value', tags: [], layout: 'plain' });
});
