/**
 * Where a gRPC row insert's server time goes before the write, in one process, no server: the same
 * `row_inserts` request main.ts sends (TSBS cpu-only rows, --batch rows per message) decoded
 * --iterations times by
 *
 * 1. the server's decoder (`GreptimeDatabase/Handle`'s `requestDeserialize`: proto-loader's
 *    protobufjs decode, then `toObject` with tsdb's loader options — an object per value, int64 as
 *    strings), then the server's `tablesOfRows` (row-decoder.ts) into the ingest tables;
 * 2. a direct reader of the wire bytes into column arrays (tag strings as dictionary codes, FLOAT64
 *    and TIMESTAMP_MILLISECOND into Float64Arrays), no object per value. It reads only what this
 *    data set holds (STRING, FLOAT64, TIMESTAMP_MILLISECOND values; no checks); it is a measure of
 *    what a decoder that skips the object tree would cost, not server code.
 *
 * 3. the server's direct decoder (row-wire-decoder.ts, what `Handle` runs now): the same ingest
 *    tables as 1, every check made, the header through the general deserializer.
 *
 * Reports ms per message and CPU seconds per million rows of each step, heap growth aside (the GC
 * time is in the figures). Both results are checked against each other (row count, per-column sums
 * and tag dictionaries).
 *
 *   npm run build && node dist/bench/grpc/decode.js [--batch 5000 --iterations 40]
 */
import type * as grpc from '@grpc/grpc-js';
import { parseArgs } from 'node:util';
import { fmt, loadAverages, machine } from '../common/machine.js';
import { FIELDS, generate, rowHost, rowTime, TAGS, type Dataset } from '../tsbs/data.js';
import { greptimePackageDefinition } from '../../src/servers/grpc/protos.js';
import { tablesOfRows } from '../../src/servers/grpc/row-decoder.js';
import { decodedTables, decodeRowRequest } from '../../src/servers/grpc/row-wire-decoder.js';
import { isDeepStrictEqual } from 'node:util';

const { values: opts } = parseArgs({
  options: {
    batch: { type: 'string', default: '5000' },
    iterations: { type: 'string', default: '40' },
    seed: { type: 'string', default: '123' },
  },
});
const BATCH = Number(opts.batch);
const ITERATIONS = Number(opts.iterations);

const STRING = 12;
const FLOAT64 = 10;
const TIMESTAMP_MILLISECOND = 16;
const TIME_INDEX = 'tsdb_timestamp';

const handleDef = (greptimePackageDefinition()['greptime.v1.GreptimeDatabase'] as grpc.ServiceDefinition)['Handle'] as grpc.MethodDefinition<unknown, unknown>;

/** The same message as main.ts's rowInsertRequest. */
function request(ds: Dataset, from: number, to: number): Buffer {
  const schema = [
    ...TAGS.map((t) => ({ column_name: t, datatype: STRING, semantic_type: 0 })),
    { column_name: TIME_INDEX, datatype: TIMESTAMP_MILLISECOND, semantic_type: 2 },
    ...FIELDS.map((f) => ({ column_name: f, datatype: FLOAT64, semantic_type: 1 })),
  ];
  const rows = [];
  for (let r = from; r < to; r++) {
    const values: object[] = (ds.tagValues[rowHost(ds, r)] ?? []).map((t) => ({ string_value: t }));
    values.push({ timestamp_millisecond_value: String(rowTime(ds, r)) });
    for (let f = 0; f < FIELDS.length; f++) values.push({ f64_value: ds.values[r * FIELDS.length + f] ?? 0 });
    rows.push({ values });
  }
  return handleDef.requestSerialize({ row_inserts: { inserts: [{ table_name: 'cpu', rows: { schema, rows } }] } });
}

// ---- the direct reader ----

interface DirectColumn {
  readonly name: string;
  readonly datatype: number;
  codes?: Int32Array;
  dict?: Map<string, number>;
  numbers?: Float64Array;
}

