/**
 * The benchmark's figures and their Markdown: per size, the systems (load, memory, disk, single-row
 * writes), tsdb's data states, the query × column table of medians like issue 17's (a column per
 * system and state), tsdb against VictoriaMetrics, every answer's check against the reference
 * system's and the mismatches; and across two sizes, each figure's growth factor beside the data's.
 */
import type { Comparison } from './clients.js';
import type { LatencyResult, LoadResult } from './load.js';
import type { QueryDef, SqlVariant } from './queries.js';
import type { TsbsSystem } from './servers.js';

export interface QueryResult {
  readonly medianMs: number | null;
  readonly runsMs: readonly number[];
  readonly warmupMs: number | null;
  /** Rows (SQL systems, InfluxDB) or points (VictoriaMetrics) of the answer. */
  readonly resultSize: number | null;
  readonly error?: string;
  readonly note?: string;
}

export interface StateResult {
  readonly name: string;
  note: string;
  warnings: string[];
  idleWaitMs?: number;
  rssBytes?: number;
  diskBytes?: number;
  diskBreakdown?: Record<string, number>;
  queries: Record<string, QueryResult>;
}

export interface SystemResult {
  readonly system: TsbsSystem;
  version: string;
  startupMs?: number;
  load?: LoadResult;
  postLoadSeconds?: number;
  postLoadNote?: string;
  count?: number;
  states: StateResult[];
  /** The last state's queries (what older readers of the JSON, e.g. compare-builds, look at). */
  queries: Record<string, QueryResult>;
  single?: LatencyResult;
  error?: string;
}

/** One size's run. */
export interface SizeRun {
  readonly hosts: number;
  readonly hours: number;
  readonly rows: number;
  readonly machine: string;
  readonly startedAt: string;
  readonly seconds: number;
  readonly systems: readonly TsbsSystem[];
  /** The system every other SQL answer is compared with. */
  readonly reference: string | null;
  readonly queries: readonly QueryDef[];
  readonly variants: readonly SqlVariant[];
  readonly results: Partial<Record<TsbsSystem, SystemResult>>;
  /** By column key (`tsdb/flushed`, `clickhouse/loaded`…), then query name. */
  readonly comparisons: Record<string, Record<string, Comparison>>;
}

export interface ReportOptions {
  readonly command: string;
  readonly seed: number;
  readonly querySeed: number;
  readonly batch: number;
  readonly concurrency: number;
  readonly runs: number;
  readonly tsdbLoad: 'lp' | 'sql';
}

export const NAMES: Record<TsbsSystem, string> = {
  tsdb: 'tsdb',
  'tsdb-cluster': 'tsdb via frontend',
  influxdb: 'InfluxDB',
  victoriametrics: 'VictoriaMetrics',
  clickhouse: 'ClickHouse',
  postgresql: 'PostgreSQL',
};

/** Table order: tsdb's columns first (flushed, then memtable, as issue 17's table), then the peers. */
const ORDER: readonly TsbsSystem[] = ['tsdb', 'tsdb-cluster', 'victoriametrics', 'clickhouse', 'influxdb', 'postgresql'];
const STATE_ORDER = ['flushed', 'memtable', 'loaded'];

export interface Column {
  readonly key: string;
  readonly system: TsbsSystem;
  readonly state: StateResult;
  readonly label: string;
}

export function columnKey(system: TsbsSystem, state: string): string {
  return `${system}/${state}`;
}

export function columns(run: SizeRun): Column[] {
  const out: Column[] = [];
  for (const s of ORDER) {
    const r = run.results[s];
    if (r === undefined) continue;
    const states = [...r.states].sort((a, b) => STATE_ORDER.indexOf(a.name) - STATE_ORDER.indexOf(b.name));
    for (const st of states) {
      out.push({ key: columnKey(s, st.name), system: s, state: st, label: st.name === 'loaded' ? NAMES[s] : `${NAMES[s]} (${st.name})` });
    }
  }
  return out;
}

export function fmtMs(r: QueryResult | undefined): string {
  if (r === undefined) return '–';
  if (r.error !== undefined) return 'error';
  if (r.medianMs === null) return 'n/a';
  const m = r.medianMs;
  return m < 10 ? m.toFixed(2) : m < 100 ? m.toFixed(1) : Math.round(m).toLocaleString('en-US');
}

