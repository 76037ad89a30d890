/**
 * Damage to WAL files, from a table (STYLE.md, after Prometheus `TestWALRepair_ReadingError`):
 * each row writes records, damages the files, reopens, and states what replay gives per region.
 */
import assert from 'node:assert/strict';
import { appendFileSync, readdirSync, readFileSync, statSync, truncateSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import { tempDir } from '../../../test/support/temp.js';
import type { RegionId } from '../../types/region-id.js';
import { RECORD_HEADER_SIZE } from './record.js';
import { SEGMENT_HEADER_SIZE } from './segment.js';
import { A, B, batch, openWal, replayAll } from '../../../test/support/wal.js';
import { WalCorruptionError } from './wal.js';

const RECORD = RECORD_HEADER_SIZE + 16; // batch() payloads are 16 bytes

/** Writes `plan`: one list of batches per session (each session is one open, one segment). */
async function write(t: TestContext, dir: string, plan: Array<Array<[RegionId, number]>>): Promise<void> {
  for (const session of plan) {
    const wal = await openWal(t, dir);
    for (const [r, n] of session) await wal.append([batch(r, n)]);
    await wal.close();
  }
}

function segments(dir: string): string[] {
  return readdirSync(dir).filter((f) => f.endsWith('.wal')).sort().map((f) => join(dir, f));
}

function flip(file: string, offset: number): void {
  const buf = readFileSync(file);
  buf[offset]! ^= 0xff;
  writeFileSync(file, buf);
}

/** Offset of the i-th record of a segment written by `write` (all records are the same size). */
const at = (i: number) => SEGMENT_HEADER_SIZE + i * RECORD;

type Outcome = number[] | RegExp;

interface Damage {
  readonly name: string;
  readonly plan: Array<Array<[RegionId, number]>>;
  readonly damage: (files: string[]) => void;
  /** Per region: the sequences replay returns, or the error it throws. */
  readonly expect: ReadonlyMap<RegionId, Outcome>;
}

const five: Array<[RegionId, number]> = [[A, 0], [A, 1], [A, 2], [A, 3], [A, 4]];

const DAMAGES: Damage[] = [
  {
    name: 'torn tail: the last record cut in half',
    plan: [five],
    damage: ([f]) => truncateSync(f!, at(4) + Math.floor(RECORD / 2)),
    expect: new Map([[A, [1, 11, 21, 31]]]),
  },
  {
    name: 'torn tail: a few bytes of a record header',
    plan: [five],
    damage: ([f]) => appendFileSync(f!, Buffer.from([1, 2, 3, 4, 5, 6, 7])),
    expect: new Map([[A, [1, 11, 21, 31, 41]]]),
  },
  {
    name: 'torn tail: zeros after the last record (size grew, data not written)',
    plan: [five],
    damage: ([f]) => appendFileSync(f!, Buffer.alloc(4096)),
    expect: new Map([[A, [1, 11, 21, 31, 41]]]),
  },
  {
    name: 'torn tail: a flipped byte in the last record',
    plan: [five],
    damage: ([f]) => flip(f!, at(4) + RECORD_HEADER_SIZE + 3),
    expect: new Map([[A, [1, 11, 21, 31]]]),
  },
  {
    name: 'a flipped byte in the middle of the last segment',
    plan: [five],
    damage: ([f]) => flip(f!, at(2) + RECORD_HEADER_SIZE + 3),
    expect: new Map([[A, new RegExp(`00000000000000000001\\.wal at offset ${at(2)}: checksum mismatch`)]]),
  },
  {
    name: 'a flipped byte in the last record of an older segment',
    plan: [[[A, 0], [A, 1], [A, 2]], [[A, 3], [A, 4]]],
    damage: ([f]) => flip(f!, at(2) + 10),
    expect: new Map([[A, new RegExp(`00000000000000000001\\.wal at offset ${at(2)}: checksum mismatch.*records of region .* from sequence 21 are lost`)]]),
  },
  {
    name: 'an older segment\'s header damaged',
    plan: [[[A, 0]], [[A, 1]]],
    damage: ([f]) => flip(f!, 2),
    expect: new Map([[A, /00000000000000000001\.wal at offset 0: not a WAL segment \(bad magic\)/]]),
  },
  {
    name: 'a segment missing from the middle',
    plan: [[[A, 0]], [[A, 1]], [[A, 2]]],
    damage: ([, middle]) => unlinkSync(middle!),
    expect: new Map([[A, /00000000000000000002\.wal at offset 0: segment is missing \(found 00000000000000000001\.wal and 00000000000000000003\.wal\)/]]),
  },
  {
    name: 'an empty last segment left by a crash at creation',
    plan: [five, []],
    damage: ([, last]) => truncateSync(last!, 10),
    expect: new Map([[A, [1, 11, 21, 31, 41]]]),
  },
  {
    name: 'damage that spares a region whose later records continue without a gap',
    plan: [[[B, 0], [A, 0], [A, 1], [A, 2]], [[B, 1], [A, 3]]],
    damage: ([f]) => flip(f!, at(2) + RECORD_HEADER_SIZE),
    expect: new Map<RegionId, Outcome>([
      [B, [1, 11]],
      [A, /checksum mismatch .*; records of region .* from sequence 11 are lost/],
    ]),
  },
  {
    name: 'damage after a region\'s last record: the region may have lost its tail',
    plan: [[[B, 0], [A, 0], [A, 1], [A, 2]], [[A, 3]]],
    damage: ([f]) => flip(f!, at(2) + RECORD_HEADER_SIZE),
    expect: new Map<RegionId, Outcome>([[B, /checksum mismatch .*; records of region .* may be lost/]]),
  },
];

for (const d of DAMAGES) {
  test(`WAL damage: ${d.name}`, async (t) => {
    const dir = tempDir(t);
    await write(t, dir, d.plan);
    d.damage(segments(dir));
    const open = openWal(t, dir);
    for (const [region, outcome] of d.expect) {
      if (outcome instanceof RegExp && /segment is missing/.test(outcome.source)) {
        await assert.rejects(open, (err: Error) => err instanceof WalCorruptionError && outcome.test(err.message));
        return;
      }
      const wal = await open;
      const replay = replayAll(wal, new Map([[region, 0]]));
      if (outcome instanceof RegExp) {
        await assert.rejects(replay, (err: Error) => err instanceof WalCorruptionError && outcome.test(err.message), `region ${region}`);
      } else {
        assert.deepEqual((await replay).map((r) => r.sequence), outcome, `region ${region}`);
      }
    }
  });
}

test('after a torn tail is cut, new appends follow and everything replays', async (t) => {
  const dir = tempDir(t);
  await write(t, dir, [five]);
  const [first] = segments(dir);
  truncateSync(first!, at(4) + 5);
  const wal = await openWal(t, dir);
  assert.equal(statSync(first!).size, at(4), 'the torn record was cut off');
  await wal.append([batch(A, 4)]);
  await wal.close();
  const again = await openWal(t, dir);
  assert.deepEqual((await replayAll(again, new Map([[A, 0]]))).map((r) => r.sequence), [1, 11, 21, 31, 41]);
});
