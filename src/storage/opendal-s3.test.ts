/**
 * OpendalObjectStore on S3: the conformance suite and the fault suite against s3rver, a fake S3
 * server (npm) started on 127.0.0.1 with its own data directory.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { startS3rver, type S3Server } from '../../test/support/object-servers.js';
import { opendalOptions, type ObjectStoreOptions } from './create-object-store.js';
import { runObjectStoreSuite } from './object-store.suite.js';
import { OpendalObjectStore } from './opendal-object-store.js';
import { runRemoteFaultSuite } from './remote-store-faults.suite.js';

describe('OpenDAL s3 on s3rver', () => {
  let server: S3Server;
  let stores = 0;

  before(async () => {
    server = await startS3rver();
  });
  after(() => server?.stop());

  /**
   * Built the way the server builds it, from tsdb's S3 storage keys. Each test gets its own root
   * in the bucket, so that tests do not see each other's objects.
   */
  const s3Store = (): OpendalObjectStore => {
    const root = `test-${++stores}`;
    return new OpendalObjectStore(opendalOptions({ data_home: '/unused', ...server.storage(root) } as ObjectStoreOptions));
  };

  // s3rver writes an object's file in place, so a reader can see part of a PUT in progress
  // (real S3 never shows one): the atomic-replacement test is not for it.
  runObjectStoreSuite('OpenDAL s3 (s3rver)', async () => s3Store(), { atomicReplace: false });

  test('localPath is undefined for a remote store', () => {
    assert.equal(s3Store().localPath('region/1/sst/a.parquet'), undefined);
  });

  test('an object written through S3 is a real object of the server', async () => {
    const store = s3Store();
    await store.write('a/b.txt', Buffer.from('via s3'));
    // s3rver keeps each object as `<bucket>/<key>._S3rver_object`.
    const onDisk = join(server.dataDir, server.bucket, `test-${stores}`, 'a', 'b.txt._S3rver_object');
    assert.equal(readFileSync(onDisk, 'utf8'), 'via s3');
  });
});

runRemoteFaultSuite('s3', {
  scheme: 's3',
  description: 'S3(tsdb-test/faults)',
  config: (endpoint) => ({ bucket: 'tsdb-test', root: '/faults', endpoint, region: 'us-east-1', access_key_id: 'AKIAFAULTS', secret_access_key: 'faults-secret-9f3Qm2' }),
  secrets: ['faults-secret-9f3Qm2'],
});
