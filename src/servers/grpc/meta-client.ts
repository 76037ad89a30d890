/**
 * The metasrv seen from a datanode or a frontend: the MetaService (meta/meta-service.ts) spoken
 * over gRPC to `tsdb.meta.v1.Meta` (meta-service-server.ts), configured by `[meta_client]`.
 *
 * Addresses: `metasrv_addrs` in order, the first reachable one used until it fails. Before each
 * call the client makes sure its channel to the current address is connected, waiting at most
 * `connectTimeoutMs` (grpc-js has no connect timeout of its own: a dropped SYN waits for the OS);
 * an address that refuses or stays silent is let go (its channel closed, so that a later attempt
 * starts a fresh connection rather than waiting out grpc-js's reconnect backoff) and the next one
 * is tried. No reachable address: StorageUnavailable naming every address tried and why — the
 * code region-client.ts gives an unreachable datanode (retryable: gRPC UNAVAILABLE, HTTP 503).
 *
 * Deadlines: every unary call has `timeoutMs` (the connect wait included); a DDL task has its own
 * (`ddlTimeoutMs` unless the caller gives one), and past it fails with DeadlineExceeded while the
 * procedure still ends on its own in the metasrv. A call whose connection breaks under it is
 * tried once more (on the same address first) when it only reads or reports — get, range,
 * cluster info, heartbeat, table id allocation (a lost id is only a gap) — never a DDL task, which
 * the metasrv may have run: a task sent and left unanswered (connection lost, deadline passed)
 * fails saying the metasrv may still complete it.
 *
 * Errors are TsdbErrors: the code and message the metasrv put in its trailers (a
 * TableAlreadyExists stays one); else by gRPC status as region-client.ts maps them.
 *
 * `subscribe` keeps a Subscribe stream open: the listener is told `reset` each time the stream
 * (re)connects (the server sends its headers once its subscription is in place, so no later event
 * is missed) and then each event in order; a broken stream is reopened after a backoff that
 * doubles from `reconnectBackoff.initialMs` up to `maxMs`, and resets to the initial delay once a
 * stream connects. The returned function stops it; `close()` stops every subscription and closes
 * every channel.
 *
 * `tcpNoDelay`: grpc-js (1.14) sets TCP_NODELAY on every connection it opens
 * (`Http2SubchannelConnector.connect` calls `socket.setNoDelay()`) and has no channel option to
 * leave it off; `true` (the default) is what it does, `false` cannot be honoured and is logged.
 */
import * as grpc from '@grpc/grpc-js';
import { StatusCode } from '../../common/error/status-code.js';
import { TsdbError, errorMessage } from '../../common/error/tsdb-error.js';
import type { Logger } from '../../common/logging.js';
import type { KvEntry } from '../../meta/kv/kv-backend.js';
import type { DdlResult, DdlTask, HeartbeatRequest, HeartbeatResponse, MetaEvent, MetaService, NodeInfo } from '../../meta/meta-service.js';
import { errorOfTrailers } from './grpc-error.js';
import { DEFAULT_MAX_MESSAGE_SIZE } from './grpc-server.js';
import {
  clusterInfoOf,
  ddlRequestMessage,
  ddlResultOf,
  getResponseOf,
  heartbeatRequestMessage,
  heartbeatResponseOf,
  metaEventOf,
  metaMethods,
  rangeResponseOf,
  tableIdOf,
  type AllocateTableIdResponseMessage,
  type ClusterInfoResponseMessage,
  type DdlResponseMessage,
  type GetResponseMessage,
  type HeartbeatResponseMessage,
  type MetaEventMessage,
  type RangeResponseMessage,
} from './meta-messages.js';

/** `meta_client.timeout`. */
export const DEFAULT_META_TIMEOUT_MS = 3000;
/** `meta_client.connect_timeout`. */
export const DEFAULT_META_CONNECT_TIMEOUT_MS = 1000;
/** `meta_client.ddl_timeout`. */
export const DEFAULT_META_DDL_TIMEOUT_MS = 10_000;
export const DEFAULT_RECONNECT_BACKOFF = { initialMs: 100, maxMs: 5000 } as const;

/**
 * Pings on a connection with calls open (a subscription always has one): a metasrv gone without a
 * word (host down, route dropped) is noticed within about `KEEPALIVE_TIME_MS + KEEPALIVE_TIMEOUT_MS`.
 */
