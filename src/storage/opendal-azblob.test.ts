/**
 * OpendalObjectStore on Azure Blob Storage: the conformance suite and the fault suite against
 * azurite's blob service (npm) started on 127.0.0.1 with its own data directory, configured only
 * through tsdb's Azblob keys (container, root, endpoint, account_name, account_key, sas_token).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { AZURITE_ACCOUNT, AZURITE_KEY, startAzurite, type AzuriteServer } from '../../test/support/object-servers.js';
import { opendalOptions, type ObjectStoreOptions } from './create-object-store.js';
import { runObjectStoreSuite } from './object-store.suite.js';
import { OpendalObjectStore } from './opendal-object-store.js';
import { assertNoSecrets, runRemoteFaultSuite } from './remote-store-faults.suite.js';

/** tsdb's Azblob storage options with these keys. */
function azblob(keys: Partial<ObjectStoreOptions>): ObjectStoreOptions {
  return { type: 'Azblob', data_home: '/unused', ...keys } as ObjectStoreOptions;
}

const CONTAINER = 'tsdb-test';

describe('OpenDAL azblob on azurite', () => {
  let server: AzuriteServer;
  let stores = 0;

  before(async () => {
    server = await startAzurite();
    await server.createContainer(CONTAINER);
  });
  after(() => server?.stop());

  /** Built the way the server builds it: from tsdb's Azblob storage keys, with the account key. */
  const keyStore = (): OpendalObjectStore => {
    const root = `test-${++stores}`;
    return new OpendalObjectStore(
      opendalOptions(azblob(server.storage(CONTAINER, root))),
    );
  };
  /** The same with a SAS token instead of the key. */
  const sasStore = (token: string): OpendalObjectStore => {
    const root = `test-${++stores}`;
    return new OpendalObjectStore(opendalOptions(azblob({ container: CONTAINER, root, endpoint: server.endpoint, sas_token: token })));
  };

  runObjectStoreSuite('OpenDAL azblob (azurite, account key)', async () => keyStore());
  runObjectStoreSuite('OpenDAL azblob (azurite, SAS token)', async () => sasStore(server.sasToken()));

  test('a SAS token without write permission: the write is refused; the error names the store and shows neither token nor signature', async () => {
    const token = server.sasToken('rl');
    const sig = new URLSearchParams(token).get('sig')!;
    const store = sasStore(token);
    const description = `Azblob(${CONTAINER}/test-${stores})`;
    await assert.rejects(store.write('x', Buffer.from('x')), (err: Error) => {
      assert.ok(err.message.includes(description), err.message);
      assert.match(err.message, /AuthorizationPermissionMismatch|403|PermissionDenied/);
      assertNoSecrets(err, [token, sig, encodeURIComponent(sig)]);
      return true;
    });
  });

  test('a wrong account key is refused; the error names the store and shows no key', async () => {
    const wrongKey = Buffer.alloc(64, 9).toString('base64');
    const store = new OpendalObjectStore(
      opendalOptions(azblob({ container: CONTAINER, root: 'wrong', endpoint: server.endpoint, account_name: server.accountName, account_key: wrongKey })),
    );
    for (const op of [() => store.write('x', Buffer.from('x')), () => store.read('x'), () => store.list('')]) {
      await assert.rejects(op(), (err: Error) => {
        assert.ok(err.message.includes(`Azblob(${CONTAINER}/wrong)`), err.message);
        assertNoSecrets(err, [wrongKey, AZURITE_KEY]);
        return true;
      });
    }
  });
});

runRemoteFaultSuite('azblob (account key)', {
  scheme: 'azblob',
  description: 'Azblob(tsdb-test/faults)',
  config: (endpoint) => ({ container: CONTAINER, root: '/faults', endpoint: `${endpoint}/${AZURITE_ACCOUNT}`, account_name: AZURITE_ACCOUNT, account_key: AZURITE_KEY }),
  secrets: [AZURITE_KEY],
});

const FAULT_SAS = 'sv=2019-12-12&ss=b&srt=sco&sp=rwdlacup&se=2099-01-01T00%3A00%3A00Z&spr=https%2Chttp&sig=QmFkU2lnbmF0dXJlRm9yVGVzdHM%3D';
runRemoteFaultSuite('azblob (SAS token)', {
  scheme: 'azblob',
  description: 'Azblob(tsdb-test/faults)',
  config: (endpoint) => ({ container: CONTAINER, root: '/faults', endpoint: `${endpoint}/${AZURITE_ACCOUNT}`, sas_token: FAULT_SAS }),
  secrets: [FAULT_SAS, 'QmFkU2lnbmF0dXJlRm9yVGVzdHM', 'QmFkU2lnbmF0dXJlRm9yVGVzdHM%3D'],
});
