import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { StatusCode } from '../../common/error/status-code.js';
import { TsdbError } from '../../common/error/tsdb-error.js';
import { runAndKill } from '../../../test/support/acked-child.js';
import { tempDir } from '../../../test/support/temp.js';
import { runKvBackendSuite } from './kv-backend.suite.js';
import { LevelKvBackend } from './level-kv-backend.js';

const CHILD = new URL('../../../test/support/kv-crash-child.js', import.meta.url).pathname;
const CRASH_ITERATIONS = 5;

runKvBackendSuite('LevelDB', async (t) => {
  const kv = await LevelKvBackend.open(join(tempDir(t, 'tsdb-kv-'), 'metadata'));
  t.after(() => kv.close());
  return kv;
});

function text(s: string): Uint8Array {
  return new TextEncoder().encode(s);
}

function str(v: Uint8Array | undefined): string | undefined {
  return v === undefined ? undefined : new TextDecoder().decode(v);
}

/** Rejects with the clear "in use" error naming the directory. */
async function rejectsInUse(p: Promise<unknown>, dir: string): Promise<void> {
  await assert.rejects(p, (err: unknown) => {
    assert.ok(err instanceof TsdbError, `expected a TsdbError, got ${String(err)}`);
    assert.equal(err.code, StatusCode.StorageUnavailable);
    assert.ok(err.message.includes(`the key-value store in ${dir} is in use by another process`), err.message);
    return true;
  });
}

describe('LevelDB key-value store specifics', () => {
  test('open creates the directory; the description names it, absolute', async (t) => {
    const dir = join(tempDir(t, 'tsdb-kv-'), 'a', 'b', 'metadata');
    const kv = await LevelKvBackend.open(dir);
    t.after(() => kv.close());
    assert.equal(kv.description, `LevelDB(${dir})`);
    const relative = join(dir, '..', '.', 'other');
    const other = await LevelKvBackend.open(relative);
    t.after(() => other.close());
    assert.equal(other.description, `LevelDB(${join(dir, '..', 'other')})`);
  });

  test('data survives close and reopen', async (t) => {
    const dir = join(tempDir(t, 'tsdb-kv-'), 'metadata');
    const kv = await LevelKvBackend.open(dir);
    await kv.put('a/1', text('one'));
    await kv.put('a/2', text('two'));
    await kv.put('中', text('three'));
    assert.equal(await kv.compareAndPut('cas', undefined, text('x')), true);
    await kv.batch([
      { type: 'put', key: 'b/1', value: text('batched') },
      { type: 'delete', key: 'a/2' },
    ]);
    await kv.close();
    const again = await LevelKvBackend.open(dir);
    t.after(() => again.close());
    assert.deepEqual(
      (await again.range('')).map((e) => [e.key, str(e.value)]),
      [
        ['a/1', 'one'],
        ['b/1', 'batched'],
        ['cas', 'x'],
        ['中', 'three'],
      ],
    );
  });

  test('opening a directory already open fails with a clear error naming it', async (t) => {
    const dir = join(tempDir(t, 'tsdb-kv-'), 'metadata');
    const kv = await LevelKvBackend.open(dir);
    await kv.put('k', text('v'));
    await rejectsInUse(LevelKvBackend.open(dir), dir);
    // The first store is unharmed, and once it is closed the directory opens again.
    assert.equal(str(await kv.get('k')), 'v');
    await kv.close();
    const again = await LevelKvBackend.open(dir);
    t.after(() => again.close());
    assert.equal(str(await again.get('k')), 'v');
  });

  test(`acknowledged puts survive SIGKILL at ${CRASH_ITERATIONS} random moments`, async (t) => {
    const dir = join(tempDir(t, 'tsdb-kv-'), 'metadata');
    const acknowledged = new Set<number>();
    let next = 1;
    for (let i = 0; i < CRASH_ITERATIONS; i++) {
      const acked = await runWriter(dir, next, 100 + Math.floor(Math.random() * 300), i === 0);
      assert.ok(acked.length > 0, `iteration ${i}: the writer acknowledged nothing`);
      for (const n of acked) acknowledged.add(n);
      const kv = await LevelKvBackend.open(dir);
      try {
        for (const n of acknowledged) {
          const key = `k/${String(n).padStart(6, '0')}`;
          assert.equal(str(await kv.get(key)), `value ${n}`, `iteration ${i}: acknowledged ${key}`);
        }
        // Nothing but the child's keys, each with its own value (a put killed before its
        // acknowledgement may or may not be there, but never half).
        const present = await kv.range('');
        for (const e of present) assert.equal(str(e.value), `value ${Number(e.key.slice(2))}`, e.key);
        next = Math.max(next, ...acknowledged) + 1;
      } finally {
        await kv.close();
      }
    }
    assert.equal(acknowledged.size, Math.max(...acknowledged), 'every put from 1 on was acknowledged once');
  });
});

/**
 * Runs the writer from `first`, kills it after `killAfterMs`; returns the acknowledged numbers.
 * With `checkLock`, also checks that this process cannot open the directory the writer holds.
 */
function runWriter(dir: string, first: number, killAfterMs: number, checkLock: boolean): Promise<number[]> {
  return runAndKill(CHILD, [dir, String(first)], killAfterMs, checkLock ? () => rejectsInUse(LevelKvBackend.open(dir), dir) : undefined);
}