const KEEPALIVE_TIME_MS = 15_000;
const KEEPALIVE_TIMEOUT_MS = 5000;
const GRPC_RECONNECT_BACKOFF_MS = 10 * 60_000;

export interface MetaClientOptions {
  /** `meta_client.metasrv_addrs`: `host:port` of each metasrv, tried in order. */
  readonly addrs: readonly string[];
  /** `meta_client.timeout`: deadline of each unary call, connecting included (ms); default 3 s. */
  readonly timeoutMs?: number;
  /** `meta_client.connect_timeout`: how long one address may take to connect (ms); default 1 s. */
  readonly connectTimeoutMs?: number;
  /** `meta_client.ddl_timeout`: deadline of a DDL task the caller gives none (ms); default 10 s. */
  readonly ddlTimeoutMs?: number;
  /** `meta_client.tcp_nodelay`; default true (see the header: grpc-js always sets it). */
  readonly tcpNoDelay?: boolean;
  /** Where subscription outages and a `tcpNoDelay` that cannot be honoured are reported. */
  readonly logger?: Logger;
  /** Delays between attempts to reopen a broken subscription (ms); default 100 ms doubling to 5 s. */
  readonly reconnectBackoff?: { readonly initialMs: number; readonly maxMs: number };
}

/** A connected channel to one address. */
interface Connection {
  readonly addr: string;
  readonly client: grpc.Client;
}

/** Whether a call failed in the transport (no answer from the service): the connection is suspect. */
function transportFailed(err: unknown): boolean {
  const e = err as Partial<grpc.ServiceError>;
  return e.code === grpc.status.UNAVAILABLE && errorOfTrailers(e) === undefined;
}

/** The TsdbError of a failed call to the metasrv at `addr`. */
export function metaCallError(err: unknown, addr: string, what: string, timeoutMs?: number): TsdbError {
  if (err instanceof TsdbError) return err;
  const e = err as Partial<grpc.ServiceError>;
  if (typeof e.code !== 'number') return new TsdbError(StatusCode.Internal, `${what} on metasrv ${addr} failed: ${errorMessage(err)}`, { cause: err });
  const sent = errorOfTrailers(e);
  if (sent !== undefined) return sent;
  const details = e.details ?? '';
  switch (e.code) {
    case grpc.status.UNAVAILABLE:
      return new TsdbError(StatusCode.StorageUnavailable, `Metasrv ${addr} is unavailable (${what}): ${details}`, { cause: err });
    case grpc.status.DEADLINE_EXCEEDED:
      return new TsdbError(StatusCode.DeadlineExceeded, `${what} on metasrv ${addr} timed out${timeoutMs !== undefined ? ` after ${timeoutMs} ms` : ''}: ${details}`, { cause: err });
    case grpc.status.CANCELLED:
      return new TsdbError(StatusCode.Cancelled, `${what} on metasrv ${addr} was cancelled: ${details}`, { cause: err });
    default:
      return new TsdbError(StatusCode.Internal, `${what} on metasrv ${addr} failed with gRPC status ${grpc.status[e.code] ?? e.code}: ${details}`, { cause: err });
  }
}

/** Why `client` is not connected by `deadline`; undefined once it is. */
function whenReady(client: grpc.Client, deadline: number, waitMs: number): Promise<string | undefined> {
  const channel = client.getChannel();
  return new Promise((resolve) => {
    const check = () => {
      let state: grpc.connectivityState;
      try {
        state = channel.getConnectivityState(true);
      } catch (err) {
        resolve(`cannot connect: ${errorMessage(err)}`);
        return;
      }
      switch (state) {
        case grpc.connectivityState.READY:
          resolve(undefined);
          return;
        case grpc.connectivityState.TRANSIENT_FAILURE:
          resolve('connection failed (refused, reset or name not resolved)');
          return;
        case grpc.connectivityState.SHUTDOWN:
          resolve('channel closed');
          return;
        default:
          if (Date.now() >= deadline) {
            resolve(`no connection within ${waitMs} ms`);
            return;
          }
          channel.watchConnectivityState(state, deadline, (err) => (err !== undefined ? resolve(`no connection within ${waitMs} ms`) : check()));
      }
    };
    check();
  });
}

