import assert from 'node:assert/strict';
import { test } from 'node:test';
import { crc32c as crc } from '@node-rs/crc32';
import { TsdbError } from '../../common/error/tsdb-error.js';
import { StatusCode } from '../../common/error/status-code.js';
import { InvertedIndex, InvertedIndexWriter, type IndexTerm } from './inverted-index.js';

/** Segment numbers set in a bitmap. */
function setBits(bits: Uint8Array | undefined): number[] | undefined {
  if (bits === undefined) return undefined;
  const out: number[] = [];
  for (let s = 0; s < bits.length * 8; s++) if (bits[s >>> 3]! & (1 << (s & 7))) out.push(s);
  return out;
}

/**
 * 10 segments of 4 rows (40 rows), row groups of 16, 16 and 8 rows (segments 0–3, 4–7, 8–9).
 * Column 1 (strings): `a` in segments 0–1 (a run), `b` in 2, 5, 9, `é` in 0–9 (dense: a bitmap),
 * NULL in 3. Column 2 (integers): 7 in 4–6, -3 in 8.
 */
function sample(): Uint8Array {
  const w = new InvertedIndexWriter({ segmentRowCount: 4, rowCount: 40, rowGroupRows: [16, 16, 8] });
  w.beginColumn(1, 'string', [3]);
  w.addValue('a', [0, 1]);
  w.addValue('b', [2, 5, 9]);
  w.addValue('é', [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
  w.beginColumn(2, 'integer', []);
  w.addValue('-3', [8]);
  w.addValue('7', [4, 5, 6]);
  return w.finish();
}

const match = (index: InvertedIndex, ...terms: Array<[number, IndexTerm]>) => setBits(index.segmentsMatching(terms.map(([columnId, term]) => ({ columnId, term }))));

test('round trip: values, segments, layout', () => {
  const index = InvertedIndex.decode(sample(), 'sample');
  assert.deepEqual(index.layout, { segmentRowCount: 4, rowCount: 40, rowGroupRows: [16, 16, 8] });
  assert.deepEqual(index.columnIds().sort(), [1, 2]);
  assert.deepEqual(match(index, [1, { kind: 'in', values: ['a'] }]), [0, 1]);
  assert.deepEqual(match(index, [1, { kind: 'in', values: ['b', 'zzz'] }]), [2, 5, 9]);
  assert.deepEqual(match(index, [1, { kind: 'in', values: ['é'] }]), [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
  assert.deepEqual(match(index, [1, { kind: 'in', values: ['missing'] }]), []);
  assert.deepEqual(match(index, [2, { kind: 'in', values: [7n] }]), [4, 5, 6]);
  assert.deepEqual(match(index, [2, { kind: 'in', values: [-3n, 7n] }]), [4, 5, 6, 8]);
});

test('terms: NOT IN, regex (partial, full, negated), LIKE; NULL meets none; terms intersect', () => {
  const index = InvertedIndex.decode(sample(), 'sample');
  assert.deepEqual(match(index, [1, { kind: 'not_in', values: ['é'] }]), [0, 1, 2, 5, 9]);
  assert.deepEqual(match(index, [1, { kind: 'not_in', values: ['a', 'b', 'é'] }]), []);
  assert.deepEqual(match(index, [1, { kind: 'regex', pattern: '^[ab]$', full: false, negated: false }]), [0, 1, 2, 5, 9]);
  assert.deepEqual(match(index, [1, { kind: 'regex', pattern: 'a|b', full: true, negated: false }]), [0, 1, 2, 5, 9]);
  assert.deepEqual(match(index, [1, { kind: 'regex', pattern: '.', full: true, negated: true }]), []);
  assert.deepEqual(match(index, [1, { kind: 'regex', pattern: 'a', full: false, negated: true }]), [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
  assert.deepEqual(match(index, [1, { kind: 'like', pattern: '_', negated: false }]), [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
  assert.deepEqual(match(index, [1, { kind: 'like', pattern: 'b%', negated: false }]), [2, 5, 9]);
  assert.deepEqual(match(index, [1, { kind: 'in', values: ['b'] }], [2, { kind: 'in', values: [7n] }]), [5]);
  assert.deepEqual(match(index, [1, { kind: 'in', values: ['a'] }], [2, { kind: 'not_in', values: [7n] }]), []);
});

test('what the index cannot answer gives undefined, never a guess', () => {
  const index = InvertedIndex.decode(sample(), 'sample');
  // A column it does not index, a pattern outside the shared subset, a value of the wrong kind.
  assert.equal(match(index, [9, { kind: 'in', values: ['a'] }]), undefined);
  assert.equal(match(index, [1, { kind: 'regex', pattern: '\\sa', full: false, negated: false }]), undefined);
  assert.equal(match(index, [1, { kind: 'regex', pattern: '(?i)A', full: false, negated: false }]), undefined);
  assert.equal(match(index, [1, { kind: 'in', values: [1n] }]), undefined);
  assert.equal(match(index, [2, { kind: 'regex', pattern: '7', full: false, negated: false }]), undefined);
  // An unanswerable term beside an answerable one: the answerable one still narrows.
  assert.deepEqual(match(index, [1, { kind: 'in', values: ['a'] }], [1, { kind: 'regex', pattern: '[[:alpha:]]', full: false, negated: false }]), [0, 1]);
});

test('row groups overlapping the selected segments', () => {
  const index = InvertedIndex.decode(sample(), 'sample');
  const groups = (term: IndexTerm) => index.rowGroupsOf(index.segmentsMatching([{ columnId: 1, term }])!);
  assert.deepEqual(groups({ kind: 'in', values: ['a'] }), [true, false, false]);
  assert.deepEqual(groups({ kind: 'in', values: ['b'] }), [true, true, true]);
  assert.deepEqual(groups({ kind: 'in', values: ['nope'] }), [false, false, false]);
  // Row groups that do not start on a segment boundary: 6 + 10 rows with segments of 4.
  const w = new InvertedIndexWriter({ segmentRowCount: 4, rowCount: 16, rowGroupRows: [6, 10] });
  w.beginColumn(1, 'string', []);
  w.addValue('x', [1]); // rows 4–7: in both groups
  w.addValue('y', [3]); // rows 12–15: only the second
  const odd = InvertedIndex.decode(w.finish(), 'odd');
  assert.deepEqual(odd.rowGroupsOf(odd.segmentsMatching([{ columnId: 1, term: { kind: 'in', values: ['x'] } }])!), [true, true]);
  assert.deepEqual(odd.rowGroupsOf(odd.segmentsMatching([{ columnId: 1, term: { kind: 'in', values: ['y'] } }])!), [false, true]);
});

test('the writer refuses values out of order', () => {
  const w = new InvertedIndexWriter({ segmentRowCount: 4, rowCount: 8, rowGroupRows: [8] });
  w.beginColumn(1, 'string', []);
  w.addValue('b', [0]);
  assert.throws(() => w.addValue('a', [1]), /out of order/);
  assert.throws(() => w.addValue('b', [1]), /out of order/);
});

test('an index of many values round-trips (runs and bitmaps chosen by size)', () => {
  const rows = 1_000_000;
  const S = 1024;
  const segments = Math.ceil(rows / S);
  const w = new InvertedIndexWriter({ segmentRowCount: S, rowCount: rows, rowGroupRows: [rows] });
  w.beginColumn(3, 'string', []);
  const expected = new Map<string, number[]>();
  for (let v = 0; v < 2000; v++) {
    const name = `host_${String(v).padStart(5, '0')}`;
    const segs = v % 2 === 0 ? [Math.floor((v * segments) / 2000)] : Array.from({ length: segments }, (_, s) => s).filter((s) => (s + v) % 3 === 0);
    expected.set(name, segs);
    w.addValue(name, segs);
  }
  const index = InvertedIndex.decode(w.finish(), 'big');
  for (const [name, segs] of expected) assert.deepEqual(setBits(index.segmentsMatching([{ columnId: 3, term: { kind: 'in', values: [name] } }])), segs);
});

/** Damage to a sound file, each of which must be refused with a clear error (never a wrong answer). */
const DAMAGES: ReadonlyArray<{ name: string; damage: (b: Uint8Array) => Uint8Array; message: RegExp }> = [
  { name: 'empty file', damage: () => new Uint8Array(0), message: /too short/ },
  { name: 'truncated by one byte', damage: (b) => b.subarray(0, b.length - 1), message: /checksum/ },
  { name: 'truncated to half', damage: (b) => b.subarray(0, b.length >>> 1), message: /checksum/ },
  { name: 'a bit flipped in a value', damage: (b) => flip(b, b.length >>> 1), message: /checksum/ },
  { name: 'a bit flipped in the checksum', damage: (b) => flip(b, b.length - 2), message: /checksum/ },
  { name: 'magic changed (checksum fixed up)', damage: (b) => resum(flip(b, 0)), message: /magic/ },
  { name: 'version changed (checksum fixed up)', damage: (b) => resum(flip(b, 4)), message: /version/ },
  { name: 'row count changed (checksum fixed up)', damage: (b) => resum(flip(b, 12)), message: /row groups hold/ },
];

function flip(b: Uint8Array, at: number): Uint8Array {
  const c = Uint8Array.from(b);
  c[at]! ^= 0x01;
  return c;
}

/** The file with its checksum recomputed, so that the damage underneath is what is detected. */
function resum(b: Uint8Array): Uint8Array {
  const c = Uint8Array.from(b);
  new DataView(c.buffer).setUint32(c.length - 4, crc(c.subarray(0, c.length - 4)), true);
  return c;
}

for (const { name, damage, message } of DAMAGES) {
  test(`a damaged index is refused: ${name}`, () => {
    const bytes = damage(sample());
    assert.throws(
      () => InvertedIndex.decode(bytes, 'r/1.invidx'),
      (err: unknown) => err instanceof TsdbError && err.code === StatusCode.StorageUnavailable && /inverted index r\/1\.invidx is damaged/.test(err.message) && message.test(err.message),
    );
  });
}

test('every truncation of a file is refused', () => {
  const bytes = sample();
  for (let n = 0; n < bytes.length; n++) assert.throws(() => InvertedIndex.decode(bytes.subarray(0, n), 'x'), TsdbError);
});
