/**
 * The tsdb processes of bench/cluster, started by this process on 127.0.0.1 with free ports and a
 * directory each, stopped by PID (and killed by PID should this process exit first): a cluster of
 * a metasrv (`--use-memory-store`), N datanodes and a frontend. Each node's output goes to its log
 * file and is read as it comes: the " started" line gives its addresses, and a datanode started at
 * `debug` reports every region query it answers (`region query answered`, region-service.ts) —
 * what the benchmark attributes to the query that was running when the line was written.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

/** One `region query answered` line of a datanode. */
export interface RegionQueryLog {
  /** When it was written (epoch ms): after the datanode sent the answer's last batch. */
  readonly timeMs: number;
  readonly region: string;
  readonly rows: number;
  readonly bytes: number;
  readonly openMs: number;
  readonly firstBatchMs: number;
  readonly elapsedMs: number;
  readonly scan?: { readonly start?: string; readonly end?: string; readonly keys?: Readonly<Record<string, readonly string[]>> };
  readonly sql?: string;
}

export interface TsdbNode {
  readonly name: string;
  readonly pid: number;
  readonly logFile: string;
  /** The addresses of its " started" line (http, grpc, …). */
  readonly addresses: Readonly<Record<string, string>>;
  /** The region queries it answered so far (datanodes at debug level). */
  readonly regionQueries: RegionQueryLog[];
  stop(): Promise<void>;
}

const children = new Set<ChildProcess>();
process.on('exit', () => {
  for (const c of children) if (c.pid !== undefined && c.exitCode === null && c.signalCode === null) process.kill(c.pid, 'SIGKILL');
});

function regionQueryOf(rec: Record<string, unknown>): RegionQueryLog {
  return {
    timeMs: typeof rec['time'] === 'number' ? rec['time'] : Date.parse(String(rec['time'])),
    region: String(rec['region']),
    rows: Number(rec['rows']),
    bytes: Number(rec['bytes']),
    openMs: Number(rec['open_ms']),
    firstBatchMs: Number(rec['first_batch_ms']),
    elapsedMs: Number(rec['elapsed_ms']),
    ...(rec['scan'] !== undefined && { scan: rec['scan'] as RegionQueryLog['scan'] }),
    ...(typeof rec['sql'] === 'string' && { sql: rec['sql'] }),
  };
}

/** Starts `node [nodeArgs] bin/tsdb <args>` and waits for its " started" line. */
export async function startNode(tsdbBin: string, name: string, args: readonly string[], logFile: string, env: Readonly<Record<string, string>> = {}, nodeArgs: readonly string[] = []): Promise<TsdbNode> {
  // The caller's TSDB_* variables would configure the node behind the benchmark's back.
  const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('TSDB_')));
  const child = spawn(process.execPath, [...nodeArgs, tsdbBin, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...clean, ...env } });
  if (child.pid === undefined) throw new Error(`could not start ${name}`);
  const pid = child.pid;
  children.add(child);
  child.once('exit', () => children.delete(child));
  const out = createWriteStream(logFile, { flags: 'a' });
  const regionQueries: RegionQueryLog[] = [];
  let buffered = '';
  let onStarted: ((rec: Record<string, unknown>) => void) | undefined;
  const onData = (chunk: Buffer): void => {
    out.write(chunk);
    buffered += chunk.toString('utf8');
    let nl: number;
    while ((nl = buffered.indexOf('\n')) >= 0) {
      const line = buffered.slice(0, nl);
      buffered = buffered.slice(nl + 1);
      if (!line.startsWith('{')) continue;
      let rec: Record<string, unknown>;
      try {
        rec = JSON.parse(line) as Record<string, unknown>;
      } catch {
        continue;
      }
      const msg = rec['msg'];
      if (msg === 'region query answered') regionQueries.push(regionQueryOf(rec));
      else if (typeof msg === 'string' && / started$/.test(msg)) onStarted?.(rec);
    }
  };
  child.stdout.on('data', onData);
  child.stderr.on('data', onData);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) {
      process.kill(pid, 'SIGTERM');
      const timer = setTimeout(() => child.exitCode === null && child.signalCode === null && process.kill(pid, 'SIGKILL'), 20_000);
      await exited;
      clearTimeout(timer);
    }
    await new Promise<void>((resolve) => out.end(resolve));
  };
  try {
    const started = await new Promise<Record<string, unknown>>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`${name}: no "started" line after 60 s; log: ${logFile}`)), 60_000);
      onStarted = (rec) => {
        clearTimeout(timer);
        resolve(rec);
      };
      child.once('exit', (code, signal) => {
        clearTimeout(timer);
        reject(new Error(`${name} exited (${signal ?? code}) before it started; log: ${logFile}`));
      });
    });
    const addresses = Object.fromEntries(Object.entries((started['addresses'] ?? {}) as Record<string, unknown>).filter(([, v]) => typeof v === 'string')) as Record<string, string>;
    return { name, pid, logFile, addresses, regionQueries, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

async function waitHttp(url: string, what: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const res = await fetch(url);
      await res.arrayBuffer();
      if (res.status === 200) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`${what} not ready at ${url} after ${timeoutMs} ms`);
    await sleep(200);
  }
}