export class MetaClient implements MetaService {
  readonly addrs: readonly string[];
  private readonly timeoutMs: number;
  private readonly connectTimeoutMs: number;
  private readonly ddlTimeoutMs: number;
  private readonly backoff: { readonly initialMs: number; readonly maxMs: number };
  private readonly log: Logger | undefined;
  private readonly methods = metaMethods();
  private readonly channels = new Map<string, grpc.Client>();
  private readonly subscriptions = new Set<MetaSubscription>();
  /** Index in `addrs` of the address last connected: the next call starts there. */
  private current = 0;
  private closed = false;

  constructor(opts: MetaClientOptions) {
    if (opts.addrs.length === 0) throw new TsdbError(StatusCode.InvalidArguments, 'meta_client.metasrv_addrs names no metasrv');
    this.addrs = [...opts.addrs];
    this.timeoutMs = opts.timeoutMs ?? DEFAULT_META_TIMEOUT_MS;
    this.connectTimeoutMs = opts.connectTimeoutMs ?? DEFAULT_META_CONNECT_TIMEOUT_MS;
    this.ddlTimeoutMs = opts.ddlTimeoutMs ?? DEFAULT_META_DDL_TIMEOUT_MS;
    this.backoff = opts.reconnectBackoff ?? DEFAULT_RECONNECT_BACKOFF;
    this.log = opts.logger?.child({ client: 'meta' });
    if (opts.tcpNoDelay === false) this.log?.warn('meta_client.tcp_nodelay = false is not honoured: grpc-js sets TCP_NODELAY on every connection');
  }

  toString(): string {
    return `MetaClient(${this.addrs.join(',')})`;
  }

  // ---- MetaService ----

  async heartbeat(req: HeartbeatRequest): Promise<HeartbeatResponse> {
    const m = await this.unary<HeartbeatResponseMessage>('Heartbeat', heartbeatRequestMessage(req), 'heartbeat', this.timeoutMs, true);
    return this.decode(m.answer, m.addr, 'heartbeat', heartbeatResponseOf);
  }

  async get(key: string): Promise<Uint8Array | undefined> {
    const what = `get of ${key}`;
    const m = await this.unary<GetResponseMessage>('Get', { key }, what, this.timeoutMs, true);
    return this.decode(m.answer, m.addr, what, getResponseOf);
  }

  async range(prefix: string): Promise<KvEntry[]> {
    const what = `range of ${prefix === '' ? 'every key' : prefix}`;
    const m = await this.unary<RangeResponseMessage>('Range', { prefix }, what, this.timeoutMs, true);
    return this.decode(m.answer, m.addr, what, rangeResponseOf);
  }

  async allocateTableId(): Promise<number> {
    const m = await this.unary<AllocateTableIdResponseMessage>('AllocateTableId', {}, 'table id allocation', this.timeoutMs, true);
    return this.decode(m.answer, m.addr, 'table id allocation', tableIdOf);
  }

  async ddl(task: DdlTask, timeoutMs?: number): Promise<DdlResult> {
    const what = `DDL ${task.kind}`;
    const m = await this.unary<DdlResponseMessage>('Ddl', ddlRequestMessage(task), what, timeoutMs ?? this.ddlTimeoutMs, false);
    return this.decode(m.answer, m.addr, what, ddlResultOf);
  }

  async clusterInfo(): Promise<NodeInfo[]> {
    const m = await this.unary<ClusterInfoResponseMessage>('ClusterInfo', {}, 'cluster info', this.timeoutMs, true);
    return this.decode(m.answer, m.addr, 'cluster info', clusterInfoOf);
  }

  subscribe(listener: (event: MetaEvent) => void): () => void {
    if (this.closed) throw this.closedError();
    const s = new MetaSubscription(this, listener, this.backoff, this.log);
    this.subscriptions.add(s);
    s.start();
    return () => {
      this.subscriptions.delete(s);
      s.stop();
    };
  }

