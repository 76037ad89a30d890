/**
 * Precedence of the configuration sources (spec §2.3): command-line options > TOML file >
 * environment variables > defaults — every source against every other, for each kind of option,
 * through the real command line parser and loader.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { tempFile } from '../../test/support/temp.js';
import type { ComponentName } from '../config/flags.js';
import { loadConfig } from '../config/load.js';
import { pathKey, type PathSegment } from '../config/resolve.js';
import { buildProgram, type StartRequest } from './program.js';

const SYSTEM = { totalMemory: 16 * 2 ** 30, cpus: 8 };

/** Parses `tsdb <argv…>` and returns the start request, or throws what commander threw. */
export function parseStart(argv: string[]): StartRequest {
  let request: StartRequest | undefined;
  const program = buildProgram({ writeOut: () => {}, writeErr: () => {}, onStart: (r) => (request = r) });
  program.parse(argv, { from: 'user' });
  assert.ok(request, `no start request from ${argv.join(' ')}`);
  return request;
}

interface KindCase {
  readonly kind: string;
  readonly component: ComponentName;
  readonly path: PathSegment[];
  /** Where the key of a map entry is kept (`sources` key), when it differs from the path. */
  readonly sourceKey?: string;
  readonly env: [name: string, value: string];
  readonly file: string;
  /** Flag arguments, or undefined when the spec gives this option no flag. */
  readonly flag?: string[];
  readonly defaultValue: unknown;
  readonly envValue: unknown;
  readonly fileValue: unknown;
  readonly flagValue?: unknown;
  /** Other arguments the component needs to start (e.g. a datanode's node id). */
  readonly base?: string[];
}

