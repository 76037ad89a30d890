import assert from 'node:assert/strict';
import { test } from 'node:test';
import { changeAction, editAction, purgeAction, removeAction, truncateAction, type RegionAction } from './action.js';
import { metadata, REFERENCE, sst } from './manifest.suite.js';
import { apply, applyActions, InvalidTransitionError, type RegionManifest } from './region-manifest.js';

const created = REFERENCE[1]!;

function edit(fields: Parameters<typeof editAction>[0]): RegionAction {
  return editAction({ timestamp_ms: 1000, ...fields });
}

test('a change creates the state', () => {
  assert.deepEqual(apply(undefined, changeAction(metadata(1))), {
    metadata: metadata(1),
    files: {},
    removed_files: [],
    flushed_sequence: 0,
    committed_sequence: 0,
    truncated_sequence: 0,
    manifest_version: 0,
    removed: false,
  });
});

test('an edit adds and removes files; removed files wait for their purge', () => {
  const s1 = apply(created, edit({ files_to_add: [sst('a', 10), sst('b', 20)], flushed_sequence: 20, committed_sequence: 25 }));
  assert.deepEqual(Object.keys(s1.files).sort(), ['a', 'b']);
  assert.equal(s1.flushed_sequence, 20);
  assert.equal(s1.committed_sequence, 25);
  const s2 = apply(s1, editAction({ files_to_add: [sst('c', 20, 1)], files_to_remove: ['a', 'b'], compaction_time_window: 7_200_000, timestamp_ms: 2000 }));
  assert.deepEqual(s2.files, { c: sst('c', 20, 1) });
  assert.deepEqual(s2.removed_files, [
    { file_id: 'a', removed_at_ms: 2000 },
    { file_id: 'b', removed_at_ms: 2000 },
  ]);
  assert.equal(s2.compaction_time_window, 7_200_000);
  const s3 = apply(s2, purgeAction(['b']));
  assert.deepEqual(s3.removed_files, [{ file_id: 'a', removed_at_ms: 2000 }]);
  // Nothing was changed in place.
  assert.deepEqual(Object.keys(s1.files).sort(), ['a', 'b']);
  assert.deepEqual(s2.removed_files.length, 2);
});

test('sequences only move forward', () => {
  const s1 = apply(created, edit({ flushed_sequence: 50, committed_sequence: 60 }));
  const s2 = apply(s1, edit({ flushed_sequence: 40, committed_sequence: 45 }));
  assert.equal(s2.flushed_sequence, 50);
  assert.equal(s2.committed_sequence, 60);
  assert.equal(apply(s2, truncateAction(30, 1)).truncated_sequence, 30);
  assert.equal(apply(apply(s2, truncateAction(70, 1)), truncateAction(65, 1)).truncated_sequence, 70);
});

test('a truncate removes every file and raises the sequences to it', () => {
  const s1 = apply(created, edit({ files_to_add: [sst('a', 10), sst('b', 20)], flushed_sequence: 20, committed_sequence: 30 }));
  const s2 = apply(s1, truncateAction(35, 3000));
  assert.deepEqual(s2.files, {});
  assert.deepEqual(s2.removed_files, [
    { file_id: 'a', removed_at_ms: 3000 },
    { file_id: 'b', removed_at_ms: 3000 },
  ]);
  assert.equal(s2.truncated_sequence, 35);
  assert.equal(s2.flushed_sequence, 35);
  assert.equal(s2.committed_sequence, 35);
});

test('a change replaces the metadata; a remove marks the region removed', () => {
  const s1 = apply(created, changeAction(metadata(2)));
  assert.equal(s1.metadata.schema_version, 2);
  assert.equal(s1.metadata.columns.length, 4);
  assert.equal(apply(s1, removeAction()).removed, true);
});

test('applyActions applies all actions or none, and records the version', () => {
  const s = applyActions(created, [edit({ files_to_add: [sst('a', 1)] }), edit({ files_to_add: [sst('b', 2)] })], 2);
  assert.equal(s.manifest_version, 2);
  assert.deepEqual(Object.keys(s.files).sort(), ['a', 'b']);
  assert.throws(() => applyActions(s, [edit({ files_to_remove: ['a'] }), edit({ files_to_remove: ['a'] })], 3), /edit removes file a, which is not in the region/);
  assert.deepEqual(Object.keys(s.files).sort(), ['a', 'b']);
  assert.equal(s.manifest_version, 2);
});

test('invalid transitions are refused with a message saying what is wrong', () => {
  const withFile = apply(created, edit({ files_to_add: [sst('a', 1)] }));
  const removed = apply(created, removeAction());
  const cases: Array<[string, RegionManifest | undefined, RegionAction, RegExp]> = [
    ['edit before any change', undefined, edit({}), /^edit before any change: the region has no metadata yet$/],
    ['truncate before any change', undefined, truncateAction(1, 1), /^truncate before any change/],
    ['remove before any change', undefined, removeAction(), /^remove before any change/],
    ['edit after remove', removed, edit({}), /^edit after remove: the region is removed$/],
    ['change after remove', removed, changeAction(metadata(2)), /^change after remove/],
    ['remove after remove', removed, removeAction(), /^remove after remove/],
    ['removing a file that is not there', withFile, edit({ files_to_remove: ['b'] }), /^edit removes file b, which is not in the region$/],
    ['removing a file twice', withFile, edit({ files_to_remove: ['a', 'a'] }), /^edit removes file a twice$/],
    ['adding a file that is there', withFile, edit({ files_to_add: [sst('a', 2)] }), /^edit adds file a, which is already in the region$/],
    ['adding a file twice', created, edit({ files_to_add: [sst('x', 1), sst('x', 2)] }), /^edit adds file x twice$/],
    ['adding and removing a file', withFile, edit({ files_to_add: [sst('a', 2)], files_to_remove: ['a'] }), /already in the region/],
    ['metadata of another region', created, changeAction(metadata(2, '1')), /^change of region 4398046511104 carries metadata of region 1$/],
    ['an older schema', apply(created, changeAction(metadata(3))), changeAction(metadata(2)), /^change to schema version 2, older than the current 3$/],
    ['purging a file never removed', withFile, purgeAction(['a']), /^purge of file a, which is not among the removed files$/],
    ['purging a file twice', withFile, purgeAction(['a', 'a']), /^purge names a file twice$/],
  ];
  for (const [name, state, action, message] of cases) {
    assert.throws(() => apply(state, action), (err: Error) => err instanceof InvalidTransitionError && message.test(err.message), name);
  }
  assert.throws(() => applyActions(created, [], 2), /at least one action/);
});