  /** Stops every subscription and closes every channel; calls made afterwards fail. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    for (const s of this.subscriptions) s.stop();
    this.subscriptions.clear();
    for (const client of this.channels.values()) client.close();
    this.channels.clear();
  }

  // ---- connections ----

  private closedError(): TsdbError {
    return new TsdbError(StatusCode.IllegalState, `The meta client of ${this.addrs.join(', ')} is closed`);
  }

  private clientFor(addr: string): grpc.Client {
    let client = this.channels.get(addr);
    if (client === undefined) {
      client = new grpc.Client(addr, grpc.credentials.createInsecure(), {
        'grpc.max_receive_message_length': DEFAULT_MAX_MESSAGE_SIZE,
        'grpc.max_send_message_length': DEFAULT_MAX_MESSAGE_SIZE,
        // Its own connection, not one shared with other channels to the address: closing this
        // channel (an address let go) starts the next attempt afresh.
        'grpc.use_local_subchannel_pool': 1,
        // Retrying is this client's business (a failed channel is replaced): grpc-js's own
        // reconnect, which a channel closed in its backoff still makes once when the backoff
        // ends, is put off far enough not to add connections of its own.
        'grpc.initial_reconnect_backoff_ms': GRPC_RECONNECT_BACKOFF_MS,
        'grpc.max_reconnect_backoff_ms': GRPC_RECONNECT_BACKOFF_MS,
        'grpc.keepalive_time_ms': KEEPALIVE_TIME_MS,
        'grpc.keepalive_timeout_ms': KEEPALIVE_TIMEOUT_MS,
      });
      this.channels.set(addr, client);
    }
    return client;
  }

  /** Lets an address's channel go (if it is still the one in use). */
  forget(c: Connection): void {
    if (this.channels.get(c.addr) === c.client) this.channels.delete(c.addr);
    c.client.close();
  }

  /**
   * A connected channel: the current address's, else the next reachable one in order, each given
   * `connectTimeoutMs` (and no more than `deadline` in all).
   */
  async connect(deadline: number, what: string): Promise<Connection> {
    if (this.closed) throw this.closedError();
    const n = this.addrs.length;
    const start = this.current;
    const failures: string[] = [];
    for (let k = 0; k < n; k++) {
      const i = (start + k) % n;
      const addr = this.addrs[i]!;
      const now = Date.now();
      if (now >= deadline) {
        for (let j = k; j < n; j++) failures.push(`${this.addrs[(start + j) % n]} (not tried: the deadline passed)`);
        break;
      }
      const client = this.clientFor(addr);
      const until = Math.min(now + this.connectTimeoutMs, deadline);
      const problem = await whenReady(client, until, until - now);
      if (this.closed) throw this.closedError();
      if (problem === undefined) {
        this.current = i;
        return { addr, client };
      }
      this.forget({ addr, client });
      failures.push(`${addr} (${problem})`);
    }
    throw new TsdbError(StatusCode.StorageUnavailable, `No metasrv is reachable (${what}): tried ${failures.join(', ')}`);
  }

  /** The Subscribe stream on a connection. */
  openStream(c: Connection): grpc.ClientReadableStream<MetaEventMessage> {
    const m = this.methods['Subscribe'] as grpc.MethodDefinition<object, MetaEventMessage>;
    return c.client.makeServerStreamRequest(m.path, m.requestSerialize, m.responseDeserialize, {}, new grpc.Metadata(), {});
  }

  private invoke<Res>(c: Connection, method: string, request: object, deadline: number): Promise<Res> {
    const m = this.methods[method] as grpc.MethodDefinition<object, Res>;
    return new Promise((resolve, reject) => {
      try {
        c.client.makeUnaryRequest(m.path, m.requestSerialize, m.responseDeserialize, request, new grpc.Metadata(), { deadline }, (err, response) => {
          if (err !== null && err !== undefined) reject(err);
          else if (response === undefined) reject(new TsdbError(StatusCode.Internal, `metasrv ${c.addr} answered nothing`));
          else resolve(response);
        });
      } catch (err) {
        reject(err as Error);
      }
    });
  }

  /** One unary call with its deadline; `retry`: tried once more when its connection breaks under it. */
  private async unary<Res>(method: string, request: object, what: string, timeoutMs: number, retry: boolean): Promise<{ answer: Res; addr: string }> {
    const deadline = Date.now() + timeoutMs;
    for (let attempt = 0; ; attempt++) {
      const c = await this.connect(deadline, what);
      try {
        return { answer: await this.invoke<Res>(c, method, request, deadline), addr: c.addr };
      } catch (err) {
        const broken = transportFailed(err);
        if (broken) {
          this.forget(c);
          if (retry && attempt === 0 && Date.now() < deadline) continue;
        }
        const e = metaCallError(err, c.addr, what, timeoutMs);
        // A task that was sent and never answered may have run: the caller must not assume either way.
        const sentUnanswered = broken || (e.code === StatusCode.DeadlineExceeded && errorOfTrailers(err as Partial<grpc.ServiceError>) === undefined);
        if (!retry && sentUnanswered) throw new TsdbError(e.code, `${e.message} (the metasrv may still complete it)`, { cause: err });
        throw e;
      }
    }
  }

