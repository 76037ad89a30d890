/**
 * The real `bin/tsdb`: help, version, usage errors, and every kind of bad input refused before
 * anything starts.
 */
import assert from 'node:assert/strict';
import { existsSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { test } from 'node:test';
import { COMPONENT_FLAGS } from '../../src/config/flags.js';
import { tempDir } from '../support/temp.js';
import { runTsdb, startTsdb } from '../support/tsdb-process.js';

test('tsdb --help lists the components and global options; exit 0', async () => {
  for (const flag of ['--help', '-h']) {
    const r = await runTsdb([flag]);
    assert.equal(r.code, 0);
    for (const word of ['standalone', 'frontend', 'datanode', 'metasrv', '--log-dir', '--log-level', '-V, --version']) {
      assert.ok(r.stdout.includes(word), `${flag} output names ${word}`);
    }
  }
});

test('each `<component> start --help` lists every option of the spec with its meaning and default', async () => {
  for (const [component, flags] of Object.entries(COMPONENT_FLAGS)) {
    const r = await runTsdb([component, 'start', '--help']);
    assert.equal(r.code, 0);
    const text = r.stdout.replace(/\s+/g, ' ');
    for (const f of flags) assert.ok(text.includes(f.long), `${component} help lists ${f.long}`);
    for (const f of ['-c, --config-file', '--env-prefix', '--log-dir', '--log-level']) assert.ok(text.includes(f), `${component} help lists ${f}`);
    assert.ok(text.includes(`default: TSDB_${component.toUpperCase()}`), `${component} help shows its env prefix`);
  }
  const standalone = (await runTsdb(['standalone', 'start', '--help'])).stdout.replace(/\s+/g, ' ');
  assert.ok(standalone.includes('--http-addr <addr> HTTP server address (ip:port). (default: 127.0.0.1:4000; config: http.addr)'));
  assert.ok(standalone.includes('(default: {storage.data_home}/wal with File storage; required otherwise; config: wal.dir)'));
});

test('tsdb -V / --version prints version, git commit and build date; exit 0', async () => {
  for (const flag of ['-V', '--version']) {
    const r = await runTsdb([flag]);
    assert.equal(r.code, 0);
    assert.match(r.stdout, /^tsdb \d+\.\d+\.\d+\n/);
    assert.match(r.stdout, /\ncommit: ([0-9a-f]{40}|unknown)/);
    assert.match(r.stdout, /\nbuild date: \d{4}-\d{2}-\d{2}T/);
  }
});

test('usage errors print the problem and the usage, exit 2', async () => {
  const cases: Array<[string[], RegExp]> = [
    [['nosuch'], /error: unknown command 'nosuch'/],
    [['standalone', 'begin'], /error: unknown command 'begin'/],
    [['standalone', 'start', '--nope'], /error: unknown option '--nope'/],
    [['standalone', 'start', '--http-adr', '127.0.0.1:1'], /error: unknown option '--http-adr'\n\(Did you mean --http-addr\?\)/],
    [['datanode', 'start', '--node-id'], /error: option '--node-id <id>' argument missing/],
    [['standalone', 'start', '--selector', 'load_based'], /error: unknown option '--selector'/],
    [['--log-level'], /error: option '--log-level <level>' argument missing/],
    [['standalone', 'start', 'now'], /error: too many arguments for 'start'/],
    [[], /Usage: tsdb/],
    [['metasrv'], /Usage: tsdb metasrv start/],
  ];
  for (const [args, re] of cases) {
    const r = await runTsdb(args);
    assert.equal(r.code, 2, `exit code of tsdb ${args.join(' ')}`);
    assert.match(r.stderr, re, `message of tsdb ${args.join(' ')}`);
    assert.match(r.stderr, /Usage: tsdb/, `usage after tsdb ${args.join(' ')}`);
  }
});

test('bad configuration: one clear message per problem with its source, exit 2, nothing started or created', async (t) => {
  const dir = tempDir(t);
  const home = join(dir, 'home');
  const file = join(dir, 'bad.toml');
  writeFileSync(file, '[http]\naddr = "127.0.0.1:0"\n\n[wal]\nfile_size = "lots"\n');
  const typo = join(dir, 'typo.toml');
  writeFileSync(typo, '[http]\nadr = "127.0.0.1:0"\ntimeout = 30\n');
  const cases: Array<[string[], NodeJS.ProcessEnv, string]> = [
    [['standalone', 'start', '-c', file, '--data-home', home], {}, `wal.file_size: invalid size "lots"`],
    [['standalone', 'start', '-c', file, '--data-home', home], {}, `(from config file ${file}, line 5)`],
    [['standalone', 'start', '-c', typo, '--data-home', home], {}, `  - unknown option "http.adr"; did you mean "http.addr"? (from config file ${typo}, line 2)\n`],
    [['standalone', 'start', '-c', typo, '--data-home', home], {}, `  - http.timeout: expected a duration string such as "30s", "10m" or "1h", got integer 30 (from config file ${typo}, line 3)\n`],
    [['standalone', 'start', '--data-home', home], { TSDB_STANDALONE__HTTP__TIMEOUT: 'forever' }, 'http.timeout: invalid duration "forever"'],
    [['standalone', 'start', '--data-home', home], { TSDB_STANDALONE__HTTP__TIMEOUT: 'forever' }, '(from environment variable TSDB_STANDALONE__HTTP__TIMEOUT)'],
    [['standalone', 'start', '--data-home', home, '--http-addr', '127.0.0.1:99999'], {}, 'http.addr: invalid address "127.0.0.1:99999": port 99999 is out of range (0-65535) (from command-line option --http-addr)'],
    [['standalone', 'start', '--data-home', home, '--http-timeout', 'soon'], {}, 'http.timeout: invalid duration "soon"'],
    [['standalone', 'start', '--data-home', home, '--log-level', 'verbose'], {}, 'logging.level: invalid value "verbose"; expected one of "info", "debug", "warn", "error" (from command-line option --log-level)'],
    [['datanode', 'start', '--data-home', home], {}, 'node_id: required option is missing; set it with --node-id'],
    [['datanode', 'start', '--data-home', home, '--node-id', 'x1'], {}, 'node_id: expected an integer ≥ 0, got "x1" (from command-line option --node-id)'],
    [['datanode', 'start', '--data-home', home, '--node-id', '1'], { TSDB_DATANODE__STORAGE__TYPE: 'S3', TSDB_DATANODE__STORAGE__BUCKET: 'b' }, 'wal.dir: required when storage.type is S3'],
    [['metasrv', 'start', '--selector', 'nearest'], { TSDB_METASRV__DATA_HOME: home }, 'selector: invalid value "nearest"'],
    [['standalone', 'start', '-c', join(dir, 'missing.toml'), '--data-home', home], {}, `cannot read config file ${join(dir, 'missing.toml')}: no such file`],
    [['standalone', 'start', '--data-home', home], { TSDB_STANDALONE__NOSUCH__KEY: '1' }, 'unknown option "nosuch" (from environment variable TSDB_STANDALONE__NOSUCH__KEY)'],
  ];
  for (const [args, env, expected] of cases) {
    const r = await runTsdb(args, { env });
    assert.equal(r.code, 2, `exit code of ${args.join(' ')} ${JSON.stringify(env)}: ${r.stderr}`);
    assert.ok(r.stderr.includes(expected), `expected "${expected}" in:\n${r.stderr}`);
    assert.match(r.stderr, /^tsdb \w+: invalid configuration/);
    assert.equal(r.stdout, '', 'nothing logged: the server did not start');
    assert.ok(!existsSync(home), 'data_home was not created');
  }
});

test('an address in use: one clear error, exit 1, the data directory unlocked', async (t) => {
  const dir = tempDir(t);
  const blocker = createServer();
  await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
  t.after(() => blocker.close());
  const port = (blocker.address() as { port: number }).port;
  const r = await runTsdb(['standalone', 'start', '--data-home', dir, '--http-addr', `127.0.0.1:${port}`]);
  assert.equal(r.code, 1);
  assert.equal(r.stderr, `tsdb standalone: HTTP server cannot listen on 127.0.0.1:${port}: address already in use (another tsdb or another program listens there)\n`);
  assert.ok(!existsSync(join(dir, 'LOCK')), 'the lock was released');
});

test('an unwritable data_home: one clear error, exit 1', async (t) => {
  const dir = tempDir(t);
  const file = join(dir, 'a-file');
  writeFileSync(file, 'not a directory');
  const home = join(file, 'data');
  const r = await runTsdb(['standalone', 'start', '--data-home', home, '--http-addr', '127.0.0.1:0', '--log-dir', join(dir, 'logs')]);
  assert.equal(r.code, 1);
  assert.equal(r.stderr, `tsdb standalone: storage.data_home "${home}" is not a writable directory: a parent of it is a file, not a directory\n`);
});

test('an unwritable log directory: one clear error, exit 1', async (t) => {
  const dir = tempDir(t);
  writeFileSync(join(dir, 'f'), '');
  const r = await runTsdb(['standalone', 'start', '--data-home', join(dir, 'home'), '--log-dir', join(dir, 'f', 'logs')]);
  assert.equal(r.code, 1);
  assert.match(r.stderr, new RegExp(`^tsdb standalone: cannot write logs to logging.dir "${join(dir, 'f', 'logs')}": `));
});

test('a second server on the same data_home is refused while the first runs', async (t) => {
  const dir = tempDir(t);
  const first = await startTsdb(t, ['standalone', 'start', '--data-home', dir, '--http-addr', '127.0.0.1:0']);
  const r = await runTsdb(['standalone', 'start', '--data-home', dir, '--http-addr', '127.0.0.1:0']);
  assert.equal(r.code, 1);
  assert.match(r.stderr, new RegExp(`storage.data_home "${dir}" is in use by another tsdb process \\(pid ${first.proc.pid}\\)`));
  assert.equal((await first.proc.stop()).code, 0);
  // Once the first has stopped, the directory can be used again.
  const again = await startTsdb(t, ['standalone', 'start', '--data-home', dir, '--http-addr', '127.0.0.1:0']);
  assert.equal((await again.proc.stop()).code, 0);
});

test('a lock left by a killed server is taken over', async (t) => {
  const dir = tempDir(t);
  const first = await startTsdb(t, ['standalone', 'start', '--data-home', dir, '--http-addr', '127.0.0.1:0']);
  await first.proc.stop('SIGKILL');
  assert.ok(existsSync(join(dir, 'LOCK')));
  const second = await startTsdb(t, ['standalone', 'start', '--data-home', dir, '--http-addr', '127.0.0.1:0']);
  assert.equal((await second.proc.stop()).code, 0);
});
