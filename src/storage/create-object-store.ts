/**
 * From the storage options of the configuration (`[storage]`, `[[storage.providers]]`) to object
 * stores: each storage type's keys mapped to its OpenDAL scheme's config keys.
 */
import { join } from 'node:path';
import { StatusCode } from '../common/error/status-code.js';
import { TsdbError } from '../common/error/tsdb-error.js';
import { STORAGE_KEYS, type ObjectStorageType, type StorageOptions } from '../config/options.js';
import type { ObjectStore } from './object-store.js';
import { OpendalObjectStore, type OpendalStoreOptions } from './opendal-object-store.js';

/**
 * One storage provider: its type, that type's keys, and the data home. `[storage]` is one as it
 * is (less its providers); a `[[storage.providers]]` entry is one with `[storage]`'s data_home.
 */
export type ObjectStoreOptions = Omit<StorageOptions, 'providers'>;

/**
 * Every storage provider by the name a table chooses it with (`storage = '<name>'`), as GreptimeDB
 * resolves it: the default `[storage]` under its type's name, then each `[[storage.providers]]`
 * entry under its `name`, or its type's when it has none. A later entry of the same name replaces
 * the earlier one (GreptimeDB's object store manager does so too). Names are kept as written.
 */
export function storageProviders(storage: StorageOptions): Map<string, ObjectStoreOptions> {
  const { providers, ...defaultStore } = storage;
  const map = new Map<string, ObjectStoreOptions>([[storage.type, defaultStore]]);
  for (const entry of providers) {
    const { name, ...keys } = entry;
    map.set(name ?? entry.type, { ...keys, data_home: storage.data_home });
  }
  return map;
}

/**
 * File storage keeps its objects under `{data_home}/data`, as GreptimeDB keeps table data under
 * `data/`; its writes pass through `{data_home}/.tmp`, on the same file system, to be atomic
 * (GreptimeDB's atomic write directory too). Nothing else writes there, so a stray file in it is
 * the leftover of a crashed write.
 */
export function fileStoreDirs(dataHome: string): { root: string; atomicWriteDir: string } {
  return { root: join(dataHome, 'data'), atomicWriteDir: join(dataHome, '.tmp') };
}

/**
 * The object store of one storage provider. Only the keys that are set are passed on, so that
 * OpenDAL's own defaults (and for S3 its credential chain: environment, profile, instance
 * metadata) apply to the others. Throws a TsdbError naming the store when a required key is
 * missing or OpenDAL refuses the configuration (e.g. S3 without a region in options or environment).
 */
export function createObjectStore(options: ObjectStoreOptions): ObjectStore {
  if (options.type === 'File') {
    if (options.data_home.trim() === '') {
      throw new TsdbError(StatusCode.InvalidArguments, 'storage type File: data_home must not be empty');
    }
    const { root, atomicWriteDir } = fileStoreDirs(options.data_home);
    return OpendalObjectStore.fs(root, atomicWriteDir);
  }
  return new OpendalObjectStore(opendalOptions(options));
}

/** An object storage type's OpenDAL scheme and config keys (those set only); checks the required keys. */
export function opendalOptions(options: ObjectStoreOptions): OpendalStoreOptions {
  const type = options.type;
  if (type === 'File') throw new TypeError('File storage is no object storage type; createObjectStore builds it');
  const missing = STORAGE_KEYS[type].required.filter((k) => !present(options[k as keyof ObjectStoreOptions]));
  if (missing.length > 0) {
    const keys = missing.map((k) => `"${k}"`).join(' and ');
    throw new TsdbError(StatusCode.InvalidArguments, `storage type ${type} needs ${keys}, which ${missing.length > 1 ? 'are' : 'is'} not set`);
  }
  const { scheme, config } = OPENDAL[type](options);
  return { scheme, config: defined(config), description: describe(options) };
}

/** Each storage type's OpenDAL scheme, and its keys under OpenDAL's names. */
const OPENDAL: Record<ObjectStorageType, (o: ObjectStoreOptions) => { scheme: string; config: Record<string, string | undefined> }> = {
  S3: (o) => ({
    scheme: 's3',
    config: {
      bucket: o.bucket,
      root: o.root,
      endpoint: o.endpoint,
      region: o.region,
      access_key_id: o.access_key_id,
      secret_access_key: o.secret_access_key,
    },
  }),
  Oss: (o) => ({
    scheme: 'oss',
    config: {
      bucket: o.bucket,
      root: o.root,
      endpoint: o.endpoint,
      access_key_id: o.access_key_id,
      access_key_secret: o.secret_access_key,
    },
  }),
  Azblob: (o) => ({
    scheme: 'azblob',
    config: {
      container: o.container,
      root: o.root,
      // OpenDAL needs an endpoint; an account's own is Azure's public one for it.
      endpoint: o.endpoint ?? (present(o.account_name) ? `https://${o.account_name}.blob.core.windows.net` : undefined),
      account_name: o.account_name,
      account_key: o.account_key,
      sas_token: o.sas_token,
    },
  }),
  Gcs: (o) => ({
    scheme: 'gcs',
    config: {
      bucket: o.bucket,
      root: o.root,
      endpoint: o.endpoint,
      scope: o.scope,
      credential_path: o.credential_path,
    },
  }),
};

/** `S3(bucket/root)`, `Azblob(container)`: for messages. */
function describe(o: ObjectStoreOptions): string {
  const place = o.type === 'Azblob' ? o.container : o.bucket;
  const root = (o.root ?? '').replace(/^\/+|\/+$/g, '');
  return `${o.type}(${place}${root === '' ? '' : `/${root}`})`;
}

function present(value: unknown): boolean {
  return value !== undefined && value !== '';
}

function defined(config: Record<string, string | undefined>): Record<string, string> {
  return Object.fromEntries(Object.entries(config).filter((e): e is [string, string] => present(e[1])));
}
