/**
 * Selective queries with and without the inverted index, on TSBS-shaped cpu data (bench/tsbs's
 * tags of --hosts hosts, every tag `INVERTED INDEX`; three fields) over --days days at one row per
 * host every --interval seconds, flushed every --flush-hours hours of data (one SST each).
 * In process: a standalone frontend over a region engine in a temporary directory (catalog in a
 * LevelDB), loaded by writing batches to the engine straight (what is measured is reads), then
 * closed and opened again with `apply_on_query` = auto and = disable in turn, for --rounds rounds.
 * Per query: median of --runs (after one warm-up) in each mode, row groups read (of all), and the
 * answers compared.
 *
 *   npm run build && node dist/bench/inverted-index/main.js [--hosts 4000 --days 3 --interval 60 --runs 5 --rounds 2]
 *     [--create-index false --rounds 0]: load only, without building indexes (their cost in the flushes)
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { CatalogManager } from '../../src/catalog/catalog-manager.js';
import { regionDir, tableRegionIds } from '../../src/catalog/table-info.js';
import { silentLogger } from '../../src/common/logging.js';
import { LocalRegionServer } from '../../src/datanode/local-region-server.js';
import type { IndexScanStats } from '../../src/engine/read/region-scan.js';
import { RegionEngine } from '../../src/engine/region-engine.js';
import { DEFAULT_INVERTED_INDEX_OPTIONS } from '../../src/engine/sst/inverted-index-builder.js';
import { sstPath } from '../../src/engine/sst/file-meta.js';
import { FrontendInstance } from '../../src/frontend/instance.js';
import { newSession } from '../../src/frontend/session.js';
import { LevelKvBackend } from '../../src/meta/kv/level-kv-backend.js';
import type { RegionId } from '../../src/types/region-id.js';
import type { ScanRequest } from '../../src/types/scan-request.js';
import { OP_PUT, type Vector } from '../../src/types/write-batch.js';
import { testEngineOptions } from '../../test/support/engine.js';
import { generate, Rng, TAGS } from '../tsbs/data.js';

const { values: opts } = parseArgs({
  options: {
    hosts: { type: 'string', default: '4000' },
    days: { type: 'string', default: '3' },
    interval: { type: 'string', default: '60' },
    'flush-hours': { type: 'string', default: '6' },
    runs: { type: 'string', default: '5' },
    rounds: { type: 'string', default: '2' },
    /** `false`: the load writes no index (create_on_flush = disable), to measure what building it costs. */
    'create-index': { type: 'string', default: 'true' },
  },
});
const HOSTS = Number(opts.hosts);
const INTERVAL_MS = Number(opts.interval) * 1000;
const STEPS = Math.round((Number(opts.days) * 86_400_000) / INTERVAL_MS);
const FLUSH_STEPS = Math.round((Number(opts['flush-hours']) * 3_600_000) / INTERVAL_MS);
const RUNS = Number(opts.runs);
const START_MS = Date.UTC(2016, 0, 1);
const FIELDS = ['usage_user', 'usage_system', 'usage_idle'];

const log = (msg: string) => process.stderr.write(`[inverted-index] ${msg}\n`);

class StatsAccess extends LocalRegionServer {
  last: IndexScanStats | undefined;
  get regionEngine(): RegionEngine {
    return this.engine;
  }
  override async scanRelation(id: RegionId, request: ScanRequest = {}, signal?: AbortSignal) {
    const t0 = performance.now();
    const s = await this.engine.scan(id, request, signal);
    const sql = s.relation();
    this.last = s.indexStats;
    if (process.env['INVIDX_DEBUG'] !== undefined) log(`scan ${(performance.now() - t0).toFixed(2)} ms: ${sql.slice(0, 2000)}`);
    return { sql, release: () => s.release() };
  }
}

async function open(dir: string, applyOnQuery: boolean, createOnFlush = true) {
  const engine = await RegionEngine.open({
    ...testEngineOptions(dir, { compactAfterFlush: false, scanParallelism: Math.min(2, cpus().length), logger: silentLogger() }),
    globalWriteBufferSize: 8 * 2 ** 30,
    globalWriteBufferRejectSize: 16 * 2 ** 30,
    invertedIndex: { ...DEFAULT_INVERTED_INDEX_OPTIONS, applyOnQuery, createOnFlush, intermediateDir: join(dir, 'index_intermediate') },
  });
  const kv = await LevelKvBackend.open(join(dir, 'kv'));
  const access = new StatsAccess(engine);
  const fe = new FrontendInstance(await CatalogManager.open(kv), access, engine.duckdb);
  await fe.openTables();
  const session = newSession();
  return {
    fe,
    access,
    engine,
    sql: (q: string) => fe.executeSql(q, session),
    close: async () => {
      await engine.close();
      await kv.close();
    },
  };
}

