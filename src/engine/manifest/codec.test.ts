import assert from 'node:assert/strict';
import { test } from 'node:test';
import { changeAction, editAction, purgeAction, removeAction, truncateAction, type RegionAction } from './action.js';
import { decodeCheckpoint, decodeDelta, decodePointer, encodeCheckpoint, encodeDelta, encodePointer, matchesPointer, pointerTo } from './codec.js';
import { checkpointFileName, deltaFileName, parseManifestFileName, POINTER_FILE } from './file-names.js';
import { LAST_VERSION, metadata, REFERENCE, sst } from './manifest.suite.js';

test('file names: 20-digit versions that sort as numbers', () => {
  assert.equal(deltaFileName(7), '00000000000000000007.json');
  assert.equal(checkpointFileName(123), '00000000000000000123.checkpoint');
  assert.deepEqual(parseManifestFileName('00000000000000000007.json'), { kind: 'delta', version: 7 });
  assert.deepEqual(parseManifestFileName('00000000000000000123.checkpoint'), { kind: 'checkpoint', version: 123 });
  assert.deepEqual(parseManifestFileName(POINTER_FILE), { kind: 'pointer' });
  for (const other of ['7.json', '00000000000000000007.json.gz', '00000000000000000000.json', '99999999999999999999.json', 'x/00000000000000000001.json', 'LOCK']) {
    assert.equal(parseManifestFileName(other), undefined, other);
  }
  assert.throws(() => deltaFileName(0), /not a positive integer/);
  assert.ok(deltaFileName(9) < deltaFileName(10));
});

const EVERY_KIND: readonly RegionAction[] = [
  changeAction(metadata(2)),
  editAction({ files_to_add: [sst('a', 1)], files_to_remove: ['b'], flushed_sequence: 1, committed_sequence: 2, compaction_time_window: 60_000, timestamp_ms: 5 }),
  editAction({ timestamp_ms: 6 }),
  truncateAction(9, 7),
  purgeAction(['b']),
  removeAction(),
];

test('a delta round-trips every action kind', () => {
  assert.deepEqual(decodeDelta(encodeDelta(EVERY_KIND)), { kind: 'ok', value: EVERY_KIND });
  assert.match(Buffer.from(encodeDelta([removeAction()])).toString(), /^\{"actions":\[\{"kind":"remove"\}\]\}$/);
});

test('every proper prefix of a delta, checkpoint or pointer is damaged, never invalid or whole', () => {
  // What the crash-safety argument rests on: a write cut short never parses.
  const files = [encodeDelta(EVERY_KIND), encodeCheckpoint(REFERENCE[LAST_VERSION]!), encodePointer({ version: 12, size: 3456, checksum: 0xdeadbeef })];
  const decoders = [decodeDelta, decodeCheckpoint, decodePointer] as const;
  files.forEach((bytes, i) => {
    for (let n = 0; n < bytes.length; n++) assert.equal(decoders[i]!(bytes.subarray(0, n)).kind, 'damaged', `file ${i}, ${n} bytes`);
    assert.equal(decoders[i]!(bytes).kind, 'ok');
  });
});

test('damaged and invalid deltas are told apart', () => {
  const damaged = ['', '{"actions":[', '\u0000\u0000\u0000', 'garbage'];
  for (const text of damaged) assert.equal(decodeDelta(Buffer.from(text)).kind, 'damaged', JSON.stringify(text));
  assert.equal(decodeDelta(Uint8Array.from([0x7b, 0xff, 0x7d])).kind, 'damaged', 'not UTF-8');
  const invalid: Array<[string, RegExp]> = [
    ['{}', /expected \{"actions"/],
    ['[]', /expected \{"actions"/],
    ['{"actions":[]}', /no actions/],
    ['{"actions":[{"kind":"bogus"}]}', /action 0: unknown action kind "bogus"/],
    ['{"actions":[{"kind":"remove"},{"kind":"edit","files_to_add":[],"files_to_remove":[]}]}', /action 1: timestamp_ms/],
    ['{"actions":[{"kind":"edit","files_to_add":[{"file_id":"a"}],"files_to_remove":[],"timestamp_ms":1}]}', /file a: time_range/],
    ['{"actions":[{"kind":"change","metadata":{"region_id":"x"}}]}', /region_id/],
    ['{"actions":[{"kind":"purge","file_ids":[1]}]}', /file_ids is not a list of file ids/],
  ];
  for (const [text, reason] of invalid) {
    const d = decodeDelta(Buffer.from(text));
    assert.equal(d.kind, 'invalid', text);
    assert.match((d as { reason: string }).reason, reason, text);
  }
});

test('a checkpoint round-trips its state; the pointer checks its size and checksum', () => {
  const state = REFERENCE[LAST_VERSION]!;
  const bytes = encodeCheckpoint(state);
  assert.deepEqual(decodeCheckpoint(bytes), { kind: 'ok', value: { last_version: LAST_VERSION, checkpoint: state } });
  const pointer = pointerTo(LAST_VERSION, bytes);
  assert.deepEqual(decodePointer(encodePointer(pointer)), { kind: 'ok', value: pointer });
  assert.ok(matchesPointer(pointer, bytes));
  const flipped = Uint8Array.from(bytes);
  flipped[flipped.length >> 1]! ^= 1;
  assert.ok(!matchesPointer(pointer, flipped));
  assert.ok(!matchesPointer(pointer, bytes.subarray(1)));
});

test('a checkpoint whose last_version is not its state\'s version is invalid', () => {
  const state = REFERENCE[3]!;
  const d = decodeCheckpoint(Buffer.from(JSON.stringify({ last_version: 4, checkpoint: state })));
  assert.equal(d.kind, 'invalid');
  assert.equal(decodeCheckpoint(Buffer.from(JSON.stringify({ last_version: 3, checkpoint: { ...state, files: [] } }))).kind, 'invalid');
});
