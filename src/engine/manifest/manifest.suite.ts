/**
 * The manifest's conformance suite, run against any ObjectStore: `runManifestSuite('memory',
 * () => new MemoryObjectStore())` here, and the same with the OpenDAL stores. Crashes are played
 * with FaultyObjectStore around the store under test; damage is done through the store itself.
 */
import assert from 'node:assert/strict';
import { test, type TestContext } from 'node:test';
import type { ObjectStore } from '../../storage/object-store.js';
import type { RegionMetadata } from '../../types/region-metadata.js';
import type { FileMeta } from '../sst/file-meta.js';
import { changeAction, editAction, purgeAction, removeAction, truncateAction, type RegionAction } from './action.js';
import { decodePointer, encodeDelta, encodePointer } from './codec.js';
import { FaultyObjectStore, SimulatedFault, type Fault, type StoreMutation } from './faulty-object-store.js';
import { checkpointFileName, deltaFileName, POINTER_FILE } from './file-names.js';
import { ManifestError, type ManifestErrorKind } from './manifest-error.js';
import { ManifestManager, type ManifestLogger, type ManifestOptions } from './manifest-manager.js';
import { applyActions, type RegionManifest } from './region-manifest.js';

export type StoreFactory = (t: TestContext) => ObjectStore | Promise<ObjectStore>;

// Fixtures, shared with the unit tests.

export const DIR = 'data/tsdb/public/1024/1024_0000000000/manifest/';
const T0 = 1_700_000_000_000;

export function metadata(schemaVersion = 1, regionId = '4398046511104'): RegionMetadata {
  const columns: Array<RegionMetadata['columns'][number]> = [
    { column_id: 0, name: 'host', type: 'String', semantic_type: 'tag', nullable: true },
    { column_id: 1, name: 'ts', type: 'TimestampMillisecond', semantic_type: 'timestamp', nullable: false },
    { column_id: 2, name: 'cpu', type: 'Float64', semantic_type: 'field', nullable: true },
  ];
  // Each schema version adds a column, as ALTER TABLE ADD COLUMN does.
  for (let v = 2; v <= schemaVersion; v++) {
    columns.push({ column_id: v + 1, name: `f${v}`, type: 'Int64', semantic_type: 'field', nullable: true, default: 0 });
  }
  return {
    region_id: regionId,
    schema_version: schemaVersion,
    columns,
    primary_key: [0],
    time_index: 1,
    options: { append_mode: false, merge_mode: 'last_row' },
  };
}

export function sst(fileId: string, maxSequence: number, level: 0 | 1 = 0): FileMeta {
  return {
    file_id: fileId,
    time_range: [maxSequence * 1000, maxSequence * 1000 + 999],
    level,
    file_size: 4096 + maxSequence,
    num_rows: maxSequence,
    num_row_groups: 1,
    max_sequence: maxSequence,
  };
}

/** The updates of a region's life after create, for versions 2, 3, …: flushes, compactions, alters, truncate, purges. */
export const SCENARIO: readonly (readonly RegionAction[])[] = [
  /* 2 */ [editAction({ files_to_add: [sst('f1', 10)], flushed_sequence: 10, committed_sequence: 10, timestamp_ms: T0 + 2 })],
  /* 3 */ [editAction({ files_to_add: [sst('f2', 20)], flushed_sequence: 20, committed_sequence: 20, timestamp_ms: T0 + 3 })],
  /* 4 */ [editAction({ files_to_add: [sst('f3', 30)], flushed_sequence: 30, compaction_time_window: 3_600_000, timestamp_ms: T0 + 4 })],
  /* 5 */ [editAction({ files_to_add: [sst('f4', 30, 1)], files_to_remove: ['f1', 'f2', 'f3'], timestamp_ms: T0 + 5 })],
  /* 6 */ [changeAction(metadata(2))],
  /* 7 */ [
    editAction({ files_to_add: [sst('f5', 40)], flushed_sequence: 40, timestamp_ms: T0 + 7 }),
    editAction({ files_to_add: [sst('f6', 50)], flushed_sequence: 50, committed_sequence: 55, timestamp_ms: T0 + 7 }),
  ],
  /* 8 */ [purgeAction(['f1'])],
  /* 9 */ [truncateAction(60, T0 + 9)],
  /* 10 */ [editAction({ files_to_add: [sst('f7', 70)], flushed_sequence: 70, committed_sequence: 75, timestamp_ms: T0 + 10 })],
  /* 11 */ [purgeAction(['f2', 'f3', 'f4'])],
  /* 12 */ [editAction({ files_to_add: [sst('f8', 80)], flushed_sequence: 80, timestamp_ms: T0 + 12 })],
  /* 13 */ [editAction({ files_to_add: [sst('f9', 80, 1)], files_to_remove: ['f7', 'f8'], timestamp_ms: T0 + 13 })],
  /* 14 */ [changeAction(metadata(3))],
  /* 15 */ [editAction({ files_to_add: [sst('f10', 90)], flushed_sequence: 90, committed_sequence: 90, timestamp_ms: T0 + 15 })],
];
export const LAST_VERSION = SCENARIO.length + 1;

