import assert from 'node:assert/strict';
import { test } from 'node:test';
import { tempFile } from '../../test/support/temp.js';
import { GIB, MIB } from '../common/size/size.js';
import { loadConfig, type LoadRequest } from './load.js';
import { ConfigError } from './resolve.js';
import type { ComponentName } from './flags.js';

const SYSTEM = { totalMemory: 16 * GIB, cpus: 8 };

function load<C extends ComponentName>(req: LoadRequest<C>) {
  return loadConfig({ system: SYSTEM, env: {}, ...req });
}

/** The messages of the ConfigError that loading throws. */
function problems<C extends ComponentName>(req: LoadRequest<C>): string[] {
  try {
    load(req);
  } catch (err) {
    assert.ok(err instanceof ConfigError, `expected a ConfigError, got ${String(err)}`);
    return err.message.split('\n');
  }
  assert.fail('expected the configuration to be rejected');
}

function flag(path: string[], raw: string, name: string) {
  return { path, raw, info: { textual: true }, source: { kind: 'flag' as const, flag: name } };
}

test('defaults follow the spec', () => {
  const s = load({ component: 'standalone' }).config;
  assert.equal(s.mode, 'standalone');
  assert.equal(s.http.addr, '127.0.0.1:4000');
  assert.equal(s.http.timeout, 30_000);
  assert.equal(s.http.body_limit, 64 * MIB);
  assert.equal(s.grpc.addr, '127.0.0.1:4001');
  assert.equal(s.grpc.runtime_size, 8);
  assert.equal(s.mysql.addr, '127.0.0.1:4002');
  assert.equal(s.mysql.runtime_size, 2);
  assert.equal(s.mysql.tls.mode, 'disable');
  assert.equal(s.postgres.addr, '127.0.0.1:4003');
  assert.equal(s.storage.data_home, '/tmp/tsdb');
  assert.equal(s.storage.type, 'File');
  assert.deepEqual(s.storage.providers, []);
  assert.equal(s.wal.dir, '/tmp/tsdb/wal');
  assert.equal(s.wal.file_size, 256 * MIB);
  assert.equal(s.wal.purge_threshold, 4 * GIB);
  assert.equal(s.wal.purge_interval, 600_000);
  assert.equal(s.wal.read_batch_size, 128);
  assert.equal(s.wal.sync_write, false);
  assert.equal(s.logging.dir, '/tmp/tsdb/logs');
  assert.equal(s.logging.level, 'info');
  assert.equal(s.logging.otlp_endpoint, 'localhost:4317');
  assert.equal(s.logging.append_stdout, true);
  assert.equal(s.logging.tracing_sample_ratio.default_ratio, 1);
  assert.equal(s.export_metrics.enable, false);
  assert.equal(s.export_metrics.write_interval, 30_000);
  assert.equal(s.export_metrics.self_import.db, 'information_schema');
  const m = s.region_engine.mito;
  assert.equal(m.num_workers, 8);
  assert.equal(m.manifest_checkpoint_distance, 10);
  assert.equal(m.max_background_jobs, 4);
  assert.equal(m.auto_flush_interval, 3_600_000);
  assert.equal(m.sst_write_buffer_size, 8 * MIB);
  assert.equal(m.inverted_index.mem_threshold_on_create, 64 * MIB);
  assert.equal(m.inverted_index.intermediate_path, '/tmp/tsdb/index_intermediate');
  assert.equal(m.memtable.type, 'time_series');
  assert.equal(m.memtable.index_max_keys_per_shard, 8192);
  assert.equal(m.memtable.data_freeze_threshold, 32768);
  assert.equal(m.memtable.fork_dictionary_bytes, GIB);

  const f = load({ component: 'frontend' }).config;
  assert.equal(f.mode, 'distributed');
  assert.deepEqual(f.meta_client.metasrv_addrs, ['127.0.0.1:3002']);
  assert.equal(f.meta_client.timeout, 3000);
  assert.equal(f.meta_client.connect_timeout, 1000);
  assert.equal(f.meta_client.ddl_timeout, 10_000);
  assert.equal(f.meta_client.tcp_nodelay, true);
  assert.equal(f.logging.dir, '/tmp/tsdb/logs');

  const d = load({ component: 'datanode', env: { TSDB_DATANODE__NODE_ID: '3' } }).config;
  assert.equal(d.rpc_addr, '127.0.0.1:3001');
  assert.equal(d.rpc_runtime_size, 8);
  assert.equal(d.rpc_hostname, undefined);

  const ms = load({ component: 'metasrv' }).config;
  assert.equal(ms.data_home, '/tmp/metasrv/');
  assert.equal(ms.bind_addr, '127.0.0.1:3002');
  assert.equal(ms.server_addr, '127.0.0.1:3002');
  assert.deepEqual(ms.store_addr, ['127.0.0.1:2379']);
  assert.equal(ms.selector, 'lease_based');
  assert.equal(ms.use_memory_store, false);
  assert.equal(ms.enable_region_failover, false);
  assert.equal(ms.logging.dir, '/tmp/metasrv/logs');
});

