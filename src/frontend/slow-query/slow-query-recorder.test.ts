import assert from 'node:assert/strict';
import { test } from 'node:test';
import pino from 'pino';
import { StatusCode } from '../../common/error/status-code.js';
import { TsdbError } from '../../common/error/tsdb-error.js';
import { silentLogger } from '../../common/logging.js';
import type { IngestTable } from '../ingest-request.js';
import { QUEUE_CAPACITY, SlowQueryRecorder, type EndedStatement, type SlowQueryRecord, type SlowQuerySink } from './slow-query-recorder.js';
import { SlowQueryTable, slowQueryDdl } from './slow-query-table.js';

const stmt = (query: string, extra: Partial<EndedStatement> = {}): EndedStatement => ({ language: 'sql', query, catalog: 'tsdb', database: 'public', user: 'alice', protocol: 'mysql', ...extra });

class MemorySink implements SlowQuerySink {
  readonly records: SlowQueryRecord[] = [];
  writes = 0;
  closed = false;
  fail: Error | undefined;
  async write(records: readonly SlowQueryRecord[]): Promise<void> {
    this.writes++;
    if (this.fail !== undefined) throw this.fail;
    this.records.push(...records);
  }
  async close(): Promise<void> {
    this.closed = true;
  }
}

test('records statements at or over the threshold, with their text cut, after the caller returns', async () => {
  const sink = new MemorySink();
  const r = new SlowQueryRecorder({ thresholdMs: 100, sampleRatio: 1, sink, logger: silentLogger() });
  r.ended(stmt('SELECT 1'), 99.9);
  r.ended(stmt("INSERT INTO t VALUES ('a', 1)"), 100);
  r.ended(stmt('rate(x[5m])', { language: 'promql', protocol: 'http', promql: { startMs: 1000, endMs: 61_000, stepMs: 15_000 } }), 250.4);
  // Nothing is written on the caller's turn.
  assert.equal(sink.writes, 0);
  await r.flush();
  assert.equal(sink.records.length, 2);
  const [insert, promql] = sink.records;
  assert.deepEqual(
    { ...insert!, timestamp: undefined },
    { cost: 100, threshold: 100, query: 'INSERT INTO t VALUES …', is_promql: false, timestamp: undefined, promql_range: 0, promql_step: 0, promql_start: 0, promql_end: 0, catalog_name: 'tsdb', schema_name: 'public', username: 'alice', protocol: 'mysql' },
  );
  assert.deepEqual(
    { query: promql!.query, cost: promql!.cost, is_promql: promql!.is_promql, range: promql!.promql_range, step: promql!.promql_step, start: promql!.promql_start, end: promql!.promql_end, protocol: promql!.protocol },
    { query: 'rate(x[5m])', cost: 250, is_promql: true, range: 60_000, step: 15_000, start: 1000, end: 61_000, protocol: 'http' },
  );
  // Nanosecond timestamps near now, in order.
  const nowNs = BigInt(Date.now()) * 1_000_000n;
  assert.ok(insert!.timestamp <= promql!.timestamp && nowNs - insert!.timestamp < 5_000_000_000n);
  await r.close();
  assert.ok(sink.closed);
  r.ended(stmt('SELECT 2'), 1000);
  await r.flush();
  assert.equal(sink.records.length, 2, 'nothing is recorded once closed');
});

test('sample_ratio keeps that share of slow statements; 0 keeps none', async () => {
  const none = new MemorySink();
  const r0 = new SlowQueryRecorder({ thresholdMs: 0, sampleRatio: 0, sink: none, logger: silentLogger() });
  for (let i = 0; i < 100; i++) r0.ended(stmt('SELECT 1'), 5);
  await r0.flush();
  assert.equal(none.records.length, 0);
  const half = new MemorySink();
  let n = 0;
  const r = new SlowQueryRecorder({ thresholdMs: 0, sampleRatio: 0.5, sink: half, logger: silentLogger(), random: () => (n++ % 4) / 4 });
  for (let i = 0; i < 100; i++) r.ended(stmt(`SELECT ${i}`), 5);
  await r.flush();
  assert.equal(half.records.length, 50);
});

test('the queue is bounded: a burst beyond it is dropped and counted', async () => {
  const sink = new MemorySink();
  const r = new SlowQueryRecorder({ thresholdMs: 0, sampleRatio: 1, sink, logger: silentLogger() });
  for (let i = 0; i < QUEUE_CAPACITY + 10; i++) r.ended(stmt('SELECT 1'), 1);
  assert.equal(r.dropped, 10);
  await r.flush();
  assert.equal(sink.records.length, QUEUE_CAPACITY);
});

test('a failing sink is logged, never thrown to the statement; later records are written', async () => {
  const sink = new MemorySink();
  const lines: Array<{ level: number; msg: string }> = [];
  const logger = pino({ level: 'info' }, { write: (l: string) => void lines.push(JSON.parse(l) as { level: number; msg: string }) });
  const r = new SlowQueryRecorder({ thresholdMs: 0, sampleRatio: 1, sink, logger });
  sink.fail = new Error('disk on fire');
  r.ended(stmt('SELECT 1'), 1);
  await r.flush();
  assert.equal(sink.records.length, 0);
  assert.ok(lines.some((l) => l.level === 50 && l.msg.includes('cannot record slow queries: disk on fire')));
  sink.fail = undefined;
  r.ended(stmt('SELECT 2'), 1);
  await r.flush();
  assert.deepEqual(sink.records.map((x) => x.query), ['SELECT 2']);
});

test('the table sink creates the table once, and again when it was dropped', async () => {
  const sql: string[] = [];
  const written: IngestTable[] = [];
  let exists = false;
  const table = new SlowQueryTable(
    {
      sql: async (text) => {
        sql.push(text);
        if (text.startsWith('CREATE TABLE')) exists = true;
      },
      ingest: async (t) => {
        if (!exists) throw new TsdbError(StatusCode.TableNotFound, 'Table not found: tsdb.tsdb_private.slow_queries');
        written.push(t);
      },
    },
    90 * 86_400_000,
  );
  const sink = new MemorySink();
  const r = new SlowQueryRecorder({ thresholdMs: 0, sampleRatio: 1, sink, logger: silentLogger() });
  r.ended(stmt('SELECT 1'), 3);
  r.ended(stmt('SELECT 2'), 4);
  await r.flush();
  await table.write(sink.records);
  assert.equal(sql.length, 2);
  assert.ok(sql[1]!.includes("WITH (ttl = '90d', append_mode = 'true')"));
  assert.equal(written[0]!.rowCount, 2);
  assert.deepEqual(written[0]!.columns.map((c) => c.name), ['cost', 'threshold', 'query', 'is_promql', 'timestamp', 'promql_range', 'promql_step', 'promql_start', 'promql_end', 'catalog_name', 'schema_name', 'username', 'protocol']);
  await table.write(sink.records);
  assert.equal(sql.length, 2, 'created once');
  exists = false;
  await table.write(sink.records);
  assert.equal(sql.length, 4, 'created again after a drop');
  assert.equal(written.length, 3);
  assert.ok(slowQueryDdl(0)[1]!.includes("ttl = 'forever'"));
});