export function actionsFor(version: number): readonly RegionAction[] {
  const actions = SCENARIO[version - 2];
  if (actions === undefined) throw new RangeError(`the scenario has no version ${version}`);
  return actions;
}

/** The state after each version of the scenario (index = version), computed without any store. */
export const REFERENCE: readonly RegionManifest[] = (() => {
  const states: RegionManifest[] = [];
  states[1] = applyActions(undefined, [changeAction(metadata(1))], 1);
  for (let v = 2; v <= LAST_VERSION; v++) states[v] = applyActions(states[v - 1], actionsFor(v), v);
  return states;
})();

export function recorder(): { warnings: string[]; logger: ManifestLogger } {
  const warnings: string[] = [];
  return { warnings, logger: { warn: (_obj, msg) => warnings.push(msg) } };
}

function options(checkpointDistance: number, logger?: ManifestLogger): ManifestOptions {
  return logger === undefined ? { checkpointDistance } : { checkpointDistance, logger };
}

async function names(store: ObjectStore): Promise<string[]> {
  return (await store.list(DIR)).map((e) => e.path.slice(DIR.length));
}

/** Creates the manifest and runs the scenario up to `to`; `settle` waits for checkpoints after each update. */
async function build(store: ObjectStore, distance: number, to: number, settle: boolean): Promise<ManifestManager> {
  const m = await ManifestManager.create(store, DIR, metadata(1), options(distance));
  for (let v = 2; v <= to; v++) {
    assert.equal(await m.update(actionsFor(v)), v);
    if (settle) await m.settled();
  }
  return m;
}

async function continueTo(m: ManifestManager, to: number): Promise<void> {
  for (let v = m.version + 1; v <= to; v++) {
    assert.equal(await m.update(actionsFor(v)), v);
    await m.settled();
  }
}

/** After a checkpoint, only the pointer, its checkpoint and later deltas are left. */
async function assertClean(store: ObjectStore, distance: number, version: number): Promise<void> {
  const files = await names(store);
  const pointer = decodePointer(await store.read(DIR + POINTER_FILE));
  assert.equal(pointer.kind, 'ok', `pointer: ${files.join(' ')}`);
  const p = (pointer as { value: { version: number } }).value.version;
  assert.ok(version - p < distance, `checkpoint ${p} is more than ${distance} versions behind ${version}`);
  const expected = [checkpointFileName(p), POINTER_FILE];
  for (let v = p + 1; v <= version; v++) expected.push(deltaFileName(v));
  assert.deepEqual(files.sort(), expected.sort());
}

function isManifestError(kind: ManifestErrorKind, pattern?: RegExp): (err: unknown) => boolean {
  return (err) => {
    assert.ok(err instanceof ManifestError, `expected a ManifestError, got ${String(err)}`);
    assert.equal(err.kind, kind, err.message);
    assert.ok(err.message.includes(DIR), `message names the directory: ${err.message}`);
    if (pattern !== undefined) assert.match(err.message, pattern);
    return true;
  };
}

