/**
 * The Arrow bridge of src/query/ (DESIGN.md D13: region queries answered as Arrow record batches),
 * measured in one process on one in-memory DuckDB: a table `cpu(ts TIMESTAMP, host VARCHAR (100
 * distinct), usage DOUBLE, n BIGINT)` of --rows rows, then, interleaved per round so that the shared
 * machine's load drifts alike for all:
 *
 * - `fetch`: `SELECT * FROM cpu` streamed and every chunk fetched, nothing read from it (the floor
 *   of any reader through @duckdb/node-api);
 * - `queryArrow`: the same query as Arrow record batches (`queryArrow`, 8,192 rows each), summed
 *   from the batches' typed arrays;
 * - `publish+agg`: those batches published (`publishArrow`) and `SELECT host, avg(usage),
 *   count(*) … GROUP BY host` run over `tsdb_arrow_scan`, the frontend's side;
 * - `publish+agg (dict)`: the same with `host` a Dictionary<Int32, Utf8> (as an Arrow producer that
 *   dictionary-encodes tags would send it);
 * - `…, unordered`: both published with `ordered: false` (two DuckDB threads call the scan);
 * - `table agg`: the same aggregate over the DuckDB table.
 *
 * Every timed run checks its answer: the row count and the sums of `n` and `usage` for the reads,
 * the 100 groups (count, and avg to 1e-9 relative) for the aggregates, against the table's. Rates
 * are rows of `cpu` per second of wall time; CPU is this process's (DuckDB's threads included).
 * Markdown on stdout, progress on stderr.
 *
 *   npm run build && node dist/bench/arrow-bridge/main.js [--rows 1000000] [--rounds 5] [--threads 2] [--json out.json]
 */
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { Dictionary, Field, Int32, makeData, RecordBatch, Schema, Struct, Utf8, vectorFromArray, type Data } from 'apache-arrow';
import { fmt, loadAverages, machine } from '../common/machine.js';
import { queryArrow } from '../../src/query/arrow-result.js';
import { publishArrow, registerArrowScan } from '../../src/query/arrow-scan-function.js';

const { values: opts } = parseArgs({
  options: {
    rows: { type: 'string', default: '1000000' },
    rounds: { type: 'string', default: '5' },
    threads: { type: 'string', default: '2' },
    json: { type: 'string' },
  },
});

function positiveInt(name: string, v: string): number {
  const n = Number(v);
  if (!Number.isInteger(n) || n <= 0) throw new Error(`--${name}: a positive integer, not ${v}`);
  return n;
}

const ROWS = positiveInt('rows', opts.rows);
const ROUNDS = positiveInt('rounds', opts.rounds);
const THREADS = positiveInt('threads', opts.threads);
const HOSTS = 100;
const AGG = (from: string) => `SELECT host, avg(usage) AS avg_usage, count(*) AS n FROM ${from} GROUP BY host ORDER BY host`;

const log = (msg: string) => process.stderr.write(`${msg}\n`);

interface Sample {
  readonly ms: number;
  readonly cpuMs: number;
}

async function timed(run: () => Promise<void>): Promise<Sample> {
  const cpu = process.cpuUsage();
  const start = performance.now();
  await run();
  const ms = performance.now() - start;
  const used = process.cpuUsage(cpu);
  return { ms, cpuMs: (used.user + used.system) / 1000 };
}

interface Totals {
  rows: number;
  n: bigint;
  usage: number;
}

type Groups = Map<string, { avg: number; count: bigint }>;

function groupsOf(rows: unknown[][]): Groups {
  return new Map(rows.map((r) => [r[0] as string, { avg: r[1] as number, count: r[2] as bigint }]));
}

function checkGroups(what: string, got: Groups, want: Groups): void {
  if (got.size !== want.size) throw new Error(`${what}: ${got.size} groups, expected ${want.size}`);
  for (const [host, w] of want) {
    const g = got.get(host);
    if (g === undefined || g.count !== w.count || Math.abs(g.avg - w.avg) > 1e-9 * Math.max(1, Math.abs(w.avg))) {
      throw new Error(`${what}: group ${host} is ${JSON.stringify(g, (_k, x: unknown) => (typeof x === 'bigint' ? String(x) : x))}, expected avg ${w.avg} count ${w.count}`);
    }
  }
}

