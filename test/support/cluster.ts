/**
 * A whole cluster on loopback for tests: a metasrv (on a real etcd the test started, or with
 * `use_memory_store`), datanodes each with its own data directory, and frontends — every process
 * started with free ports and stopped by PID when the test ends. Datanodes are waited for until
 * the metasrv counts them alive, so that the first CREATE TABLE can place regions on all of them.
 */
import type { TestContext } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { startTsdb, type SpawnOptions, type Started } from './tsdb-process.js';
import { tempDir } from './temp.js';

export interface ClusterOptions {
  /** Datanodes to start (ids 1…n). */
  readonly datanodes?: number;
  readonly frontends?: number;
  /** etcd endpoints (host:port); absent: `--use-memory-store`. */
  readonly etcd?: readonly string[];
  readonly metasrvArgs?: readonly string[];
  /** Environment of every datanode (e.g. shared object storage). */
  readonly datanodeEnv?: NodeJS.ProcessEnv;
  /** More arguments of datanode `id`'s command line (e.g. a `--wal-dir` under its `home`). */
  readonly datanodeArgs?: (id: number, home: string) => readonly string[];
  readonly frontendArgs?: readonly string[];
  /** Environment of every frontend (e.g. its `[copy] dir`). */
  readonly frontendEnv?: NodeJS.ProcessEnv;
}

interface NodeInfoJson {
  readonly role: string;
  readonly alive: boolean;
  readonly peer: { readonly id: number; readonly addr: string };
}

export class TestCluster {
  metasrv!: Started;
  readonly datanodes = new Map<number, Started>();
  readonly frontends: Started[] = [];
  readonly homes = new Map<number, string>();

  constructor(
    private readonly t: TestContext,
    readonly opts: ClusterOptions,
  ) {}

  /** The metasrv's gRPC address (what `--metasrv-addrs` names). */
  get metaAddr(): string {
    return this.metasrv.grpc!;
  }

  /** The first frontend's HTTP base URL. */
  get url(): string {
    return this.frontends[0]!.baseUrl;
  }

  async startMetasrv(extra: readonly string[] = [], opts: SpawnOptions = {}): Promise<Started> {
    const store = this.opts.etcd !== undefined ? ['--store-addrs', this.opts.etcd.join(',')] : ['--use-memory-store'];
    const home = this.metasrvHome ?? (this.metasrvHome = tempDir(this.t, 'tsdb-metasrv-'));
    // A restarted metasrv keeps its address (nodes know it); the first binds a free port and advertises it.
    const bind = this.metasrv?.grpc;
    const addr = bind === undefined ? ['--bind-addr', '127.0.0.1:0'] : ['--bind-addr', bind, '--server-addr', bind];
    this.metasrv = await startTsdb(this.t, ['metasrv', 'start', ...addr, '--http-addr', '127.0.0.1:0', ...store, ...(this.opts.metasrvArgs ?? []), ...extra], {
      ...opts,
      env: { TSDB_METASRV__DATA_HOME: home, ...opts.env },
    });
    return this.metasrv;
  }

  private metasrvHome: string | undefined;

  async startDatanode(id: number): Promise<Started> {
    let home = this.homes.get(id);
    if (home === undefined) {
      home = tempDir(this.t, `tsdb-dn${id}-`);
      this.homes.set(id, home);
    }
    const prev = this.datanodes.get(id);
    const rpc = prev !== undefined ? await this.regionAddrOf(id) : '127.0.0.1:0';
    const dn = await startTsdb(this.t, ['datanode', 'start', '--node-id', String(id), '--http-addr', '127.0.0.1:0', '--rpc-addr', rpc, '--data-home', home, '--metasrv-addrs', this.metaAddr, ...(this.opts.datanodeArgs?.(id, home) ?? [])], { env: { ...this.opts.datanodeEnv } });
    this.datanodes.set(id, dn);
    await this.waitAlive(id);
    return dn;
  }

  /** The region service address datanode `id` registered with. */
  async regionAddrOf(id: number): Promise<string> {
    const node = (await this.nodes()).find((n) => n.role === 'datanode' && n.peer.id === id);
    if (node === undefined) throw new Error(`datanode ${id} is not known to the metasrv`);
    return node.peer.addr;
  }

  async startFrontend(extra: readonly string[] = []): Promise<Started> {
    const fe = await startTsdb(this.t, ['frontend', 'start', '--http-addr', '127.0.0.1:0', '--metasrv-addr', this.metaAddr, ...(this.opts.frontendArgs ?? []), ...extra], { env: { ...this.opts.frontendEnv } });
    this.frontends.push(fe);
    return fe;
  }

  /** The metasrv's node list (`/admin/nodes`). */
  async nodes(): Promise<NodeInfoJson[]> {
    const res = await fetch(`${this.metasrv.baseUrl}/admin/nodes`);
    if (res.status !== 200) throw new Error(`/admin/nodes answered ${res.status}: ${await res.text()}`);
    return ((await res.json()) as { nodes: NodeInfoJson[] }).nodes;
  }

  /** Waits until the metasrv counts datanode `id` alive. */
  async waitAlive(id: number, timeoutMs = 20_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const nodes = await this.nodes().catch(() => []);
      if (nodes.some((n) => n.role === 'datanode' && n.peer.id === id && n.alive)) return;
      if (Date.now() > deadline) throw new Error(`datanode ${id} did not register with the metasrv within ${timeoutMs} ms: ${JSON.stringify(nodes)}`);
      await sleep(100);
    }
  }

  /** Runs SQL on frontend `i` over HTTP; returns the parsed JSON answer and the status. */
  async sql(sql: string, i = 0, db?: string): Promise<{ status: number; body: SqlAnswer }> {
    const fe = this.frontends[i]!;
    const res = await fetch(`${fe.baseUrl}/v1/sql${db !== undefined ? `?db=${encodeURIComponent(db)}` : ''}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ sql }).toString(),
    });
    return { status: res.status, body: (await res.json()) as SqlAnswer };
  }

  /** The rows of a query's first output; fails the test on an error answer. */
  async rows(sql: string, i = 0): Promise<unknown[][]> {
    const { status, body } = await this.sql(sql, i);
    if (status !== 200) throw new Error(`${sql} answered ${status}: ${JSON.stringify(body)}`);
    return body.output[0]?.records?.rows ?? [];
  }
}

export interface SqlAnswer {
  readonly code?: number;
  readonly error?: string;
  readonly output: Array<{ readonly affectedrows?: number; readonly records?: { readonly rows: unknown[][] } }>;
}

/** Starts a metasrv, `datanodes` datanodes (ids 1…n) and `frontends` frontends. */
export async function startCluster(t: TestContext, opts: ClusterOptions = {}): Promise<TestCluster> {
  const c = new TestCluster(t, opts);
  await c.startMetasrv();
  await Promise.all(Array.from({ length: opts.datanodes ?? 3 }, (_, i) => c.startDatanode(i + 1)));
  for (let i = 0; i < (opts.frontends ?? 1); i++) await c.startFrontend();
  return c;
}
