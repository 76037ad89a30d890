/**
 * The nodes of a cluster as the metasrv knows them from their heartbeats (reference internals.md
 * §6.2–6.3): in memory, and in the metadata store so that a restarted metasrv knows them too —
 *
 *   __meta_cluster_node_info-0-{role}-{node}   what the node reported (role 0 datanode, 1 frontend)
 *   __meta_datanode_lease-0-{node}             {timestamp_millis, node_addr} of a datanode's last heartbeat
 *
 * A node is alive while its last heartbeat is more recent than its lease (datanodes: 3 intervals
 * + 1 s). A datanode id belongs to one address at a time: a heartbeat with the id of a live
 * datanode at another address is refused (two datanodes configured with one node_id).
 */
import type { Peer } from '../../catalog/table-route.js';
import { StatusCode } from '../../common/error/status-code.js';
import { TsdbError } from '../../common/error/tsdb-error.js';
import { formatDuration } from '../../common/time/duration.js';
import type { KvBackend } from '../kv/kv-backend.js';
import type { HeartbeatRequest, NodeInfo, NodeRole } from '../meta-service.js';

/** GreptimeDB's role numbers in node info keys. */
const ROLE_NUMBER: Record<HeartbeatRequest['role'], number> = { datanode: 0, frontend: 1 };
const NODE_INFO_PREFIX = '__meta_cluster_node_info-0-';
const LEASE_PREFIX = '__meta_datanode_lease-0-';

export function nodeInfoKey(role: HeartbeatRequest['role'], nodeId: number): string {
  return `${NODE_INFO_PREFIX}${ROLE_NUMBER[role]}-${nodeId}`;
}

export function datanodeLeaseKey(nodeId: number): string {
  return `${LEASE_PREFIX}${nodeId}`;
}

export interface NodeState {
  readonly peer: Peer;
  readonly role: HeartbeatRequest['role'];
  readonly version: string;
  readonly start_time_ms: number;
  readonly last_activity_ms: number;
  readonly region_count: number;
  readonly shared_storage: boolean;
}

function encode(value: unknown): Uint8Array {
  return Buffer.from(JSON.stringify(value));
}

export class ClusterNodes {
  private readonly nodes = new Map<string, NodeState>();
  /** The write of each node's last heartbeat under way. */
  private readonly writing = new Map<string, Promise<void>>();

  constructor(
    private readonly kv: KvBackend,
    /** How long a datanode's heartbeat keeps it alive. */
    readonly datanodeLeaseMs: number,
    readonly frontendLeaseMs: number,
    /** A heartbeat that could not be written to the store (it is kept in memory all the same). */
    private readonly onPersistError: (err: unknown) => void = () => {},
  ) {}

  /** Reads the nodes the store knows (a restarted metasrv): each as of its last heartbeat. */
  async load(): Promise<number> {
    const leases = new Map<string, number>();
    for (const e of await this.kv.range(LEASE_PREFIX)) {
      const v = JSON.parse(Buffer.from(e.value).toString('utf8')) as { timestamp_millis: number };
      leases.set(e.key.slice(LEASE_PREFIX.length), v.timestamp_millis);
    }
    for (const e of await this.kv.range(NODE_INFO_PREFIX)) {
      const s = JSON.parse(Buffer.from(e.value).toString('utf8')) as NodeState;
      const last = s.role === 'datanode' ? (leases.get(String(s.peer.id)) ?? s.last_activity_ms) : s.last_activity_ms;
      this.nodes.set(`${s.role}/${s.peer.id}`, { ...s, last_activity_ms: last });
    }
    return this.nodes.size;
  }

  leaseMsOf(role: NodeRole): number {
    return role === 'datanode' ? this.datanodeLeaseMs : this.frontendLeaseMs;
  }

  isAlive(n: NodeState, now: number): boolean {
    return now - n.last_activity_ms < this.leaseMsOf(n.role);
  }

  /**
   * Records a heartbeat: in memory at once, and in the store in the background; refuses a datanode
   * id held by a live datanode at another address. Returns the state before, if any.
   *
   * A heartbeat never waits for the store: what is kept there only tells a restarted metasrv which
   * nodes it had, and liveness is decided from memory. Were it waited for, a store that stops
   * answering would hold each heartbeat for the store's deadline (5 s for etcd), longer than the
   * node waits for its answer, and leases would lapse for a store outage alone. One write per node
   * at a time: while one is under way, the next heartbeats are kept in memory only (the next one
   * after it is written).
   */
  async record(req: HeartbeatRequest, now: number): Promise<NodeState | undefined> {
    const key = `${req.role}/${req.peer.id}`;
    const before = this.nodes.get(key);
    if (req.role === 'datanode' && before !== undefined && before.peer.addr !== req.peer.addr && this.isAlive(before, now)) {
      throw new TsdbError(
        StatusCode.InvalidArguments,
        `datanode id ${req.peer.id} is already used by the live datanode at ${before.peer.addr} (last heartbeat ${formatDuration(now - before.last_activity_ms)} ago); ` +
          `the heartbeat from ${req.peer.addr} is refused: give every datanode its own node_id`,
      );
    }
    const state: NodeState = {
      peer: { id: req.peer.id, addr: req.peer.addr },
      role: req.role,
      version: req.version,
      start_time_ms: req.start_time_ms,
      last_activity_ms: now,
      region_count: req.regions.length,
      shared_storage: req.shared_storage === true,
    };
    this.nodes.set(key, state);
    if (!this.writing.has(key)) {
      const ops = [{ type: 'put' as const, key: nodeInfoKey(req.role, req.peer.id), value: encode(state) }];
      if (req.role === 'datanode') ops.push({ type: 'put', key: datanodeLeaseKey(req.peer.id), value: encode({ timestamp_millis: now, node_addr: req.peer.addr }) });
      const write = this.kv
        .batch(ops)
        .catch((err: unknown) => this.onPersistError(err))
        .finally(() => this.writing.delete(key));
      this.writing.set(key, write);
    }
    return before;
  }

  /** Waits for the writes of heartbeats under way (stop, tests). */
  async flush(): Promise<void> {
    await Promise.all(this.writing.values());
  }

  datanode(id: number): NodeState | undefined {
    return this.nodes.get(`datanode/${id}`);
  }

  /** Every node known, datanodes then frontends, each by id. */
  list(): NodeState[] {
    const rank = (n: NodeState) => (n.role === 'datanode' ? 0 : 1);
    return [...this.nodes.values()].sort((a, b) => rank(a) - rank(b) || a.peer.id - b.peer.id);
  }

  datanodes(): NodeState[] {
    return this.list().filter((n) => n.role === 'datanode');
  }

  toInfo(n: NodeState, now: number): NodeInfo {
    return {
      peer: n.peer,
      role: n.role,
      version: n.version,
      start_time_ms: n.start_time_ms,
      last_activity_ms: n.last_activity_ms,
      alive: this.isAlive(n, now),
      ...(n.role === 'datanode' && { region_count: n.region_count }),
    };
  }
}
