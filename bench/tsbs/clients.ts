/**
 * HTTP clients of the three systems (fetch only): tsdb `POST /v1/sql`, InfluxDB `/write` and
 * `/query`, VictoriaMetrics `/write` and `/api/v1/query[_range]`. Each query call returns the
 * client-side wall time of the request (until the whole body is read, before JSON parsing) and
 * the body; normalizers turn tsdb and InfluxDB answers into comparable records.
 */
import type { PromQuery } from './queries.js';

export type Cell = number | string | boolean | null;
export type Row = Record<string, Cell>;

export interface Timed {
  readonly ms: number;
  readonly body: string;
}

async function timedFetch(url: string, init: RequestInit, what: string): Promise<Timed> {
  const t0 = performance.now();
  const res = await fetch(url, init);
  const body = await res.text();
  const ms = performance.now() - t0;
  if (!res.ok) throw new Error(`${what}: HTTP ${res.status}: ${body.slice(0, 500)}`);
  return { ms, body };
}

// ---- tsdb ----

interface TsdbColumn {
  readonly name: string;
  readonly data_type: string;
}
interface TsdbOutput {
  readonly affectedrows?: number;
  readonly records?: { readonly schema: { readonly column_schemas: readonly TsdbColumn[] }; readonly rows: readonly (readonly Cell[])[] };
}
interface TsdbResponse {
  readonly code: number;
  readonly error?: string;
  readonly output?: readonly TsdbOutput[];
}