function isPointerWrite(version: number): (m: StoreMutation) => boolean {
  return (m) => m.kind === 'write' && m.path === DIR + POINTER_FILE && pointerVersion(m.data!) === version;
}

function pointerVersion(data: Uint8Array): number | undefined {
  const p = decodePointer(data);
  return p.kind === 'ok' ? p.value.version : undefined;
}

/** The `nth` delete after the pointer to `version` was written. */
function deleteAfterPointer(version: number, n: number): (m: StoreMutation) => boolean {
  let written = false;
  let deletes = 0;
  return (m) => {
    if (isPointerWrite(version)(m)) written = true;
    else if (written && m.kind === 'delete') return ++deletes === n;
    return false;
  };
}

interface DamageCase {
  readonly name: string;
  /** Played while the baseline is built (the update that meets a dead store ends the baseline). */
  readonly crash?: Fault;
  /** Then done to the files. */
  readonly damage?: (files: Files) => Promise<void>;
  /** The version reopen gives (and a warning it must log; none when absent), or the error. */
  readonly expect: { readonly version: number; readonly warning?: RegExp } | { readonly error: RegExp };
}

interface Files {
  read(name: string): Promise<Uint8Array>;
  write(name: string, data: Uint8Array | string): Promise<void>;
  delete(name: string): Promise<void>;
}

function filesOf(store: ObjectStore): Files {
  return {
    read: (name) => store.read(DIR + name),
    write: (name, data) => store.write(DIR + name, typeof data === 'string' ? Buffer.from(data) : data),
    delete: (name) => store.delete(DIR + name),
  };
}

const GARBAGE = Uint8Array.from([0xde, 0xad, 0xbe, 0xef, 0x00, 0x7b, 0x22, 0xff]);
const D = deltaFileName;
const C = checkpointFileName;

/**
 * Baseline: checkpoint distance 3, updates to version 8 with checkpoints at 3 and 6, so the store
 * holds `_last_checkpoint` → 6, checkpoint 6, deltas 7 and 8.
 */
const BASELINE = { distance: 3, version: 8 };