const CASES: KindCase[] = [
  {
    kind: 'address',
    component: 'standalone',
    path: ['http', 'addr'],
    env: ['TSDB_STANDALONE__HTTP__ADDR', '127.0.0.1:5001'],
    file: '[http]\naddr = "127.0.0.1:5002"\n',
    flag: ['--http-addr', '127.0.0.1:5003'],
    defaultValue: '127.0.0.1:4000',
    envValue: '127.0.0.1:5001',
    fileValue: '127.0.0.1:5002',
    flagValue: '127.0.0.1:5003',
  },
  {
    kind: 'duration',
    component: 'frontend',
    path: ['http', 'timeout'],
    env: ['TSDB_FRONTEND__HTTP__TIMEOUT', '1m'],
    file: '[http]\ntimeout = "2m"\n',
    flag: ['--http-timeout', '180'],
    defaultValue: 30_000,
    envValue: 60_000,
    fileValue: 120_000,
    flagValue: 180_000,
  },
  {
    kind: 'string',
    component: 'datanode',
    path: ['storage', 'data_home'],
    env: ['TSDB_DATANODE__STORAGE__DATA_HOME', '/data/env'],
    file: '[storage]\ndata_home = "/data/file"\n',
    flag: ['--data-home', '/data/flag'],
    defaultValue: '/tmp/tsdb',
    envValue: '/data/env',
    fileValue: '/data/file',
    flagValue: '/data/flag',
    base: ['--node-id', '1'],
  },
  {
    kind: 'integer',
    component: 'datanode',
    path: ['node_id'],
    env: ['TSDB_DATANODE__NODE_ID', '11'],
    file: 'node_id = 12\n',
    flag: ['--node-id', '13'],
    defaultValue: undefined, // required: covered by the missing-option tests
    envValue: 11,
    fileValue: 12,
    flagValue: 13,
  },
  {
    kind: 'boolean',
    component: 'standalone',
    path: ['influxdb', 'enable'],
    env: ['TSDB_STANDALONE__INFLUXDB__ENABLE', 'false'],
    file: '[influxdb]\nenable = true\n',
    flag: ['--influxdb-enable', 'false'],
    defaultValue: true,
    envValue: false,
    fileValue: true,
    flagValue: false,
  },
  {
    kind: 'enum',
    component: 'metasrv',
    path: ['selector'],
    env: ['TSDB_METASRV__SELECTOR', 'LoadBased'],
    file: 'selector = "LeaseBased"\n',
    flag: ['--selector', 'load_based'],
    defaultValue: 'lease_based',
    envValue: 'load_based',
    fileValue: 'lease_based',
    flagValue: 'load_based',
  },
  {
    kind: 'list',
    component: 'datanode',
    path: ['meta_client', 'metasrv_addrs'],
    env: ['TSDB_DATANODE__META_CLIENT__METASRV_ADDRS', '10.0.0.1:3002,10.0.0.2:3002'],
    file: '[meta_client]\nmetasrv_addrs = ["10.0.0.3:3002"]\n',
    flag: ['--metasrv-addrs', '10.0.0.4:3002,10.0.0.5:3002'],
    defaultValue: ['127.0.0.1:3002'],
    envValue: ['10.0.0.1:3002', '10.0.0.2:3002'],
    fileValue: ['10.0.0.3:3002'],
    flagValue: ['10.0.0.4:3002', '10.0.0.5:3002'],
    base: ['--node-id', '1'],
  },
  {
    kind: 'list (space separated flag)',
    component: 'metasrv',
    path: ['store_addr'],
    env: ['TSDB_METASRV__STORE_ADDR', '10.0.0.1:2379,10.0.0.2:2379'],
    file: 'store_addr = "10.0.0.3:2379"\n',
    flag: ['--store-addrs', '10.0.0.4:2379', '10.0.0.5:2379'],
    defaultValue: ['127.0.0.1:2379'],
    envValue: ['10.0.0.1:2379', '10.0.0.2:2379'],
    fileValue: ['10.0.0.3:2379'],
    flagValue: ['10.0.0.4:2379', '10.0.0.5:2379'],
  },
  {
    kind: 'size',
    component: 'standalone',
    path: ['http', 'body_limit'],
    env: ['TSDB_STANDALONE__HTTP__BODY_LIMIT', '1MB'],
    file: '[http]\nbody_limit = "2MiB"\n',
    defaultValue: 64 * 2 ** 20,
    envValue: 2 ** 20,
    fileValue: 2 * 2 ** 20,
  },
  {
    kind: 'float',
    component: 'frontend',
    path: ['logging', 'tracing_sample_ratio', 'default_ratio'],
    env: ['TSDB_FRONTEND__LOGGING__TRACING_SAMPLE_RATIO__DEFAULT_RATIO', '0.25'],
    file: '[logging.tracing_sample_ratio]\ndefault_ratio = 0.5\n',
    defaultValue: 1,
    envValue: 0.25,
    fileValue: 0.5,
  },
  {
    kind: 'table entry',
    component: 'metasrv',
    path: ['export_metrics', 'remote_write', 'headers'],
    sourceKey: 'export_metrics.remote_write.headers.authorization',
    env: ['TSDB_METASRV__EXPORT_METRICS__REMOTE_WRITE__HEADERS__AUTHORIZATION', 'Basic ZW52'],
    file: '[export_metrics.remote_write.headers]\nauthorization = "Basic ZmlsZQ=="\n',
    defaultValue: {},
    envValue: { authorization: 'Basic ZW52' },
    fileValue: { authorization: 'Basic ZmlsZQ==' },
  },
  {
    kind: 'region engine option',
    component: 'standalone',
    path: ['region_engine', 'mito', 'num_workers'],
    env: ['TSDB_STANDALONE__REGION_ENGINE__MITO__NUM_WORKERS', '2'],
    file: '[[region_engine]]\n[region_engine.mito]\nnum_workers = 3\n',
    defaultValue: 8,
    envValue: 2,
    fileValue: 3,
  },
  {
    kind: 'list-of-tables entry',
    component: 'standalone',
    path: ['storage', 'providers', 0, 'bucket'],
    env: ['TSDB_STANDALONE__STORAGE__PROVIDERS__0__BUCKET', 'env-bucket'],
    file: '[[storage.providers]]\ntype = "S3"\nbucket = "file-bucket"\n',
    defaultValue: undefined,
    envValue: 'env-bucket',
    fileValue: 'file-bucket',
  },
];