export async function tsdbSql(baseUrl: string, db: string, sql: string): Promise<Timed> {
  const t = await timedFetch(`${baseUrl}/v1/sql?db=${encodeURIComponent(db)}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ sql }).toString(),
  }, 'tsdb');
  const parsed = JSON.parse(t.body) as TsdbResponse;
  if (parsed.code !== 0) throw new Error(`tsdb: code ${parsed.code}: ${parsed.error ?? t.body.slice(0, 500)}`);
  return t;
}

function toMs(v: Cell, dataType: string): Cell {
  if (typeof v !== 'number') return v;
  if (dataType === 'TimestampSecond') return v * 1000;
  if (dataType === 'TimestampMicrosecond') return v / 1000;
  if (dataType === 'TimestampNanosecond') return v / 1e6;
  return v;
}

/** Records of the first output; timestamp columns (and `ts`) become `time`, in epoch ms. */
export function tsdbRows(body: string): Row[] {
  const parsed = JSON.parse(body) as TsdbResponse;
  const rec = parsed.output?.[0]?.records;
  if (rec === undefined) return [];
  const cols = rec.schema.column_schemas;
  return rec.rows.map((r) => {
    const row: Row = {};
    cols.forEach((c, i) => {
      const isTime = c.data_type.startsWith('Timestamp') || c.name === 'ts';
      row[isTime ? 'time' : c.name] = isTime ? toMs(r[i] ?? null, c.data_type) : (r[i] ?? null);
    });
    return row;
  });
}

export function tsdbAffected(body: string): number {
  const parsed = JSON.parse(body) as TsdbResponse;
  return parsed.output?.[0]?.affectedrows ?? 0;
}

// ---- InfluxDB ----

interface InfluxSeries {
  readonly name: string;
  readonly tags?: Readonly<Record<string, string>>;
  readonly columns: readonly string[];
  readonly values?: readonly (readonly Cell[])[];
}
interface InfluxResponse {
  readonly results?: readonly { readonly error?: string; readonly series?: readonly InfluxSeries[] }[];
  readonly error?: string;
}

export async function influxWrite(baseUrl: string, db: string, body: string): Promise<void> {
  await timedFetch(`${baseUrl}/write?db=${encodeURIComponent(db)}&precision=ms`, { method: 'POST', body }, 'influxdb write');
}

export async function influxQuery(baseUrl: string, db: string, q: string): Promise<Timed> {
  const t = await timedFetch(`${baseUrl}/query?db=${encodeURIComponent(db)}&epoch=ms&q=${encodeURIComponent(q)}`, { method: 'GET' }, 'influxdb');
  const parsed = JSON.parse(t.body) as InfluxResponse;
  const err = parsed.error ?? parsed.results?.[0]?.error;
  if (err !== undefined) throw new Error(`influxdb: ${err}`);
  return t;
}

/** Flattened records: series tags merged into each row; aggregate rows whose values are all null (empty buckets) dropped. */
export function influxRows(body: string): Row[] {
  const parsed = JSON.parse(body) as InfluxResponse;
  const out: Row[] = [];
  for (const s of parsed.results?.[0]?.series ?? []) {
    for (const v of s.values ?? []) {
      const row: Row = { ...(s.tags ?? {}) };
      let nonNull = 0;
      s.columns.forEach((c, i) => {
        const cell = v[i] ?? null;
        row[c] = cell;
        if (c !== 'time' && cell !== null) nonNull++;
      });
      if (nonNull > 0) out.push(row);
    }
  }
  return out;
}

// ---- VictoriaMetrics ----

interface PromResponse {
  readonly status: string;
  readonly error?: string;
  readonly data?: { readonly resultType: string; readonly result: readonly { readonly metric: Record<string, string>; readonly values?: readonly unknown[]; readonly value?: unknown }[] };
}

export async function vmWrite(baseUrl: string, body: string): Promise<void> {
  await timedFetch(`${baseUrl}/write?precision=ms`, { method: 'POST', body }, 'victoriametrics write');
}

export async function vmQuery(baseUrl: string, q: PromQuery): Promise<Timed> {
  const params = new URLSearchParams({ query: q.query, nocache: '1' });
  if (q.kind === 'range') {
    params.set('start', String(q.startMs / 1000));
    params.set('end', String(q.endMs / 1000));
    params.set('step', `${q.stepS}s`);
  } else {
    params.set('time', String(q.endMs / 1000));
  }
  const t = await timedFetch(`${baseUrl}/api/v1/${q.kind === 'range' ? 'query_range' : 'query'}?${params.toString()}`, { method: 'GET' }, 'victoriametrics');
  const parsed = JSON.parse(t.body) as PromResponse;
  if (parsed.status !== 'success') throw new Error(`victoriametrics: ${parsed.error ?? t.body.slice(0, 500)}`);
  return t;
}

/** Number of (series, sample) points in a Prometheus API answer. */
export function vmPoints(body: string): number {
  const parsed = JSON.parse(body) as PromResponse;
  let n = 0;
  for (const r of parsed.data?.result ?? []) n += r.values !== undefined ? r.values.length : 1;
  return n;
}

/** The single scalar of an instant vector answer (e.g. a sum()), or NaN. */
export function vmScalar(body: string): number {
  const parsed = JSON.parse(body) as PromResponse;
  const v = parsed.data?.result[0]?.value;
  return Array.isArray(v) ? Number(v[1]) : Number.NaN;
}

export async function vmForceFlush(baseUrl: string): Promise<boolean> {
  try {
    const res = await fetch(`${baseUrl}/internal/force_flush`);
    await res.arrayBuffer();
    return res.ok;
  } catch {
    return false;
  }
}

// ---- comparison ----

export interface Comparison {
  readonly ok: boolean;
  readonly tsdbRows: number;
  readonly influxRows: number;
  readonly mismatches: readonly string[];
}

function rowKey(r: Row): string {
  return `${String(r['time'] ?? '')}|${String(r['hostname'] ?? '')}`;
}

function sameCell(a: Cell, b: Cell): boolean {
  if (typeof a === 'number' && typeof b === 'number') return Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(a), Math.abs(b));
  return a === b;
}

/** Compares two result sets as multisets of records keyed by (time, hostname), on their common columns. */
export function compareRows(tsdb: readonly Row[], influx: readonly Row[], maxReport = 5, names: readonly [string, string] = ['tsdb', 'influxdb']): Comparison {
  const [nameA, nameB] = names;
  const mismatches: string[] = [];
  const colsA = new Set(tsdb.flatMap((r) => Object.keys(r)));
  const colsB = new Set(influx.flatMap((r) => Object.keys(r)));
  const common = [...colsA].filter((c) => colsB.has(c));
  const onlyA = [...colsA].filter((c) => !colsB.has(c));
  const onlyB = [...colsB].filter((c) => !colsA.has(c));
  if (tsdb.length > 0 && influx.length > 0 && (onlyA.length > 0 || onlyB.length > 0)) {
    mismatches.push(`columns differ: only ${nameA} [${onlyA.join(', ')}], only ${nameB} [${onlyB.join(', ')}]`);
  }
  if (tsdb.length !== influx.length) mismatches.push(`row count: ${nameA} ${tsdb.length}, ${nameB} ${influx.length}`);
  const a = [...tsdb].sort((x, y) => rowKey(x).localeCompare(rowKey(y)));
  const b = [...influx].sort((x, y) => rowKey(x).localeCompare(rowKey(y)));
  let reported = 0;
  let bad = 0;
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    const ra = a[i] ?? {};
    const rb = b[i] ?? {};
    const diff = common.filter((c) => !sameCell(ra[c] ?? null, rb[c] ?? null));
    if (diff.length > 0) {
      bad++;
      if (reported++ < maxReport) {
        mismatches.push(`row ${i} (${rowKey(ra)} vs ${rowKey(rb)}): ${diff.map((c) => `${c}: ${nameA} ${JSON.stringify(ra[c])} ${nameB} ${JSON.stringify(rb[c])}`).join('; ')}`);
      }
    }
  }
  if (bad > reported) mismatches.push(`… ${bad - reported} more differing rows`);
  return { ok: mismatches.length === 0, tsdbRows: tsdb.length, influxRows: influx.length, mismatches };
}