const DAMAGES: readonly DamageCase[] = [
  { name: 'nothing damaged', expect: { version: 8 } },
  {
    name: 'truncated last delta',
    damage: async (f) => f.write(D(8), (await f.read(D(8))).subarray(0, 20)),
    expect: { version: 7, warning: /00000000000000000008\.json: ignoring damaged delta/ },
  },
  { name: 'garbage last delta', damage: (f) => f.write(D(8), GARBAGE), expect: { version: 7, warning: /ignoring damaged delta/ } },
  { name: 'empty last delta', damage: (f) => f.write(D(8), ''), expect: { version: 7, warning: /ignoring damaged delta/ } },
  {
    name: 'crash during the last delta write (torn)',
    crash: { mode: 'torn', at: (m) => m.path === DIR + D(8) },
    expect: { version: 7, warning: /ignoring damaged delta/ },
  },
  { name: 'crash before the last delta write', crash: { mode: 'crash', at: (m) => m.path === DIR + D(8) }, expect: { version: 7 } },
  { name: 'crash during a checkpoint write (torn)', crash: { mode: 'torn', at: (m) => m.path === DIR + C(6) }, expect: { version: 6 } },
  { name: 'checkpoint written but pointer not', crash: { mode: 'crash', at: isPointerWrite(6) }, expect: { version: 6 } },
  {
    name: 'crash during the pointer write (torn)',
    crash: { mode: 'torn', at: isPointerWrite(6) },
    expect: { version: 6, warning: /_last_checkpoint: pointer unreadable/ },
  },
  { name: 'crash between pointer write and deletions', crash: { mode: 'crash', at: deleteAfterPointer(6, 1) }, expect: { version: 6 } },
  { name: 'crash during deletions', crash: { mode: 'crash', at: deleteAfterPointer(6, 2) }, expect: { version: 6 } },
  {
    name: 'leftover deltas older than the checkpoint',
    // A stale delta that would drop the region, and garbage: neither may be read.
    damage: async (f) => {
      await f.write(D(5), encodeDelta([removeAction()]));
      await f.write(D(2), GARBAGE);
    },
    expect: { version: 8 },
  },
  { name: 'pointer missing', damage: (f) => f.delete(POINTER_FILE), expect: { version: 8, warning: /no checkpoint pointer/ } },
  {
    name: 'garbage pointer',
    damage: (f) => f.write(POINTER_FILE, GARBAGE),
    expect: { version: 8, warning: /_last_checkpoint: pointer unreadable/ },
  },
  {
    name: 'pointer with wrong checksum',
    damage: async (f) => {
      const p = decodePointer(await f.read(POINTER_FILE));
      assert.equal(p.kind, 'ok');
      const pointer = (p as { value: { version: number; size: number; checksum: number } }).value;
      await f.write(POINTER_FILE, encodePointer({ ...pointer, checksum: (pointer.checksum ^ 1) >>> 0 }));
    },
    expect: { version: 8, warning: /does not match _last_checkpoint/ },
  },
  {
    name: 'pointer to a missing checkpoint, older files still there',
    crash: { mode: 'crash', at: deleteAfterPointer(6, 1) },
    damage: (f) => f.delete(C(6)),
    expect: { version: 6, warning: /pointer names 00000000000000000006\.checkpoint, which is missing/ },
  },
  {
    name: 'pointer to a missing checkpoint after cleanup',
    damage: (f) => f.delete(C(6)),
    expect: { error: /no checkpoint and unbroken run of deltas.*00000000000000000001\.json after it is missing/ },
  },
  {
    name: 'damaged newest checkpoint with an older valid one still present',
    crash: { mode: 'crash', at: deleteAfterPointer(6, 1) },
    damage: (f) => f.write(C(6), GARBAGE),
    expect: { version: 6, warning: /00000000000000000006\.checkpoint: checkpoint does not match/ },
  },
  {
    name: 'damaged newest checkpoint after cleanup',
    damage: (f) => f.write(C(6), GARBAGE),
    expect: { error: /no checkpoint and unbroken run of deltas/ },
  },
  {
    name: 'damaged delta before a whole one',
    damage: (f) => f.write(D(7), GARBAGE),
    expect: { error: /00000000000000000007\.json: delta is damaged .* a committed update is lost/ },
  },
  {
    name: 'missing delta before the last one',
    damage: (f) => f.delete(D(7)),
    expect: { error: /00000000000000000007\.json after it is missing/ },
  },
  {
    name: 'last delta is JSON but not a delta',
    damage: (f) => f.write(D(8), '{"actions":[{"kind":"bogus"}]}'),
    expect: { error: /00000000000000000008\.json: not a manifest delta: action 0: unknown action kind "bogus"/ },
  },
];

async function runDamageCase(t: TestContext, make: StoreFactory, c: DamageCase): Promise<void> {
  const store = await make(t);
  const faulty = new FaultyObjectStore(store, c.crash);
  let m: ManifestManager | undefined;
  try {
    m = await ManifestManager.create(faulty, DIR, metadata(1), options(BASELINE.distance));
    for (let v = 2; v <= BASELINE.version; v++) {
      await m.update(actionsFor(v));
      await m.settled();
    }
  } catch (err) {
    assert.ok(faulty.crashed && err instanceof ManifestError && err.cause instanceof SimulatedFault, String(err));
  }
  await m?.settled();
  assert.equal(faulty.crashed, c.crash !== undefined && c.crash.mode !== 'fail', 'the crash point was reached');
  await c.damage?.(filesOf(store));

  const log = recorder();
  const reopen = (): Promise<ManifestManager | undefined> => ManifestManager.open(store, DIR, options(BASELINE.distance, log.logger));
  if ('error' in c.expect) {
    await assert.rejects(reopen(), isManifestError('corrupt', c.expect.error));
    return;
  }
  const opened = await reopen();
  assert.ok(opened !== undefined);
  const { version, warning } = c.expect;
  assert.equal(opened.version, version);
  assert.deepEqual(opened.state, REFERENCE[version]);
  if (warning === undefined) assert.deepEqual(log.warnings, []);
  else assert.ok(log.warnings.some((w) => warning.test(w)), `warnings: ${log.warnings.join('\n')}`);

  // Life goes on: the next updates overwrite what was cut short, a checkpoint cleans up, and a
  // reopen sees all of it without a warning.
  await continueTo(opened, version + BASELINE.distance);
  await opened.close();
  await assertClean(store, BASELINE.distance, version + BASELINE.distance);
  const again = recorder();
  const reopened = await ManifestManager.open(store, DIR, options(BASELINE.distance, again.logger));
  assert.deepEqual(reopened?.state, REFERENCE[version + BASELINE.distance]);
  assert.deepEqual(again.warnings, []);
}

