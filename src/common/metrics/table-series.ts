/**
 * Cardinality: active series per table, and which tables have the most.
 *
 * "Active series" of a region are what its memtables already count, kept without any scan: the
 * largest of its memtables' series counts and of the memtable it flushed last (so that the figure
 * does not drop to 0 at each flush). A region's series are distinct from other regions' (regions
 * split a table by primary key), so a table's figure is the sum over its regions. Series that stopped
 * being written before the last flush are not counted: this is the working set, like Prometheus's
 * head series, not every series ever stored in SST files.
 *
 * `tsdb_table_series{db,table,table_id}` reports the TOP_TABLES tables with the most series (a
 * bounded number of label sets however many tables exist); `tsdb_series` and
 * `tsdb_tables_with_series` cover every table. Names come from the catalog the component gives
 * (components/table-names.ts); a table it cannot name keeps `db` and `table` empty.
 */
import { Gauge } from 'prom-client';
import { metricsRegistry } from './registry.js';

/** The tables `tsdb_table_series` reports: those with the most series. */
export const TOP_TABLES = 100;

/** Regions of this process and their active series. */
export interface SeriesSource {
  regionSeries(): Iterable<readonly [regionId: bigint, series: number]>;
}

export interface TableName {
  readonly db: string;
  readonly table: string;
}

/** The names of tables by id (those it does not know are left out). */
export type TableNameResolver = (tableIds: readonly number[]) => Promise<ReadonlyMap<number, TableName>>;

const sources = new Set<SeriesSource>();
let resolver: TableNameResolver | undefined;

export function registerSeriesSource(source: SeriesSource): () => void {
  sources.add(source);
  return () => {
    sources.delete(source);
  };
}

/** Sets how table ids are named (the catalog of a standalone); returns the function that unsets it. */
export function setTableNameResolver(fn: TableNameResolver): () => void {
  resolver = fn;
  return () => {
    if (resolver === fn) resolver = undefined;
  };
}

export interface TableSeries {
  readonly tableId: number;
  readonly series: number;
}

export interface SeriesSummary {
  /** The `n` tables with the most series, most first (ties: lower table id first). */
  readonly top: readonly TableSeries[];
  readonly total: number;
  /** Tables with at least one active series. */
  readonly tables: number;
}

/**
 * Sums region series by table (a region id's upper 32 bits are its table id) and keeps the `n`
 * largest: one pass over the regions, then a sort of the tables (a few thousand at most per
 * process, well under a millisecond).
 */
export function summarizeSeries(regions: Iterable<readonly [bigint, number]>, n: number = TOP_TABLES): SeriesSummary {
  const byTable = new Map<number, number>();
  let total = 0;
  for (const [regionId, series] of regions) {
    if (series <= 0) continue;
    const tableId = Number(regionId >> 32n);
    byTable.set(tableId, (byTable.get(tableId) ?? 0) + series);
    total += series;
  }
  const all: TableSeries[] = [];
  for (const [tableId, series] of byTable) all.push({ tableId, series });
  all.sort((a, b) => b.series - a.series || a.tableId - b.tableId);
  return { top: all.slice(0, Math.max(0, n)), total, tables: all.length };
}

function* allRegions(): Iterable<readonly [bigint, number]> {
  for (const s of sources) yield* s.regionSeries();
}

/** The summary of this scrape: computed by the first collect of an event-loop turn, reused by the others of that turn. */
let lastSummary: SeriesSummary | undefined;
function summary(): SeriesSummary {
  if (lastSummary === undefined) {
    lastSummary = summarizeSeries(allRegions());
    setImmediate(() => (lastSummary = undefined));
  }
  return lastSummary;
}

/** Names resolved before, so that a scrape asks the catalog only about tables it has not seen in a minute. */
const nameCache = new Map<number, { name: TableName; at: number }>();
const NAME_TTL_MS = 60_000;

async function namesOf(ids: readonly number[]): Promise<ReadonlyMap<number, TableName>> {
  const out = new Map<number, TableName>();
  if (resolver === undefined) return out;
  const now = Date.now();
  const missing: number[] = [];
  for (const id of ids) {
    const c = nameCache.get(id);
    if (c !== undefined && now - c.at < NAME_TTL_MS) out.set(id, c.name);
    else missing.push(id);
  }
  if (missing.length > 0) {
    try {
      for (const [id, name] of await resolver(missing)) {
        nameCache.set(id, { name, at: now });
        out.set(id, name);
      }
    } catch {
      // A catalog that cannot answer leaves the names empty for this scrape; the ids still show.
    }
    if (nameCache.size > 10 * TOP_TABLES) for (const [id, c] of nameCache) if (now - c.at >= NAME_TTL_MS) nameCache.delete(id);
  }
  return out;
}

new Gauge({
  name: 'tsdb_table_series',
  help: `Active series (in memtables and the last flushed memtable) of the ${TOP_TABLES} tables with the most`,
  labelNames: ['db', 'table', 'table_id'] as const,
  registers: [metricsRegistry],
  async collect() {
    const { top } = summary();
    const names = await namesOf(top.map((t) => t.tableId));
    this.reset();
    for (const t of top) {
      const name = names.get(t.tableId);
      this.set({ db: name?.db ?? '', table: name?.table ?? '', table_id: String(t.tableId) }, t.series);
    }
  },
});

new Gauge({
  name: 'tsdb_series',
  help: 'Active series of every table of this process',
  registers: [metricsRegistry],
  collect() {
    this.set(summary().total);
  },
});

new Gauge({
  name: 'tsdb_tables_with_series',
  help: 'Tables with at least one active series in this process',
  registers: [metricsRegistry],
  collect() {
    this.set(summary().tables);
  },
});