const dir = mkdtempSync(join(tmpdir(), 'tsdb-invidx-bench-'));
process.on('exit', () => rmSync(dir, { recursive: true, force: true }));

// ---- load ----
const tagValues = generate(HOSTS, 0, 42).tagValues;
const loadStarted = performance.now();
let flushMs = 0;
{
  const db = await open(dir, true, opts['create-index'] !== 'false');
  await db.sql(
    `CREATE TABLE cpu (${TAGS.map((t) => `${t} STRING INVERTED INDEX`).join(', ')}, ts TIMESTAMP(3) NOT NULL, ${FIELDS.map((f) => `${f} DOUBLE`).join(', ')}, TIME INDEX (ts), PRIMARY KEY (${TAGS.join(', ')}))`,
  );
  const info = (await db.fe.catalog.table('public', 'cpu'))!;
  const id = tableRegionIds(info)[0]!;
  const md = db.engine.region(id).metadata;
  const byName = new Map(md.columns.map((c) => [c.name, c.column_id]));
  const rng = new Rng(7);
  const state = Float64Array.from({ length: HOSTS * FIELDS.length }, () => rng.float() * 100);
  const STEPS_PER_BATCH = Math.max(1, Math.floor(200_000 / HOSTS));
  for (let s0 = 0; s0 < STEPS; s0 += STEPS_PER_BATCH) {
    const steps = Math.min(STEPS_PER_BATCH, STEPS - s0);
    const n = steps * HOSTS;
    const tags = TAGS.map(() => new Array<string>(n));
    const ts = new BigInt64Array(n);
    const fields = FIELDS.map(() => new Float64Array(n));
    let r = 0;
    for (let s = 0; s < steps; s++) {
      for (let h = 0; h < HOSTS; h++, r++) {
        for (let k = 0; k < TAGS.length; k++) tags[k]![r] = tagValues[h]![k]!;
        ts[r] = BigInt(START_MS + (s0 + s) * INTERVAL_MS);
        for (let f = 0; f < FIELDS.length; f++) {
          const i = h * FIELDS.length + f;
          const v = state[i]! + rng.normal();
          state[i] = v < 0 ? 0 : v > 100 ? 100 : v;
          fields[f]![r] = state[i]!;
        }
      }
    }
    const columns = new Map<number, Vector>();
    TAGS.forEach((t, k) => columns.set(byName.get(t)!, { type: 'string', data: tags[k]! }));
    columns.set(byName.get('ts')!, { type: 'int64', data: ts });
    FIELDS.forEach((f, k) => columns.set(byName.get(f)!, { type: 'float64', data: fields[k]! }));
    await db.engine.write(id, { op: OP_PUT, rowCount: n, columns });
    const done = s0 + steps;
    if (done % FLUSH_STEPS < STEPS_PER_BATCH || done === STEPS) {
      const t0 = performance.now();
      await db.engine.flushRegion(id);
      flushMs += performance.now() - t0;
    }
  }
  const files = db.engine.region(id).files();
  const dirPath = join(dir, 'data', regionDir(info, 0));
  const sstBytes = files.reduce((a, f) => a + statSync(join(dir, 'data', sstPath(regionDir(info, 0), f.file_id))).size, 0);
  const indexBytes = files.reduce((a, f) => a + (f.index_file_size ?? 0), 0);
  log(`loaded ${STEPS * HOSTS} rows (${HOSTS} hosts × ${STEPS} steps of ${INTERVAL_MS / 1000} s) in ${((performance.now() - loadStarted) / 1000).toFixed(1)} s, flushes ${(flushMs / 1000).toFixed(1)} s; ${files.length} SSTs, ${files.reduce((a, f) => a + f.num_row_groups, 0)} row groups, ${(sstBytes / 2 ** 20).toFixed(1)} MiB; indexes ${(indexBytes / 2 ** 20).toFixed(2)} MiB (${dirPath})`);
  await db.close();
}

