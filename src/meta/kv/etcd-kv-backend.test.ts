import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, describe, test, type TestContext } from 'node:test';
import { StatusCode } from '../../common/error/status-code.js';
import { TsdbError } from '../../common/error/tsdb-error.js';
import { EtcdServer, freePort, startEtcd } from '../../../test/support/etcd.js';
import { EtcdKvBackend, type EtcdKvOptions } from './etcd-kv-backend.js';
import type { KvOp } from './kv-backend.js';
import { runKvBackendSuite } from './kv-backend.suite.js';

// One etcd for the conformance suite and the tests that do not stop it; each store gets its own
// namespace, so each test starts empty. Started at the top level: node:test's `after` called
// inside a `before` hook runs as soon as that hook ends.
let namespaces = 0;
const shared: EtcdServer = await startEtcd({ after });

async function connect(t: TestContext, options: Partial<EtcdKvOptions> = {}): Promise<EtcdKvBackend> {
  const kv = await EtcdKvBackend.connect({ endpoints: [shared.endpoint], namespace: `/test-${process.pid}-${++namespaces}/`, ...options });
  t.after(() => kv.close());
  return kv;
}

runKvBackendSuite('etcd', (t) => connect(t));

function text(s: string): Uint8Array {
  return new TextEncoder().encode(s);
}

function str(v: Uint8Array | undefined): string | undefined {
  return v === undefined ? undefined : new TextDecoder().decode(v);
}

async function rejectsWith(p: Promise<unknown>, code: StatusCode, includes: readonly string[]): Promise<TsdbError> {
  let caught: TsdbError | undefined;
  await assert.rejects(p, (err: unknown) => {
    assert.ok(err instanceof TsdbError, `expected a TsdbError, got ${String(err)}`);
    assert.equal(err.code, code, err.message);
    for (const s of includes) assert.ok(err.message.includes(s), `${JSON.stringify(s)} not in: ${err.message}`);
    caught = err;
    return true;
  });
  return caught!;
}

