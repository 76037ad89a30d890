import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { tempDir, tempFile } from '../../test/support/temp.js';
import { StatusCode } from '../common/error/status-code.js';
import { TsdbError } from '../common/error/tsdb-error.js';
import { loadConfig } from '../config/load.js';
import type { StorageOptions } from '../config/options.js';
import { createObjectStore, opendalOptions, storageProviders, type ObjectStoreOptions } from './create-object-store.js';

/** The storage options of a standalone server configured by `toml`, as the config loader gives them. */
function storageFrom(toml: string, t: Parameters<typeof tempFile>[0]): StorageOptions {
  const file = tempFile(t, 'tsdb.toml', toml);
  return loadConfig({ component: 'standalone', configFile: file, env: {}, system: { totalMemory: 8 << 30, cpus: 2 } }).config.storage;
}

function options(o: Partial<ObjectStoreOptions> & Pick<ObjectStoreOptions, 'type'>): ObjectStoreOptions {
  return { data_home: '/tmp/tsdb', ...o } as ObjectStoreOptions;
}

test('File storage keeps objects under {data_home}/data and writes through {data_home}/.tmp', async (t) => {
  const home = tempDir(t);
  const store = createObjectStore(options({ type: 'File', data_home: home }));
  assert.equal(store.description, `File(${join(home, 'data')})`);
  await store.write('region/1/manifest/00000.json', new TextEncoder().encode('{}'));
  assert.equal(store.localPath('region/1/manifest/00000.json'), join(home, 'data', 'region/1/manifest/00000.json'));
  assert.equal(readFileSync(join(home, 'data', 'region/1/manifest/00000.json'), 'utf8'), '{}');
  assert.ok(existsSync(join(home, '.tmp')));
});

test('the default File storage of a configuration', (t) => {
  const home = tempDir(t);
  const storage = storageFrom(`[storage]\ndata_home = "${home}"\n`, t);
  const store = createObjectStore(storageProviders(storage).get('File')!);
  assert.equal(store.localPath('x'), join(home, 'data', 'x'));
});

test('each object storage type maps its keys to its OpenDAL scheme; unset keys are left out', () => {
  assert.deepEqual(
    opendalOptions(
      options({
        type: 'S3',
        bucket: 'b',
        root: 'data',
        endpoint: 'http://127.0.0.1:9000',
        region: 'us-east-1',
        access_key_id: 'id',
        secret_access_key: 'secret',
        cache_path: '/tmp/tsdb/object_cache',
        cache_capacity: 1 << 28,
      }),
    ),
    {
      scheme: 's3',
      config: { bucket: 'b', root: 'data', endpoint: 'http://127.0.0.1:9000', region: 'us-east-1', access_key_id: 'id', secret_access_key: 'secret' },
      description: 'S3(b/data)',
    },
  );
  assert.deepEqual(opendalOptions(options({ type: 'S3', bucket: 'b', region: '' })), {
    scheme: 's3',
    config: { bucket: 'b' },
    description: 'S3(b)',
  });
  // OSS calls the secret `access_key_secret`.
  assert.deepEqual(
    opendalOptions(options({ type: 'Oss', bucket: 'o', endpoint: 'https://oss-cn-hangzhou.aliyuncs.com', access_key_id: 'id', secret_access_key: 's', root: '/r/' })),
    {
      scheme: 'oss',
      config: { bucket: 'o', root: '/r/', endpoint: 'https://oss-cn-hangzhou.aliyuncs.com', access_key_id: 'id', access_key_secret: 's' },
      description: 'Oss(o/r)',
    },
  );
  assert.deepEqual(
    opendalOptions(options({ type: 'Azblob', container: 'c', account_name: 'acct', account_key: 'k', sas_token: 'sas', root: 'tsdb' })),
    {
      scheme: 'azblob',
      config: { container: 'c', root: 'tsdb', endpoint: 'https://acct.blob.core.windows.net', account_name: 'acct', account_key: 'k', sas_token: 'sas' },
      description: 'Azblob(c/tsdb)',
    },
  );
  assert.equal(
    opendalOptions(options({ type: 'Azblob', container: 'c', account_name: 'acct', endpoint: 'http://127.0.0.1:10000/acct' })).config['endpoint'],
    'http://127.0.0.1:10000/acct',
  );
  assert.deepEqual(
    opendalOptions(options({ type: 'Gcs', bucket: 'g', scope: 'https://www.googleapis.com/auth/devstorage.read_write', credential_path: '/etc/gcs.json', endpoint: 'https://storage.googleapis.com' })),
    {
      scheme: 'gcs',
      config: {
        bucket: 'g',
        endpoint: 'https://storage.googleapis.com',
        scope: 'https://www.googleapis.com/auth/devstorage.read_write',
        credential_path: '/etc/gcs.json',
      },
      description: 'Gcs(g)',
    },
  );
});

