/**
 * What reading a query's result costs, by the two paths `runQuery` has (issue 17 item 6): DuckDB's
 * values one per cell (`readResult`) against DuckDB's vectors copied to Arrow in bulk and converted
 * by a typed loop per column (`readRecords`; its first step, `queryArrow`, timed alone too), and then the JSON text of the rows (`toJson`, as
 * `/v1/sql` writes them). Data: TSBS cpu-only's shape (10 tags of TSBS's value sets, a millisecond
 * time index, 10 doubles), `--rows` rows in an in-memory DuckDB table; the query is high-cpu-all's
 * `SELECT *`. Rounds alternate the paths; every answer is compared with readResult's.
 *
 *   npm run build && node dist/bench/result-read/main.js [--rows 45624] [--rounds 15]
 */
import assert from 'node:assert/strict';
import { parseArgs } from 'node:util';
import { DuckDBInstance } from '@duckdb/node-api';
import { fmt, loadAverages, machine } from '../common/machine.js';
import { readRecords } from '../../src/query/arrow-records.js';
import { queryArrow } from '../../src/query/arrow-result.js';
import { readResult } from '../../src/query/result-conversion.js';
import { toJson } from '../../src/servers/http/sql-format.js';

const { values: opts } = parseArgs({ options: { rows: { type: 'string', default: '45624' }, rounds: { type: 'string', default: '15' } } });
const rows = Number(opts.rows);
const rounds = Number(opts.rounds);
if (!Number.isInteger(rows) || rows < 1 || !Number.isInteger(rounds) || rounds < 1) throw new Error('--rows and --rounds are positive integers');

const load = loadAverages();
const startedAt = new Date();
const db = await DuckDBInstance.create(':memory:', { threads: '1' });
const conn = await db.connect();
await conn.run(`CREATE TABLE cpu AS SELECT 'host_' || (i % 100) AS hostname, ['us-west-1', 'us-west-2', 'eu-west-1', 'ap-south-1'][i % 4 + 1] AS region,
  ['us-west-1a', 'us-west-1b', 'eu-west-1c'][i % 3 + 1] AS datacenter, (i % 100)::VARCHAR AS rack, ['Ubuntu16.04LTS', 'Ubuntu15.10', 'Ubuntu16.10'][i % 3 + 1] AS os,
  ['x86', 'x64'][i % 2 + 1] AS arch, ['SF', 'NYC', 'LON', 'CHI'][i % 4 + 1] AS team, (i % 20)::VARCHAR AS service, (i % 2)::VARCHAR AS service_version,
  ['production', 'staging', 'test'][i % 3 + 1] AS service_environment, make_timestamp(1451606400000000 + i * 10000000)::TIMESTAMP_MS AS ts,
  random() * 100 AS usage_user, random() * 100 AS usage_system, random() * 100 AS usage_idle, random() * 100 AS usage_nice, random() * 100 AS usage_iowait,
  random() * 100 AS usage_irq, random() * 100 AS usage_softirq, random() * 100 AS usage_steal, random() * 100 AS usage_guest, random() * 100 AS usage_guest_nice
  FROM range(${rows}) r(i)`);
const sql = 'SELECT * FROM cpu';
const expected = await readResult(conn, sql);
const times = { readResult: [] as number[], readRecords: [] as number[], 'of which queryArrow (DuckDB to Arrow batches)': [] as number[], json: [] as number[] };
for (let r = 0; r < rounds + 1; r++) {
  let t = performance.now();
  const a = await readResult(conn, sql);
  const ta = performance.now() - t;
  t = performance.now();
  const b = await readRecords(conn, sql);
  const tb = performance.now() - t;
  assert.deepEqual(b, expected);
  t = performance.now();
  const stream = await queryArrow(conn, sql);
  let batched = 0;
  for await (const batch of stream.batches) batched += batch.numRows;
  const tq = performance.now() - t;
  assert.equal(batched, rows);
  assert.equal(a.rows.length, rows);
  t = performance.now();
  const text = toJson(b.rows);
  const tj = performance.now() - t;
  assert.ok(text.length > rows);
  // The first round warms up.
  if (r === 0) continue;
  times.readResult.push(ta);
  times.readRecords.push(tb);
  times['of which queryArrow (DuckDB to Arrow batches)'].push(tq);
  times.json.push(tj);
}
const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[xs.length >> 1]!;
process.stdout.write(`## Reading a ${rows.toLocaleString('en-US')}-row TSBS answer (SELECT * of cpu, 21 columns)\n\n`);
process.stdout.write(`${machine(load)}; started ${startedAt.toISOString()}; medians of ${rounds} rounds, every answer equal to readResult's.\n\n`);
process.stdout.write('| step | median ms | per row µs |\n|---|---:|---:|\n');
for (const [name, xs] of Object.entries(times)) process.stdout.write(`| ${name} | ${fmt(median(xs), 1)} | ${fmt((median(xs) * 1000) / rows, 2)} |\n`);
process.stdout.write(`\nreadRecords / readResult: ${fmt(median(times.readRecords) / median(times.readResult), 2)}×\n`);
conn.closeSync();
