/**
 * OpendalObjectStore on Aliyun OSS: the conformance suite and the fault suite against the fake OSS
 * server of test/support/object-servers.ts (no emulator package exists), configured only through
 * tsdb's Oss keys (bucket, root, endpoint, access_key_id, secret_access_key). The fake checks
 * every request's signature.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { tempDir } from '../../test/support/temp.js';
import { exerciseFakeStore, startFakeOss, type FakeOss } from '../../test/support/object-servers.js';
import { opendalOptions, type ObjectStoreOptions } from './create-object-store.js';
import { runObjectStoreSuite } from './object-store.suite.js';
import { OpendalObjectStore } from './opendal-object-store.js';
import { assertNoSecrets, runRemoteFaultSuite } from './remote-store-faults.suite.js';

/** tsdb's Oss storage options with these keys. */
function oss(keys: Partial<ObjectStoreOptions>): ObjectStoreOptions {
  return { type: 'Oss', data_home: '/unused', ...keys } as ObjectStoreOptions;
}

describe('OpenDAL oss on the fake OSS server', () => {
  let server: FakeOss;
  let stores = 0;

  before(async () => {
    // Three objects a page: every listing of more than three objects takes several pages.
    server = await startFakeOss({ pageSize: 3 });
  });
  after(() => server?.stop());

  /** Built the way the server builds it: from tsdb's Oss storage keys. */
  const ossStore = (secret = server.accessKeySecret): OpendalObjectStore => {
    const root = `test-${++stores}`;
    return new OpendalObjectStore(
      opendalOptions(oss({ ...server.storage(root), secret_access_key: secret })),
    );
  };

  runObjectStoreSuite('OpenDAL oss (fake server)', async () => ossStore());

  test('the store speaks OSS: signed requests, multipart uploads, paged listings, multi-object deletes', async (t) => {
    const store = ossStore();
    const root = `test-${stores}`;
    const requests = await exerciseFakeStore(store, server, root, tempDir(t));
    const sent = requests;
    assert.ok(sent.includes(`POST /${root}/r/big?uploads`), sent.join('\n'));
    assert.equal(sent.filter((r) => r.startsWith(`PUT /${root}/r/big?partNumber=`)).length, 3);
    assert.equal(sent.filter((r) => r === `GET /${root}/r/big`).length, 2, sent.join('\n'));
    assert.ok(sent.some((r) => r.startsWith('GET /?list-type=2') && r.includes('continuation-token=')), 'no listing took a second page');
    assert.ok(sent.includes('POST /?delete'), 'deleteAll sent no multi-object delete');
  });

  test('a wrong secret key is refused (SignatureDoesNotMatch); the error names the store and shows no secret', async () => {
    const secret = 'wrong-oss-secret-Lk29xV';
    const store = ossStore(secret);
    const description = `Oss(127/test-${stores})`;
    for (const op of [() => store.write('x', Buffer.from('x')), () => store.read('x'), () => store.list('')]) {
      await assert.rejects(op(), (err: Error) => {
        assert.ok(err.message.includes(description), err.message);
        assertNoSecrets(err, [secret]);
        return true;
      });
    }
    await assert.rejects(store.write('x', Buffer.from('x')), /SignatureDoesNotMatch/);
  });
});

runRemoteFaultSuite('oss', {
  scheme: 'oss',
  description: 'Oss(127/faults)',
  // The fake's way to reach 127.0.0.1 (see startFakeOss): bucket 127 on host 0.0.1.
  config: (endpoint) => ({
    bucket: '127',
    root: '/faults',
    endpoint: endpoint.replace('//127.0.0.1:', '//0.0.1:'),
    access_key_id: 'LTAIfaults',
    access_key_secret: 'oss-faults-secret-7Hn2',
  }),
  secrets: ['oss-faults-secret-7Hn2'],
});
