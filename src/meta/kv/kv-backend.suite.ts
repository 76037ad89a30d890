/**
 * The conformance suite of KvBackend: what every key-value store must do alike (byte-wise key
 * order, compare-and-put and batches as atomic steps, copied values, failing after close), run by
 * each store's test file. `make` gives a fresh, empty store for each test and closes it with
 * `t.after`.
 */
import assert from 'node:assert/strict';
import { describe, test, type TestContext } from 'node:test';
import { StatusCode } from '../../common/error/status-code.js';
import { TsdbError } from '../../common/error/tsdb-error.js';
import type { KvBackend, KvEntry } from './kv-backend.js';

function text(s: string): Uint8Array {
  return new TextEncoder().encode(s);
}

function str(v: Uint8Array | undefined): string | undefined {
  return v === undefined ? undefined : new TextDecoder().decode(v);
}

/** Keys and values of a range as text, for readable failures. */
function entries(list: readonly KvEntry[]): Array<[string, string]> {
  return list.map((e) => [e.key, new TextDecoder().decode(e.value)]);
}

function keys(list: readonly KvEntry[]): string[] {
  return list.map((e) => e.key);
}

/** A plain Uint8Array copy, so deepEqual compares bytes and not Buffer against Uint8Array. */
function plain(v: Uint8Array | undefined): Uint8Array | undefined {
  return v === undefined ? undefined : new Uint8Array(v);
}

async function rejectsWith(p: Promise<unknown>, code: StatusCode, pattern: RegExp): Promise<void> {
  await assert.rejects(p, (err: unknown) => {
    assert.ok(err instanceof TsdbError, `expected a TsdbError, got ${String(err)}`);
    assert.equal(err.code, code, err.message);
    assert.match(err.message, pattern);
    return true;
  });
}