function int(n: number): string {
  return Math.round(n).toLocaleString('en-US');
}

function mib(b: number): string {
  return `${(b / 2 ** 20).toFixed(1)} MiB`;
}

function disk(st: StateResult): string {
  if (st.diskBytes === undefined) return '–';
  const parts = Object.entries(st.diskBreakdown ?? {}).filter(([, b]) => b >= 2 ** 19);
  return parts.length > 1 ? `${mib(st.diskBytes)} (${parts.map(([k, b]) => `${k} ${mib(b)}`).join(', ')})` : mib(st.diskBytes);
}

function ratio(a: QueryResult | undefined, b: QueryResult | undefined): string {
  if (a?.medianMs == null || b?.medianMs == null || a.error !== undefined || b.error !== undefined) return '–';
  const r = a.medianMs / b.medianMs;
  return r > 1 ? `**${r.toFixed(2)}×**` : `${r.toFixed(2)}×`;
}

/** The check column of a query: which columns agree with the reference, which do not. */
function checkCell(run: SizeRun, cols: readonly Column[], name: string): string {
  if (run.reference === null) return '–';
  const ok: string[] = [];
  const bad: string[] = [];
  let rows: number | undefined;
  for (const c of cols) {
    const cmp = run.comparisons[c.key]?.[name];
    if (cmp === undefined) continue;
    rows = cmp.influxRows;
    (cmp.ok ? ok : bad).push(c.label);
  }
  if (ok.length === 0 && bad.length === 0) return '–';
  const refRows = rows === undefined ? '' : ` (${int(rows)} rows)`;
  return bad.length === 0 ? `all ${ok.length} = ${run.reference}${refRows}` : `**≠ ${run.reference}: ${bad.join(', ')}**${ok.length > 0 ? `; ${ok.length} equal` : ''}`;
}

