/**
 * Where a table's rows live: its own regions (mito tables, physical metric tables), or, for a
 * logical metric table, the regions of its physical table (`metric-engine.ts`). Writes, scans,
 * flushes and truncation go through here, so the statements need not know which kind a table is.
 * A partitioned table's writes are split by its rule and its scans read only the regions the
 * query's key values can reach (`catalog/partition-rule.ts`).
 */
import { arrowDataBytes } from '../query/arrow-output.js';
import type { CatalogManager } from '../catalog/catalog-manager.js';
import { partitionRuleOf } from '../catalog/partition-rule.js';
import { DEFAULT_CATALOG, tableRegionIds, type TableInfo } from '../catalog/table-info.js';
import { StatusCode } from '../common/error/status-code.js';
import { TsdbError } from '../common/error/tsdb-error.js';
import { OP_DELETE, type Vector, type WriteBatch } from '../types/write-batch.js';
import type { PushdownQuery, Relation, ScanHints } from '../query/query-executor.js';
import { isArrowTypeUnsupported } from '../query/arrow-result.js';
import { splitColumn } from '../query/query-split.js';
import { tooManyBytes, tooManyRows } from '../query/resource-limits.js';
import { Field, Schema, type RecordBatch } from 'apache-arrow';
import type { TimeRange } from '../query/time-predicates.js';
import type { KeyConditions, KeyValue, KeyValues } from '../query/key-predicates.js';
import { isLogicalTable, LOGICAL_TABLE_OPTION, logicalRelation, physicalBatch, TABLE_ID_COLUMN } from './metric-engine.js';
import type { RegionId } from '../types/region-id.js';
import { REGION_RELATION, type RegionQueryStream, type RegionServer, type ScanRelation } from '../types/region-server.js';
import type { KeyCondition, ScanRequest } from '../types/scan-request.js';
import { publishArrow } from '../query/arrow-scan-function.js';
import { quoteIdent } from '../common/sql-quote.js';
import { formatSize } from '../common/size/size.js';
import { canonicalJsonColumns, hasVectorColumns, jsonTyped } from './json-columns.js';

/** Primary key values by column id (those of `keys` naming primary key columns of `info`). */
function keyColumnIds(info: TableInfo, keys: KeyValues): Map<number, readonly KeyValue[]> | undefined {
  const out = new Map<number, readonly KeyValue[]>();
  for (const [name, values] of keys) {
    if (!info.primary_key.includes(name)) continue;
    const column = info.columns.find((c) => c.name === name);
    if (column !== undefined) out.set(column.column_id, values);
  }
  return out.size === 0 ? undefined : out;
}

/** Conditions on primary key columns by column id (`ScanRequest.conditions`). */
function conditionColumnIds(info: TableInfo, conditions: KeyConditions): Map<number, readonly KeyCondition[]> | undefined {
  const out = new Map<number, readonly KeyCondition[]>();
  for (const [name, c] of conditions) {
    if (!info.primary_key.includes(name)) continue;
    const column = info.columns.find((x) => x.name === name);
    if (column !== undefined) out.set(column.column_id, c);
  }
  return out.size === 0 ? undefined : out;
}

/**
 * The scan request of `info` over the regions of `storage` (itself, or a logical metric table's
 * physical table). A logical table's key values and conditions name its tags, which the physical
 * table has under the same names; its rows are those with its `__table_id`, so the scan is
 * narrowed to them too (the logical relation still filters on it: the scan only narrows).
 */
function scanRequestOf(info: TableInfo, storage: TableInfo, range: TimeRange | undefined, keys: KeyValues | undefined, conditions: KeyConditions | undefined): ScanRequest {
  let ownKeys = keys;
  if (storage !== info) {
    const tags = new Set(info.primary_key);
    const logicalKeys = new Map<string, readonly KeyValue[]>([...(keys ?? [])].filter(([name]) => tags.has(name)));
    logicalKeys.set(TABLE_ID_COLUMN, [BigInt(info.table_id)]);
    ownKeys = logicalKeys;
  }
  const keyIds = ownKeys !== undefined ? keyColumnIds(storage, ownKeys) : undefined;
  const ownConditions = storage !== info && conditions !== undefined ? new Map([...conditions].filter(([name]) => info.primary_key.includes(name))) : conditions;
  const conditionIds = ownConditions !== undefined ? conditionColumnIds(storage, ownConditions) : undefined;
  return { ...range, ...(keyIds !== undefined && { keys: keyIds }), ...(conditionIds !== undefined && { conditions: conditionIds }) };
}

/**
 * The columns of `info` a query naming `referenced` reads, in table order: at least one (the time
 * index), so that a `count(*)` still counts rows.
 */
