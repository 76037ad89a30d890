/**
 * The conformance suite of ObjectStore (STYLE.md "Shared suites"): what every store must do alike,
 * run by each store's test file against a real backend (fs in a temp directory, an S3 server…).
 * `make` gives a fresh, empty store for each test and cleans it up with `t.after`.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test, type TestContext } from 'node:test';
import { StatusCode } from '../common/error/status-code.js';
import { TsdbError } from '../common/error/tsdb-error.js';
import { ObjectNotFoundError, type ObjectStore } from './object-store.js';

const MIB = 1024 * 1024;

/** Byte equality without printing megabytes on failure: says the lengths and the first difference. */
function assertBytes(actual: Uint8Array, expected: Uint8Array, what: string): void {
  const a = Buffer.from(actual.buffer, actual.byteOffset, actual.byteLength);
  if (a.equals(expected)) return;
  let i = 0;
  while (i < a.length && i < expected.length && a[i] === expected[i]) i++;
  assert.fail(`${what}: ${a.length} bytes read, ${expected.length} expected; first difference at offset ${i}`);
}

function text(s: string): Uint8Array {
  return new TextEncoder().encode(s);
}

async function rejectsNotFound(p: Promise<unknown>, path: string, store: ObjectStore): Promise<void> {
  await assert.rejects(p, (err: unknown) => {
    assert.ok(err instanceof ObjectNotFoundError, `expected ObjectNotFoundError, got ${String(err)}`);
    assert.equal(err.path, path);
    assert.ok(err.message.includes(path) && err.message.includes(store.description), err.message);
    return true;
  });
}

export interface SuiteOptions {
  /**
   * Whether the backend replaces an object atomically, as S3, Azure Blob, GCS, OSS and our fs
   * store do. False only for a stand-in server that does not (s3rver writes the object file in
   * place): the test of readers during replacement is then left out, not run.
   */
  readonly atomicReplace?: boolean;
}

