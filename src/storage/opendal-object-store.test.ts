import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { describe, test, type TestContext } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { tempDir } from '../../test/support/temp.js';
import { runObjectStoreSuite } from './object-store.suite.js';
import { OpendalObjectStore } from './opendal-object-store.js';

const MIB = 1024 * 1024;
const COMPILED_STORE = fileURLToPath(new URL('./opendal-object-store.js', import.meta.url));

function fsStore(t: TestContext): { store: OpendalObjectStore; root: string; tmp: string; dir: string } {
  const dir = tempDir(t);
  const root = join(dir, 'data');
  const tmp = join(dir, '.tmp');
  return { store: OpendalObjectStore.fs(root, tmp), root, tmp, dir };
}

runObjectStoreSuite('OpenDAL fs', async (t) => fsStore(t).store);

describe('OpenDAL fs specifics', () => {
  test('localPath is the absolute path of a real file holding the bytes', async (t) => {
    const { store, root } = fsStore(t);
    await store.write('region/1/sst/a.parquet', Buffer.from('PAR1…PAR1'));
    const local = store.localPath('region/1/sst/a.parquet')!;
    assert.ok(isAbsolute(local));
    assert.equal(local, join(root, 'region/1/sst/a.parquet'));
    assert.equal(readFileSync(local, 'utf8'), 'PAR1…PAR1');
    assert.equal(store.description, `File(${root})`);
    // The root is normalized.
    const again = OpendalObjectStore.fs(join(root, '..', 'data', '.'), join(root, '..', '.tmp'));
    assert.equal(again.localPath('x'), join(root, 'x'));
  });

  test('stray temporary files of interrupted writes are removed at startup; objects stay', async (t) => {
    const { store, tmp } = fsStore(t);
    await store.write('region/a.parquet', Buffer.from('whole'));
    writeFileSync(join(tmp, 'a.parquet.3f2a-interrupted'), 'half');
    writeFileSync(join(tmp, 'manifest.json.77-interrupted'), 'half');
    assert.equal(await store.removeStrayTemporaryFiles(), 2);
    assert.deepEqual(readdirSync(tmp), []);
    assert.equal(Buffer.from(await store.read('region/a.parquet')).toString(), 'whole');
    assert.equal(await store.removeStrayTemporaryFiles(), 0);
  });

  test('an escaping path writes nothing outside the root', async (t) => {
    const { store, dir } = fsStore(t);
    await assert.rejects(store.write('../escaped', Buffer.from('x')), /invalid object path "\.\.\/escaped" in File\(.*\): a "\.\." segment would leave the root/);
    await assert.rejects(store.write('/abs', Buffer.from('x')), /it is absolute/);
    assert.deepEqual(readdirSync(dir).sort(), ['.tmp', 'data']);
    assert.deepEqual(readdirSync(join(dir, 'data')), []);
  });

  test('writes go through the temporary directory and leave nothing there', async (t) => {
    const { store, tmp } = fsStore(t);
    await Promise.all(Array.from({ length: 20 }, (_, i) => store.write(`w/${i}`, Buffer.alloc(64 * 1024, i))));
    assert.deepEqual(readdirSync(tmp), []);
  });

  test('a write in progress is never visible under its final name', async (t) => {
    const { store, tmp } = fsStore(t);
    const size = 128 * MIB;
    const final = store.localPath('big/object')!;
    const done = store.write('big/object', Buffer.alloc(size, 0x5a));
    let finished = false;
    void done.then(() => (finished = true), () => (finished = true));
    // OpenDAL writes on its own threads; the event loop is free to watch meanwhile.
    let sawTemp = false;
    let checks = 0;
    try {
      while (!finished) {
        const visible = existsSync(final);
        if (visible) assert.equal(statSync(final).size, size, 'the final name appeared with a partial object');
        if (existsSync(tmp) && readdirSync(tmp).length > 0) sawTemp = true;
        checks++;
        await sleep(1);
      }
    } finally {
      await done.catch(() => undefined); // never leave a write running into the removed temp dir
    }
    await done;
    assert.equal(statSync(final).size, size);
    assert.ok(checks > 1, 'the write finished before it could be watched');
    assert.ok(sawTemp, 'no temporary file was seen while the write was in progress');
    assert.deepEqual(readdirSync(tmp), []);
  });

  test('a process killed in the middle of writes leaves the old or the new object whole, never a part', async (t) => {
    const { root, tmp } = fsStore(t);
    const size = 48 * MIB;
    // The child replaces one object again and again with alternating contents; it is killed
    // (SIGKILL: no cleanup at all) while writing.
    const script = `
      import { OpendalObjectStore } from ${JSON.stringify(COMPILED_STORE)};
      const store = OpendalObjectStore.fs(${JSON.stringify(root)}, ${JSON.stringify(tmp)});
      const versions = [Buffer.alloc(${size}, 0xaa), Buffer.alloc(${size}, 0xbb)];
      await store.write('region/manifest', versions[0]);
      process.stdout.write('ready\\n');
      for (let i = 1; ; i++) await store.write('region/manifest', versions[i % 2]);
    `;
    for (let round = 0; round < 3; round++) {
      const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
      await waitForLine(child, 'ready');
      await sleep(150 + round * 170);
      child.kill('SIGKILL');
      await new Promise((resolve) => child.once('exit', resolve));
      const bytes = readFileSync(join(root, 'region/manifest'));
      assert.equal(bytes.length, size, `round ${round}: the object has ${bytes.length} of ${size} bytes`);
      const first = bytes[0]!;
      assert.ok(first === 0xaa || first === 0xbb);
      assert.equal(bytes.indexOf(first === 0xaa ? 0xbb : 0xaa), -1, `round ${round}: the object mixes two versions`);
      assert.equal(bytes.findIndex((b) => b !== 0xaa && b !== 0xbb), -1, `round ${round}: the object holds foreign bytes`);
    }
  });

  test('fs needs a temporary directory, outside the root', (t) => {
    const dir = tempDir(t);
    assert.throws(
      () => new OpendalObjectStore({ scheme: 'fs', config: { root: join(dir, 'data') }, description: 'File(x)' }),
      /the fs scheme needs atomic_write_dir; use OpendalObjectStore.fs/,
    );
    assert.throws(() => OpendalObjectStore.fs(join(dir, 'data'), join(dir, 'data', '.tmp')), /must be outside the root/);
    assert.throws(() => OpendalObjectStore.fs(join(dir, 'data'), dir), /must be outside the root/);
  });

  test('a root that cannot be created is reported with the store', (t) => {
    const dir = tempDir(t);
    writeFileSync(join(dir, 'file'), 'not a directory');
    assert.throws(() => OpendalObjectStore.fs(join(dir, 'file', 'data'), join(dir, '.tmp')), (err: Error) => {
      assert.match(err.message, /^cannot open object store File\(.*\/file\/data\): /);
      return true;
    });
  });
});

/** Resolves once the child prints `line` on its standard output; rejects if it exits first. */
function waitForLine(child: ChildProcess, line: string): Promise<string> {
  return new Promise((resolve, reject) => {
    let out = '';
    const onData = (chunk: Buffer): void => {
      out += chunk.toString();
      const found = out.split('\n').find((l) => l.startsWith(line));
      if (found !== undefined) {
        child.stdout!.off('data', onData);
        resolve(found);
      }
    };
    child.stdout!.on('data', onData);
    child.once('exit', (code, signal) => reject(new Error(`child exited (${code ?? signal}) before printing "${line}": ${out}`)));
  });
}