function valueAt(config: unknown, path: readonly PathSegment[]): unknown {
  let v: any = config;
  for (const seg of path) v = v?.[seg];
  return v;
}

for (const c of CASES) {
  test(`precedence of a ${c.kind} option (${c.path.join('.')})`, async (t) => {
    const file = tempFile(t, 'tsdb.toml', c.file);
    const sources = ['env', 'file', 'flag'] as const;
    for (let mask = 0; mask < 8; mask++) {
      const use = { env: (mask & 1) !== 0, file: (mask & 2) !== 0, flag: (mask & 4) !== 0 };
      if (use.flag && c.flag === undefined) continue;
      const env: NodeJS.ProcessEnv = {};
      if (use.env) env[c.env[0]] = c.env[1];
      // A list-of-tables entry needs its type from somewhere when only the environment sets it.
      if (c.kind === 'list-of-tables entry' && use.env && !use.file) env['TSDB_STANDALONE__STORAGE__PROVIDERS__0__TYPE'] = 'S3';
      if (c.component === 'datanode' && c.kind !== 'integer') env['TSDB_DATANODE__NODE_ID'] = '1';
      const argv = [c.component, 'start', ...(c.base ?? []), ...(use.file ? ['-c', file] : []), ...(use.flag ? c.flag! : [])];
      const req = parseStart(argv);
      const label = sources.filter((s) => use[s]).join('+') || 'defaults only';
      if (c.kind === 'integer' && !use.env && !use.file && !use.flag) {
        assert.throws(() => loadConfig({ ...req, env, system: SYSTEM }), /node_id: required option is missing/);
        continue;
      }
      const loaded = loadConfig({ ...req, env, system: SYSTEM });
      const expected = use.flag ? c.flagValue : use.file ? c.fileValue : use.env ? c.envValue : c.defaultValue;
      assert.deepEqual(valueAt(loaded.config, c.path), expected, `${c.kind} with ${label}`);
      const winner = use.flag ? 'flag' : use.file ? 'file' : use.env ? 'env' : 'default';
      const source = loaded.sources.get(c.sourceKey ?? pathKey(c.path))?.kind ?? 'default';
      assert.equal(source, winner, `source of ${c.kind} with ${label}`);
    }
  });
}

test('--env-prefix changes the prefix of the environment variables read', () => {
  const env = { MYDB__HTTP__ADDR: '127.0.0.1:6001', TSDB_STANDALONE__HTTP__ADDR: '127.0.0.1:6002' };
  const req = parseStart(['standalone', 'start', '--env-prefix', 'MYDB']);
  assert.equal(loadConfig({ ...req, env, system: SYSTEM }).config.http.addr, '127.0.0.1:6001');
  const plain = parseStart(['standalone', 'start']);
  assert.equal(loadConfig({ ...plain, env, system: SYSTEM }).config.http.addr, '127.0.0.1:6002');
});

test('each component reads only its own default prefix', () => {
  const env = { TSDB_FRONTEND__HTTP__ADDR: '127.0.0.1:6101', TSDB_STANDALONE__HTTP__ADDR: '127.0.0.1:6102' };
  for (const [component, addr] of [['frontend', '127.0.0.1:6101'], ['standalone', '127.0.0.1:6102'], ['metasrv', '127.0.0.1:4000']] as const) {
    const req = parseStart([component, 'start']);
    assert.equal(loadConfig({ ...req, env, system: SYSTEM }).config.http.addr, addr, component);
  }
});