export function sizeReport(run: SizeRun, o: ReportOptions): string {
  const out: string[] = [];
  const cols = columns(run);
  out.push(`## TSBS cpu-only: ${int(run.hosts)} hosts × ${run.hours} h = ${int(run.rows)} rows (${int(run.rows * 10)} values)`);
  out.push('');
  out.push(`Command: \`${o.command}\`. Started ${run.startedAt.slice(0, 16).replace('T', ' ')} UTC, ${Math.round(run.seconds)} s in all. Machine: ${run.machine}.`);
  out.push('');
  out.push(`Data seed ${o.seed}, query seed ${o.querySeed}; load: batches of ${o.batch} rows, ${o.concurrency} requests in flight, each system in its bulk format (tsdb: ${o.tsdbLoad === 'lp' ? 'line protocol, `/v1/influxdb/write`' : 'INSERT over `/v1/sql`'}; InfluxDB, VictoriaMetrics: line protocol; ClickHouse: TSV over HTTP; PostgreSQL: COPY text); queries: 1 warm-up + median of ${o.runs}, client-side wall time; the servers run one at a time, each waited for until idle before its queries.`);
  out.push('');
  out.push('| system | version | load rows/s | load s | after load | rows counted | single-row write p50 / p99 ms |');
  out.push('|---|---|---:|---:|---|---:|---:|');
  for (const s of ORDER) {
    const r = run.results[s];
    if (r === undefined) continue;
    const after = r.postLoadSeconds === undefined ? '–' : `${r.postLoadNote ?? ''}: ${r.postLoadSeconds.toFixed(1)} s`;
    out.push(`| ${NAMES[s]} | ${r.version} | ${r.load ? int(r.load.rowsPerSecond) : 'error'} | ${r.load ? r.load.seconds.toFixed(1) : '–'} | ${after} | ${r.count !== undefined ? int(r.count) : '–'} | ${r.single ? `${r.single.p50Ms.toFixed(2)} / ${r.single.p99Ms.toFixed(2)}` : '–'} |`);
  }
  for (const s of ORDER) if (run.results[s]?.error !== undefined) out.push('', `**${NAMES[s]} error:** ${run.results[s]?.error ?? ''}`);
  out.push('');
  out.push('| column | data state before the queries | idle wait s | RSS | on disk |');
  out.push('|---|---|---:|---:|---:|');
  for (const c of cols) {
    const st = c.state;
    out.push(`| ${c.label} | ${st.note}${st.warnings.map((w) => ` **WARNING: ${w}**`).join('')} | ${st.idleWaitMs === undefined ? '–' : (st.idleWaitMs / 1000).toFixed(0)} | ${st.rssBytes ? `${(st.rssBytes / 2 ** 20).toFixed(0)} MiB` : '–'} | ${disk(st)} |`);
  }
  out.push('');
  out.push(`Medians, ms${run.reference === null ? '' : `; the last column checks every SQL answer (tsdb's and the peers') against ${run.reference}'s`}:`);
  out.push('');
  out.push(`| query | ${cols.map((c) => c.label).join(' | ')} | answers |`);
  out.push(`|---|${cols.map(() => '---:').join('|')}|---|`);
  for (const q of run.queries) out.push(`| ${q.name} | ${cols.map((c) => fmtMs(c.state.queries[q.name])).join(' | ')} | ${checkCell(run, cols, q.name)} |`);
  const tsdbCols = cols.filter((c) => c.system === 'tsdb' || c.system === 'tsdb-cluster');
  const vm = cols.find((c) => c.system === 'victoriametrics');
  if (tsdbCols.length > 0 && vm !== undefined) {
    out.push('');
    out.push('tsdb / VictoriaMetrics (issue 17 item 1 wants ≤ 1; bold above):');
    out.push('');
    out.push(`| query | ${tsdbCols.map((c) => c.label).join(' | ')} |`);
    out.push(`|---|${tsdbCols.map(() => '---:').join('|')}|`);
    for (const q of run.queries) out.push(`| ${q.name} | ${tsdbCols.map((c) => ratio(c.state.queries[q.name], vm.state.queries[q.name])).join(' | ')} |`);
  }
  const variantCols = tsdbCols.filter((c) => run.variants.some((v) => c.state.queries[v.name] !== undefined));
  if (variantCols.length > 0) {
    out.push('');
    out.push('Other SQL forms of lastpoint on tsdb (the same answer expected):');
    out.push('');
    out.push(`| tsdb query form | ${variantCols.map((c) => c.label).join(' | ')} | answers |`);
    out.push(`|---|${variantCols.map(() => '---:').join('|')}|---|`);
    for (const v of run.variants) out.push(`| ${v.name} | ${variantCols.map((c) => fmtMs(c.state.queries[v.name])).join(' | ')} | ${checkCell(run, variantCols, v.name)} |`);
  }
  out.push('');
  if (vm !== undefined) {
    out.push('VictoriaMetrics runs PromQL/MetricsQL equivalents (n/a: not expressible; its answers are series, not compared):');
    for (const q of run.queries) out.push(`- ${q.name}: ${q.description}; VM: ${q.promNote}`);
  } else {
    for (const q of run.queries) out.push(`- ${q.name}: ${q.description}`);
  }
  const errors = cols.flatMap((c) => Object.entries(c.state.queries).flatMap(([name, r]) => (r.error === undefined ? [] : [`- ${c.label} ${name}: ${r.error}`])));
  if (errors.length > 0) out.push('', 'Query errors:', ...errors);
  const bad = Object.entries(run.comparisons).flatMap(([key, byQuery]) => Object.entries(byQuery).filter(([, c]) => !c.ok).map(([name, c]) => ({ key, name, c })));
  if (bad.length > 0) {
    out.push('', `Mismatches against ${run.reference ?? '?'}:`);
    for (const { key, name, c } of bad) for (const m of c.mismatches) out.push(`- ${cols.find((x) => x.key === key)?.label ?? key}, ${name}: ${m}`);
  } else if (run.reference !== null) {
    const n = Object.values(run.comparisons).reduce((k, byQuery) => k + Object.keys(byQuery).length, 0);
    out.push('', `No mismatches: ${n} answers compared with ${run.reference}'s.`);
  }
  return out.join('\n');
}

function growth(a: number | null | undefined, b: number | null | undefined): string {
  if (a == null || b == null || !Number.isFinite(a) || !Number.isFinite(b) || a <= 0) return '–';
  return `${(b / a).toFixed(1)}×`;
}

function msOrDash(r: QueryResult | undefined): number | null {
  return r === undefined || r.error !== undefined ? null : r.medianMs;
}

/** Issue 17 item 8: each figure at two sizes with its growth factor, beside the data's. */
export function growthReport(a: SizeRun, b: SizeRun): string {
  const out: string[] = [];
  const dataGrowth = b.rows / a.rows;
  const colsA = columns(a);
  const colsB = columns(b);
  const common = colsA.filter((c) => colsB.some((d) => d.key === c.key));
  out.push(`## How cost grows: ${int(a.hosts)} hosts × ${a.hours} h (${int(a.rows)} rows) → ${int(b.hosts)} hosts × ${b.hours} h (${int(b.rows)} rows): data × ${dataGrowth.toFixed(1)}`);
  out.push('');
  out.push('Each cell: small → large (growth factor). A factor below the data\'s means the figure grows slower than the data (the query reads a part of it, or a fixed cost dominates); above it, faster.');
  out.push('');
  out.push(`| figure | data | ${common.map((c) => c.label).join(' | ')} |`);
  out.push(`|---|---:|${common.map(() => '---:').join('|')}|`);
  const cell = (x: number | null | undefined, y: number | null | undefined, f: (n: number) => string): string =>
    x == null || y == null ? '–' : `${f(x)} → ${f(y)} (${growth(x, y)})`;
  const ms = (n: number): string => (n < 10 ? n.toFixed(2) : n < 100 ? n.toFixed(1) : int(n));
  const firstState = (c: Column, run: SizeRun): boolean => run.results[c.system]?.states[0]?.name === c.state.name;
  out.push(`| load s | ×${dataGrowth.toFixed(1)} | ${common.map((c) => (firstState(c, a) ? cell(a.results[c.system]?.load?.seconds, b.results[c.system]?.load?.seconds, (n) => n.toFixed(1)) : '')).join(' | ')} |`);
  out.push(`| load rows/s | ×1.0 | ${common.map((c) => (firstState(c, a) ? cell(a.results[c.system]?.load?.rowsPerSecond, b.results[c.system]?.load?.rowsPerSecond, int) : '')).join(' | ')} |`);
  out.push(`| on disk MiB | ×${dataGrowth.toFixed(1)} | ${common.map((c) => cell(a.results[c.system]?.states.find((s) => s.name === c.state.name)?.diskBytes, b.results[c.system]?.states.find((s) => s.name === c.state.name)?.diskBytes, (n) => (n / 2 ** 20).toFixed(0))).join(' | ')} |`);
  const names = a.queries.map((q) => q.name).filter((n) => b.queries.some((q) => q.name === n));
  for (const name of names) {
    const rowsA = a.results.influxdb?.queries[name]?.resultSize ?? a.results.tsdb?.queries[name]?.resultSize;
    const rowsB = b.results.influxdb?.queries[name]?.resultSize ?? b.results.tsdb?.queries[name]?.resultSize;
    const dataCell = rowsA != null && rowsB != null ? `rows out ${int(rowsA)} → ${int(rowsB)}` : '';
    out.push(`| ${name} ms | ${dataCell} | ${common.map((c) => {
      const sa = a.results[c.system]?.states.find((s) => s.name === c.state.name);
      const sb = b.results[c.system]?.states.find((s) => s.name === c.state.name);
      return cell(msOrDash(sa?.queries[name]), msOrDash(sb?.queries[name]), ms);
    }).join(' | ')} |`);
  }
  out.push('');
  out.push(`What a query reads grows by less than the data: hosts × ${(b.hosts / a.hosts).toFixed(1)}, hours × ${(b.hours / a.hours).toFixed(2)}, and its window (1 h, 8 h, 12 h; none for lastpoint and groupby-orderby-limit, which read up to the end or all) is capped at the data's span; the queries of a fixed number of hosts (\`-1\`, \`-8\`) read the same number of hosts at both sizes. "rows out" is the answer's size (InfluxDB's, else tsdb's).`);
  return out.join('\n');
}