function projectionOf(info: TableInfo, referenced: ReadonlySet<string>): string[] {
  const named = info.columns.filter((c) => referenced.has(c.name.toLowerCase())).map((c) => c.name);
  return named.length > 0 ? named : [info.columns.find((c) => c.semantic_type === 'timestamp')?.name ?? info.columns[0]!.name];
}

export class TableRouter {
  constructor(
    private readonly catalog: CatalogManager,
    readonly regions: RegionServer,
    /**
     * Bytes of region answers one table's relation may hold (`query.max_result_bytes`; 0: no
     * limit): a remote region's answer is received whole before the query runs.
     */
    private readonly maxRegionBytes = 0,
  ) {}

  /** The physical table of a logical metric table. */
  async physicalOf(logical: TableInfo): Promise<TableInfo> {
    const name = logical.options[LOGICAL_TABLE_OPTION]!;
    const physical = await this.catalog.table(logical.database, name);
    if (physical === undefined) throw new TsdbError(StatusCode.TableNotFound, `Physical table not found: ${DEFAULT_CATALOG}.${logical.database}.${name}`);
    return physical;
  }

  /** The table whose regions hold `info`'s rows (itself, or its physical table). */
  async storageOf(info: TableInfo): Promise<TableInfo> {
    return isLogicalTable(info) ? this.physicalOf(info) : info;
  }

  /** Writes a batch keyed by `info`'s column ids. */
  async write(info: TableInfo, written: WriteBatch): Promise<void> {
    const batch = canonicalJsonColumns(info, written);
    if (!isLogicalTable(info)) return this.writeRegions(info, batch);
    const physical = await this.physicalOf(info);
    return this.writeRegions(physical, physicalBatch(info, physical, batch));
  }

  /**
   * Writes a batch of a table with regions: each row to the region its partition rule gives it, the
   * regions written together. A delete holds the key columns only once split; one that lacks a
   * partition column (its rows' region unknown) goes to every region.
   */
  private async writeRegions(storage: TableInfo, batch: WriteBatch): Promise<void> {
    const ids = tableRegionIds(storage);
    const rule = partitionRuleOf(storage);
    if (rule === undefined) {
      await this.regions.write(ids[0]!, batch);
      return;
    }
    const parts = batch.op === OP_DELETE && !rule.covers(batch) ? ids.map((_, index) => ({ index, batch })) : rule.split(batch);
    const written = await Promise.allSettled(parts.map((p) => this.regions.write(ids[p.index]!, batch.op === OP_DELETE ? keysOnly(storage, p.batch) : p.batch)));
    const failed = written.find((w): w is PromiseRejectedResult => w.status === 'rejected');
    if (failed !== undefined) throw failed.reason;
  }

  /**
   * The rows of one region for a query in the frontend's DuckDB: the scan itself when the region
   * server is in this process, else its answer to a region query, received whole (Arrow record
   * batches) and read in place by `tsdb_arrow_scan` (`query/arrow-scan-function.ts`).
   */
  private async regionRelation(id: RegionId, scan: ScanRequest, columns: readonly string[], held: { bytes: number }, signal?: AbortSignal): Promise<ScanRelation> {
    if (this.regions.scanRelation !== undefined) return this.regions.scanRelation(id, scan, signal);
    const sql = `SELECT ${columns.map(quoteIdent).join(', ')} FROM region`;
    const stream = await this.regions.query(id, { scan, sql }, signal);
    const batches = [];
    try {
      for await (const b of stream.batches) {
        signal?.throwIfAborted();
        held.bytes += arrowDataBytes(b.data);
        if (this.maxRegionBytes > 0 && held.bytes > this.maxRegionBytes) {
          throw new TsdbError(
            StatusCode.RuntimeResourcesExhausted,
            `Resources exhausted: the regions' rows this query reads pass ${formatSize(this.maxRegionBytes)} (query.max_result_bytes); narrow its time range or tags`,
          );
        }
        batches.push(b);
      }
    } finally {
      await stream.batches.return?.();
    }
    // Rows of a table have no order (a query that needs one sorts): two DuckDB threads may read them.
    const published = publishArrow(stream.schema, batches, { ordered: false });
    return { sql: `SELECT * FROM ${published.sql}`, release: () => published.dispose() };
  }