class Wire {
  pos: number;
  private readonly view: DataView;
  constructor(readonly buf: Buffer, start: number) {
    this.pos = start;
    this.view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  }
  /** A varint as a number (exact below 2^53; this data has no negative or larger ones). */
  varint(): number {
    let result = 0;
    let scale = 1;
    for (;;) {
      const b = this.buf[this.pos++]!;
      result += (b & 0x7f) * scale;
      if (b < 0x80) return result;
      scale *= 128;
    }
  }
  double(): number {
    const v = this.view.getFloat64(this.pos, true);
    this.pos += 8;
    return v;
  }
  skip(wireType: number): void {
    if (wireType === 0) this.varint();
    else if (wireType === 1) this.pos += 8;
    else if (wireType === 2) this.pos += this.varint();
    else if (wireType === 5) this.pos += 4;
    else throw new Error(`wire type ${wireType}`);
  }
}

/** Calls `each(field, wireType, end)` for every field in [r.pos, end); a length-delimited field's end is passed, others 0. */
function fields(r: Wire, end: number, each: (field: number, wireType: number, subEnd: number) => void): void {
  while (r.pos < end) {
    const tag = r.varint();
    const field = tag >>> 3;
    const wt = tag & 7;
    if (wt === 2) {
      const len = r.varint();
      const subEnd = r.pos + len;
      each(field, wt, subEnd);
      r.pos = subEnd;
    } else {
      each(field, wt, 0);
    }
  }
}

function directDecode(buf: Buffer): { table: string; rows: number; columns: DirectColumn[] } {
  const r = new Wire(buf, 0);
  let table = '';
  const columns: DirectColumn[] = [];
  const rowRanges: number[] = [];
  fields(r, buf.length, (f, wt, end) => {
    if (f !== 6) return r.skip(wt);
    fields(r, end, (f1, wt1, end1) => {
      if (f1 !== 1) return r.skip(wt1);
      fields(r, end1, (f2, wt2, end2) => {
        if (f2 === 1) table = buf.toString('utf8', r.pos, end2);
        else if (f2 === 2) {
          fields(r, end2, (f3, wt3, end3) => {
            if (f3 === 1) {
              let name = '';
              let datatype = 0;
              fields(r, end3, (f4, wt4, end4) => {
                if (f4 === 1) name = buf.toString('utf8', r.pos, end4);
                else if (f4 === 2) datatype = r.varint();
                else r.skip(wt4);
              });
              columns.push({ name, datatype });
            } else if (f3 === 2) {
              rowRanges.push(r.pos, end3);
            } else r.skip(wt3);
          });
        } else r.skip(wt2);
      });
    });
  });
  const n = rowRanges.length / 2;
  for (const c of columns) {
    if (c.datatype === STRING) {
      c.codes = new Int32Array(n);
      c.dict = new Map();
    } else c.numbers = new Float64Array(n);
  }
  for (let i = 0; i < n; i++) {
    r.pos = rowRanges[2 * i]!;
    const end = rowRanges[2 * i + 1]!;
    let k = 0;
    while (r.pos < end) {
      r.varint(); // Row.values (1, length-delimited)
      const vEnd = r.varint() + r.pos;
      const col = columns[k++]!;
      const tag = r.varint();
      const field = tag >>> 3;
      if (field === 13) {
        const len = r.varint();
        const s = buf.toString('utf8', r.pos, r.pos + len);
        r.pos += len;
        let code = col.dict!.get(s);
        if (code === undefined) col.dict!.set(s, (code = col.dict!.size));
        col.codes![i] = code;
      } else if (field === 10) col.numbers![i] = r.double();
      else if (field === 17) col.numbers![i] = r.varint();
      else throw new Error(`value field ${field}`);
      r.pos = vEnd;
    }
  }
  return { table, rows: n, columns };
}

// ---- run ----

function cpuMs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

function measure(label: string, n: number, f: () => void): { wallMs: number; cpuMs: number } {
  for (let i = 0; i < Math.min(5, n); i++) f();
  const c0 = cpuMs();
  const t0 = performance.now();
  for (let i = 0; i < n; i++) f();
  const r = { wallMs: (performance.now() - t0) / n, cpuMs: (cpuMs() - c0) / n };
  process.stderr.write(`${label}: ${r.wallMs.toFixed(2)} ms per message\n`);
  return r;
}

const loadAtStart = loadAverages();
const ds = generate(100, Math.max(1, Math.ceil(BATCH / 100 / 360)), Number(opts.seed));
const msg = request(ds, 0, BATCH);