test('computed defaults depend on the machine', () => {
  const small = load({ component: 'standalone', system: { totalMemory: 4 * GIB, cpus: 2 } }).config.region_engine.mito;
  assert.equal(small.global_write_buffer_size, 512 * MIB);
  assert.equal(small.global_write_buffer_reject_size, GIB);
  assert.equal(small.sst_meta_cache_size, 128 * MIB);
  assert.equal(small.vector_cache_size, 256 * MIB);
  assert.equal(small.page_cache_size, 256 * MIB);
  assert.equal(small.scan_parallelism, 1);

  const tiny = load({ component: 'standalone', system: { totalMemory: 2 * GIB, cpus: 1 } }).config.region_engine.mito;
  assert.equal(tiny.sst_meta_cache_size, 64 * MIB);
  assert.equal(tiny.scan_parallelism, 1);

  const big = load({ component: 'standalone', system: { totalMemory: 64 * GIB, cpus: 16 } }).config.region_engine.mito;
  assert.equal(big.global_write_buffer_size, GIB);
  assert.equal(big.global_write_buffer_reject_size, 2 * GIB);
  assert.equal(big.sst_meta_cache_size, 128 * MIB);
  assert.equal(big.vector_cache_size, 512 * MIB);
  assert.equal(big.page_cache_size, 512 * MIB);
  assert.equal(big.scan_parallelism, 4);
});

test('computed defaults follow the options they derive from', () => {
  const env = {
    TSDB_STANDALONE__STORAGE__DATA_HOME: '/srv/tsdb',
    TSDB_STANDALONE__REGION_ENGINE__MITO__GLOBAL_WRITE_BUFFER_SIZE: '300MB',
    TSDB_STANDALONE__REGION_ENGINE__MITO__SCAN_PARALLELISM: '3',
  };
  const c = load({ component: 'standalone', env }).config;
  assert.equal(c.wal.dir, '/srv/tsdb/wal');
  assert.equal(c.logging.dir, '/srv/tsdb/logs');
  assert.equal(c.region_engine.mito.inverted_index.intermediate_path, '/srv/tsdb/index_intermediate');
  assert.equal(c.region_engine.mito.global_write_buffer_reject_size, 600 * MIB);
  assert.equal(c.region_engine.mito.scan_parallelism, 3);
  // An empty directory means "the default", as GreptimeDB reads it.
  const empty = load({ component: 'standalone', env: { TSDB_STANDALONE__LOGGING__DIR: '', TSDB_STANDALONE__WAL__DIR: '' } }).config;
  assert.equal(empty.logging.dir, '/tmp/tsdb/logs');
  assert.equal(empty.wal.dir, '/tmp/tsdb/wal');
});

