/**
 * `/metrics` in a cluster: the metasrv counts the heartbeats it receives and the regions each
 * datanode reports; each datanode counts the heartbeats it sends and shows its regions, leases
 * and series; the frontend counts the rows it ingests. Every component answers `/metrics`.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startCluster } from '../support/cluster.js';
import { parsePromText, promtoolLint, type Scrape } from '../support/prom-text.js';

async function scrape(baseUrl: string): Promise<Scrape> {
  const res = await fetch(`${baseUrl}/metrics`);
  assert.equal(res.status, 200);
  assert.equal(res.headers.get('content-type'), 'text/plain; version=0.0.4; charset=utf-8');
  const body = await res.text();
  promtoolLint(body);
  return parsePromText(body);
}

async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await probe();
      if (v !== undefined) return v;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}${last !== undefined ? `: ${String(last)}` : ''}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

test('cluster /metrics: metasrv heartbeats and regions per datanode, datanode heartbeats, regions and leases', async (t) => {
  const c = await startCluster(t, { datanodes: 2 });
  const meta0 = await scrape(c.metasrv.baseUrl);
  const dn = [...c.datanodes.values()];
  const dn0 = await Promise.all(dn.map((d) => scrape(d.baseUrl)));

  // 3 regions over the 2 datanodes, 5 rows of 5 series.
  assert.equal((await c.sql(`CREATE TABLE p (host STRING PRIMARY KEY, ts TIMESTAMP TIME INDEX, v DOUBLE) PARTITION ON COLUMNS (host) (host < 'h', host >= 'h' AND host < 'p', host >= 'p')`)).status, 200);
  assert.equal((await c.sql(`INSERT INTO p VALUES ('a', 1000, 1), ('b', 1000, 2), ('i', 1000, 3), ('q', 1000, 4), ('r', 1000, 5)`)).status, 200);

  // The metasrv: heartbeats from both datanodes keep coming; their reports add up to the 3 regions.
  const meta1 = await until('the metasrv to see 3 regions', async () => {
    const m = await scrape(c.metasrv.baseUrl);
    return m.sum('tsdb_meta_datanode_regions') === 3 ? m : undefined;
  });
  assert.deepEqual(meta1.find('tsdb_meta_datanode_regions').map((s) => s.labels['datanode_id']).sort(), ['1', '2']);
  assert.ok(meta1.value('tsdb_meta_heartbeat_recv', { role: 'datanode' }) > meta0.value('tsdb_meta_heartbeat_recv', { role: 'datanode' }));
  assert.ok(meta1.value('tsdb_meta_heartbeat_recv', { role: 'frontend' }) >= 1);
  assert.ok(meta1.value('tsdb_meta_region_leases_granted_total') >= 3);
  assert.equal(meta1.value('tsdb_mito_region_count'), 0);

  // The datanodes: their regions, leased, with the rows' series; heartbeats sent and counted.
  // Waited for together (a loaded machine delays heartbeats and the metasrv's answers naming the table).
  const dn1 = await until('the datanodes to hold 3 leased regions, name table p and send heartbeats', async () => {
    const s = await Promise.all(dn.map((d) => scrape(d.baseUrl)));
    const leased = s.reduce((n, x) => n + x.value('tsdb_datanode_leased_regions'), 0) === 3;
    const named = s.reduce((n, x) => n + x.sum('tsdb_table_series', { db: 'public', table: 'p' }), 0) === 5;
    const beats = s.every((x, i) => x.value('tsdb_datanode_heartbeat_send_total', { result: 'success' }) > dn0[i]!.value('tsdb_datanode_heartbeat_send_total', { result: 'success' }));
    return leased && named && beats ? s : undefined;
  });
  assert.equal(dn1.reduce((n, x) => n + x.value('tsdb_mito_region_count'), 0), 3);
  assert.equal(dn1.reduce((n, x) => n + x.value('tsdb_mito_write_rows_total', { type: 'put' }) - (dn0[dn1.indexOf(x)]!.value('tsdb_mito_write_rows_total', { type: 'put' })), 0), 5);
  // Series per table, named from the metasrv's catalog.
  assert.equal(dn1.reduce((n, x) => n + x.sum('tsdb_table_series', { db: 'public', table: 'p' }), 0), 5);
  for (let i = 0; i < dn.length; i++) {
    assert.ok(dn1[i]!.value('tsdb_datanode_heartbeat_send_total', { result: 'success' }) > dn0[i]!.value('tsdb_datanode_heartbeat_send_total', { result: 'success' }));
    // The region service is gRPC: the frontend's writes and queries are counted by method.
    assert.ok(dn1[i]!.find('tsdb_servers_grpc_requests_total').length > 0);
  }

  // The frontend: the statements and rows it took.
  const fe = await scrape(c.url);
  assert.equal(fe.value('tsdb_servers_ingest_rows_total', { protocol: 'sql' }), 5);
  assert.equal(fe.value('tsdb_query_elapsed_count', { kind: 'sql', statement: 'create_table', result: 'success' }), 1);
  assert.ok(fe.value('process_resident_memory_bytes') > 0);
});