test('global --log-dir and --log-level override the logging options, before or after the subcommand', () => {
  for (const argv of [
    ['--log-dir', '/var/log/flag', '--log-level', 'debug', 'standalone', 'start'],
    ['standalone', 'start', '--log-dir', '/var/log/flag', '--log-level', 'debug'],
  ]) {
    const req = parseStart(argv);
    const env = { TSDB_STANDALONE__LOGGING__LEVEL: 'error' };
    const cfg = loadConfig({ ...req, env, system: SYSTEM }).config;
    assert.equal(cfg.logging.dir, '/var/log/flag');
    assert.equal(cfg.logging.level, 'debug');
  }
});

test('the TLS flags set both the MySQL and the PostgreSQL servers', (t) => {
  const cert = tempFile(t, 'cert.pem', 'cert');
  const key = tempFile(t, 'key.pem', 'key');
  const req = parseStart(['frontend', 'start', '--tls-mode', 'require', '--tls-cert-path', cert, '--tls-key-path', key]);
  const cfg = loadConfig({ ...req, component: 'frontend', env: {}, system: SYSTEM }).config;
  for (const tls of [cfg.mysql.tls, cfg.postgres.tls]) {
    assert.equal(tls.mode, 'require');
    assert.equal(tls.cert_path, cert);
    assert.equal(tls.key_path, key);
  }
});

test('flags set every option the spec names, per component', () => {
  const expectations: Array<[string[], (cfg: any) => void]> = [
    [
      ['standalone', 'start', '--rpc-addr', '127.0.0.1:7001', '--mysql-addr', '127.0.0.1:7002', '--postgres-addr', '127.0.0.1:7003',
        '--user-provider', 'static_user_provider:cmd:a=b', '--wal-dir', '/w', '--influxdb-enable'],
      (cfg) => {
        assert.equal(cfg.grpc.addr, '127.0.0.1:7001');
        assert.equal(cfg.mysql.addr, '127.0.0.1:7002');
        assert.equal(cfg.postgres.addr, '127.0.0.1:7003');
        assert.equal(cfg.user_provider, 'static_user_provider:cmd:a=b');
        assert.equal(cfg.wal.dir, '/w');
        assert.equal(cfg.influxdb.enable, true);
      },
    ],
    [
      ['frontend', 'start', '--metasrv-addr', '10.1.1.1:3002', '--disable-dashboard', '--influxdb-enable=false'],
      (cfg) => {
        assert.deepEqual(cfg.meta_client.metasrv_addrs, ['10.1.1.1:3002']);
        assert.equal(cfg.http.disable_dashboard, true);
        assert.equal(cfg.influxdb.enable, false);
      },
    ],
    [
      ['datanode', 'start', '--node-id', '7', '--rpc-addr', '127.0.0.1:7101', '--rpc-hostname', 'dn7.local', '--wal-dir', '/wal7'],
      (cfg) => {
        assert.equal(cfg.node_id, 7);
        assert.equal(cfg.rpc_addr, '127.0.0.1:7101');
        assert.equal(cfg.rpc_hostname, 'dn7.local');
        assert.equal(cfg.wal.dir, '/wal7');
      },
    ],
    [
      ['metasrv', 'start', '--bind-addr', '0.0.0.0:3002', '--server-addr', 'meta.local:3002', '--use-memory-store',
        '--enable-region-failover', 'true', '--http-addr', '127.0.0.1:7201'],
      (cfg) => {
        assert.equal(cfg.bind_addr, '0.0.0.0:3002');
        assert.equal(cfg.server_addr, 'meta.local:3002');
        assert.equal(cfg.use_memory_store, true);
        assert.equal(cfg.enable_region_failover, true);
        assert.equal(cfg.http.addr, '127.0.0.1:7201');
      },
    ],
  ];
  for (const [argv, check] of expectations) {
    const req = parseStart(argv);
    check(loadConfig({ ...req, env: {}, system: SYSTEM }).config);
  }
});