test('object storage: cache defaults, required keys, wal.dir required', () => {
  const env = {
    TSDB_DATANODE__NODE_ID: '1',
    TSDB_DATANODE__STORAGE__TYPE: 'S3',
    TSDB_DATANODE__STORAGE__BUCKET: 'b',
    TSDB_DATANODE__WAL__DIR: '/wal',
  };
  const c = load({ component: 'datanode', env }).config;
  assert.equal(c.storage.cache_path, '/tmp/tsdb/object_cache');
  assert.equal(c.storage.cache_capacity, 256 * MIB);
  assert.equal(c.wal.dir, '/wal');

  const noWal = problems({ component: 'datanode', env: { ...env, TSDB_DATANODE__WAL__DIR: undefined } });
  assert.deepEqual(noWal, [
    'wal.dir: required when storage.type is S3 (the WAL is always on local disk); set it with --wal-dir, "wal.dir" in the config file or the environment variable TSDB_DATANODE__WAL__DIR',
  ]);
  const noBucket = problems({ component: 'datanode', env: { ...env, TSDB_DATANODE__STORAGE__BUCKET: undefined } });
  assert.deepEqual(noBucket, ['storage.bucket: required when the storage type is S3']);
  const azure = problems({
    component: 'datanode',
    env: { ...env, TSDB_DATANODE__STORAGE__ACCOUNT_KEY: 'k' },
  });
  assert.deepEqual(azure, [
    'storage.account_key: not an option of storage type S3 (it applies to Azblob) (from environment variable TSDB_DATANODE__STORAGE__ACCOUNT_KEY)',
  ]);
});

test('storage types and spellings: Gsc is Gcs; every provider is checked', (t) => {
  const file = tempFile(
    t,
    'p.toml',
    [
      '[storage]',
      'type = "Gsc"',
      'bucket = "g"',
      '[[storage.providers]]',
      'type = "Oss"',
      'bucket = "o"',
      'endpoint = "https://oss"',
      '[[storage.providers]]',
      'name = "blob"',
      'type = "Azblob"',
      'container = "c"',
      'sas_token = "t"',
      '',
    ].join('\n'),
  );
  const c = load({ component: 'standalone', configFile: file, env: { TSDB_STANDALONE__WAL__DIR: '/w' } }).config;
  assert.equal(c.storage.type, 'Gcs');
  assert.equal(c.storage.providers.length, 2);
  assert.equal(c.storage.providers[0]!.type, 'Oss');
  assert.equal(c.storage.providers[1]!.name, 'blob');
  assert.equal(c.storage.providers[1]!.cache_path, '/tmp/tsdb/object_cache');

  const dup = tempFile(t, 'dup.toml', '[[storage.providers]]\ntype = "S3"\nbucket = "a"\n[[storage.providers]]\ntype = "S3"\nbucket = "b"\n');
  assert.deepEqual(problems({ component: 'standalone', configFile: dup }), [
    `storage.providers[1].name: duplicate provider name "S3" (also storage.providers[0]); give each a distinct name`,
  ]);
  const noType = tempFile(t, 'notype.toml', '[[storage.providers]]\nbucket = "a"\n');
  assert.match(problems({ component: 'standalone', configFile: noType })[0]!, /^storage\.providers\[0\]\.type: required option is missing/);
  const gap = problems({ component: 'standalone', env: { TSDB_STANDALONE__STORAGE__PROVIDERS__1__TYPE: 'S3', TSDB_STANDALONE__STORAGE__PROVIDERS__1__BUCKET: 'x' } });
  assert.match(gap.join('\n'), /storage\.providers\[0\]: missing; entries of storage\.providers are numbered from 0 without gaps/);
});

