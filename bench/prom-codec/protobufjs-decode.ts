/**
 * The candidate the hand-written decoder in `src/servers/prometheus/remote-write.ts` was measured
 * against: protobufjs decodes the WriteRequest into objects (labels as strings, so without the UTF-8
 * check the real decoder does), then the same grouping into tables. Simplified (no duplicate or
 * special-label precedence checks) so that it is an upper bound on what a protobufjs path can do.
 */
import type { IngestColumn, IngestTable } from '../../src/frontend/ingest-request.js';
import { type Int64Value, WriteRequestType } from '../../src/servers/prometheus/prompb.js';
import type { RemoteWriteGroup } from '../../src/servers/prometheus/remote-write.js';
import { snappyDecompress } from '../../src/servers/prometheus/snappy-block.js';

interface DecodedSeries {
  labels: { name: string; value: string }[];
  samples: { value: number; timestamp: Int64Value }[];
}

/** Only the protobufjs step: snappy + decode into message objects. */
export function protobufjsDecodeOnly(body: Uint8Array): number {
  const msg = WriteRequestType.decode(snappyDecompress(body, 'WriteRequest')) as unknown as { timeseries: DecodedSeries[] };
  return msg.timeseries.length;
}

export function protobufjsDecodeRemoteWrite(body: Uint8Array): { groups: RemoteWriteGroup[]; samples: number } {
  const msg = WriteRequestType.decode(snappyDecompress(body, 'WriteRequest')) as unknown as { timeseries: DecodedSeries[] };
  const tables = new Map<string, Builder>();
  let samples = 0;
  for (const ts of msg.timeseries) {
    let metric: string | undefined;
    let database: string | undefined;
    let physical: string | undefined;
    for (const l of ts.labels) {
      if (l.name === '__name__') metric = l.value;
      else if (l.name === 'x_tsdb_database' || l.name === '__database__' || l.name === '__schema__') database = l.value;
      else if (l.name === 'x_tsdb_physical_table' || l.name === '__physical_table__') physical = l.value;
    }
    if (metric === undefined) throw new Error('series without __name__');
    const key = database === undefined && physical === undefined ? metric : JSON.stringify([database, physical, metric]);
    let b = tables.get(key);
    if (b === undefined) tables.set(key, (b = new Builder(metric, database, physical)));
    b.add(ts);
    samples += ts.samples.length;
  }
  return { groups: [...tables.values()].map((b) => b.finish()), samples };
}

class Builder {
  rows = 0;
  ts: bigint[] = [];
  vs: number[] = [];
  index = new Map<string, number>();
  names: string[] = [];
  cols: (string | null)[][] = [];
  constructor(
    readonly name: string,
    readonly database: string | undefined,
    readonly physical: string | undefined,
  ) {}

  add(s: DecodedSeries): void {
    const cur: (string | null)[] = new Array<string | null>(this.cols.length).fill(null);
    for (const l of s.labels) {
      if (l.name === '__name__' || l.name.startsWith('x_tsdb_') || l.name === '__database__' || l.name === '__schema__' || l.name === '__physical_table__') continue;
      let j = this.index.get(l.name);
      if (j === undefined) {
        j = this.names.length;
        this.index.set(l.name, j);
        this.names.push(l.name);
        this.cols.push(new Array<string | null>(this.rows).fill(null));
      }
      cur[j] = l.value;
    }
    for (const p of s.samples) {
      for (let j = 0; j < this.cols.length; j++) this.cols[j]!.push(cur[j] ?? null);
      const t = p.timestamp;
      this.ts.push(typeof t === 'number' ? BigInt(t) : (BigInt(t.high) << 32n) | BigInt(t.low >>> 0));
      this.vs.push(p.value);
      this.rows++;
    }
  }

  finish(): RemoteWriteGroup {
    const order = this.names.map((_, j) => j).sort((a, b) => (this.names[a]! < this.names[b]! ? -1 : 1));
    const columns: IngestColumn[] = order.map((j) => ({ name: this.names[j]!, semantic: 'tag', type: 'String', vector: { type: 'string', data: this.cols[j]! } }));
    columns.push({ name: 'tsdb_timestamp', semantic: 'timestamp', type: 'TimestampMillisecond', vector: { type: 'int64', data: BigInt64Array.from(this.ts) } });
    columns.push({ name: 'tsdb_value', semantic: 'field', type: 'Float64', vector: { type: 'float64', data: Float64Array.from(this.vs) } });
    const table: IngestTable = { name: this.name, rowCount: this.rows, columns };
    return { table, ...(this.database !== undefined ? { database: this.database } : {}), ...(this.physical !== undefined ? { physicalTable: this.physical } : {}) };
  }
}