function checkTotals(what: string, got: Totals, want: Totals): void {
  if (got.rows !== want.rows || got.n !== want.n || Math.abs(got.usage - want.usage) > 1e-9 * Math.abs(want.usage)) {
    throw new Error(`${what}: ${got.rows} rows, sum(n) ${got.n}, sum(usage) ${got.usage}; expected ${want.rows}, ${want.n}, ${want.usage}`);
  }
}

/** `SELECT * FROM cpu` through queryArrow, summed from the batches' buffers; the batches too when `keep`. */
async function readArrow(conn: DuckDBConnection, keep?: RecordBatch[]): Promise<{ totals: Totals; schema: Schema }> {
  const { schema, batches } = await queryArrow(conn, 'SELECT * FROM cpu');
  const totals: Totals = { rows: 0, n: 0n, usage: 0 };
  const usageAt = schema.fields.findIndex((f) => f.name === 'usage');
  const nAt = schema.fields.findIndex((f) => f.name === 'n');
  for await (const b of batches) {
    totals.rows += b.numRows;
    const usage = b.data.children[usageAt]!.values as Float64Array;
    const n = b.data.children[nAt]!.values as BigInt64Array;
    // n is below 2^32 here: summed from its low words, no BigInt per row.
    const words = new Uint32Array(n.buffer, n.byteOffset, n.length * 2);
    let s = 0;
    let k = 0;
    for (let i = 0; i < b.numRows; i++) s += usage[i]!;
    for (let i = 0; i < b.numRows; i++) k += words[2 * i]! + words[2 * i + 1]! * 0x1_0000_0000;
    totals.usage += s;
    totals.n += BigInt(k);
    keep?.push(b);
  }
  return { totals, schema };
}

/** `SELECT * FROM cpu` streamed, every chunk fetched and counted, nothing read. */
async function fetchOnly(conn: DuckDBConnection): Promise<number> {
  const result = await conn.stream('SELECT * FROM cpu');
  let rows = 0;
  for (;;) {
    const chunk = await result.fetchChunk();
    if (chunk === null || chunk.rowCount === 0) break;
    rows += chunk.rowCount;
  }
  return rows;
}

/** `batches` with column `host` (Utf8) dictionary-encoded, one dictionary for all. */
function dictionaryEncoded(schema: Schema, batches: readonly RecordBatch[]): { schema: Schema; batches: RecordBatch[] } {
  const hostAt = schema.fields.findIndex((f) => f.name === 'host');
  const dictType = new Dictionary(new Utf8(), new Int32());
  const fields = schema.fields.map((f, i) => (i === hostAt ? new Field('host', dictType, true) : f));
  const dictSchema = new Schema(fields);
  const codes = new Map<string, number>();
  const values: string[] = [];
  const indexed = batches.map((b) => {
    const host = b.getChildAt(hostAt)!;
    const idx = new Int32Array(b.numRows);
    for (let i = 0; i < b.numRows; i++) {
      const v = host.get(i) as string;
      let c = codes.get(v);
      if (c === undefined) {
        c = values.length;
        codes.set(v, c);
        values.push(v);
      }
      idx[i] = c;
    }
    return idx;
  });
  const dictionary = vectorFromArray(values, new Utf8());
  return {
    schema: dictSchema,
    batches: batches.map((b, k) => {
      const children = (b.data.children as Data[]).map((d, i) => (i === hostAt ? (makeData({ type: dictType, length: b.numRows, data: indexed[k]!, dictionary }) as Data) : d));
      return new RecordBatch(dictSchema, makeData({ type: new Struct(fields), length: b.numRows, nullCount: 0, children }));
    }),
  };
}

