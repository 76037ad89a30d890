#!/usr/bin/env node
// Starts a whole tsdb cluster on this machine for trying it: etcd (Debian's etcd-server, when
// installed; else the metasrv keeps metadata in memory), a metasrv, N datanodes and a frontend,
// each with its own directory under one data directory, logs in <dir>/<node>.log. Ctrl-C (or
// SIGTERM) stops them in reverse order and waits for each; a node that does not stop within 20 s
// is killed. Run `npm run build` first.
//
//   node scripts/local-cluster.mjs [--datanodes N] [--dir DIR] [--memory-store] [--port-offset K]
//
// The frontend serves the usual ports: HTTP 4000, gRPC 4001, MySQL 4002, PostgreSQL 4003. The
// metasrv listens on 3002 (its HTTP on 3000), the datanodes' region services on 3101, 3102, … and
// their HTTP servers on 5001, 5002, …, etcd on 2379 (peers 2380). `--port-offset K` adds K to every
// port, to run beside servers already on them.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, openSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { setTimeout as sleep } from 'node:timers/promises';

const { values } = parseArgs({
  options: {
    datanodes: { type: 'string', default: '3' },
    dir: { type: 'string', default: '/tmp/tsdb-cluster' },
    'memory-store': { type: 'boolean', default: false },
    'port-offset': { type: 'string', default: '0' },
    help: { type: 'boolean', short: 'h', default: false },
  },
});
if (values.help) {
  process.stdout.write('usage: node scripts/local-cluster.mjs [--datanodes N] [--dir DIR] [--memory-store] [--port-offset K]\n');
  process.exit(0);
}
const datanodes = Number(values.datanodes);
if (!Number.isInteger(datanodes) || datanodes < 1 || datanodes > 32) {
  process.stderr.write(`--datanodes must be a whole number from 1 to 32, not ${values.datanodes}\n`);
  process.exit(2);
}
const offset = Number(values['port-offset']);
if (!Number.isInteger(offset) || offset < -2000 || offset > 60000) {
  process.stderr.write(`--port-offset must be a whole number from -2000 to 60000, not ${values['port-offset']}\n`);
  process.exit(2);
}
const port = (p) => p + offset;
const base = port(4000);
const dir = resolve(values.dir);
mkdirSync(dir, { recursive: true });
const tsdb = join(import.meta.dirname, '..', 'bin', 'tsdb');
const ETCD = '/usr/bin/etcd';
const useEtcd = !values['memory-store'] && existsSync(ETCD);

/** @type {Array<{ name: string; child: import('node:child_process').ChildProcess }>} */
const started = [];

function run(name, cmd, args, env = {}) {
  const log = openSync(join(dir, `${name}.log`), 'a');
  const child = spawn(cmd, args, { stdio: ['ignore', log, log], env: { ...process.env, ...env } });
  started.push({ name, child });
  child.on('exit', (code, signal) => {
    if (!stopping) {
      process.stderr.write(`${name} exited (${signal ?? code}); see ${join(dir, `${name}.log`)}; stopping the cluster\n`);
      void stop(1);
    }
  });
  return child;
}

/** Waits until `url` answers 200 (the node is up), or fails after `ms`. */
async function waitHttp(name, url, ms = 30_000) {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    try {
      const res = await fetch(url);
      if (res.status === 200) return;
    } catch {
      // not listening yet
    }
    await sleep(200);
  }
  throw new Error(`${name} did not come up within ${ms / 1000} s (${url}); see ${join(dir, `${name}.log`)}`);
}

let stopping = false;
async function stop(code = 0) {
  if (stopping) return;
  stopping = true;
  process.stdout.write('stopping the cluster…\n');
  for (const { name, child } of started.reverse()) {
    if (child.exitCode !== null || child.signalCode !== null) continue;
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    const killed = setTimeout(() => child.kill('SIGKILL'), 20_000);
    await exited;
    clearTimeout(killed);
    process.stdout.write(`  ${name} stopped\n`);
  }
  process.exit(code);
}
process.on('SIGINT', () => void stop());
process.on('SIGTERM', () => void stop());

try {
  let store = ['--use-memory-store'];
  if (useEtcd) {
    const etcdDir = join(dir, 'etcd');
    const client = `http://127.0.0.1:${port(2379)}`;
    const peer = `http://127.0.0.1:${port(2380)}`;
    run('etcd', ETCD, ['--name=tsdb-local', `--data-dir=${etcdDir}`, `--listen-client-urls=${client}`, `--advertise-client-urls=${client}`, `--listen-peer-urls=${peer}`, `--initial-advertise-peer-urls=${peer}`, `--initial-cluster=tsdb-local=${peer}`]);
    await waitHttp('etcd', `${client}/health`);
    store = ['--store-addrs', `127.0.0.1:${port(2379)}`];
  }
  const metaHttp = port(3000);
  const meta = `127.0.0.1:${port(3002)}`;
  run('metasrv', process.execPath, [tsdb, 'metasrv', 'start', '--bind-addr', meta, '--server-addr', meta, '--http-addr', `127.0.0.1:${metaHttp}`, ...store], { TSDB_METASRV__DATA_HOME: join(dir, 'metasrv') });
  await waitHttp('metasrv', `http://127.0.0.1:${metaHttp}/ready`);
  for (let i = 1; i <= datanodes; i++) {
    const home = join(dir, `datanode${i}`);
    run(`datanode${i}`, process.execPath, [tsdb, 'datanode', 'start', '--node-id', String(i), '--rpc-addr', `127.0.0.1:${port(3100 + i)}`, '--http-addr', `127.0.0.1:${port(5000 + i)}`, '--data-home', home, '--metasrv-addrs', meta]);
  }
  for (let i = 1; i <= datanodes; i++) await waitHttp(`datanode${i}`, `http://127.0.0.1:${port(5000 + i)}/health`);
  run('frontend', process.execPath, [tsdb, 'frontend', 'start', '--http-addr', `127.0.0.1:${base}`, '--rpc-addr', `127.0.0.1:${base + 1}`, '--mysql-addr', `127.0.0.1:${base + 2}`, '--postgres-addr', `127.0.0.1:${base + 3}`, '--metasrv-addr', meta]);
  await waitHttp('frontend', `http://127.0.0.1:${base}/health`);
  process.stdout.write(
    [
      `tsdb cluster up (${useEtcd ? `etcd on 127.0.0.1:${port(2379)}` : 'metadata in memory'}, ${datanodes} datanode(s)); data and logs in ${dir}`,
      `  SQL over HTTP  curl -XPOST http://127.0.0.1:${base}/v1/sql -d 'sql=SHOW TABLES'`,
      `  MySQL          mysql -h 127.0.0.1 -P ${base + 2}`,
      `  PostgreSQL     psql -h 127.0.0.1 -p ${base + 3} -d public`,
      `  nodes          curl http://127.0.0.1:${metaHttp}/admin/nodes`,
      'Ctrl-C stops it.',
      '',
    ].join('\n'),
  );
} catch (err) {
  process.stderr.write(`${err.message}\n`);
  await stop(1);
}