test('object stores are built without contacting the service, and have no local paths', () => {
  const built = [
    options({ type: 'S3', bucket: 'b', region: 'us-east-1', endpoint: 'http://127.0.0.1:1', access_key_id: 'id', secret_access_key: 's' }),
    options({ type: 'Oss', bucket: 'o', endpoint: 'http://127.0.0.1:1' }),
    options({ type: 'Azblob', container: 'c', account_name: 'acct', account_key: 'a2V5' }),
    options({ type: 'Gcs', bucket: 'g', root: 'r' }),
  ].map(createObjectStore);
  assert.deepEqual(
    built.map((s) => s.description),
    ['S3(b)', 'Oss(o)', 'Azblob(c)', 'Gcs(g/r)'],
  );
  for (const store of built) assert.equal(store.localPath('region/x'), undefined);
});

test('a storage type without its required keys is a clear error', () => {
  const invalid = (message: string) => (err: unknown) => {
    assert.ok(err instanceof TsdbError, String(err));
    assert.equal(err.code, StatusCode.InvalidArguments);
    assert.equal(err.message, message);
    return true;
  };
  assert.throws(() => createObjectStore(options({ type: 'S3' })), invalid('storage type S3 needs "bucket", which is not set'));
  assert.throws(() => createObjectStore(options({ type: 'S3', bucket: '' })), invalid('storage type S3 needs "bucket", which is not set'));
  assert.throws(() => createObjectStore(options({ type: 'Oss' })), invalid('storage type Oss needs "bucket" and "endpoint", which are not set'));
  assert.throws(() => createObjectStore(options({ type: 'Azblob' })), invalid('storage type Azblob needs "container", which is not set'));
  assert.throws(() => createObjectStore(options({ type: 'Gcs' })), invalid('storage type Gcs needs "bucket", which is not set'));
  assert.throws(() => createObjectStore(options({ type: 'File', data_home: ' ' })), invalid('storage type File: data_home must not be empty'));
  // What OpenDAL itself refuses is reported with the store: an Azure container with neither an
  // endpoint nor an account to derive it from.
  assert.throws(
    () => createObjectStore(options({ type: 'Azblob', container: 'c', sas_token: 't' })),
    (err: unknown) => {
      assert.ok(err instanceof TsdbError);
      assert.equal(err.code, StatusCode.StorageUnavailable);
      assert.match(err.message, /^cannot open object store Azblob\(c\): .*endpoint is empty/);
      return true;
    },
  );
});

test('storage providers: the default under its type, each provider under its name or type', (t) => {
  const storage = storageFrom(
    [
      '[storage]',
      'data_home = "/var/lib/tsdb"',
      'type = "File"',
      '[[storage.providers]]',
      'type = "S3"',
      'bucket = "metrics"',
      'region = "eu-west-1"',
      '[[storage.providers]]',
      'name = "archive"',
      'type = "Gcs"',
      'bucket = "cold"',
      '',
    ].join('\n'),
    t,
  );
  const providers = storageProviders(storage);
  assert.deepEqual([...providers.keys()], ['File', 'S3', 'archive']);
  const file = providers.get('File')!;
  assert.equal(file.type, 'File');
  assert.equal(file.data_home, '/var/lib/tsdb');
  assert.ok(!('providers' in file));
  const s3 = providers.get('S3')!;
  assert.equal(s3.type, 'S3');
  assert.equal(s3.bucket, 'metrics');
  assert.equal(s3.region, 'eu-west-1');
  assert.equal(s3.data_home, '/var/lib/tsdb');
  assert.equal(s3.cache_path, '/var/lib/tsdb/object_cache');
  assert.ok(!('name' in s3));
  const archive = providers.get('archive')!;
  assert.equal(archive.type, 'Gcs');
  assert.equal(archive.bucket, 'cold');
  assert.equal(createObjectStore(archive).description, 'Gcs(cold)');
});

test('storage providers: a provider named like the default replaces it in the map, as in GreptimeDB', (t) => {
  const storage = storageFrom(
    ['[storage]', 'type = "S3"', 'bucket = "default-bucket"', '[[storage.providers]]', 'type = "S3"', 'bucket = "other"', '[wal]', 'dir = "/tmp/wal"', ''].join('\n'),
    t,
  );
  const providers = storageProviders(storage);
  assert.deepEqual([...providers.keys()], ['S3']);
  assert.equal(providers.get('S3')!.bucket, 'other');
});

test('storage providers of a default configuration: only File', () => {
  const storage = loadConfig({ component: 'standalone', env: {}, system: { totalMemory: 8 << 30, cpus: 2 } }).config.storage;
  const providers = storageProviders(storage);
  assert.deepEqual([...providers.keys()], ['File']);
  assert.equal(providers.get('File')!.data_home, '/tmp/tsdb');
});