async function main(): Promise<void> {
  const loadAtStart = loadAverages();
  const db = await DuckDBInstance.create(':memory:', { threads: String(THREADS) });
  const conn = await db.connect();
  registerArrowScan(conn);
  log(`creating cpu: ${ROWS} rows, ${HOSTS} hosts`);
  await conn.run(
    `CREATE TABLE cpu AS SELECT TIMESTAMP '2024-01-01' + INTERVAL (i // ${HOSTS} * 10) SECOND AS ts, 'host_' || (i % ${HOSTS}) AS host,
       (hash(i) % 10000) / 100.0 AS usage, i::BIGINT AS n FROM range(${ROWS}) t(i)`,
  );
  const want = (await conn.runAndReadAll('SELECT count(*), sum(n), sum(usage) FROM cpu')).getRows()[0]!;
  const wantTotals: Totals = { rows: Number(want[0]), n: BigInt(want[1] as bigint), usage: want[2] as number };
  const wantGroups = groupsOf((await conn.runAndReadAll(AGG('cpu'))).getRows());

  // The batches the aggregates read, from an untimed queryArrow (which is checked too).
  const batches: RecordBatch[] = [];
  const first = await readArrow(conn, batches);
  checkTotals('queryArrow (warm-up)', first.totals, wantTotals);
  const dict = dictionaryEncoded(first.schema, batches);
  const arrowBytes = batches.reduce((n, b) => n + b.data.children.reduce((m, d) => m + (d.byteLength ?? 0), 0), 0);

  const workloads: Array<[string, () => Promise<void>]> = [
    [
      'fetch',
      async () => {
        const rows = await fetchOnly(conn);
        if (rows !== wantTotals.rows) throw new Error(`fetch: ${rows} rows, expected ${wantTotals.rows}`);
      },
    ],
    ['queryArrow', async () => checkTotals('queryArrow', (await readArrow(conn)).totals, wantTotals)],
    ...(['ordered', 'unordered'] as const).flatMap((order) =>
      ([['', first.schema, batches], [' (dict)', dict.schema, dict.batches]] as const).map(([kind, schema, bs]): [string, () => Promise<void>] => {
        const name = `publish+agg${kind}${order === 'unordered' ? ', unordered' : ''}`;
        return [
          name,
          async () => {
            const pub = publishArrow(schema, bs, { ordered: order === 'ordered' });
            try {
              checkGroups(name, groupsOf((await conn.runAndReadAll(AGG(pub.sql))).getRows()), wantGroups);
            } finally {
              pub.dispose();
            }
          },
        ];
      }),
    ),
    ['table agg', async () => checkGroups('table agg', groupsOf((await conn.runAndReadAll(AGG('cpu'))).getRows()), wantGroups)],
  ];

  const samples = new Map<string, Sample[]>(workloads.map(([name]) => [name, []]));
  // One untimed warm-up of each, then the rounds.
  for (const [, run] of workloads) await run();
  for (let round = 0; round < ROUNDS; round++) {
    for (const [name, run] of workloads) samples.get(name)!.push(await timed(run));
    log(`round ${round + 1}/${ROUNDS}: ${workloads.map(([name]) => `${name} ${fmt(samples.get(name)!.at(-1)!.ms, 0)} ms`).join(', ')}`);
  }
  conn.closeSync();
  db.closeSync();

  const median = (xs: number[]) => {
    const s = [...xs].sort((a, b) => a - b);
    return s.length % 2 === 1 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
  };
  const tableMs = median(samples.get('table agg')!.map((s) => s.ms));
  const out: string[] = [];
  out.push('# Arrow bridge (src/query/arrow-result.ts, arrow-scan-function.ts)');
  out.push('');
  out.push(`Machine: ${machine(loadAtStart)}. DuckDB in memory, ${THREADS} threads; table cpu(ts TIMESTAMP, host VARCHAR, usage DOUBLE, n BIGINT), ${ROWS.toLocaleString('en')} rows, ${HOSTS} hosts; ${batches.length} Arrow batches of ≤ 8,192 rows, ${fmt(arrowBytes / 2 ** 20, 1)} MiB of buffers. One warm-up each, then ${ROUNDS} rounds, workloads interleaved; every run's answer checked.`);
  out.push('');
  out.push('| workload | median ms | min ms | M rows/s (median) | CPU ms (median) | × table agg time |');
  out.push('|---|---:|---:|---:|---:|---:|');
  for (const [name] of workloads) {
    const s = samples.get(name)!;
    const ms = median(s.map((x) => x.ms));
    out.push(`| ${name} | ${fmt(ms, 1)} | ${fmt(Math.min(...s.map((x) => x.ms)), 1)} | ${fmt(ROWS / ms / 1000, 2)} | ${fmt(median(s.map((x) => x.cpuMs)), 0)} | ${fmt(ms / tableMs, 2)} |`);
  }
  out.push('');
  process.stdout.write(`${out.join('\n')}\n`);
  if (opts.json !== undefined) {
    writeFileSync(opts.json, JSON.stringify({ machine: machine(loadAtStart), rows: ROWS, rounds: ROUNDS, threads: THREADS, batches: batches.length, arrowBytes, samples: Object.fromEntries(samples) }, null, 2));
  }
}

await main();