test('accepted spellings: mysql.add, store_addrs, LeaseBased, verify_ca, Gcs', (t) => {
  const file = tempFile(t, 'a.toml', '[mysql]\nadd = "127.0.0.1:9002"\n');
  assert.equal(load({ component: 'standalone', configFile: file }).config.mysql.addr, '127.0.0.1:9002');
  const meta = tempFile(t, 'm.toml', 'store_addrs = ["10.0.0.1:2379", "10.0.0.2:2379"]\nselector = "LoadBased"\n');
  const ms = load({ component: 'metasrv', configFile: meta }).config;
  assert.deepEqual(ms.store_addr, ['10.0.0.1:2379', '10.0.0.2:2379']);
  assert.equal(ms.selector, 'load_based');
  const cert = tempFile(t, 'c.pem', 'x');
  const env = {
    TSDB_FRONTEND__POSTGRES__TLS__MODE: 'verify_ca',
    TSDB_FRONTEND__POSTGRES__TLS__CERT_PATH: cert,
    TSDB_FRONTEND__POSTGRES__TLS__KEY_PATH: cert,
    TSDB_FRONTEND__POSTGRES__TLS__CA_CERT_PATH: cert,
    TSDB_FRONTEND__POSTGRES__TLS__WATCH: 'true',
  };
  const fe = load({ component: 'frontend', env }).config;
  assert.equal(fe.postgres.tls.mode, 'verify-ca');
  assert.equal(fe.postgres.tls.watch, true);
});

test('array-of-tables in the environment: providers by index, region engines by name or index', () => {
  const env = {
    TSDB_STANDALONE__STORAGE__PROVIDERS__0__TYPE: 'S3',
    TSDB_STANDALONE__STORAGE__PROVIDERS__0__BUCKET: 'b0',
    TSDB_STANDALONE__STORAGE__PROVIDERS__1__TYPE: 'Azblob',
    TSDB_STANDALONE__STORAGE__PROVIDERS__1__CONTAINER: 'c1',
    TSDB_STANDALONE__REGION_ENGINE__MITO__NUM_WORKERS: '5',
    TSDB_STANDALONE__REGION_ENGINE__0__MITO__MEMTABLE__TYPE: 'partition_tree',
  };
  const c = load({ component: 'standalone', env }).config;
  assert.deepEqual(c.storage.providers.map((p) => [p.type, p.bucket ?? p.container]), [['S3', 'b0'], ['Azblob', 'c1']]);
  assert.equal(c.region_engine.mito.num_workers, 5);
  assert.equal(c.region_engine.mito.memtable.type, 'partition_tree');
});

test('a region engine may be written as [[region_engine]] or [region_engine.mito]', (t) => {
  for (const text of ['[[region_engine]]\n[region_engine.mito]\nnum_workers = 2\n', '[region_engine.mito]\nnum_workers = 2\n']) {
    const file = tempFile(t, 'r.toml', text);
    assert.equal(load({ component: 'standalone', configFile: file }).config.region_engine.mito.num_workers, 2);
  }
  const other = tempFile(t, 'o.toml', '[[region_engine]]\n[region_engine.metric]\nx = 1\n');
  assert.deepEqual(problems({ component: 'standalone', configFile: other }), [
    `unknown region engine "metric"; expected [region_engine.mito] (from config file ${other}, line 2)`,
  ]);
});

