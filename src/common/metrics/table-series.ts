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

/** A region's active series, with their split by logical table id for a metric engine's physical region. */
export type RegionSeries = readonly [regionId: bigint, series: number, byTable?: ReadonlyMap<number, number>];

/** Regions of this process and their active series. */
export interface SeriesSource {
  regionSeries(): Iterable<RegionSeries>;
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
 * Sums region series by table (a region id's upper 32 bits are its table id; a physical region's
 * split gives its logical tables' ids) and keeps the `n` largest: one pass over the regions, then a
 * sort of the tables (a few thousand at most per process, well under a millisecond).
 */
export function summarizeSeries(regions: Iterable<RegionSeries>, n: number = TOP_TABLES): SeriesSummary {
  const byTable = new Map<number, number>();
  let total = 0;
  for (const [regionId, series, split] of regions) {
    if (series <= 0) continue;
    if (split !== undefined && split.size > 0) {
      for (const [tableId, s] of split) {
        if (s <= 0) continue;
        byTable.set(tableId, (byTable.get(tableId) ?? 0) + s);
        total += s;
      }
      continue;
    }
    total += series;
    const tableId = Number(regionId >> 32n);
    byTable.set(tableId, (byTable.get(tableId) ?? 0) + series);
  }
  const all: TableSeries[] = [];
  for (const [tableId, series] of byTable) all.push({ tableId, series });
  all.sort((a, b) => b.series - a.series || a.tableId - b.tableId);
  return { top: all.slice(0, Math.max(0, n)), total, tables: all.length };
}

function* allRegions(): Iterable<RegionSeries> {
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