export function runKvBackendSuite(name: string, make: (t: TestContext) => Promise<KvBackend>): void {
  describe(`KvBackend conformance: ${name}`, () => {
    test('put then get gives the same bytes: text, empty, every byte value, a view', async (t) => {
      const kv = await make(t);
      const every = Uint8Array.from({ length: 256 }, (_, i) => i);
      await kv.put('text', text('hello, tsdb'));
      await kv.put('empty', new Uint8Array(0));
      await kv.put('every-byte', every);
      // A view into a larger buffer stores only its own bytes.
      await kv.put('view', text('xxHELLOxx').subarray(2, 7));
      assert.equal(str(await kv.get('text')), 'hello, tsdb');
      const empty = await kv.get('empty');
      assert.ok(empty instanceof Uint8Array, 'an empty value is a value, not undefined');
      assert.equal(empty.length, 0);
      assert.deepEqual(plain(await kv.get('every-byte')), every);
      assert.equal(str(await kv.get('view')), 'HELLO');
      assert.ok(kv.description.length > 0);
    });

    test('get of a missing key is undefined', async (t) => {
      const kv = await make(t);
      assert.equal(await kv.get('missing'), undefined);
      await kv.put('a/b', text('1'));
      assert.equal(await kv.get('a'), undefined, 'a prefix of a key is no key');
      assert.equal(await kv.get('a/b/c'), undefined);
      assert.equal(await kv.get(''), undefined);
    });

    test('put replaces the value: longer, shorter, empty', async (t) => {
      const kv = await make(t);
      await kv.put('k', text('first'));
      await kv.put('k', text('a second, longer value'));
      assert.equal(str(await kv.get('k')), 'a second, longer value');
      await kv.put('k', text('3rd'));
      assert.equal(str(await kv.get('k')), '3rd');
      await kv.put('k', new Uint8Array(0));
      assert.equal((await kv.get('k'))?.length, 0);
      assert.deepEqual(keys(await kv.range('')), ['k'], 'one key, not one per put');
    });

    test('delete removes the key and says whether it existed', async (t) => {
      const kv = await make(t);
      await kv.put('a', text('1'));
      await kv.put('b', text('2'));
      await kv.put('empty', new Uint8Array(0));
      assert.equal(await kv.delete('a'), true);
      assert.equal(await kv.get('a'), undefined);
      assert.equal(await kv.delete('a'), false, 'deleted already');
      assert.equal(await kv.delete('never'), false);
      assert.equal(await kv.delete('empty'), true, 'a key with an empty value exists');
      assert.deepEqual(entries(await kv.range('')), [['b', '2']]);
    });

    test('range gives the entries under a prefix, sorted; a/ does not match ab/x; "" gives all', async (t) => {
      const kv = await make(t);
      const all = ['a', 'a/', 'a/1', 'a/2/x', 'a/10', 'ab/x', 'a0', 'b/1', 'A/1', ''];
      // Put in a scrambled order: the store sorts.
      for (const k of [...all].reverse()) await kv.put(k, text(`v:${k}`));
      assert.deepEqual(entries(await kv.range('a/')), [
        ['a/', 'v:a/'],
        ['a/1', 'v:a/1'],
        ['a/10', 'v:a/10'],
        ['a/2/x', 'v:a/2/x'],
      ]);
      assert.deepEqual(keys(await kv.range('a')), ['a', 'a/', 'a/1', 'a/10', 'a/2/x', 'a0', 'ab/x']);
      assert.deepEqual(keys(await kv.range('ab/')), ['ab/x']);
      assert.deepEqual(keys(await kv.range('a/1')), ['a/1', 'a/10']);
      assert.deepEqual(keys(await kv.range('a/10')), ['a/10'], 'a whole key is a prefix of itself');
      assert.deepEqual(keys(await kv.range('c')), []);
      assert.deepEqual(keys(await kv.range('a/3')), []);
      assert.deepEqual(keys(await kv.range('')), ['', 'A/1', 'a', 'a/', 'a/1', 'a/10', 'a/2/x', 'a0', 'ab/x', 'b/1']);
    });

    test('keys sort by their UTF-8 bytes, not by JavaScript string order', async (t) => {
      const kv = await make(t);
      // UTF-8: é = c3 a9, ê = c3 aa, 中 = e4 b8 ad, \uffff = ef bf bf, 😀 = f0 9f 98 80.
      // In UTF-16 (JS string order) 😀 (d83d de00) would come before \uffff.
      const sorted = ['a', 'z', '\u007f', 'é', 'éa', 'ê', '中', '中文', '\uffff', '\uffff/x', '😀', '😀/x'];
      assert.ok('😀' < '\uffff', 'JS order differs, else this test proves nothing');
      for (const k of [...sorted].reverse()) await kv.put(k, text(k));
      assert.deepEqual(keys(await kv.range('')), sorted);
      assert.deepEqual(keys(await kv.range('é')), ['é', 'éa'], 'é must not match ê (same first byte)');
      assert.deepEqual(keys(await kv.range('中')), ['中', '中文']);
      assert.deepEqual(keys(await kv.range('\uffff')), ['\uffff', '\uffff/x'], '\\uffff must not match 😀');
      assert.deepEqual(entries(await kv.range('😀')), [
        ['😀', '😀'],
        ['😀/x', '😀/x'],
      ]);
      assert.equal(str(await kv.get('中文')), '中文');
    });

    test('a key that UTF-8 cannot encode (a lone surrogate) is rejected', async (t) => {
      const kv = await make(t);
      await rejectsWith(kv.put('bad\ud800', text('x')), StatusCode.InvalidArguments, /lone surrogate/);
      await rejectsWith(kv.get('\udc00'), StatusCode.InvalidArguments, /lone surrogate/);
      assert.deepEqual(await kv.range(''), []);
    });

    test('compareAndPut with expected undefined creates the key only when absent', async (t) => {
      const kv = await make(t);
      assert.equal(await kv.compareAndPut('k', undefined, text('first')), true);
      assert.equal(str(await kv.get('k')), 'first');
      assert.equal(await kv.compareAndPut('k', undefined, text('second')), false);
      assert.equal(str(await kv.get('k')), 'first', 'a failed compareAndPut changes nothing');
      // An empty value exists: it is not "absent".
      await kv.put('empty', new Uint8Array(0));
      assert.equal(await kv.compareAndPut('empty', undefined, text('x')), false);
      assert.equal((await kv.get('empty'))?.length, 0);
    });

    test('compareAndPut with an expected value puts only when the current value equals it', async (t) => {
      const kv = await make(t);
      assert.equal(await kv.compareAndPut('k', text('v1'), text('v2')), false, 'a missing key has no value');
      assert.equal(await kv.get('k'), undefined);
      assert.equal(await kv.compareAndPut('k', new Uint8Array(0), text('v2')), false, 'missing is not empty');
      assert.equal(await kv.get('k'), undefined);
      await kv.put('k', text('v1'));
      assert.equal(await kv.compareAndPut('k', text('v0'), text('v2')), false, 'different bytes');
      assert.equal(await kv.compareAndPut('k', text('v1 '), text('v2')), false, 'a longer value');
      assert.equal(await kv.compareAndPut('k', text('v'), text('v2')), false, 'a shorter value');
      assert.equal(str(await kv.get('k')), 'v1');
      // Equal bytes in another array (a view into a larger one) match.
      assert.equal(await kv.compareAndPut('k', text('[v1]').subarray(1, 3), text('v2')), true);
      assert.equal(str(await kv.get('k')), 'v2');
      assert.equal(await kv.compareAndPut('k', text('v2'), new Uint8Array(0)), true);
      assert.equal(await kv.compareAndPut('k', new Uint8Array(0), text('v3')), true, 'empty matches empty');
      assert.equal(str(await kv.get('k')), 'v3');
    });

    test('100 concurrent compareAndPut increments of a counter are each applied exactly once', async (t) => {
      const kv = await make(t);
      const workers = 100;
      const increment = async (): Promise<number> => {
        for (;;) {
          const current = await kv.get('counter');
          const next = (current === undefined ? 0 : Number(str(current))) + 1;
          if (await kv.compareAndPut('counter', current, text(String(next)))) return next;
        }
      };
      const won = await Promise.all(Array.from({ length: workers }, increment));
      assert.equal(str(await kv.get('counter')), String(workers));
      // Each winner wrote a different number: no two read the same value and both won.
      assert.deepEqual(
        [...won].sort((a, b) => a - b),
        Array.from({ length: workers }, (_, i) => i + 1),
      );
    });

    test('batch applies its puts and deletes in order', async (t) => {
      const kv = await make(t);
      await kv.put('old', text('1'));
      await kv.put('keep', text('1'));
      await kv.batch([
        { type: 'put', key: 'x', value: text('1') },
        { type: 'delete', key: 'x' },
        { type: 'put', key: 'y', value: text('1') },
        { type: 'put', key: 'y', value: text('2') },
        { type: 'delete', key: 'old' },
        { type: 'delete', key: 'never-there' },
        { type: 'put', key: 'z', value: text('1') },
        { type: 'delete', key: 'z' },
        { type: 'put', key: 'z', value: new Uint8Array(0) },
      ]);
      assert.deepEqual(entries(await kv.range('')), [
        ['keep', '1'],
        ['y', '2'],
        ['z', ''],
      ]);
      await kv.batch([]);
      assert.equal((await kv.range('')).length, 3, 'an empty batch changes nothing');
    });

    test('batch is all or nothing: a bad key anywhere applies nothing', async (t) => {
      const kv = await make(t);
      await kv.put('a', text('old'));
      await assert.rejects(
        kv.batch([
          { type: 'put', key: 'a', value: text('new') },
          { type: 'put', key: 'b', value: text('new') },
          { type: 'put', key: 'bad\ud800', value: text('new') },
        ]),
        TsdbError,
      );
      assert.deepEqual(entries(await kv.range('')), [['a', 'old']]);
    });

    test('readers never see half a batch', async (t) => {
      const kv = await make(t);
      const width = 10;
      const rounds = 30;
      const batchOf = (round: number) =>
        Array.from({ length: width }, (_, i) => ({ type: 'put' as const, key: `b/${String(i).padStart(2, '0')}`, value: text(String(round)) }));
      await kv.batch(batchOf(0));
      let done = false;
      const writer = (async () => {
        for (let r = 1; r <= rounds; r++) await kv.batch(batchOf(r));
        done = true;
      })();
      const seen = new Set<string>();
      const reader = (async () => {
        while (!done) {
          const list = entries(await kv.range('b/'));
          assert.equal(list.length, width);
          const values = new Set(list.map(([, v]) => v));
          assert.equal(values.size, 1, `a range saw a batch half applied: ${JSON.stringify(list)}`);
          seen.add([...values][0]!);
        }
      })();
      await Promise.all([writer, reader]);
      assert.deepEqual(new Set(entries(await kv.range('b/')).map(([, v]) => v)), new Set([String(rounds)]));
      assert.ok(seen.size >= 1, 'the reader ran while batches were written');
    });

    test('values are copies: changing the array put or the array returned changes nothing', async (t) => {
      const kv = await make(t);
      const value = text('abc');
      await kv.put('k', value);
      value[0] = 0x7a;
      assert.equal(str(await kv.get('k')), 'abc', 'the array given to put was kept');
      const got = (await kv.get('k'))!;
      got[0] = 0x7a;
      assert.equal(str(await kv.get('k')), 'abc', 'the array returned by get is the stored one');
      const [entry] = await kv.range('k');
      entry!.value[1] = 0x7a;
      assert.equal(str(await kv.get('k')), 'abc', 'the array returned by range is the stored one');
      const batched = text('def');
      await kv.batch([{ type: 'put', key: 'b', value: batched }]);
      batched[0] = 0x7a;
      assert.equal(str(await kv.get('b')), 'def', 'the array given to batch was kept');
      const swapped = text('ghi');
      assert.equal(await kv.compareAndPut('k', text('abc'), swapped), true);
      swapped[0] = 0x7a;
      assert.equal(str(await kv.get('k')), 'ghi', 'the array given to compareAndPut was kept');
    });

    test('every call after close rejects with IllegalState; close twice is fine', async (t) => {
      const kv = await make(t);
      await kv.put('k', text('v'));
      await kv.close();
      await kv.close();
      const calls: Array<[string, () => Promise<unknown>]> = [
        ['get', () => kv.get('k')],
        ['put', () => kv.put('k', text('w'))],
        ['delete', () => kv.delete('k')],
        ['range', () => kv.range('')],
        ['compareAndPut', () => kv.compareAndPut('k', text('v'), text('w'))],
        ['batch', () => kv.batch([{ type: 'delete', key: 'k' }])],
      ];
      for (const [what, call] of calls) {
        await assert.rejects(call(), (err: unknown) => {
          assert.ok(err instanceof TsdbError, `${what}: expected a TsdbError, got ${String(err)}`);
          assert.equal(err.code, StatusCode.IllegalState, `${what}: ${err.message}`);
          assert.match(err.message, /closed/, what);
          assert.ok(err.message.includes(kv.description), `${what}: ${err.message}`);
          return true;
        });
      }
    });
  });
}