export interface Cluster {
  readonly metasrv: TsdbNode;
  /** By node id (1…n). */
  readonly datanodes: ReadonlyMap<number, TsdbNode>;
  readonly frontend: TsdbNode;
  readonly baseUrl: string;
  /** Stops the frontend, the datanodes, then the metasrv (each by PID). */
  stop(): Promise<void>;
}

/**
 * A cluster (`name` prefixes its nodes' names): a metasrv with its metadata in memory, `datanodes`
 * datanodes (ids 1…n, region queries logged at debug) and a frontend, each with its own directory
 * under `dir`; `nodeArgs` go to every node's `node` (e.g. `--cpu-prof`), `options` configure the
 * datanodes. Resolves once the metasrv
 * counts every datanode alive and the frontend is ready; on failure stops what it started.
 */
export interface ClusterOptions {
  /** Environment of every datanode (e.g. `TSDB_DATANODE__REGION_ENGINE__MITO__GLOBAL_WRITE_BUFFER_SIZE`). */
  readonly datanodeEnv?: Readonly<Record<string, string>>;
  /** The datanodes' `--log-level` (default debug: their region query lines; not above info, which the " started" line is at). */
  readonly datanodeLogLevel?: 'debug' | 'info';
}

export async function startCluster(tsdbBin: string, name: string, dir: string, datanodes: number, nodeArgs: readonly string[] = [], options: ClusterOptions = {}): Promise<Cluster> {
  const started: TsdbNode[] = [];
  const stopAll = async (): Promise<void> => {
    for (const n of [...started].reverse()) await n.stop();
  };
  try {
    const metaHome = join(dir, 'metasrv');
    mkdirSync(metaHome, { recursive: true });
    const metasrv = await startNode(tsdbBin, `${name}/metasrv`, [
      'metasrv', 'start', '--bind-addr', '127.0.0.1:0', '--http-addr', '127.0.0.1:0', '--use-memory-store', '--log-dir', join(metaHome, 'logs'),
    ], join(dir, 'metasrv.log'), { TSDB_METASRV__DATA_HOME: metaHome }, nodeArgs);
    started.push(metasrv);
    const metaAddr = metasrv.addresses['grpc'];
    const metaHttp = metasrv.addresses['http'];
    if (metaAddr === undefined || metaHttp === undefined) throw new Error(`the metasrv logged no grpc/http address: ${JSON.stringify(metasrv.addresses)}`);
    await waitHttp(`http://${metaHttp}/ready`, 'metasrv');
    const dns = new Map<number, TsdbNode>();
    for (let id = 1; id <= datanodes; id++) {
      const home = join(dir, `datanode${id}`);
      // Named after the cluster too: the benchmark tells datanodes of its clusters apart by name.
      const dn = await startNode(tsdbBin, `${name}/datanode${id}`, [
        'datanode', 'start', '--node-id', String(id), '--http-addr', '127.0.0.1:0', '--rpc-addr', '127.0.0.1:0', '--data-home', home,
        '--metasrv-addrs', metaAddr, '--log-level', options.datanodeLogLevel ?? 'debug',
      ], join(dir, `datanode${id}.log`), options.datanodeEnv ?? {}, nodeArgs);
      started.push(dn);
      dns.set(id, dn);
    }
    const deadline = Date.now() + 60_000;
    for (;;) {
      const nodes = await fetch(`http://${metaHttp}/admin/nodes`).then((r) => r.json() as Promise<{ nodes: Array<{ role: string; alive: boolean }> }>).catch(() => ({ nodes: [] }));
      if (nodes.nodes.filter((n) => n.role === 'datanode' && n.alive).length >= datanodes) break;
      if (Date.now() > deadline) throw new Error(`the metasrv counts fewer than ${datanodes} live datanodes after 60 s: ${JSON.stringify(nodes)}`);
      await sleep(100);
    }
    // A frontend stores nothing but logs and its queries' spill files (under os.tmpdir()): both in its directory.
    const feHome = join(dir, 'frontend');
    mkdirSync(feHome, { recursive: true });
    const frontend = await startNode(tsdbBin, `${name}/frontend`, [
      'frontend', 'start', '--http-addr', '127.0.0.1:0', '--rpc-addr', '127.0.0.1:0', '--mysql-addr', '127.0.0.1:0', '--postgres-addr', '127.0.0.1:0',
      '--http-timeout', '600s', '--metasrv-addr', metaAddr, '--log-dir', join(feHome, 'logs'),
    ], join(dir, 'frontend.log'), { TMPDIR: feHome }, nodeArgs);
    started.push(frontend);
    const http = frontend.addresses['http'];
    if (http === undefined) throw new Error('the frontend logged no http address');
    const baseUrl = `http://${http}`;
    await waitHttp(`${baseUrl}/ready`, 'frontend');
    return { metasrv, datanodes: dns, frontend, baseUrl, stop: stopAll };
  } catch (err) {
    await stopAll();
    throw err;
  }
}