describe('etcd key-value store specifics', () => {
  test('the description names the endpoints; a second client on the namespace sees the writes', async (t) => {
    const a = await connect(t);
    assert.equal(a.description, `etcd(${shared.endpoint})`);
    const b = await connect(t, { namespace: a.namespace });
    await a.put('x/1', text('one'));
    await a.batch([
      { type: 'put', key: 'x/2', value: text('two') },
      { type: 'put', key: '中', value: text('three') },
    ]);
    assert.equal(str(await b.get('x/1')), 'one');
    assert.deepEqual(
      (await b.range('')).map((e) => [e.key, str(e.value)]),
      [
        ['x/1', 'one'],
        ['x/2', 'two'],
        ['中', 'three'],
      ],
    );
    assert.equal(await b.delete('x/1'), true);
    assert.equal(await a.get('x/1'), undefined);
  });

  test('namespaces do not see each other, even when one is a prefix of the other as text', async (t) => {
    const a = await connect(t, { namespace: `/ns-${process.pid}/a/` });
    const ab = await connect(t, { namespace: `/ns-${process.pid}/ab/` });
    await a.put('k', text('in a'));
    await ab.put('k', text('in ab'));
    await a.put('bc', text('in a too'));
    assert.deepEqual(
      (await a.range('')).map((e) => [e.key, str(e.value)]),
      [
        ['bc', 'in a too'],
        ['k', 'in a'],
      ],
    );
    assert.deepEqual(
      (await ab.range('')).map((e) => [e.key, str(e.value)]),
      [['k', 'in ab']],
    );
    assert.equal(await ab.delete('bc'), false);
    assert.equal(str(await a.get('bc')), 'in a too');
  });

  test('compareAndPut races between two clients: exactly one wins each round', async (t) => {
    const a = await connect(t);
    const b = await connect(t, { namespace: a.namespace });
    const rounds = 40;
    let aWins = 0;
    for (let r = 0; r < rounds; r++) {
      const key = `race/${r}`;
      // Create: both want the key that does not exist yet.
      const created = await Promise.all([a.compareAndPut(key, undefined, text('a')), b.compareAndPut(key, undefined, text('b'))]);
      assert.equal(created.filter(Boolean).length, 1, `round ${r} create: ${created}`);
      const winner = created[0] ? 'a' : 'b';
      if (created[0]) aWins++;
      assert.equal(str(await a.get(key)), winner);
      // Update: both saw the same value and want to replace it.
      const seen = (await b.get(key))!;
      const updated = await Promise.all([a.compareAndPut(key, seen, text(`a${r}`)), b.compareAndPut(key, seen, text(`b${r}`))]);
      assert.equal(updated.filter(Boolean).length, 1, `round ${r} update: ${updated}`);
      assert.equal(str(await b.get(key)), updated[0] ? `a${r}` : `b${r}`);
    }
    t.diagnostic(`client a won ${aWins} of ${rounds} creates`);
  });

  test('values of arbitrary bytes round-trip, large ones too', async (t) => {
    const kv = await connect(t);
    const values = [randomBytes(1), randomBytes(1000), randomBytes(512 * 1024), new Uint8Array([0, 0, 0]), new Uint8Array([0xff, 0xfe, 0x00, 0x80])];
    for (const [i, v] of values.entries()) await kv.put(`v/${i}`, v);
    for (const [i, v] of values.entries()) assert.deepEqual(await kv.get(`v/${i}`), new Uint8Array(v), `value ${i}`);
    const listed = await kv.range('v/');
    assert.deepEqual(
      listed.map((e) => e.value),
      values.map((v) => new Uint8Array(v)),
    );
    assert.equal(await kv.compareAndPut('v/2', values[2], text('replaced')), true, 'a large value compares equal byte for byte');
  });

  test(`a batch is one transaction: up to maxTxnOps distinct keys, refused over it with nothing applied`, async (t) => {
    const kv = await connect(t);
    const puts = (n: number, tag: string): KvOp[] => Array.from({ length: n }, (_, i) => ({ type: 'put', key: `b/${String(i).padStart(3, '0')}`, value: text(tag) }));
    await kv.batch(puts(128, 'full'));
    assert.equal((await kv.range('b/')).length, 128);
    // 300 operations on 100 keys fold to 100: allowed.
    await kv.batch([...puts(100, 'x'), ...puts(100, 'y').map((op) => ({ type: 'delete' as const, key: op.key })), ...puts(100, 'folded')]);
    const afterFold = await kv.range('b/');
    assert.equal(afterFold.length, 128);
    assert.deepEqual(new Set(afterFold.slice(0, 100).map((e) => str(e.value))), new Set(['folded']));
    const err = await rejectsWith(kv.batch(puts(129, 'over')), StatusCode.InvalidArguments, ['129 keys', 'limit of 128', kv.description]);
    assert.match(err.message, /atomic/);
    assert.deepEqual(new Set((await kv.range('b/')).map((e) => str(e.value))), new Set(['folded', 'full']), 'nothing of the refused batch applied');
    // A server configured for more is used with a matching maxTxnOps; etcd's own refusal is clear too.
    const loose = await connect(t, { namespace: kv.namespace, maxTxnOps: 200 });
    await rejectsWith(loose.batch(puts(129, 'over')), StatusCode.InvalidArguments, ['too many operations']);
    assert.deepEqual(new Set((await kv.range('b/')).map((e) => str(e.value))), new Set(['folded', 'full']));
  });

  test('connect validates its options', async () => {
    await rejectsWith(EtcdKvBackend.connect({ endpoints: [] }), StatusCode.InvalidArguments, ['no endpoints']);
    await rejectsWith(EtcdKvBackend.connect({ endpoints: ['http://127.0.0.1:2379'] }), StatusCode.InvalidArguments, ['invalid endpoint']);
    await rejectsWith(EtcdKvBackend.connect({ endpoints: [shared.endpoint], namespace: '' }), StatusCode.InvalidArguments, ['must end with "/"']);
    await rejectsWith(EtcdKvBackend.connect({ endpoints: [shared.endpoint], namespace: '/tsdb' }), StatusCode.InvalidArguments, ['must end with "/"']);
    await rejectsWith(EtcdKvBackend.connect({ endpoints: [shared.endpoint], requestTimeoutMs: 0 }), StatusCode.InvalidArguments, ['requestTimeoutMs']);
  });

  test('connect to endpoints where nothing listens fails within the timeout, naming them', async () => {
    const ports = [await freePort(), await freePort()];
    const endpoints = ports.map((p) => `127.0.0.1:${p}`);
    const start = Date.now();
    await rejectsWith(EtcdKvBackend.connect({ endpoints, connectTimeoutMs: 1000 }), StatusCode.StorageUnavailable, [
      'connect',
      `etcd at ${endpoints.join(', ')} is unavailable`,
    ]);
    const took = Date.now() - start;
    assert.ok(took < 3000, `took ${took} ms`);
  });

  test('one endpoint of two down: every call still succeeds on the other', async (t) => {
    const dead = `127.0.0.1:${await freePort()}`;
    const kv = await connect(t, { endpoints: [dead, shared.endpoint], requestTimeoutMs: 3000 });
    assert.equal(kv.description, `etcd(${dead},${shared.endpoint})`);
    for (let i = 0; i < 20; i++) {
      await kv.put(`k/${i}`, text(String(i)));
      assert.equal(await kv.compareAndPut(`c/${i}`, undefined, text('x')), true);
    }
    assert.equal((await kv.range('k/')).length, 20);
  });

  test('etcd stopped: every call fails within the timeout with a clear error; after a restart on the same data all succeed', async (t) => {
    const own = await startEtcd(t);
    const timeout = 1000;
    const kv = await EtcdKvBackend.connect({ endpoints: [own.endpoint], requestTimeoutMs: timeout });
    t.after(() => kv.close());
    await kv.put('before', text('kept'));
    await own.stop();
    const calls: Array<[string, () => Promise<unknown>, boolean]> = [
      ['get', () => kv.get('before'), true],
      ['put', () => kv.put('k', text('v')), true],
      ['delete', () => kv.delete('before'), false],
      ['range', () => kv.range(''), true],
      ['compare-and-put', () => kv.compareAndPut('k', undefined, text('v')), false],
      ['batch', () => kv.batch([{ type: 'put', key: 'k', value: text('v') }]), true],
    ];
    for (const [what, call] of calls) {
      const start = Date.now();
      const err = await rejectsWith(call(), StatusCode.StorageUnavailable, [what, `etcd at ${own.endpoint} is unavailable`]);
      const took = Date.now() - start;
      assert.ok(took <= timeout + 1000, `${what} took ${took} ms: ${err.message}`);
    }
    const again = await own.restart();
    t.after(() => again.stop());
    // The first call after the restart succeeds (the client reconnects within its deadline).
    assert.equal(str(await kv.get('before')), 'kept');
    await kv.put('after', text('new'));
    assert.equal(await kv.compareAndPut('after', text('new'), text('newer')), true);
    assert.deepEqual(
      (await kv.range('')).map((e) => [e.key, str(e.value)]),
      [
        ['after', 'newer'],
        ['before', 'kept'],
      ],
    );
  });
});