test('bad input: each problem names the option, the bad value and where it came from', (t) => {
  const file = tempFile(
    t,
    'bad.toml',
    ['[http]', 'adr = "127.0.0.1:4000"', 'timeout = 30', 'body_limit = "64XB"', '[wal]', 'purge_interval = "10 minutes later"', ''].join('\n'),
  );
  assert.deepEqual(problems({ component: 'standalone', configFile: file }), [
    `unknown option "http.adr"; did you mean "http.addr"? (from config file ${file}, line 2)`,
    `http.timeout: expected a duration string such as "30s", "10m" or "1h", got integer 30 (from config file ${file}, line 3)`,
    `http.body_limit: invalid size "64XB"; expected a number with an optional unit (B, KB, MB, GB, TB, PB, or KiB, MiB, GiB…), e.g. "64MB", "256MiB", "1GiB" (from config file ${file}, line 4)`,
    `wal.purge_interval: invalid duration "10 minutes later"; expected a number followed by a unit (ns, us, ms, s, m, h, d, w), e.g. "30s", "10m", "1h30m" (from config file ${file}, line 6)`,
  ]);

  assert.deepEqual(
    problems({
      component: 'standalone',
      env: {
        TSDB_STANDALONE__HTTP__ADDR: 'localhost:4000',
        TSDB_STANDALONE__MYSQL__ENABLE: 'yes',
        TSDB_STANDALONE__GRPC__RUNTIME_SIZE: '0',
        TSDB_STANDALONE__STORAGE__TYPE: 'Dropbox',
        TSDB_STANDALONE__HTTP__NOPE: 'x',
      },
    }),
    [
      'grpc.runtime_size: expected an integer ≥ 1, got 0 (from environment variable TSDB_STANDALONE__GRPC__RUNTIME_SIZE)',
      'http.addr: invalid address "localhost:4000": "localhost" is not an IP address; expected ip:port, e.g. "127.0.0.1:4000" (from environment variable TSDB_STANDALONE__HTTP__ADDR)',
      'unknown option "http.nope" (from environment variable TSDB_STANDALONE__HTTP__NOPE)',
      'mysql.enable: expected true or false, got "yes" (from environment variable TSDB_STANDALONE__MYSQL__ENABLE)',
      'storage.type: invalid value "Dropbox"; expected one of "File", "S3", "Oss", "Azblob", "Gcs" (from environment variable TSDB_STANDALONE__STORAGE__TYPE)',
    ],
  );

  assert.deepEqual(problems({ component: 'metasrv', flags: [flag(['selector'], 'random', '--selector'), flag(['bind_addr'], '1.2.3.4', '--bind-addr')] }), [
    'selector: invalid value "random"; expected one of "lease_based", "load_based", "round_robin" (from command-line option --selector)',
    'bind_addr: invalid address "1.2.3.4"; expected ip:port, e.g. "127.0.0.1:4000" (from command-line option --bind-addr)',
  ]);
});

test('wrong TOML types are named with the TOML kind', (t) => {
  const file = tempFile(t, 'types.toml', 'mode = 1\n[mysql]\nenable = "true"\nruntime_size = 2.5\n[http]\naddr = ["127.0.0.1:4000"]\n[meta_client]\nmetasrv_addrs = [1, 2]\n');
  assert.deepEqual(problems({ component: 'frontend', configFile: file }), [
    `mode: expected one of "standalone", "distributed", got integer 1 (from config file ${file}, line 1)`,
    `mysql.enable: expected a boolean (true or false), got string "true" (from config file ${file}, line 3)`,
    `mysql.runtime_size: expected an integer ≥ 1, got float 2.5 (from config file ${file}, line 4)`,
    `http.addr: expected an address "ip:port", got array ["127.0.0.1:4000"] (from config file ${file}, line 6)`,
    `meta_client.metasrv_addrs: expected an array of strings, got array [1,2] (from config file ${file}, line 8)`,
  ]);
  const table = tempFile(t, 'table.toml', 'http = "x"\n[grpc.addr]\nport = 1\n');
  assert.deepEqual(problems({ component: 'frontend', configFile: table }), [
    `http: is a table; set its options instead, e.g. "http.addr" (from config file ${table}, line 1)`,
    `grpc.addr: expected a value, got a table (from config file ${table}, line 2)`,
    `grpc.addr is a value, not a table; "grpc.addr.port" does not exist (from config file ${table}, line 3)`,
  ]);
});

test('missing required options say how to set them', () => {
  assert.deepEqual(problems({ component: 'datanode' }), [
    'node_id: required option is missing; set it with --node-id, "node_id" in the config file or the environment variable TSDB_DATANODE__NODE_ID',
  ]);
  assert.deepEqual(problems({ component: 'datanode', envPrefix: 'DN' }), [
    'node_id: required option is missing; set it with --node-id, "node_id" in the config file or the environment variable DN__NODE_ID',
  ]);
});

test('options of another component are named as such', (t) => {
  const file = tempFile(t, 'dn.toml', 'node_id = 1\n[export_metrics.self_import]\ndb = "m"\n[mysql]\nenable = false\n');
  assert.deepEqual(problems({ component: 'datanode', configFile: file }), [
    `unknown option "export_metrics.self_import"; it is an option of standalone, frontend only (from config file ${file}, line 2)`,
    `unknown option "mysql"; it is an option of standalone, frontend only (from config file ${file}, line 4)`,
  ]);
});