  /**
   * One relation of the regions `ids` of `info` (each read with `scan`); several are a UNION ALL.
   */
  private async regionsRelation(info: TableInfo, ids: readonly RegionId[], scan: ScanRequest, projection: readonly string[] | undefined, signal?: AbortSignal): Promise<Relation> {
    const columns = projection ?? info.columns.map((c) => c.name);
    const parts: ScanRelation[] = [];
    const held = { bytes: 0 };
    try {
      for (const id of ids) parts.push(await this.regionRelation(id, scan, columns, held, signal));
    } catch (err) {
      for (const p of parts) p.release();
      throw err;
    }
    if (parts.length === 1) return parts[0]!;
    return { sql: parts.map((p) => `SELECT * FROM (${p.sql})`).join(' UNION ALL '), release: () => parts.forEach((p) => p.release()) };
  }

  /** The regions of a table with regions that may hold rows of the key values `keys` allows. */
  readRegions(storage: TableInfo, keys: KeyValues | undefined): RegionId[] {
    const ids = tableRegionIds(storage);
    const rule = partitionRuleOf(storage);
    return rule === undefined ? ids : rule.prune(keys).map((i) => ids[i]!);
  }

  /**
   * The rows of `info` (in the inclusive time range, when given) as a relation for a query; a
   * table with regions of its own reads only the rows of the primary key values `keys` allows. Of a
   * partitioned table, only the regions those values can reach are read (a logical metric table's
   * tags are its physical table's columns of the same names). `lastRow`: the query keeps only the
   * last row of each series (`ScanRequest.lastRow`; a remote region reads in full).
   */
  async relation(info: TableInfo, range: TimeRange | undefined, keys?: KeyValues, signal?: AbortSignal, columns?: ReadonlySet<string>, hints?: ScanHints): Promise<Relation> {
    const storage = await this.storageOf(info);
    // A logical metric table reads its physical table's key columns as well: no projection.
    const projection = storage === info && columns !== undefined ? projectionOf(info, columns) : undefined;
    const ids = this.readRegions(storage, keys);
    const scan = await this.regionsRelation(storage, ids, { ...scanRequestOf(info, storage, range, keys, hints?.conditions), ...(hints?.lastRow === true && { lastRow: true }) }, projection, signal);
    if (storage === info) return jsonTyped(info, scan, projection);
    return { sql: logicalRelation(info, scan.sql), release: () => scan.release?.() };
  }

  /**
   * A query of `info` alone run where its rows are (`TableSource.pushdown`), so that only answers
   * cross: when the rows it reads are all in one region of a region server in another process, that
   * region answers the query itself; when they are in several regions of a partitioned table and
   * the query splits (`query.split`, `query/query-split.ts`), each region answers its part, in
   * parallel, and the frontend's final query over their answers gives the answer. Undefined (the
   * query then reads the rows here) when the region server is this process's, the query does not
   * split, names a CTE as the region's relation is named, or an answer has a column of a type that
   * cannot cross. Answers are received whole, within `query.maxRows` rows (when they are the
   * answer's rows) and `maxRegionBytes` bytes together.
   */
  async pushdown(info: TableInfo, query: PushdownQuery): Promise<Relation | undefined> {
    if (this.regions.scanRelation !== undefined || query.names.has(REGION_RELATION.toLowerCase())) return undefined;
    // A region holds a vector's bytes; the functions read FLOAT[n] (`jsonTyped`): such queries run here.
    if (hasVectorColumns(info)) return undefined;
    const storage = await this.storageOf(info);
    // A logical metric table's rows are read from its physical table's regions as a whole.
    const ids = storage === info ? this.readRegions(storage, query.keys) : tableRegionIds(storage);
    if (ids.length === 0 || (ids.length > 1 && storage !== info)) return undefined;
    const rows = `SELECT * FROM ${quoteIdent(REGION_RELATION)}`;
    const scan = { ...scanRequestOf(info, storage, query.range, query.keys, query.conditions), ...(query.lastRow === true && { lastRow: true }) };
    if (ids.length === 1) {
      const answer = await this.regionAnswers(ids, scan, query.text(storage === info ? rows : logicalRelation(info, rows)), query.maxRows, query.signal);
      if (answer === undefined) return undefined;
      const [{ schema, batches }] = answer as [RegionAnswer];
      // Published under positional names, given back by the select list (an answer may repeat a name,
      // `SELECT v, v`, which a relation may not), only when a query is to read it: the caller may
      // read the answer's batches as they are.
      let published: ReturnType<typeof publishArrow> | undefined;
      return {
        get sql() {
          published ??= publishArrow(positional(schema), batches, { ordered: true });
          return `SELECT ${schema.fields.map((f, i) => `${splitColumn(i)} AS ${quoteIdent(f.name)}`).join(', ')} FROM ${published.sql}`;
        },
        answer: { schema, batches },
        release: () => published?.dispose(),
      };
    }
    const split = await query.split?.();
    query.signal?.throwIfAborted();
    if (split === undefined) return undefined;
    const answers = await this.regionAnswers(ids, scan, split.text(rows), split.allRows ? query.maxRows : 0, query.signal);
    if (answers === undefined) return undefined;
    // Each answer published apart (their columns' nullability or metadata may differ), united by position.
    const published = answers.map((a) => publishArrow(positional(a.schema), a.batches, { ordered: false }));
    const release = () => published.forEach((p) => p.dispose());
    const sql = split.final(`(${published.map((p) => `SELECT * FROM ${p.sql}`).join(' UNION ALL ')})`, answers[0]!.schema.fields.map((f) => f.name));
    if (sql === undefined) {
      release();
      return undefined;
    }
    return { sql, release };
  }