export function runObjectStoreSuite(
  name: string,
  make: (t: TestContext) => Promise<ObjectStore>,
  options: SuiteOptions = {},
): void {
  describe(`ObjectStore conformance: ${name}`, () => {
    test('write then read gives the same bytes: text, empty, every byte value, 5 MiB', async (t) => {
      const store = await make(t);
      const every = Uint8Array.from({ length: 256 }, (_, i) => i);
      const big = randomBytes(5 * MIB);
      const objects: Array<[string, Uint8Array]> = [
        ['hello.txt', text('hello, tsdb\n')],
        ['empty', new Uint8Array(0)],
        ['bin/every-byte', every],
        ['bin/big.parquet', big],
        ['a/b/c/d/deep.json', text('{"x":1}')],
      ];
      for (const [path, data] of objects) await store.write(path, data);
      for (const [path, data] of objects) assertBytes(await store.read(path), data, path);
      // A view into a larger buffer writes only its own bytes.
      const backing = text('xxHELLOxx');
      await store.write('view', backing.subarray(2, 7));
      assertBytes(await store.read('view'), text('HELLO'), 'view');
    });

    test('upload streams a local file in parts of the given size; the object is whole', async (t) => {
      const store = await make(t);
      const dir = mkdtempSync(join(tmpdir(), 'tsdb-upload-'));
      t.after(() => rmSync(dir, { recursive: true, force: true }));
      const big = randomBytes(11 * MIB + 123);
      const local = join(dir, 'sst.parquet');
      writeFileSync(local, big);
      assert.equal(await store.upload('region/sst.parquet', local, 5 * MIB), 3, '5 MiB + 5 MiB + 1 MiB');
      assertBytes(await store.read('region/sst.parquet'), big, 'uploaded');
      writeFileSync(local, text('small'));
      assert.equal(await store.upload('region/sst.parquet', local, 5 * MIB), 1);
      assertBytes(await store.read('region/sst.parquet'), text('small'), 'replaced');
      await assert.rejects(store.upload('region/missing.parquet', join(dir, 'nope'), 5 * MIB), /nope/);
      assert.equal(await store.stat('region/missing.parquet'), undefined, 'a failed upload leaves no object');
    });

    test('write replaces an object, by a longer or a shorter one', async (t) => {
      const store = await make(t);
      await store.write('obj', text('first version'));
      await store.write('obj', text('a second, longer version'));
      assertBytes(await store.read('obj'), text('a second, longer version'), 'longer');
      await store.write('obj', text('3rd'));
      assertBytes(await store.read('obj'), text('3rd'), 'shorter');
      await store.write('obj', new Uint8Array(0));
      assert.equal((await store.read('obj')).length, 0);
      assert.deepEqual(await store.list(''), [{ path: 'obj', size: 0 }]);
    });

    test('stat gives path and size; undefined for a missing object or a directory', async (t) => {
      const store = await make(t);
      await store.write('dir/file', text('12345'));
      await store.write('empty', new Uint8Array(0));
      assert.deepEqual(await store.stat('dir/file'), { path: 'dir/file', size: 5 });
      assert.deepEqual(await store.stat('empty'), { path: 'empty', size: 0 });
      assert.equal(await store.stat('missing'), undefined);
      assert.equal(await store.stat('missing/deeper/file'), undefined);
      assert.equal(await store.stat('dir'), undefined, 'a directory is no object');
    });

    test('read of a missing object throws ObjectNotFoundError naming the path and the store', async (t) => {
      const store = await make(t);
      await rejectsNotFound(store.read('missing'), 'missing', store);
      await rejectsNotFound(store.read('no/such/dir/file'), 'no/such/dir/file', store);
      await store.write('dir/file', text('x'));
      await rejectsNotFound(store.read('dir'), 'dir', store);
      await store.delete('dir/file');
      await rejectsNotFound(store.read('dir/file'), 'dir/file', store);
    });

    test('list returns every object under a prefix at any depth, sorted by path, with sizes', async (t) => {
      const store = await make(t);
      const paths = ['r/b', 'r/a/2', 'r/a/10', 'r/a/1/x', 'r/z', 'r/a.txt', 'other/r/a', 'top'];
      // Written out of order: the store sorts.
      await Promise.all(paths.map((p, i) => store.write(p, new Uint8Array(i))));
      const size = (p: string): number => paths.indexOf(p);
      const expect = (ps: string[]) => ps.map((p) => ({ path: p, size: size(p) }));
      assert.deepEqual(await store.list('r/'), expect(['r/a.txt', 'r/a/1/x', 'r/a/10', 'r/a/2', 'r/b', 'r/z']));
      assert.deepEqual(await store.list('r/a/'), expect(['r/a/1/x', 'r/a/10', 'r/a/2']));
      assert.deepEqual(await store.list(''), expect(['other/r/a', 'r/a.txt', 'r/a/1/x', 'r/a/10', 'r/a/2', 'r/b', 'r/z', 'top']));
    });

    test('list prefixes: "a/" does not match "ab/x"; a partial name matches; a missing prefix lists nothing', async (t) => {
      const store = await make(t);
      for (const p of ['a/x', 'a/y/z', 'ab/x', 'abc', 'sst/0001.parquet', 'sst/0002.parquet', 'sst/1000.parquet']) {
        await store.write(p, text(p));
      }
      assert.deepEqual((await store.list('a/')).map((e) => e.path), ['a/x', 'a/y/z']);
      assert.deepEqual((await store.list('ab/')).map((e) => e.path), ['ab/x']);
      assert.deepEqual((await store.list('ab')).map((e) => e.path), ['ab/x', 'abc']);
      assert.deepEqual((await store.list('sst/000')).map((e) => e.path), ['sst/0001.parquet', 'sst/0002.parquet']);
      assert.deepEqual(await store.list('missing/'), []);
      assert.deepEqual(await store.list('missing/deeper/'), []);
      assert.deepEqual(await store.list('abc/'), [], 'an object is not a directory');
      assert.deepEqual(await store.list('zzz'), []);
    });

    test('list of an empty store is empty', async (t) => {
      const store = await make(t);
      assert.deepEqual(await store.list(''), []);
    });

    test('delete removes an object and nothing else; deleting a missing object is fine', async (t) => {
      const store = await make(t);
      await store.write('d/one', text('1'));
      await store.write('d/two', text('2'));
      await store.delete('d/one');
      assert.equal(await store.stat('d/one'), undefined);
      assert.deepEqual((await store.list('')).map((e) => e.path), ['d/two']);
      await store.delete('d/one');
      await store.delete('never/existed');
      assert.deepEqual((await store.list('')).map((e) => e.path), ['d/two']);
    });

    test('deleteAll removes everything under a directory prefix and nothing else', async (t) => {
      const store = await make(t);
      const paths = ['region/1/a', 'region/1/sst/x', 'region/1/sst/deep/y', 'region/10/a', 'region/1b', 'keep'];
      for (const p of paths) await store.write(p, text(p));
      await store.deleteAll('region/1/');
      assert.deepEqual((await store.list('')).map((e) => e.path), ['keep', 'region/10/a', 'region/1b']);
      assert.deepEqual(await store.list('region/1/'), []);
      await store.deleteAll('region/1/'); // again: nothing there, fine
      await store.deleteAll('never/existed/');
      // The directory can be written again afterwards.
      await store.write('region/1/a', text('again'));
      assertBytes(await store.read('region/1/a'), text('again'), 'rewritten');
    });

    test('paths that could leave the root, or are not object paths, are rejected and touch nothing', async (t) => {
      const store = await make(t);
      await store.write('inside/x', text('x'));
      const bad = ['../x', 'a/../../x', 'inside/../../x', '..', '/etc/passwd', '/x', './x', 'a//b', '', 'dir/'];
      const isInvalid = (path: string) => (err: unknown) => {
        assert.ok(err instanceof TsdbError, `expected TsdbError for "${path}", got ${String(err)}`);
        assert.equal(err.code, StatusCode.InvalidArguments);
        assert.ok(err.message.includes(`"${path}"`) && err.message.includes(store.description), err.message);
        return true;
      };
      for (const path of bad) {
        await assert.rejects(store.write(path, text('evil')), isInvalid(path));
        await assert.rejects(store.read(path), isInvalid(path));
        await assert.rejects(store.stat(path), isInvalid(path));
        await assert.rejects(store.delete(path), isInvalid(path));
        assert.throws(() => store.localPath(path), isInvalid(path));
      }
      for (const prefix of ['../', 'a/../../', '/', '/etc/', './', 'a//']) {
        await assert.rejects(store.list(prefix), isInvalid(prefix));
        await assert.rejects(store.deleteAll(prefix), isInvalid(prefix));
      }
      // deleteAll takes a directory, never a partial name nor the whole store.
      await assert.rejects(store.deleteAll('inside'), isInvalid('inside'));
      await assert.rejects(store.deleteAll(''), /refusing to delete the whole store/);
      assert.deepEqual(await store.list(''), [{ path: 'inside/x', size: 1 }]);
    });

    test('concurrent writes of distinct objects all land whole', async (t) => {
      const store = await make(t);
      const count = 40;
      const data = Array.from({ length: count }, (_, i) => randomBytes(1000 + i * 997));
      await Promise.all(data.map((d, i) => store.write(`c/${String(i).padStart(3, '0')}`, d)));
      const listed = await store.list('c/');
      assert.equal(listed.length, count);
      for (let i = 0; i < count; i++) {
        assert.deepEqual(listed[i], { path: `c/${String(i).padStart(3, '0')}`, size: data[i]!.length });
        assertBytes(await store.read(listed[i]!.path), data[i]!, listed[i]!.path);
      }
    });

    test('download copies the whole object into a local file: small, empty, multi-chunk (> 8 MiB)', async (t) => {
      const store = await make(t);
      const dir = mkdtempSync(join(tmpdir(), 'tsdb-download-'));
      t.after(() => rmSync(dir, { recursive: true, force: true }));
      const big = randomBytes(19 * MIB + 4321); // three 8 MiB chunks, the last partial
      const local = join(dir, 'sst.parquet');
      writeFileSync(local, big);
      await store.upload('region/big.parquet', local, 5 * MIB);
      await store.write('region/small', text('small object'));
      await store.write('region/empty', new Uint8Array(0));
      const target = join(dir, 'downloaded');
      assert.equal(await store.download('region/big.parquet', target), big.length);
      assertBytes(readFileSync(target), big, 'downloaded big');
      // An existing file is replaced, not appended to nor left longer.
      assert.equal(await store.download('region/small', target), 12);
      assertBytes(readFileSync(target), text('small object'), 'downloaded small');
      assert.equal(await store.download('region/empty', target), 0);
      assert.equal(readFileSync(target).length, 0);
    });

    test('download of a missing object throws ObjectNotFoundError', async (t) => {
      const store = await make(t);
      const dir = mkdtempSync(join(tmpdir(), 'tsdb-download-'));
      t.after(() => rmSync(dir, { recursive: true, force: true }));
      await rejectsNotFound(store.download('no/such/object', join(dir, 'x')), 'no/such/object', store);
      await store.write('dir/file', text('x'));
      await rejectsNotFound(store.download('dir', join(dir, 'y')), 'dir', store);
    });

    test("download stops with the signal's reason when aborted, before or during", async (t) => {
      const store = await make(t);
      const dir = mkdtempSync(join(tmpdir(), 'tsdb-download-'));
      t.after(() => rmSync(dir, { recursive: true, force: true }));
      await store.write('obj', randomBytes(2 * MIB));
      const before = new AbortController();
      const reason = new Error('cancelled by the test');
      before.abort(reason);
      await assert.rejects(store.download('obj', join(dir, 'a'), before.signal), (err: unknown) => err === reason);
      // During: aborted as soon as the download starts, before it could finish.
      const during = new AbortController();
      const p = store.download('obj', join(dir, 'b'), during.signal);
      during.abort(reason);
      await assert.rejects(p, (err: unknown) => err === reason);
      // The store is still usable afterwards.
      assert.equal(await store.download('obj', join(dir, 'c')), 2 * MIB);
    });

    if (options.atomicReplace === false) return;
    test('readers of an object being replaced see the old or the new bytes, never a mix', async (t) => {
      const store = await make(t);
      const versions = [Buffer.alloc(MIB, 0xaa), Buffer.alloc(MIB, 0xbb), Buffer.alloc(MIB / 2, 0xcc)];
      await store.write('hot', versions[0]!);
      const reads: Array<Promise<Uint8Array>> = [];
      const writes: Array<Promise<void>> = [];
      for (let round = 0; round < 6; round++) {
        writes.push(store.write('hot', versions[round % versions.length]!));
        reads.push(store.read('hot'), store.read('hot'));
      }
      await Promise.all(writes);
      for (const got of await Promise.all(reads)) {
        assert.ok(versions.some((v) => Buffer.from(got).equals(v)), `a read saw ${got.length} bytes that match no written version`);
      }
    });
  });
}