test('syntax errors and unreadable files', (t) => {
  const file = tempFile(t, 'syntax.toml', '[http]\naddr = "127.0.0.1:4000\n');
  const [msg] = problems({ component: 'standalone', configFile: file });
  assert.match(msg!, new RegExp(`^config file ${file.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}, line 2, column \\d+: invalid TOML: `));
  const dup = tempFile(t, 'dup.toml', '[http]\naddr = "127.0.0.1:4000"\naddr = "127.0.0.1:4001"\n');
  assert.match(problems({ component: 'standalone', configFile: dup })[0]!, /line 3, column \d+: invalid TOML: Defining a key multiple times is invalid/);
  assert.deepEqual(problems({ component: 'standalone', configFile: '/nonexistent/tsdb.toml' }), [
    'cannot read config file /nonexistent/tsdb.toml: no such file',
  ]);
});

test('cross-option checks: TLS files, user provider, time zone, mode, export metrics', (t) => {
  const cert = tempFile(t, 'cert.pem', 'x');
  assert.deepEqual(problems({ component: 'frontend', env: { TSDB_FRONTEND__MYSQL__TLS__MODE: 'require' } }), [
    'mysql.tls.cert_path: required when mysql.tls.mode is "require"',
    'mysql.tls.key_path: required when mysql.tls.mode is "require"',
  ]);
  assert.deepEqual(
    problems({
      component: 'frontend',
      env: { TSDB_FRONTEND__MYSQL__TLS__MODE: 'prefer', TSDB_FRONTEND__MYSQL__TLS__CERT_PATH: cert, TSDB_FRONTEND__MYSQL__TLS__KEY_PATH: '/no/key.pem' },
    }),
    ['mysql.tls.key_path: file "/no/key.pem" does not exist or is not a file (from environment variable TSDB_FRONTEND__MYSQL__TLS__KEY_PATH)'],
  );
  assert.deepEqual(problems({ component: 'standalone', flags: [flag(['user_provider'], 'ldap:foo', '--user-provider')] }), [
    'user_provider: unknown user provider "ldap"; expected static_user_provider:cmd:<user>=<password>,…, static_user_provider:file:<path> or watch_file_user_provider:<path> (from command-line option --user-provider)',
  ]);
  assert.deepEqual(problems({ component: 'standalone', flags: [flag(['user_provider'], 'static_user_provider:file:/no/users', '--user-provider')] }), [
    'user_provider: user file "/no/users" does not exist or is not a file (from command-line option --user-provider)',
  ]);
  assert.equal(load({ component: 'standalone', env: { TSDB_STANDALONE__DEFAULT_TIMEZONE: 'Asia/Shanghai' } }).config.default_timezone, 'Asia/Shanghai');
  assert.equal(load({ component: 'standalone', env: { TSDB_STANDALONE__DEFAULT_TIMEZONE: '+08:00' } }).config.default_timezone, '+08:00');
  assert.match(problems({ component: 'standalone', env: { TSDB_STANDALONE__DEFAULT_TIMEZONE: 'Mars/Olympus' } })[0]!, /^default_timezone: invalid time zone "Mars\/Olympus"/);
  assert.match(problems({ component: 'standalone', env: { TSDB_STANDALONE__MODE: 'distributed' } })[0]!, /^mode: a standalone server runs in mode "standalone", not "distributed"/);
  assert.deepEqual(problems({ component: 'metasrv', env: { TSDB_METASRV__EXPORT_METRICS__ENABLE: 'true' } }), [
    'export_metrics.remote_write.url: required when export_metrics.enable is true (a metasrv exports by remote write only)',
  ]);
  assert.match(
    problems({ component: 'frontend', env: { TSDB_FRONTEND__EXPORT_METRICS__REMOTE_WRITE__URL: 'ftp://x' } })[0]!,
    /^export_metrics\.remote_write\.url: invalid URL "ftp:\/\/x"/,
  );
  assert.deepEqual(problems({ component: 'standalone', env: { TSDB_STANDALONE__EXPORT_METRICS__ENABLE: 'true', TSDB_STANDALONE__EXPORT_METRICS__SELF_IMPORT__DB: '' } }), [
    'export_metrics.self_import.db: must name a database when export_metrics.enable is true (from environment variable TSDB_STANDALONE__EXPORT_METRICS__SELF_IMPORT__DB)',
  ]);
});