// ---- queries ----
const t = (ms: number) => `'${new Date(ms).toISOString().replace('T', ' ').replace('Z', '')}'`;
const mid = START_MS + Math.floor(STEPS / 2) * INTERVAL_MS;
const host = (h: number) => `'host_${h}'`;
const eightHosts = [17, 503, 977, 1401, 2222, 2890, 3333, 3999].filter((h) => h < HOSTS).map(host).join(', ');
const QUERIES: ReadonlyArray<[string, string]> = [
  ['1 host, 1 h (single-groupby-1-1-1)', `SELECT max(usage_user) FROM cpu WHERE hostname = ${host(1234 % HOSTS)} AND ts >= ${t(mid)} AND ts < ${t(mid + 3_600_000)}`],
  ['1 host, all days', `SELECT count(*), max(usage_user) FROM cpu WHERE hostname = ${host(1234 % HOSTS)}`],
  ['8 hosts IN, 12 h', `SELECT hostname, max(usage_user) FROM cpu WHERE hostname IN (${eightHosts}) AND ts >= ${t(mid)} AND ts < ${t(mid + 12 * 3_600_000)} GROUP BY hostname ORDER BY hostname`],
  ['rack = (1% of hosts, spread)', `SELECT count(*), round(avg(usage_user), 6) FROM cpu WHERE rack = '57'`],
  ['region = and service = ', `SELECT count(*), round(avg(usage_user), 6) FROM cpu WHERE region = 'eu-west-1' AND service = '7'`],
  ['hostname ~ regex (10 hosts)', `SELECT count(*), max(usage_user) FROM cpu WHERE hostname ~ 'host_12[0-9]'`],
  ['hostname LIKE (11 hosts)', `SELECT count(*), max(usage_user) FROM cpu WHERE hostname LIKE 'host_399%'`],
  ['hostname != (not selective)', `SELECT count(*) FROM cpu WHERE hostname != 'host_1'`],
  ['rack NOT IN all but one', `SELECT count(*) FROM cpu WHERE rack NOT IN (${Array.from({ length: 100 }, (_, i) => `'${i}'`).filter((v) => v !== "'3'").join(', ')})`],
];

type Mode = 'index' | 'no index';
const times = new Map<string, Record<Mode, number[]>>();
const groups = new Map<string, Record<Mode, string>>();
const answers = new Map<string, Record<Mode, string>>();
for (let round = 0; round < Number(opts.rounds); round++) {
  for (const mode of ['index', 'no index'] as const) {
    const db = await open(dir, mode === 'index');
    for (const [name, q] of QUERIES) {
      await db.sql(q);
      const ms: number[] = [];
      let answer = '';
      for (let i = 0; i < RUNS; i++) {
        const t0 = performance.now();
        const [out] = await db.sql(q);
        ms.push(performance.now() - t0);
        answer = JSON.stringify((out as unknown as { rows: unknown[][] }).rows, (_k, v: unknown) => (typeof v === 'bigint' ? String(v) : v));
      }
      const entry = times.get(name) ?? { index: [], 'no index': [] };
      entry[mode].push(...ms);
      times.set(name, entry);
      const st = db.access.last!;
      groups.set(name, { ...(groups.get(name) ?? { index: '', 'no index': '' }), [mode]: mode === 'index' ? `${st.rowGroupsSelected}/${st.rowGroups}${st.filesSkipped > 0 ? ` (${st.filesSkipped} files skipped)` : ''}` : 'all' });
      answers.set(name, { ...(answers.get(name) ?? { index: '', 'no index': '' }), [mode]: answer });
    }
    await db.close();
    log(`round ${round + 1}: ${mode} done`);
  }
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 === 1 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};
console.log(`| query | no index (ms) | index (ms) | ratio | row groups read with the index | same answer |`);
console.log(`|---|---:|---:|---:|---|---|`);
for (const [name] of QUERIES) {
  const tm = times.get(name)!;
  const a = median(tm['no index']);
  const b = median(tm.index);
  const ans = answers.get(name)!;
  if (ans.index !== ans['no index']) log(`${name}: ${ans.index} vs ${ans['no index']}`);
  console.log(`| ${name} | ${a.toFixed(1)} | ${b.toFixed(1)} | ${(b / a).toFixed(2)} | ${groups.get(name)!.index} | ${ans.index === ans['no index'] ? 'yes' : 'NO'} |`);
}
