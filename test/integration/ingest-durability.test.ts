/**
 * Rows acknowledged by the ingestion protocols survive a SIGKILL: writers post InfluxDB line
 * protocol, OpenTSDB points and Prometheus remote writes (logical metric-engine tables) while the
 * server is killed; after a restart every acknowledged row is there, and the auto-created tables,
 * their added columns and the metric engine's logical tables are in the catalog.
 */
import assert from 'node:assert/strict';
import { test, type TestContext } from 'node:test';
import { encodeWriteRequest } from '../../src/servers/prometheus/remote-write.js';
import { tempDir } from '../support/temp.js';
import { sqlRows } from '../support/sql-rows.js';
import { startTsdb } from '../support/tsdb-process.js';

async function start(t: TestContext, dir: string) {
  return startTsdb(t, ['standalone', 'start', '--http-addr', '127.0.0.1:0', '--data-home', dir]);
}

const sql = (baseUrl: string, statement: string) => sqlRows(baseUrl, statement);

test('rows acknowledged over line protocol, OpenTSDB and remote write survive a SIGKILL', async (t) => {
  const dir = tempDir(t);
  let server = await start(t, dir);
  const base = server.baseUrl;
  const acked = { influx: [] as number[], opentsdb: [] as number[], prom: [] as number[] };
  let stop = false;
  const post = async (path: string, body: string | Buffer, headers: Record<string, string>): Promise<boolean> => {
    try {
      const res = await fetch(`${base}${path}`, { method: 'POST', headers, body });
      return res.status === 204;
    } catch {
      return false; // the server is gone
    }
  };
  const writers = [
    (async () => {
      // Every 50th write brings a new field, so columns are added while the server dies.
      for (let i = 1; !stop; i++) {
        const extra = i % 50 === 0 ? `,f${i}=1` : '';
        if (await post('/v1/influxdb/write?precision=ms', `lp,host=h${i % 7} n=${i}i${extra} ${i}\n`, { 'content-type': 'text/plain' })) acked.influx.push(i);
      }
    })(),
    (async () => {
      for (let i = 1; !stop; i++) {
        const point = JSON.stringify({ metric: 'otsdb', timestamp: 1_000_000_000_000 + i, value: i, tags: { host: `h${i % 5}` } });
        if (await post('/v1/opentsdb/api/put', point, { 'content-type': 'application/json' })) acked.opentsdb.push(i);
      }
    })(),
    (async () => {
      for (let i = 1; !stop; i++) {
        const body = encodeWriteRequest([{ labels: [{ name: '__name__', value: `prom_m${i % 3}` }, { name: 'job', value: `j${i % 4}` }], samples: [{ timestampMs: i, value: i }] }]);
        if (await post('/v1/prometheus/write', body, { 'content-type': 'application/x-protobuf', 'content-encoding': 'snappy' })) acked.prom.push(i);
      }
    })(),
  ];
  await new Promise((r) => setTimeout(r, 1500));
  await server.proc.stop('SIGKILL');
  stop = true;
  await Promise.all(writers);
  for (const [k, v] of Object.entries(acked)) assert.ok(v.length > 5, `only ${v.length} ${k} writes were acknowledged`);

  server = await start(t, dir);
  const present = async (statement: string) => new Set((await sql(server.baseUrl, statement)).map((r) => Number(r[0])));
  const lp = await present('SELECT n FROM lp');
  for (const i of acked.influx) assert.ok(lp.has(i), `line protocol write ${i} is missing after the restart`);
  const ot = await present('SELECT tsdb_value FROM otsdb');
  for (const i of acked.opentsdb) assert.ok(ot.has(i), `OpenTSDB point ${i} is missing after the restart`);
  const prom = await present('SELECT tsdb_value FROM prom_m0 UNION ALL SELECT tsdb_value FROM prom_m1 UNION ALL SELECT tsdb_value FROM prom_m2');
  for (const i of acked.prom) assert.ok(prom.has(i), `remote write ${i} is missing after the restart`);
  const lastAdded = Math.floor(Math.max(...acked.influx) / 50) * 50;
  if (lastAdded > 0) assert.ok((await sql(server.baseUrl, 'DESC TABLE lp')).some((r) => r[0] === `f${lastAdded}`), `column f${lastAdded} is in the catalog`);
  assert.match(String((await sql(server.baseUrl, 'SHOW CREATE TABLE prom_m0'))[0]![1]), /on_physical_table = 'tsdb_physical_table'/);
});
