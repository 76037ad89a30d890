/** The options a table's regions work by: the table's own with its database's dynamic ones. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { effectiveOptions, isDynamicDatabaseOption, regionOptionsOf } from './table-options.js';

test("a table without a TTL of its own takes its database's; its own wins", () => {
  assert.equal(regionOptionsOf(effectiveOptions({}, { ttl: '1day' })).ttl, 86_400_000);
  assert.equal(regionOptionsOf(effectiveOptions({ ttl: '6h' }, { ttl: '1day' })).ttl, 21_600_000);
  assert.equal(regionOptionsOf(effectiveOptions({ ttl: 'forever' }, { ttl: '1day' })).ttl, undefined);
  assert.equal(regionOptionsOf(effectiveOptions({}, undefined)).ttl, undefined);
});

test("the database's compaction options replace the table's unless the table overrides them", () => {
  const db = { 'compaction.type': 'twcs', 'compaction.twcs.time_window': '3h' };
  assert.equal(regionOptionsOf(effectiveOptions({ 'compaction.twcs.time_window': '1h' }, db)).compaction_time_window, 3 * 3_600_000);
  const own = { 'compaction.type': 'twcs', 'compaction.override': 'true', 'compaction.twcs.time_window': '1h' };
  assert.equal(regionOptionsOf(effectiveOptions(own, db)).compaction_time_window, 3_600_000);
  assert.equal(regionOptionsOf(effectiveOptions({ 'compaction.twcs.time_window': '1h' }, { ttl: '1h' })).compaction_time_window, 3_600_000);
});

test('only the TTL and compaction options of a database are dynamic', () => {
  assert.ok(isDynamicDatabaseOption('ttl'));
  assert.ok(isDynamicDatabaseOption('compaction.twcs.time_window'));
  assert.ok(!isDynamicDatabaseOption('append_mode'));
  assert.ok(!isDynamicDatabaseOption('memtable.type'));
});