  /**
   * The answers of the regions `ids` to the query `sql` (each reading its rows with `scan`), asked
   * in parallel and received whole: within `maxRows` rows (0: any) and `maxRegionBytes` bytes
   * together. Undefined when a region refuses the query for a column's type that cannot cross
   * (`isArrowTypeUnsupported`). On a failure the other regions' queries are stopped.
   */
  private async regionAnswers(ids: readonly RegionId[], scan: ScanRequest, sql: string, maxRows: number, signal?: AbortSignal): Promise<RegionAnswer[] | undefined> {
    const stop = new AbortController();
    const onAbort = () => stop.abort(signal!.reason);
    signal?.addEventListener('abort', onAbort, { once: true });
    const held = { rows: 0, bytes: 0 };
    let refused = false;
    const read = async (id: RegionId): Promise<RegionAnswer | undefined> => {
      let stream: RegionQueryStream;
      try {
        stream = await this.regions.query(id, { scan, sql }, stop.signal);
      } catch (err) {
        // Refused once bound, before it ran (`queryArrow`).
        if (isArrowTypeUnsupported(err)) return undefined;
        throw err;
      }
      const batches: RecordBatch[] = [];
      try {
        for await (const b of stream.batches) {
          signal?.throwIfAborted();
          stop.signal.throwIfAborted();
          held.rows += b.numRows;
          if (maxRows > 0 && held.rows > maxRows) throw tooManyRows(maxRows);
          held.bytes += arrowDataBytes(b.data);
          if (this.maxRegionBytes > 0 && held.bytes > this.maxRegionBytes) throw tooManyBytes(this.maxRegionBytes);
          batches.push(b);
        }
      } finally {
        await stream.batches.return?.();
      }
      return { schema: stream.schema, batches };
    };
    try {
      const answers = await Promise.all(
        ids.map((id) =>
          read(id).then(
            (a) => {
              // One refusal is the answer: the others need not go on.
              if (a === undefined) {
                refused = true;
                stop.abort();
              }
              return a;
            },
            (err: unknown) => {
              stop.abort();
              throw err;
            },
          ),
        ),
      ).catch((err: unknown) => {
        // The statement's own cancellation, not a region's stop, is what the caller reports; a
        // query stopped for another region's refusal is that refusal.
        signal?.throwIfAborted();
        if (refused) return [undefined];
        throw err;
      });
      return answers.some((a) => a === undefined) ? undefined : (answers as RegionAnswer[]);
    } finally {
      signal?.removeEventListener('abort', onAbort);
    }
  }

  async flush(info: TableInfo): Promise<void> {
    for (const id of tableRegionIds(await this.storageOf(info))) await this.regions.flushRegion(id);
  }

  async compact(info: TableInfo): Promise<void> {
    for (const id of tableRegionIds(await this.storageOf(info))) await this.regions.compactRegion(id);
  }
}

/** A region's answer to a query, received whole. */
interface RegionAnswer {
  readonly schema: Schema;
  readonly batches: RecordBatch[];
}

/** `schema` with its fields named by position (`splitColumn`): an answer may repeat a name, a relation may not. */
function positional(schema: Schema): Schema {
  return new Schema(schema.fields.map((f, i) => new Field(splitColumn(i), f.type, f.nullable, f.metadata)));
}

/** A delete batch with only its table's key columns (the primary key and the time index). */
function keysOnly(info: TableInfo, batch: WriteBatch): WriteBatch {
  const keys = new Set([...info.primary_key, info.time_index]);
  const ids = new Set(info.columns.filter((c) => keys.has(c.name)).map((c) => c.column_id));
  if ([...batch.columns.keys()].every((id) => ids.has(id))) return batch;
  const columns = new Map<number, Vector>();
  for (const [id, v] of batch.columns) if (ids.has(id)) columns.set(id, v);
  return { op: batch.op, rowCount: batch.rowCount, columns };
}