// Correctness: the two decoders agree.
const tables = tablesOfRows((handleDef.requestDeserialize(msg) as { row_inserts: { inserts: never } }).row_inserts.inserts);
const direct = directDecode(msg);
const ingest = tables[0]!;
const problems: string[] = [];
if (ingest.rowCount !== direct.rows || direct.rows !== BATCH) problems.push(`rows: tablesOfRows ${ingest.rowCount}, direct ${direct.rows}, sent ${BATCH}`);
for (const c of direct.columns) {
  const ic = ingest.columns.find((x) => x.name === c.name);
  if (ic === undefined) {
    problems.push(`column ${c.name} missing from tablesOfRows`);
    continue;
  }
  const v = ic.vector as { type: string; data: ArrayLike<unknown>; dictionary?: readonly string[]; codes?: ArrayLike<number> };
  if (c.numbers !== undefined) {
    const a = c.numbers.reduce((x, y) => x + y, 0);
    let b = 0;
    for (let i = 0; i < v.data.length; i++) b += Number(v.data[i]);
    if (a !== b) problems.push(`column ${c.name}: sum ${a} (direct) vs ${b} (tablesOfRows, ${v.type})`);
  } else if (c.dict !== undefined) {
    const strings = JSON.stringify([...c.dict.keys()].sort());
    const theirs = JSON.stringify([...new Set(Array.from({ length: ingest.rowCount }, (_, i) => stringAt(v, i)))].sort());
    if (strings !== theirs) problems.push(`column ${c.name}: values differ`);
  }
}

const serverDirect = (): unknown => decodedTables(decodeRowRequest(msg, handleDef.requestDeserialize as (b: Buffer) => unknown) ?? {});
if (!isDeepStrictEqual(serverDirect(), tables)) problems.push('the server\'s direct decoder and tablesOfRows give different tables');

function stringAt(v: { type: string; data: ArrayLike<unknown>; dictionary?: readonly string[]; codes?: ArrayLike<number> }, i: number): string {
  if (v.dictionary !== undefined && v.codes !== undefined) return v.dictionary[v.codes[i]!]!;
  return String(v.data[i]);
}

const deser = measure('requestDeserialize (protobufjs decode + toObject)', ITERATIONS, () => handleDef.requestDeserialize(msg));
const decoded = handleDef.requestDeserialize(msg) as { row_inserts: { inserts: never } };
const rows = measure('tablesOfRows', ITERATIONS, () => tablesOfRows(decoded.row_inserts.inserts));
const both = measure('requestDeserialize + tablesOfRows', ITERATIONS, () => tablesOfRows((handleDef.requestDeserialize(msg) as { row_inserts: { inserts: never } }).row_inserts.inserts));
const srv = measure('server: direct decoder', ITERATIONS, serverDirect);
const dir = measure('direct reader', ITERATIONS, () => directDecode(msg));

const perM = (ms: number): string => fmt((ms / 1000) * (1e6 / BATCH), 2);
const out: string[] = [];
out.push(`Decoding one \`row_inserts\` message of ${BATCH.toLocaleString('en-US')} TSBS rows (${(msg.length / 2 ** 20).toFixed(2)} MiB), ${ITERATIONS} times after 5 warm-ups, in one process.`);
out.push(`Machine: ${machine(loadAtStart)}.`);
out.push('');
out.push('| step | ms per message | CPU s per M rows | M rows/s on one core |');
out.push('|---|---:|---:|---:|');
const line = (label: string, m: { wallMs: number; cpuMs: number }): string => `| ${label} | ${m.wallMs.toFixed(1)} | ${perM(m.cpuMs)} | ${fmt(BATCH / m.wallMs / 1000, 2)} |`;
out.push(line('server: `requestDeserialize` (protobufjs decode + toObject)', deser));
out.push(line('server: `tablesOfRows` (objects → ingest columns)', rows));
out.push(line('server: both', both));
out.push(line('server: direct decoder (row-wire-decoder.ts, wire bytes → ingest tables)', srv));
out.push(line('bench-only direct reader (wire bytes → column arrays, no checks)', dir));
out.push('');
out.push(problems.length === 0 ? `The decoders agree (rows, column sums, tag values; the server's two paths deep-equal).` : `DISAGREE: ${problems.join('; ')}`);
process.stdout.write(`${out.join('\n')}\n`);
if (problems.length > 0) process.exitCode = 1;
