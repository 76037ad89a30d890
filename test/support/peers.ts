/**
 * Real peers of tsdb for integration tests (Prometheus, vmagent): finding their binaries (a missing
 * one fails the test, naming its Debian package), free loopback ports, running them stopped by PID
 * when the test ends, loopback HTTP servers the test answers itself, polling with a deadline and
 * SQL over tsdb's HTTP API.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { accessSync, constants, writeFileSync } from 'node:fs';
import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createNetServer, type AddressInfo } from 'node:net';
import { delimiter, join } from 'node:path';
import type { TestContext } from 'node:test';

/** The path of executable `name` on PATH (or in /usr/bin); throws, naming the Debian package, if there is none. */
export function requireBinary(name: string, debianPackage: string): string {
  const dirs = [...(process.env['PATH'] ?? '').split(delimiter).filter((d) => d !== ''), '/usr/bin'];
  for (const dir of dirs) {
    const path = join(dir, name);
    try {
      accessSync(path, constants.X_OK);
      return path;
    } catch {
      // Not here.
    }
  }
  throw new Error(`${name} is not installed (looked on PATH and in /usr/bin): install the Debian package ${debianPackage} (apt-get install ${debianPackage})`);
}

/** A TCP port free on 127.0.0.1 right now, for a peer that cannot report the port it bound. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createNetServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

/** The environment without proxy settings: peers talk to 127.0.0.1 directly. */
function peerEnv(): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(http|https|all|no)_proxy$/i.test(k)));
}

/** The last `OUTPUT_TAIL` characters of a peer's stdout and stderr are kept for failure messages. */
const OUTPUT_TAIL = 16_384;

export class PeerProcess {
  private output = '';
  private readonly exited: Promise<void>;

  constructor(readonly name: string, readonly child: ChildProcess) {
    const keep = (c: Buffer) => {
      this.output = (this.output + c.toString()).slice(-OUTPUT_TAIL);
    };
    child.stdout!.on('data', keep);
    child.stderr!.on('data', keep);
    this.exited = new Promise((resolve) => child.once('close', () => resolve()));
    child.once('error', (err) => (this.output += `\nspawn error: ${err.message}`));
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  get running(): boolean {
    return this.child.pid !== undefined && this.child.exitCode === null && this.child.signalCode === null;
  }

  /** The end of what the peer printed, with how it exited if it did. */
  describe(): string {
    const status = this.running ? 'running' : `exited (code ${this.child.exitCode}, signal ${this.child.signalCode})`;
    return `${this.name} (pid ${this.pid}) ${status}; its output ends with:\n${this.output}`;
  }

  /** Throws with the peer's output if it is no longer running. */
  assertRunning(): void {
    if (!this.running) throw new Error(`${this.name} stopped unexpectedly: ${this.describe()}`);
  }

  /** SIGTERM by PID, SIGKILL after `graceMs`; resolves when the process has exited. */
  async stop(graceMs = 10_000): Promise<void> {
    if (this.child.pid === undefined) return;
    if (this.running) this.child.kill('SIGTERM');
    const timer = setTimeout(() => this.running && this.child.kill('SIGKILL'), graceMs);
    try {
      await this.exited;
    } finally {
      clearTimeout(timer);
    }
  }
}

/** Starts `bin args` with its output captured; stopped by PID when the test ends. */
export function startPeer(t: TestContext, name: string, bin: string, args: string[], opts: { cwd?: string } = {}): PeerProcess {
  const child = spawn(bin, args, { env: peerEnv(), stdio: ['ignore', 'pipe', 'pipe'], ...(opts.cwd !== undefined && { cwd: opts.cwd }) });
  const peer = new PeerProcess(name, child);
  t.after(() => peer.stop());
  return peer;
}

export interface ListeningPeer {
  readonly peer: PeerProcess;
  readonly port: number;
  /** `http://127.0.0.1:<port>`. */
  readonly url: string;
}

/**
 * Starts a peer that listens on a port it is given (`argsFor(port)`, which may also write its
 * config) and waits until `GET <readyPath>` answers 2xx. Another process can take the free port
 * before the peer binds it: when the peer then exits with "address already in use", it is started
 * again on another port (3 attempts).
 */
export async function startListeningPeer(
  t: TestContext,
  name: string,
  bin: string,
  argsFor: (port: number) => string[],
  readyPath: string,
  opts: { cwd?: string; timeoutMs?: number } = {},
): Promise<ListeningPeer> {
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    const peer = startPeer(t, name, bin, argsFor(port), opts);
    const url = `http://127.0.0.1:${port}`;
    try {
      await waitFor(`${name} to answer GET ${url}${readyPath}`, async () => {
        peer.assertRunning();
        await getText(`${url}${readyPath}`);
        return true;
      }, { timeoutMs: opts.timeoutMs ?? 30_000, describe: () => peer.describe() });
      return { peer, port, url };
    } catch (err) {
      await peer.stop();
      if (attempt < 3 && /address already in use/i.test(peer.describe())) continue;
      throw err;
    }
  }
}

export interface LoopbackServer {
  readonly port: number;
  /** `http://127.0.0.1:<port>`. */
  readonly url: string;
}

/** An HTTP server on 127.0.0.1 answered by `handler` (with the whole request body); closed when the test ends. */
export async function serveHttp(t: TestContext, handler: (req: IncomingMessage, body: Buffer, res: ServerResponse) => void): Promise<LoopbackServer> {
  const srv = createHttpServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => handler(req, Buffer.concat(chunks), res));
  });
  await new Promise<void>((resolve, reject) => {
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => resolve());
  });
  t.after(() => new Promise<void>((resolve) => {
    srv.closeAllConnections();
    srv.close(() => resolve());
  }));
  const { port } = srv.address() as AddressInfo;
  return { port, url: `http://127.0.0.1:${port}` };
}