/**
 * `interleaved` (default true): the crash test lets checkpoints run alongside updates, which needs a
 * store whose operations interleave the same way on every run (the memory store). On a real store
 * that timing varies, so the crash test settles after each update there.
 */
export function runManifestSuite(label: string, make: StoreFactory, opts: { interleaved?: boolean } = {}): void {
  const interleaved = opts.interleaved ?? true;
  const name = (text: string): string => `manifest on ${label}: ${text}`;

  test(name('open finds no manifest in an empty directory'), async (t) => {
    const store = await make(t);
    assert.equal(await ManifestManager.open(store, DIR, options(10)), undefined);
  });

  test(name('create writes version 1; a second create is refused'), async (t) => {
    const store = await make(t);
    const m = await ManifestManager.create(store, DIR.slice(0, -1), metadata(1), options(10));
    assert.equal(m.dir, DIR);
    assert.equal(m.version, 1);
    assert.deepEqual(m.state, REFERENCE[1]);
    assert.deepEqual(await names(store), [D(1)]);
    await assert.rejects(ManifestManager.create(store, DIR, metadata(1), options(10)), isManifestError('exists', /already exists \(version 1\)/));
    const opened = await ManifestManager.open(store, DIR, options(10));
    assert.deepEqual(opened?.state, REFERENCE[1]);
  });

  test(name('round trips through checkpoints; old files are deleted'), async (t) => {
    for (const distance of [1, 3, 10]) {
      await t.test(`checkpoint distance ${distance}`, async (t) => {
        const store = await make(t);
        let m = await ManifestManager.create(store, DIR, metadata(1), options(distance));
        for (let v = 2; v <= LAST_VERSION; v++) {
          assert.equal(await m.update(actionsFor(v)), v);
          assert.deepEqual(m.state, REFERENCE[v]);
          if (v === 8) {
            // Reopen halfway, while a checkpoint may still be running.
            await m.close();
            const reopened = await ManifestManager.open(store, DIR, options(distance));
            assert.deepEqual(reopened?.state, REFERENCE[8]);
            m = reopened!;
          }
        }
        await m.close();
        await assertClean(store, distance, LAST_VERSION);
        const log = recorder();
        const reopened = await ManifestManager.open(store, DIR, options(distance, log.logger));
        assert.deepEqual(reopened?.state, REFERENCE[LAST_VERSION]);
        assert.deepEqual(log.warnings, []);
      });
    }
  });

  test(name('concurrent updates run one at a time, in call order, and are all recorded'), async (t) => {
    const store = await make(t);
    const m = await ManifestManager.create(store, DIR, metadata(1), options(3));
    const calls = Array.from({ length: 30 }, (_, i) =>
      i === 10
        ? m.update([editAction({ files_to_remove: ['no-such-file'], timestamp_ms: T0 })])
        : m.update([editAction({ files_to_add: [sst(`c${i}`, i + 1)], flushed_sequence: i + 1, timestamp_ms: T0 + i })]),
    );
    const results = await Promise.allSettled(calls);
    assert.equal(results[10]!.status, 'rejected');
    const versions = results.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
    assert.deepEqual(versions, Array.from({ length: 29 }, (_, i) => i + 2));
    assert.equal(Object.keys(m.state.files).length, 29);
    await m.close();
    const reopened = await ManifestManager.open(store, DIR, options(3));
    assert.deepEqual(reopened?.state, m.state);
    assert.equal(reopened?.version, 30);
    assert.equal(reopened?.state.flushed_sequence, 30);
  });

  test(name('an update that does not apply is refused and writes nothing'), async (t) => {
    const store = await make(t);
    const m = await build(store, 10, 5, true);
    const before = await names(store);
    const refused: Array<[string, RegionAction[], RegExp]> = [
      ['remove a missing file', [editAction({ files_to_remove: ['nope'] })], /version 6 refused: edit removes file nope, which is not in the region/],
      ['add a file twice', [editAction({ files_to_add: [sst('f4', 1)] })], /edit adds file f4, which is already in the region/],
      ['no actions', [], /an update needs at least one/],
      // What a reopen would refuse to read is never written.
      ['a sequence that is not a number', [editAction({ flushed_sequence: Number.NaN })], /action 0: flushed_sequence is not a count/],
      ['a malformed file meta', [editAction({ files_to_add: [{ file_id: 'x' } as FileMeta] })], /file x: time_range is not \[min, max\]/],
      ['metadata of another region', [changeAction(metadata(2, '1'))], /carries metadata of region 1/],
      // The whole update is refused, including its valid first action.
      ['a valid action then an invalid one', [purgeAction(['f1']), purgeAction(['f1'])], /purge of file f1, which is not among the removed files/],
    ];
    for (const [what, actions, message] of refused) {
      await assert.rejects(m.update(actions), isManifestError('invalid-transition', message), what);
    }
    assert.deepEqual(m.state, REFERENCE[5]);
    assert.deepEqual(await names(store), before);
    assert.equal(await m.update(actionsFor(6)), 6);
  });

  test(name('a removed region opens as removed and refuses updates'), async (t) => {
    const store = await make(t);
    const m = await build(store, 3, 4, true);
    assert.equal(await m.update([removeAction()]), 5);
    assert.equal(m.state.removed, true);
    await assert.rejects(m.update(actionsFor(5)), isManifestError('removed'));
    await m.close();
    const opened = await ManifestManager.open(store, DIR, options(3));
    assert.equal(opened?.state.removed, true);
    assert.equal(opened?.version, 5);
    assert.deepEqual(opened?.state.files, REFERENCE[4]!.files);
    await assert.rejects(opened!.update(actionsFor(5)), isManifestError('removed'));
    await assert.rejects(ManifestManager.create(store, DIR, metadata(1), options(3)), isManifestError('exists'));
  });

  test(name('updates after close are refused'), async (t) => {
    const m = await build(await make(t), 3, 2, false);
    await m.close();
    await assert.rejects(m.update(actionsFor(3)), isManifestError('closed'));
  });

  test(name('a failed delta write takes no version; the next update writes it'), async (t) => {
    const store = await make(t);
    const faulty = new FaultyObjectStore(store, { mode: 'fail', at: (x) => x.path === DIR + D(3) });
    const m = await ManifestManager.create(faulty, DIR, metadata(1), options(10));
    await m.update(actionsFor(2));
    await assert.rejects(m.update(actionsFor(3)), isManifestError('storage', /00000000000000000003\.json: cannot write delta/));
    assert.equal(m.version, 2);
    assert.equal(await m.update(actionsFor(3)), 3);
    const opened = await ManifestManager.open(store, DIR, options(10));
    assert.deepEqual(opened?.state, REFERENCE[3]);
  });

  test(name('an update whose write failed after landing is in doubt until the next update'), async (t) => {
    const store = await make(t);
    const faulty = new FaultyObjectStore(store, { mode: 'lost-ack', at: (x) => x.path === DIR + D(3) });
    const m = await ManifestManager.create(faulty, DIR, metadata(1), options(10));
    await m.update(actionsFor(2));
    const doubtful = [editAction({ files_to_add: [sst('doubtful', 15)], timestamp_ms: T0 })];
    await assert.rejects(m.update(doubtful), isManifestError('storage'));
    assert.equal(m.version, 2);
    // A reopen now (as after a crash) shows it: it is on the store.
    const now = await ManifestManager.open(store, DIR, options(10));
    assert.ok(now?.state.files['doubtful'] !== undefined);
    // The next update takes its version and replaces it.
    assert.equal(await m.update(actionsFor(3)), 3);
    assert.deepEqual((await ManifestManager.open(store, DIR, options(10)))?.state, REFERENCE[3]);
  });

  test(name('a failed checkpoint is logged and retried by the next update'), async (t) => {
    const store = await make(t);
    const faulty = new FaultyObjectStore(store, { mode: 'fail', at: (x) => x.path.endsWith('.checkpoint') });
    const log = recorder();
    const m = await ManifestManager.create(faulty, DIR, metadata(1), options(2, log.logger));
    await m.update(actionsFor(2));
    await m.settled();
    assert.match(log.warnings.join('\n'), /checkpoint of version 2 failed/);
    assert.deepEqual(await names(store), [D(1), D(2)]);
    await m.update(actionsFor(3));
    await m.settled();
    await assertClean(store, 2, 3);
  });

  test(name('files that are not the manifest\'s are left alone'), async (t) => {
    const store = await make(t);
    await store.write(`${DIR}notes.txt`, Buffer.from('hello'));
    await store.write(`${DIR}sub/${D(1)}`, GARBAGE);
    assert.equal(await ManifestManager.open(store, DIR, options(1)), undefined);
    const m = await build(store, 1, 4, true);
    await m.close();
    const files = await names(store);
    assert.ok(files.includes('notes.txt') && files.includes(`sub/${D(1)}`), files.join(' '));
    assert.deepEqual((await ManifestManager.open(store, DIR, options(1)))?.state, REFERENCE[4]);
  });

  test(name('damaged files on reopen'), async (t) => {
    for (const c of DAMAGES) await t.test(c.name, (t) => runDamageCase(t, make, c));
  });

  test(name('a crash at any store mutation loses no committed update'), async (t) => {
    const distance = 2;
    const last = 9;
    // Count the mutations of the whole run first.
    const counting = new FaultyObjectStore(await make(t));
    await (await build(counting, distance, last, !interleaved)).close();
    const mutations = counting.mutations;
    assert.ok(mutations.length > last + 10, `only ${mutations.length} mutations`);

    for (const target of mutations) {
      for (const mode of target.kind === 'write' ? (['crash', 'torn'] as const) : (['crash'] as const)) {
        const where = `${mode} at mutation ${target.index} (${target.kind} ${target.path.slice(DIR.length)})`;
        const store = await make(t);
        // The target is named by what it does (kind, path, and which occurrence of that), not by its
        // index: on a real store, background checkpoint work interleaves with updates differently
        // from run to run, but every mutation of the counting run still happens, in some order.
        const occurrence = mutations.slice(0, target.index).filter((x) => x.kind === target.kind && x.path === target.path).length;
        let seen = 0;
        const at = (x: { kind: string; path: string }) => x.kind === target.kind && x.path === target.path && seen++ === occurrence;
        const faulty = new FaultyObjectStore(store, { mode, at });
        let acked = 0;
        let m: ManifestManager | undefined;
        try {
          m = await ManifestManager.create(faulty, DIR, metadata(1), options(distance));
          acked = 1;
          for (let v = 2; v <= last; v++) {
            await m.update(actionsFor(v));
            acked = v;
            if (!interleaved) await m.settled();
          }
          await m.close();
        } catch (err) {
          assert.ok(err instanceof ManifestError && err.cause instanceof SimulatedFault, `${where}: ${String(err)}`);
        }
        await m?.settled();
        assert.ok(faulty.crashed, `${where}: not reached`);

        const opened = await ManifestManager.open(store, DIR, options(distance));
        if (acked === 0) {
          assert.equal(opened, undefined, where);
          continue;
        }
        assert.ok(opened !== undefined, where);
        // Every acknowledged update is there; the one in flight may or may not be.
        assert.ok(opened.version === acked || opened.version === acked + 1, `${where}: version ${opened.version}, acked ${acked}`);
        assert.deepEqual(opened.state, REFERENCE[opened.version], where);
        const to = opened.version + distance;
        await continueTo(opened, to);
        await opened.close();
        await assertClean(store, distance, to);
        assert.deepEqual((await ManifestManager.open(store, DIR, options(distance)))?.state, REFERENCE[to], where);
      }
    }
  });
}
