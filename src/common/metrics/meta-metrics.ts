/**
 * Metrics of a cluster's control plane, named as GreptimeDB's `greptime_meta_*` and
 * `greptime_datanode_*` with the `tsdb_` prefix: on a metasrv, the heartbeats it receives, the
 * region leases it grants and the regions each datanode reports; on a datanode, the heartbeats it
 * sends and the regions whose leases are current.
 */
import { Counter, Gauge } from 'prom-client';
import { metricsRegistry } from './registry.js';

const registers = [metricsRegistry];

export const heartbeatReceived = new Counter({
  name: 'tsdb_meta_heartbeat_recv',
  help: 'Heartbeats a metasrv received, by role of the sender (datanode, frontend)',
  labelNames: ['role'] as const,
  registers,
});

export const leasesGranted = new Counter({
  name: 'tsdb_meta_region_leases_granted_total',
  help: 'Region leases a metasrv granted or renewed in its heartbeat answers',
  registers,
});

export const datanodeRegions = new Gauge({
  name: 'tsdb_meta_datanode_regions',
  help: 'Regions each datanode reported open in its last heartbeat to this metasrv',
  labelNames: ['datanode_id'] as const,
  registers,
});

export const heartbeatSent = new Counter({
  name: 'tsdb_datanode_heartbeat_send_total',
  help: 'Heartbeats a datanode sent to the metasrv, by result (success, failure)',
  labelNames: ['result'] as const,
  registers,
});

export const leasedRegions = new Gauge({
  name: 'tsdb_datanode_leased_regions',
  help: 'Regions of this datanode the metasrv leased in its last heartbeat answer',
  registers,
});