/**
 * Calls `probe` every `intervalMs` until it returns something other than undefined, and returns
 * that. On `timeoutMs` throws with `what`, the last probe error and `describe()` (the state of the
 * peers). `probe` may throw (a table not created yet): that counts as "not yet".
 */
export async function waitFor<T>(
  what: string,
  probe: () => Promise<T | undefined>,
  opts: { timeoutMs: number; intervalMs?: number; describe?: () => Promise<string> | string },
): Promise<T> {
  const deadline = Date.now() + opts.timeoutMs;
  let last = 'no attempt finished';
  for (;;) {
    try {
      const v = await probe();
      if (v !== undefined) return v;
      last = 'the condition did not hold yet';
    } catch (err) {
      last = err instanceof Error ? err.message : String(err);
    }
    if (Date.now() >= deadline) break;
    await new Promise((resolve) => setTimeout(resolve, opts.intervalMs ?? 250));
  }
  let state = '';
  try {
    state = opts.describe !== undefined ? await opts.describe() : '';
  } catch (err) {
    state = `(describing the state failed: ${String(err)})`;
  }
  throw new Error(`timed out after ${opts.timeoutMs / 1000}s waiting for ${what}; last attempt: ${last}\n${state}`);
}

/** GETs `url` (5 s limit) and returns the body as text; throws on a status other than 2xx. */
export async function getText(url: string): Promise<string> {
  const res = await fetch(url, { signal: AbortSignal.timeout(5_000) });
  const text = await res.text();
  if (!res.ok) throw new Error(`GET ${url}: ${res.status} ${text}`);
  return text;
}

/** A `SELECT` answer of tsdb's `/v1/sql`: column names and rows. */
export interface SqlRecords {
  readonly columns: readonly string[];
  readonly rows: ReadonlyArray<readonly unknown[]>;
}

/** Runs one statement with `POST /v1/sql`; throws with tsdb's error (e.g. table not found yet) unless it answers 200. */
export async function tsdbSql(baseUrl: string, statement: string): Promise<SqlRecords> {
  const res = await fetch(`${baseUrl}/v1/sql?db=public`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ sql: statement }).toString(),
    signal: AbortSignal.timeout(15_000),
  });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`POST /v1/sql ${JSON.stringify(statement)}: ${res.status} ${text}`);
  const body = JSON.parse(text) as { output: Array<{ records?: { schema: { column_schemas: Array<{ name: string }> }; rows: unknown[][] } }> };
  const records = body.output[0]?.records;
  return { columns: records?.schema.column_schemas.map((c) => c.name) ?? [], rows: records?.rows ?? [] };
}

/** A sample with its labels (without `__name__`), comparable between Prometheus' API and tsdb rows. */
export interface LabeledSample {
  readonly labels: Readonly<Record<string, string>>;
  readonly timestampMs: number;
  readonly value: number;
}

/** Rows of a remote-write table (`tsdb_timestamp`, `tsdb_value`, a column per label; NULL = no label) as samples. */
export function samplesOfRows(records: SqlRecords): LabeledSample[] {
  const ts = records.columns.indexOf('tsdb_timestamp');
  const val = records.columns.indexOf('tsdb_value');
  if (ts < 0 || val < 0) throw new Error(`not a remote-write table: columns ${records.columns.join(', ')}`);
  return records.rows.map((row) => {
    const labels: Record<string, string> = {};
    records.columns.forEach((c, i) => {
      if (i !== ts && i !== val && row[i] !== null && row[i] !== '') labels[c] = String(row[i]);
    });
    return { labels: sortedLabels(labels), timestampMs: Number(row[ts]), value: row[val] === null ? Number.NaN : Number(row[val]) };
  });
}

/** `labels` with its keys in order, so that deepEqual output reads well. */
export function sortedLabels(labels: Readonly<Record<string, string>>): Record<string, string> {
  return Object.fromEntries(Object.entries(labels).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/** Samples in a stable order (labels, then time) for deepEqual. */
export function sortSamples(samples: readonly LabeledSample[]): LabeledSample[] {
  const key = (s: LabeledSample) => JSON.stringify(s.labels);
  return [...samples].sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : a.timestampMs - b.timestampMs));
}

/** A Prometheus sample value (`"1.5"`, `"NaN"`, `"+Inf"`) as a number. */
export function promValue(text: string): number {
  if (text === '+Inf') return Number.POSITIVE_INFINITY;
  if (text === '-Inf') return Number.NEGATIVE_INFINITY;
  return Number(text);
}

/**
 * Debian's Prometheus 2.42 with its remote-write receiver on (`<url>/api/v1/write`), its own data
 * directory under `dir` and `config` (YAML) as its configuration; no scrape jobs unless the config
 * names some.
 */
export async function startPrometheus(t: TestContext, dir: string, config = 'scrape_configs: []\n'): Promise<ListeningPeer> {
  const bin = requireBinary('prometheus', 'prometheus');
  const file = join(dir, 'prometheus.yml');
  writeFileSync(file, config);
  return startListeningPeer(t, 'prometheus', bin, (port) => [
    `--config.file=${file}`,
    `--storage.tsdb.path=${join(dir, 'data')}`,
    `--web.listen-address=127.0.0.1:${port}`,
    '--web.enable-remote-write-receiver',
    '--log.level=warn',
  ], '/-/ready', { cwd: dir });
}
