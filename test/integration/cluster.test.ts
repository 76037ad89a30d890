/**
 * The distributed deployment end to end (issue 16): a metasrv (on a real etcd, or in memory),
 * datanodes and frontends, each a `tsdb` process started here with its own data directory and
 * stopped by PID. What a user of a cluster does: DDL and queries through any frontend, ingestion
 * over every protocol, tables whose regions sit on different datanodes.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startEtcd } from '../support/etcd.js';
import { startCluster } from '../support/cluster.js';

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
});