test('export_metrics: header names and values an HTTP request cannot carry are refused at start, values never shown', (t) => {
  const file = tempFile(t, 'em.toml', '[export_metrics]\nenable = true\n[export_metrics.remote_write]\nurl = "http://127.0.0.1:9/w"\nheaders = { "bad name" = "x", Authorization = "Basic s3cr3t\\nInjected: 1" }\n');
  const issues = problems({ component: 'metasrv', configFile: file });
  assert.equal(issues.length, 2, issues.join('\n'));
  assert.match(issues[0]!, /^export_metrics\.remote_write\.headers: invalid HTTP header name "bad name"/);
  assert.match(issues[1]!, /^export_metrics\.remote_write\.headers: the value of header Authorization has characters an HTTP header cannot carry/);
  assert.ok(!issues.join('\n').includes('s3cr3t'));
});

test('sanitize fixes what GreptimeDB fixes, with a warning', () => {
  const loaded = load({
    component: 'standalone',
    env: {
      TSDB_STANDALONE__REGION_ENGINE__MITO__GLOBAL_WRITE_BUFFER_SIZE: '1GB',
      TSDB_STANDALONE__REGION_ENGINE__MITO__GLOBAL_WRITE_BUFFER_REJECT_SIZE: '512MB',
      TSDB_STANDALONE__REGION_ENGINE__MITO__SST_WRITE_BUFFER_SIZE: '1MB',
    },
  });
  assert.equal(loaded.config.region_engine.mito.global_write_buffer_reject_size, 2 * GIB);
  assert.equal(loaded.config.region_engine.mito.sst_write_buffer_size, 5 * MIB);
  assert.equal(loaded.warnings.length, 2);
  assert.match(loaded.warnings[0]!, /global_write_buffer_reject_size \(512MiB\) must exceed global_write_buffer_size \(1GiB\); using 2GiB/);
});

test('every problem is reported at once, in one ConfigError', () => {
  const lines = problems({
    component: 'datanode',
    env: { TSDB_DATANODE__HTTP__TIMEOUT: 'soon', TSDB_DATANODE__WAL__FILE_SIZE: '0' },
  });
  assert.equal(lines.length, 3);
  assert.match(lines.join('\n'), /http\.timeout/);
  assert.match(lines.join('\n'), /wal\.file_size: size "0" is too small; the minimum is 1B/);
  assert.match(lines.join('\n'), /node_id: required option is missing/);
});

test('query budgets: memory_pool_size takes a size or a percentage of memory; the limits their defaults', (t) => {
  const s = load({ component: 'standalone' }).config;
  assert.deepEqual(s.query.memory_pool_size, { percent: 25 });
  assert.equal(s.max_concurrent_queries, 8);
  assert.equal(s.concurrent_query_limiter_timeout, 10_000);
  assert.equal(s.query.max_result_rows, 10_000_000);
  assert.equal(s.query.max_result_bytes, 256 * MIB);
  assert.deepEqual(load({ component: 'frontend', env: { TSDB_FRONTEND__QUERY__MEMORY_POOL_SIZE: '2GiB' } }).config.query.memory_pool_size, { bytes: 2 * GIB });
  const file = tempFile(t, 'q.toml', 'max_concurrent_queries = 0\n[query]\nmemory_pool_size = "12.5%"\n');
  const q = load({ component: 'standalone', configFile: file }).config;
  assert.deepEqual([q.max_concurrent_queries, q.query.memory_pool_size], [0, { percent: 12.5 }]);
  assert.deepEqual(problems({ component: 'standalone', env: { TSDB_STANDALONE__QUERY__MEMORY_POOL_SIZE: '150%' } }), [
    'query.memory_pool_size: invalid percentage "150%"; expected more than 0% and at most 100% (from environment variable TSDB_STANDALONE__QUERY__MEMORY_POOL_SIZE)',
  ]);
});
