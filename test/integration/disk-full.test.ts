/**
 * A full disk never takes tsdb down (issue 13 item 4): on a small tmpfs the test mounts, holding
 * the data home, the WAL and the logs, a filler file takes the last byte. Writes are refused with
 * a clear, retryable 503; reads and /health keep answering, /health names the condition; a flush
 * fails without losing rows; once the filler is gone writes resume without a restart, and a
 * restart finds every acknowledged row.
 */
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { fillDisk, mountTmpfs } from '../support/tmpfs.js';
import { startTsdb } from '../support/tsdb-process.js';

interface Health {
  readonly degraded?: ReadonlyArray<{ readonly source: string; readonly message: string }>;
}

/** A fetch that must answer within `ms`: a server that hangs fails the test instead of stalling it. */
async function timedFetch(url: string, init: RequestInit = {}, ms = 10_000): Promise<Response> {
  return fetch(url, { ...init, signal: AbortSignal.timeout(ms) });
}

/** POST /v1/sql with `sql` in a form body. */
function sql(base: string, text: string): Promise<Response> {
  return timedFetch(`${base}/v1/sql`, { method: 'POST', body: new URLSearchParams({ sql: text }) });
}

test('a full disk: writes refused with a retryable 503, reads and /health answer, writes resume when space returns, nothing acknowledged is lost', async (t) => {
  const disk = mountTmpfs(t, 48);
  const args = ['standalone', 'start', '--http-addr', '127.0.0.1:0', '--data-home', join(disk, 'home'), '--log-dir', join(disk, 'logs')];
  const first = await startTsdb(t, args);
  const base = first.baseUrl;

  let next = 0;
  let acknowledged = 0;
  /** Posts a batch of `rows` line-protocol rows of distinct timestamps; returns the response. */
  const write = async (rows: number): Promise<Response> => {
    const from = next;
    next += rows;
    const body = Array.from({ length: rows }, (_, k) => `m,host=h${(from + k) % 50} v=${from + k}i ${1_700_000_000_000 + from + k}`).join('\n');
    const res = await timedFetch(`${base}/v1/influxdb/write?db=public&precision=ms`, { method: 'POST', body });
    if (res.status === 204) acknowledged += rows;
    return res;
  };
  const count = async (): Promise<number> => {
    const res = await sql(base, 'SELECT count(*) FROM m');
    assert.equal(res.status, 200);
    const body = (await res.json()) as { output: Array<{ records: { rows: number[][] } }> };
    return body.output[0]!.records.rows[0]![0]!;
  };
  const health = async (): Promise<Health> => {
    const res = await timedFetch(`${base}/health`);
    assert.equal(res.status, 200, '/health keeps its 200');
    return (await res.json()) as Health;
  };

  assert.equal((await write(1000)).status, 204);
  assert.deepEqual(await health(), {});

  fillDisk(join(disk, 'filler'));
  // The pages the WAL segment already has may take a small write: batches of ~20,000 rows do not fit.
  let refused: Response | undefined;
  for (let i = 0; i < 10 && refused === undefined; i++) {
    const res = await write(20_000);
    if (res.status !== 204) refused = res;
  }
  assert.ok(refused !== undefined, 'a write is refused on the full disk');
  assert.equal(refused.status, 503);
  assert.match(((await refused.json()) as { error: string }).error, /^WAL write to .* failed: no space left on the device; the write was not applied, retry it later$/);
  // Refused again, quickly, and the server keeps answering everything else.
  for (let i = 0; i < 3; i++) assert.equal((await write(20_000)).status, 503);
  const degraded = await health();
  assert.ok(degraded.degraded?.some((c) => c.source === 'wal' && /no space left on the device/.test(c.message)), JSON.stringify(degraded));
  assert.equal(await count(), acknowledged);
  const one = await sql(base, 'SELECT 1');
  assert.equal(one.status, 200);
  // A table cannot be created (its manifest cannot be written): refused the same way, also when a
  // write would create it.
  const create = await sql(base, 'CREATE TABLE t2 (ts TIMESTAMP TIME INDEX, v DOUBLE)');
  assert.equal(create.status, 503, await create.clone().text());
  assert.equal(((await create.json()) as { code: number }).code, 5000);
  const autoCreate = await timedFetch(`${base}/v1/influxdb/write?db=public&precision=ms`, { method: 'POST', body: 'other v=1i 1700000000000' });
  assert.equal(autoCreate.status, 503, await autoCreate.clone().text());
  // A flush cannot write its file: it fails, and the rows stay (in memory and in the WAL).
  const flush = await sql(base, "ADMIN flush_table('m')");
  assert.equal(flush.status, 503, await flush.clone().text());
  assert.equal(await count(), acknowledged);

  rmSync(join(disk, 'filler'));
  assert.equal((await write(20_000)).status, 204, 'writes resume without a restart');
  assert.equal((await write(1000)).status, 204);
  assert.equal(await count(), acknowledged);
  // The WAL condition ends with the first write that succeeds; the log files' with their next write.
  for (const started = Date.now(); (await health()).degraded !== undefined; ) {
    assert.ok(Date.now() - started < 10_000, `still degraded: ${JSON.stringify(await health())}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  // The flush that failed is retried and succeeds now.
  assert.equal((await sql(base, "ADMIN flush_table('m')")).status, 200);
  assert.equal((await write(1000)).status, 204);
  assert.equal((await sql(base, 'CREATE TABLE t2 (ts TIMESTAMP TIME INDEX, v DOUBLE)')).status, 200);

  assert.deepEqual(await first.proc.stop(), { code: 0, signal: null });
  const again = await startTsdb(t, args);
  const res = await sql(again.baseUrl, 'SELECT count(*), count(DISTINCT v) FROM m');
  const rows = ((await res.json()) as { output: Array<{ records: { rows: number[][] } }> }).output[0]!.records.rows;
  assert.deepEqual(rows, [[acknowledged, acknowledged]], 'every acknowledged row, once, after a restart');
  assert.deepEqual(await again.proc.stop(), { code: 0, signal: null });
});
