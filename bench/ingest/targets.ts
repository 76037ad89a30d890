/**
 * Where each system takes each protocol, and how its stored rows or samples are counted afterwards.
 * - tsdb: `POST /v1/influxdb/write?db=public&precision=ns` (table `cpu`) and `POST
 *   /v1/prometheus/write` (one table per metric); counted with `SELECT count(*)` over `POST /v1/sql`.
 * - InfluxDB 1.x: `POST /write?db=benchmark&precision=ns`; counted with `SELECT count(usage_user) FROM cpu`.
 * - VictoriaMetrics: `POST /write?precision=ns` (series `cpu_usage_user` …) and `POST /api/v1/write`;
 *   after `/internal/force_flush`, counted with `sum(count_over_time(…[whole range]))`, polled until
 *   every sample is searchable (VictoriaMetrics makes fresh data searchable within seconds).
 */
import { influxQuery, influxRows, tsdbRows, tsdbSql, vmForceFlush, vmQuery, vmScalar } from '../tsbs/clients.js';
import type { Dataset } from '../tsbs/data.js';
import type { Server, SystemName } from '../tsbs/servers.js';
import { METRICS } from './payloads.js';

export type Protocol = 'line-protocol' | 'remote-write';

export const INFLUX_DB = 'benchmark';

export const REMOTE_WRITE_HEADERS: Readonly<Record<string, string>> = {
  'content-encoding': 'snappy',
  'content-type': 'application/x-protobuf',
  'x-prometheus-remote-write-version': '0.1.0',
};
const LINE_PROTOCOL_HEADERS: Readonly<Record<string, string>> = { 'content-type': 'text/plain; charset=utf-8' };

export interface Target {
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
}

export function target(system: SystemName, protocol: Protocol, baseUrl: string): Target {
  if (protocol === 'line-protocol') {
    const path = system === 'tsdb' ? '/v1/influxdb/write?db=public&precision=ns' : system === 'influxdb' ? `/write?db=${INFLUX_DB}&precision=ns` : '/write?precision=ns';
    return { url: `${baseUrl}${path}`, headers: LINE_PROTOCOL_HEADERS };
  }
  if (system === 'influxdb') throw new Error('InfluxDB 1.x has no Prometheus remote write endpoint');
  return { url: `${baseUrl}${system === 'tsdb' ? '/v1/prometheus/write' : '/api/v1/write'}`, headers: REMOTE_WRITE_HEADERS };
}

/** Before the load: InfluxDB needs its database; tsdb and VictoriaMetrics create what they need. */
export async function setup(srv: Server): Promise<void> {
  if (srv.system !== 'influxdb') return;
  const res = await fetch(`${srv.baseUrl}/query?q=${encodeURIComponent(`CREATE DATABASE ${INFLUX_DB}`)}`, { method: 'POST' });
  const body = await res.text();
  if (!res.ok) throw new Error(`influxdb CREATE DATABASE: HTTP ${res.status} ${body}`);
}

/** What a count answers: line protocol rows (`cpu` rows / usage_user values), or remote write samples (all 10 metrics). */
export function expectedCount(ds: Dataset, protocol: Protocol): number {
  return protocol === 'line-protocol' ? ds.rows : ds.rows * METRICS.length;
}

async function vmCount(srv: Server, ds: Dataset, protocol: Protocol): Promise<number> {
  const window = Math.ceil((ds.endMs - ds.startMs) / 1000) + 60;
  const selector = protocol === 'line-protocol' ? 'cpu_usage_user' : `{__name__=~"${METRICS.join('|')}"}`;
  const t = await vmQuery(srv.baseUrl, { kind: 'instant', query: `sum(count_over_time(${selector}[${window}s]))`, startMs: ds.endMs, endMs: ds.endMs, stepS: 0 });
  return vmScalar(t.body);
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

export interface CountResult {
  readonly count: number;
  readonly how: string;
  /** Time until the count matched (VictoriaMetrics: flush and searchability), or the check's time. */
  readonly seconds: number;
}

export async function countStored(srv: Server, ds: Dataset, protocol: Protocol): Promise<CountResult> {
  const t0 = performance.now();
  const done = (count: number, how: string): CountResult => ({ count, how, seconds: (performance.now() - t0) / 1000 });
  switch (srv.system) {
    case 'tsdb': {
      const sql = protocol === 'line-protocol'
        ? 'SELECT count(*) AS n FROM cpu'
        : `SELECT sum(n) AS n FROM (${METRICS.map((m) => `SELECT count(*) AS n FROM ${m}`).join(' UNION ALL ')})`;
      const rows = tsdbRows((await tsdbSql(srv.baseUrl, 'public', sql)).body);
      return done(Number(rows[0]?.['n'] ?? Number.NaN), protocol === 'line-protocol' ? 'SELECT count(*) FROM cpu' : 'sum of SELECT count(*) FROM cpu_usage_* (10 tables)');
    }
    case 'influxdb': {
      const rows = influxRows((await influxQuery(srv.baseUrl, INFLUX_DB, 'SELECT count(usage_user) FROM cpu')).body);
      return done(Number(rows[0]?.['count'] ?? Number.NaN), 'SELECT count(usage_user) FROM cpu');
    }
    case 'victoriametrics': {
      const expected = expectedCount(ds, protocol);
      const flushed = await vmForceFlush(srv.baseUrl);
      const deadline = performance.now() + 120_000;
      let n = await vmCount(srv, ds, protocol);
      while (n !== expected && performance.now() < deadline) {
        await sleep(500);
        await vmForceFlush(srv.baseUrl);
        n = await vmCount(srv, ds, protocol);
      }
      const sel = protocol === 'line-protocol' ? 'cpu_usage_user' : 'cpu_usage_*';
      return done(n, `${flushed ? '/internal/force_flush, ' : ''}sum(count_over_time(${sel}[range])), polled until complete (≤ 120 s)`);
    }
  }
}