  /** The interface's value of an answer; an answer that does not fit is the metasrv's fault. */
  private decode<M, T>(message: M, addr: string, what: string, of: (m: M) => T): T {
    try {
      return of(message);
    } catch (err) {
      throw new TsdbError(StatusCode.Internal, `metasrv ${addr} answered ${what} with a malformed message: ${errorMessage(err)}`, { cause: err });
    }
  }
}

/** One `subscribe`: a Subscribe stream kept open, reopened with backoff when it breaks. */
class MetaSubscription {
  private call: grpc.ClientReadableStream<MetaEventMessage> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private delayMs: number;
  private stopped = false;
  /** Set while the stream is down after having been up (an outage is logged once, and its end). */
  private down = false;

  constructor(
    private readonly client: MetaClient,
    private readonly listener: (event: MetaEvent) => void,
    private readonly backoff: { readonly initialMs: number; readonly maxMs: number },
    private readonly log: Logger | undefined,
  ) {
    this.delayMs = backoff.initialMs;
  }

  start(): void {
    void this.open();
  }

  stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    const call = this.call;
    this.call = undefined;
    call?.cancel();
  }

  private emit(event: MetaEvent): void {
    try {
      this.listener(event);
    } catch (err) {
      this.log?.error({ err, event }, 'a metadata event listener failed');
    }
  }

  private async open(): Promise<void> {
    this.timer = undefined;
    if (this.stopped) return;
    let c: Connection;
    try {
      // No deadline of its own: each address gets its connect timeout.
      c = await this.client.connect(Number.POSITIVE_INFINITY, 'metadata subscription');
    } catch (err) {
      this.broken(err);
      return;
    }
    if (this.stopped) return;
    let call: grpc.ClientReadableStream<MetaEventMessage>;
    try {
      call = this.client.openStream(c);
    } catch (err) {
      this.broken(err);
      return;
    }
    this.call = call;
    call.on('metadata', () => {
      if (this.call !== call) return;
      this.delayMs = this.backoff.initialMs;
      if (this.down) this.log?.info({ addr: c.addr }, 'the metadata subscription is back: caches reset');
      this.down = false;
      this.emit({ kind: 'reset' });
    });
    call.on('data', (m: MetaEventMessage) => {
      if (this.call !== call) return;
      let event: MetaEvent;
      try {
        event = metaEventOf(m);
      } catch (err) {
        // An event this node cannot read: reloading everything is the safe answer.
        this.log?.warn({ err }, `metasrv ${c.addr} sent a metadata event this node cannot read; caches reset`);
        event = { kind: 'reset' };
      }
      this.emit(event);
    });
    // grpc-js throws an 'error' nobody listens to; 'status' below says how the call ended.
    call.on('error', () => {});
    call.on('status', (status: grpc.StatusObject) => {
      if (this.call !== call) return;
      this.call = undefined;
      if (this.stopped) return;
      if (transportFailed(status)) this.client.forget(c);
      this.broken(status.code === grpc.status.OK ? new Error(`metasrv ${c.addr} ended the stream`) : metaCallError(Object.assign(new Error(status.details), status), c.addr, 'metadata subscription'));
    });
  }

  /** The stream is down: tried again after the backoff. */
  private broken(err: unknown): void {
    if (this.stopped) return;
    if (!this.down) this.log?.warn({ err: errorMessage(err), retry_ms: this.delayMs }, 'the metadata subscription is down; reconnecting');
    this.down = true;
    // ±20 % so that the nodes of a cluster do not all come back at the same instant.
    const delay = Math.round(this.delayMs * (0.8 + 0.4 * Math.random()));
    this.delayMs = Math.min(this.delayMs * 2, this.backoff.maxMs);
    this.timer = setTimeout(() => void this.open(), delay);
    this.timer.unref();
  }
}
