/**
 * What a `/metrics` scrape costs on a standalone holding many tables and series: `--tables`
 * tables (created by line protocol) of `--series` series each, then `--scrapes` sequential scrapes,
 * timed by the client (median, p99, max) with the body's size; the same on the empty server first.
 * Also timed: the line-protocol write of one batch with and without a scraper at 10 scrapes/s.
 *
 *   npm run build && node dist/bench/metrics/scrape-bench.js [--tables 1000] [--series 100] [--scrapes 100]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { startTsdb } from '../ingest/tsdb-server.js';

const { values } = parseArgs({
  options: {
    tables: { type: 'string', default: '1000' },
    series: { type: 'string', default: '100' },
    scrapes: { type: 'string', default: '100' },
  },
});
const TABLES = Number(values.tables);
const SERIES = Number(values.series);
const SCRAPES = Number(values.scrapes);
const repoRoot = new URL('../../../', import.meta.url).pathname;

function quantile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

async function scrapes(baseUrl: string, n: number): Promise<{ median: number; p99: number; max: number; bytes: number }> {
  const times: number[] = [];
  let bytes = 0;
  for (let i = 0; i < n; i++) {
    const started = performance.now();
    const res = await fetch(`${baseUrl}/metrics`);
    const body = await res.text();
    times.push(performance.now() - started);
    if (res.status !== 200) throw new Error(`/metrics answered ${res.status}`);
    bytes = body.length;
  }
  times.sort((a, b) => a - b);
  return { median: quantile(times, 0.5), p99: quantile(times, 0.99), max: times.at(-1)!, bytes };
}

async function write(baseUrl: string, body: string): Promise<void> {
  const res = await fetch(`${baseUrl}/v1/influxdb/write?db=public`, { method: 'POST', body });
  if (res.status !== 204) throw new Error(`write answered ${res.status}: ${await res.text()}`);
}

const dir = mkdtempSync(join(tmpdir(), 'tsdb-metrics-bench-'));
const server = await startTsdb(repoRoot, dir);
try {
  const empty = await scrapes(server.baseUrl, SCRAPES);
  const started = performance.now();
  // One request per 10 tables (10 × SERIES lines).
  for (let t = 0; t < TABLES; t += 10) {
    const lines: string[] = [];
    for (let k = t; k < Math.min(TABLES, t + 10); k++) for (let s = 0; s < SERIES; s++) lines.push(`m${k},host=h${s} v=${s} 1700000000000000000`);
    await write(server.baseUrl, lines.join('\n'));
  }
  const loadMs = performance.now() - started;
  const full = await scrapes(server.baseUrl, SCRAPES);
  const text = await (await fetch(`${server.baseUrl}/metrics`)).text();
  const seriesLine = /^tsdb_series (\d+)$/m.exec(text)?.[1];
  const tableLines = text.split('\n').filter((l) => l.startsWith('tsdb_table_series{')).length;

  // Writes of 10,000 lines into the existing tables, alone and with a scraper at 10 scrapes/s.
  const batch = (round: number) => Array.from({ length: 10_000 }, (_, i) => `m${i % TABLES},host=h${Math.floor(i / TABLES) % SERIES} v=${round} ${1700000000000000000 + (round + 1) * 1_000_000_000}`).join('\n');
  const timeWrites = async (rounds: number, offset: number): Promise<number> => {
    const t0 = performance.now();
    for (let r = 0; r < rounds; r++) await write(server.baseUrl, batch(offset + r));
    return (performance.now() - t0) / rounds;
  };
  await timeWrites(5, 200);
  const alone = await timeWrites(20, 0);
  let scraping = true;
  const scraper = (async () => {
    while (scraping) {
      await (await fetch(`${server.baseUrl}/metrics`)).text();
      await new Promise((r) => setTimeout(r, 100));
    }
  })();
  const scraped = await timeWrites(20, 100);
  scraping = false;
  await scraper;

  const fmt = (x: { median: number; p99: number; max: number; bytes: number }) => `median ${x.median.toFixed(2)} ms, p99 ${x.p99.toFixed(2)} ms, max ${x.max.toFixed(2)} ms, body ${(x.bytes / 1024).toFixed(1)} KiB`;
  console.log(`tables ${TABLES}, series per table ${SERIES} (tsdb_series ${seriesLine}, tsdb_table_series lines ${tableLines}); loaded in ${(loadMs / 1000).toFixed(1)} s`);
  console.log(`scrape, empty server:   ${fmt(empty)}`);
  console.log(`scrape, loaded server:  ${fmt(full)}`);
  console.log(`10,000-line write: ${alone.toFixed(1)} ms alone, ${scraped.toFixed(1)} ms with 10 scrapes/s`);
} finally {
  await server.stop();
  rmSync(dir, { recursive: true, force: true });
}
