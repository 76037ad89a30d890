/**
 * OpendalObjectStore on Google Cloud Storage: the conformance suite and the fault suite against
 * the fake GCS server of test/support/object-servers.ts (no emulator package exists), configured
 * only through tsdb's Gcs keys (bucket, root, endpoint, credential_path).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { tempDir } from '../../test/support/temp.js';
import { exerciseFakeStore, startFakeGcs, type FakeGcs } from '../../test/support/object-servers.js';
import { opendalOptions, type ObjectStoreOptions } from './create-object-store.js';
import { runObjectStoreSuite } from './object-store.suite.js';
import { OpendalObjectStore } from './opendal-object-store.js';
import { runRemoteFaultSuite } from './remote-store-faults.suite.js';

/** tsdb's Gcs storage options with these keys. */
function gcs(keys: Partial<ObjectStoreOptions>): ObjectStoreOptions {
  return { type: 'Gcs', data_home: '/unused', ...keys } as ObjectStoreOptions;
}

describe('OpenDAL gcs on the fake GCS server', () => {
  let server: FakeGcs;
  let stores = 0;

  before(async () => {
    // Three objects a page: every listing of more than three objects takes several pages.
    server = await startFakeGcs('tsdb-test', { pageSize: 3 });
  });
  after(() => server?.stop());

  /** Built the way the server builds it: from tsdb's Gcs storage keys. */
  const gcsStore = (): OpendalObjectStore => {
    const root = `test-${++stores}`;
    return new OpendalObjectStore(
      opendalOptions(gcs(server.storage(root))),
    );
  };

  runObjectStoreSuite('OpenDAL gcs (fake server)', async () => gcsStore());

  test('the store speaks GCS: a token from the credential file, multipart uploads, paged listings, batch deletes', async (t) => {
    const store = gcsStore();
    const root = `test-${stores}`;
    const requests = await exerciseFakeStore(store, server, root, tempDir(t));
    assert.deepEqual(await store.list(''), []);
    // GCS names are percent-encoded in paths (OpenDAL encodes `/` too in the XML API).
    const sent = requests.map((r) => decodeURIComponent(r));
    assert.ok(sent.includes(`POST /${server.bucket}/${root}/r/big?uploads`), sent.join('\n'));
    assert.equal(sent.filter((r) => r.startsWith(`PUT /${server.bucket}/${root}/r/big?partNumber=`)).length, 3);
    assert.equal(sent.filter((r) => r === `GET /storage/v1/b/${server.bucket}/o/${root}/r/big?alt=media`).length, 2, sent.join('\n'));
    assert.ok(sent.some((r) => r.startsWith(`GET /storage/v1/b/${server.bucket}/o?`) && r.includes('pageToken=')), 'no listing took a second page');
    assert.ok(sent.includes('POST /batch/storage/v1'), 'deleteAll sent no batch delete');
    assert.ok(server.requests.includes('POST /token'), 'no token was asked for');
  });
});

// For the faults: a token server that works (a fake GCS server's), so that the requests that
// fail are the store's own, as when the storage endpoint alone is unreachable.
let tokenServer: FakeGcs | undefined;
const faultSecrets: string[] = [];
before(async () => {
  tokenServer = await startFakeGcs('tsdb-test');
  faultSecrets.push(tokenServer.subjectToken);
});
after(() => tokenServer?.stop());

runRemoteFaultSuite('gcs', {
  scheme: 'gcs',
  description: 'Gcs(tsdb-test/faults)',
  config: (endpoint) => ({ bucket: 'tsdb-test', root: '/faults', endpoint, credential_path: tokenServer!.credentialPath }),
  secrets: faultSecrets,
});
