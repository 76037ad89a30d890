/**
 * Candidate c: the memtable as a DuckDB table function. Each call of the main function fills one
 * output chunk (up to 2,048 rows) from the typed arrays with bulk copies; nothing is copied into a
 * DuckDB table.
 *
 *   SELECT … FROM memtable_scan()                                  -- memtable order
 *   SELECT … FROM memtable_scan(read_order := 'key')                    -- series in key order
 *   SELECT … FROM memtable_scan(read_order := 'dedup')                  -- key order, sorted, last row per ts
 *   SELECT … FROM memtable_scan(series_key := 'host_7', ts_from := …, ts_to := …)   -- pruned
 *
 * DuckDB does not push WHERE filters into a C-API table function, so the pruning hints are named
 * parameters that the query layer fills from the predicate; DuckDB still applies the WHERE.
 */
import { BIGINT, DuckDBTableFunction, VARCHAR } from '@duckdb/node-api';
import {
  CHUNK_ROWS,
  ChunkWriter,
  SeriesCursor,
  relationLayout,
  seriesOrder,
  type Piece,
  type RelationLayout,
  type ScanPlan,
  type TagEncoding,
} from './chunk-writer.js';
import type { Memtable } from './memtable-fixture.js';

export interface ScanFunctionOptions {
  readonly name: string;
  readonly tags: TagEncoding;
  /** DuckDB threads that may call the main function; calls are serialized on the JS thread. */
  readonly threads: number;
}

interface ScanBindData {
  readonly plan: ScanPlan;
}

interface ScanInitData {
  readonly cursor: SeriesCursor;
  readonly columns: readonly number[];
  readonly pieces: Piece[];
}

export function createMemtableScanFunction(mt: Memtable, options: ScanFunctionOptions): DuckDBTableFunction {
  const layout: RelationLayout = relationLayout(mt, options.tags);
  const writer = new ChunkWriter(mt, layout, options.tags);
  return DuckDBTableFunction.create({
    name: options.name,
    namedParameterTypes: { read_order: VARCHAR, series_key: VARCHAR, ts_from: BIGINT, ts_to: BIGINT },
    supportsProjectionPushdown: true,
    bindFunction: (info) => {
      for (let c = 0; c < layout.names.length; c++) info.addResultColumn(layout.names[c]!, layout.types[c]!);
      const order = info.getNamedParameter('read_order') ?? 'memtable';
      if (order !== 'memtable' && order !== 'key' && order !== 'dedup') {
        info.setError(`read_order must be 'memtable', 'key' or 'dedup', not ${String(order)}`);
        return;
      }
      const seriesKey = info.getNamedParameter('series_key');
      const tsFrom = info.getNamedParameter('ts_from');
      const tsTo = info.getNamedParameter('ts_to');
      const plan: ScanPlan = {
        series: seriesOrder(mt, order !== 'memtable', typeof seriesKey === 'string' ? seriesKey : undefined),
        dedup: order === 'dedup',
        ...(typeof tsFrom === 'bigint' ? { tsFrom: Number(tsFrom) } : {}),
        ...(typeof tsTo === 'bigint' ? { tsTo: Number(tsTo) } : {}),
      };
      const bindData: ScanBindData = { plan };
      info.setBindData(bindData);
      info.setCardinality(seriesKey === null ? mt.rowCount : Math.ceil(mt.rowCount / mt.series.length), false);
    },
    initFunction: (info) => {
      const { plan } = info.bindData as ScanBindData;
      const initData: ScanInitData = { cursor: new SeriesCursor(mt, plan), columns: info.getColumnIndexes(), pieces: [] };
      info.setInitData(initData);
      info.setMaxThreads(options.threads);
    },
    mainFunction: (info, output) => {
      const state = info.initData as ScanInitData;
      const rows = state.cursor.next(CHUNK_ROWS, state.pieces);
      writer.write(output.chunk, state.columns, state.pieces, rows);
    },
  });
}
