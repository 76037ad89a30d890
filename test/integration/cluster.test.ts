/**
 * The distributed deployment end to end (issue 16): a metasrv (on a real etcd, or in memory),
 * datanodes and frontends, each a `tsdb` process started here with its own data directory and
 * stopped by PID. What a user of a cluster does: DDL and queries through any frontend, ingestion
 * over every protocol, tables whose regions sit on different datanodes.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { encodeWriteRequest } from '../../src/servers/prometheus/remote-write.js';
import { startEtcd } from '../support/etcd.js';
import { startCluster } from '../support/cluster.js';
import { mysqlClient, pgClient } from '../support/sql-clients.js';
import { cpuRows, greptimeGrpc } from '../support/greptime-grpc.js';
import { TestCluster } from '../support/cluster.js';
import { setTimeout as sleep } from 'node:timers/promises';

test('a cluster on etcd: tables are placed across datanodes, rows written and read through the frontend', async (t) => {
  const etcd = await startEtcd(t);
  const c = await startCluster(t, { etcd: [etcd.endpoint], datanodes: 3 });
  for (let i = 0; i < 6; i++) {
    assert.equal((await c.sql(`CREATE TABLE t${i} (host STRING PRIMARY KEY, ts TIMESTAMP TIME INDEX, v DOUBLE)`)).status, 200);
    assert.equal((await c.sql(`INSERT INTO t${i} VALUES ('a', 1000, ${i}), ('b', 2000, ${i + 0.5})`)).body.output[0]?.affectedrows, 2);
  }
  for (let i = 0; i < 6; i++) assert.deepEqual(await c.rows(`SELECT host, v FROM t${i} ORDER BY host`), [['a', i], ['b', i + 0.5]]);
  // round robin (or any selector) over 3 live datanodes spreads 6 tables over more than one of them.
  const routes = ((await (await fetch(`${c.metasrv.baseUrl}/admin/routes`)).json()) as { tables: Array<{ region_routes: Array<{ leader_peer?: { id: number } }> }> }).tables;
  const leaders = new Set(routes.flatMap((r) => r.region_routes.map((x) => x.leader_peer?.id)));
  assert.ok(leaders.size > 1, `regions on more than one datanode: ${JSON.stringify(routes)}`);
  const info = await c.rows(`SELECT peer_type, node_status FROM information_schema.cluster_info ORDER BY peer_type, peer_id`);
  assert.deepEqual(info.map((r) => r[0]), ['DATANODE', 'DATANODE', 'DATANODE', 'FRONTEND', 'METASRV']);
});

test('two frontends see the same tables: DDL on one is visible on the other', async (t) => {
  const c = await startCluster(t, { datanodes: 1, frontends: 2 });
  assert.equal((await c.sql('CREATE TABLE shared (ts TIMESTAMP TIME INDEX, v DOUBLE)', 0)).status, 200);
  assert.equal((await c.sql('INSERT INTO shared VALUES (1000, 1.5)', 1)).status, 200);
  assert.deepEqual(await c.rows('SELECT v FROM shared', 1), [[1.5]]);
  assert.equal((await c.sql('ALTER TABLE shared ADD COLUMN w BIGINT', 1)).status, 200);
  assert.deepEqual(await c.rows('SELECT v, w FROM shared', 0), [[1.5, null]]);
  assert.equal((await c.sql('DROP TABLE shared', 0)).status, 200);
  const gone = await c.sql('SELECT * FROM shared', 1);
  assert.equal(gone.status, 400, JSON.stringify(gone.body));
  assert.equal(gone.body.code, 4001);

  // Both frontends create one new table by line protocol at once, each adding fields of its own:
  // the loser of each race reads the table again and extends it; every row lands.
  const write = (i: number, lines: string) => fetch(`${c.frontends[i]!.baseUrl}/v1/influxdb/api/v2/write?bucket=public&precision=ms`, { method: 'POST', body: lines });
  const answers = await Promise.all(
    Array.from({ length: 8 }, (_, k) => write(k % 2, `raced,host=h${k} f${k % 4}=${k} ${1000 + k}`)),
  );
  for (const a of answers) assert.equal(a.status, 204, await a.text());
  assert.deepEqual(await c.rows('SELECT count(*), sum(coalesce(f0, 0) + coalesce(f1, 0) + coalesce(f2, 0) + coalesce(f3, 0)) FROM raced', 1), [[8, 28]]);
});

test('ingestion through a frontend: line protocol, Prometheus remote write, MySQL and PostgreSQL; a partitioned table spread over the datanodes', async (t) => {
  const c = await startCluster(t, { datanodes: 3 });
  const fe = c.frontends[0]!;

  // InfluxDB line protocol: the table is created on first write (its region placed by the metasrv).
  const lp = ['cpu,host=a usage=1.5 1000000000', 'cpu,host=b usage=2.5 2000000000', 'cpu,host=a usage=3.5 3000000000'].join('\n');
  const w = await fetch(`${fe.baseUrl}/v1/influxdb/api/v2/write?bucket=public&precision=ns`, { method: 'POST', body: lp });
  assert.equal(w.status, 204, await w.text());
  assert.deepEqual(await c.rows('SELECT host, count(*), sum(usage) FROM cpu GROUP BY host ORDER BY host'), [['a', 2, 5], ['b', 1, 2.5]]);

  // Prometheus remote write: logical metric tables on the physical one.
  const series = [{ labels: [{ name: '__name__', value: 'up' }, { name: 'job', value: 'api' }], samples: [{ timestampMs: 1000, value: 1 }, { timestampMs: 2000, value: 0 }] }];
  const rw = await fetch(`${fe.baseUrl}/v1/prometheus/write`, { method: 'POST', headers: { 'content-type': 'application/x-protobuf', 'content-encoding': 'snappy', 'x-prometheus-remote-write-version': '0.1.0' }, body: encodeWriteRequest(series) });
  assert.equal(rw.status, 204, await rw.text());
  assert.deepEqual(await c.rows('SELECT job, tsdb_value FROM up ORDER BY tsdb_timestamp'), [['api', 1], ['api', 0]]);

  // GreptimeDB's gRPC row inserts (a new table) on the frontend's gRPC port.
  const grpc = greptimeGrpc(t, fe.grpc!);
  const inserted = await grpc.handle(cpuRows('grpc_cpu', [['a', 1000, 1.5], ['b', 2000, null]], { dbname: 'public' }));
  assert.ok(inserted.ok && inserted.value.affected_rows?.value === 2, JSON.stringify(inserted));
  assert.deepEqual(await c.rows('SELECT host, v FROM grpc_cpu ORDER BY host'), [['a', 1.5], ['b', null]]);

  // MySQL and PostgreSQL clients: DDL, writes and reads.
  const mysql = await mysqlClient(fe.mysql!, undefined, 1);
  t.after(() => mysql.close());
  assert.ok((await mysql.run('CREATE TABLE m (k STRING PRIMARY KEY, ts TIMESTAMP TIME INDEX, v BIGINT)')).ok);
  assert.ok((await mysql.run("INSERT INTO m VALUES ('x', 1000, 7), ('y', 2000, 8)")).ok);
  const pg = await pgClient(fe.postgres!, undefined, 1);
  t.after(() => pg.close());
  assert.ok((await pg.run("INSERT INTO m VALUES ('z', 3000, 9)")).ok);
  assert.deepEqual(await c.rows('SELECT k, v FROM m ORDER BY k'), [['x', 7], ['y', 8], ['z', 9]]);

  // A partitioned table: one region per expression, on different datanodes (round robin over 3).
  assert.equal((await c.sql(`CREATE TABLE p (host STRING PRIMARY KEY, ts TIMESTAMP TIME INDEX, v DOUBLE) PARTITION ON COLUMNS (host) (host < 'h', host >= 'h' AND host < 'p', host >= 'p')`)).status, 200);
  const hosts = ['a', 'b', 'c', 'i', 'j', 'q', 'r', 's', 't'];
  assert.equal((await c.sql(`INSERT INTO p VALUES ${hosts.map((h, i) => `('${h}', ${1000 * (i + 1)}, ${i})`).join(', ')}`)).body.output[0]?.affectedrows, hosts.length);
  const peers = await c.rows(`SELECT region_id % 4294967296, peer_id, peer_addr FROM information_schema.region_peers WHERE table_name = 'p' ORDER BY region_id`);
  assert.equal(new Set(peers.map((r) => r[1])).size, 3, `three regions on three datanodes: ${JSON.stringify(peers)}`);
  for (const [, id, addr] of peers) assert.equal(addr, await c.regionAddrOf(Number(id)));
  await c.sql('ADMIN flush_table(\'p\')');
  const rows = await c.rows(`SELECT region_id % 4294967296, region_rows FROM information_schema.region_statistics WHERE table_id = (SELECT table_id FROM information_schema.tables WHERE table_name = 'p') ORDER BY region_id`);
  assert.deepEqual(rows, [[0, 3], [1, 2], [2, 4]], 'each row in the region its expression names');
  assert.deepEqual(await c.rows('SELECT count(*), sum(v), min(host), max(host) FROM p'), [[9, 36, 'a', 't']]);
  assert.deepEqual(await c.rows(`SELECT host, v FROM p WHERE host IN ('b', 'j', 's') ORDER BY host`), [['b', 1], ['j', 4], ['s', 7]]);
  assert.deepEqual(await c.rows(`SELECT host >= 'p' AS late, count(*) FROM p GROUP BY late ORDER BY late`), [[false, 5], [true, 4]]);
});

test('a metasrv whose etcd is down at start says it is not ready, retries, and serves once etcd answers', async (t) => {
  const etcd = await startEtcd(t);
  const endpoint = etcd.endpoint;
  await etcd.stop();
  const c = new TestCluster(t, { etcd: [endpoint] });
  const ms = await c.startMetasrv();
  const ready = await fetch(`${ms.baseUrl}/ready`);
  assert.equal(ready.status, 503);
  const body = (await ready.json()) as { ready: boolean; degraded: Array<{ message: string }> };
  assert.equal(body.ready, false);
  assert.match(body.degraded[0]!.message, new RegExp(`metadata store unreachable: cannot reach etcd at ${endpoint}`));
  await ms.proc.waitForLog((l) => l.level === 'error' && /^metasrv not ready: cannot reach etcd/.test(l.msg));
  // Meta requests answer "not ready" (retryable), not a hang.
  assert.equal((await fetch(`${ms.baseUrl}/admin/nodes`)).status >= 500, true);

  const again = await etcd.restart();
  t.after(() => again.stop());
  for (let i = 0; ; i++) {
    if ((await fetch(`${ms.baseUrl}/ready`)).status === 200) break;
    assert.ok(i < 200, 'the metasrv becomes ready once etcd answers');
    await sleep(100);
  }
  await c.startDatanode(1);
  await c.startFrontend();
  assert.equal((await c.sql('CREATE TABLE t (ts TIMESTAMP TIME INDEX, v DOUBLE)')).status, 200);
  assert.equal((await c.sql('INSERT INTO t VALUES (1, 2)')).status, 200);
  assert.deepEqual(await c.rows('SELECT v FROM t'), [[2]]);
});
