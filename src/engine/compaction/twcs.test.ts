import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { FileMeta } from '../sst/file-meta.js';
import { expiredFiles, inferWindow, MAX_INPUT_FILES, pickCompactions } from './twcs.js';

const H = 3_600_000;

function file(id: string, min: number, max: number): FileMeta {
  return { file_id: id, time_range: [min, max], level: 0, file_size: 100, num_rows: 10, num_row_groups: 1, max_sequence: 1 };
}

test('the window is the smallest candidate covering the files\' span', () => {
  assert.equal(inferWindow([file('a', 0, 10 * 60_000)], 'TimestampMillisecond'), H);
  assert.equal(inferWindow([file('a', 0, H), file('b', H, 1.5 * H)], 'TimestampMillisecond'), 2 * H);
  assert.equal(inferWindow([file('a', 0, 20 * H)], 'TimestampMillisecond'), 24 * H);
  assert.equal(inferWindow([file('a', 0, 30 * 24 * H)], 'TimestampMillisecond'), 7 * 24 * H);
  // Seconds and nanoseconds are converted.
  assert.equal(inferWindow([file('a', 0, 5 * 3600)], 'TimestampSecond'), 12 * H);
  assert.equal(inferWindow([file('a', 0, 30 * 60 * 1e9)], 'TimestampNanosecond'), H);
});

test('a window with overlapping files, or with trigger_file_num files, is merged', () => {
  const opts = { unit: 'TimestampMillisecond' as const, windowMs: H, appendMode: false };
  // Three disjoint files in window 0: below the trigger of 4.
  const disjoint = [file('a', 0, 10), file('b', 20, 30), file('c', 40, 50)];
  assert.deepEqual(pickCompactions(disjoint, opts).picks, []);
  assert.deepEqual(pickCompactions([...disjoint, file('d', 60, 70)], opts).picks.map((p) => p.inputs.map((f) => f.file_id)), [['a', 'b', 'c', 'd']]);
  // Two overlapping files are merged at once.
  const picks = pickCompactions([file('a', 0, 100), file('b', 50, 150), file('c', H + 1, H + 2)], opts).picks;
  assert.deepEqual(picks.map((p) => [p.windowStart, p.inputs.map((f) => f.file_id), p.dropTombstones]), [[0, ['a', 'b'], true]]);
});

test('tombstones are kept when a file overlapping the inputs is left out, or in append mode', () => {
  const opts = { unit: 'TimestampMillisecond' as const, windowMs: H, appendMode: false };
  // 'big' spans two windows: it belongs to window 1 (its newest row) but overlaps window 0's files.
  const files = [file('a', 0, 100), file('b', 50, 150), file('big', 120, H + 10)];
  const [pick] = pickCompactions(files, opts).picks;
  assert.deepEqual(pick!.inputs.map((f) => f.file_id), ['a', 'b']);
  assert.equal(pick!.dropTombstones, false);
  const [appendPick] = pickCompactions([file('a', 0, 100), file('b', 50, 150)], { ...opts, appendMode: true }).picks;
  assert.equal(appendPick!.dropTombstones, false);
});

test('at most MAX_INPUT_FILES files per compaction', () => {
  const many = Array.from({ length: 40 }, (_, i) => file(`f${i}`, i, i + 1));
  const [pick] = pickCompactions(many, { unit: 'TimestampMillisecond', windowMs: H, appendMode: false }).picks;
  assert.equal(pick!.inputs.length, MAX_INPUT_FILES);
});

test('files entirely past the TTL expire', () => {
  const now = 10 * H;
  const files = [file('old', 0, 2 * H), file('edge', H, 5 * H), file('new', 8 * H, 9 * H)];
  assert.deepEqual(expiredFiles(files, 6 * H, now, 'TimestampMillisecond').map((f) => f.file_id), ['old']);
  assert.deepEqual(expiredFiles(files, undefined, now, 'TimestampMillisecond'), []);
});
