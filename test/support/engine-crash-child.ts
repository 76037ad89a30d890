/**
 * The writer killed by the engine crash test: opens (or creates) one append-mode region in the
 * directory given, writes numbered batches with flushes and compactions going on, and prints
 * `ack <batch>` once each write is acknowledged. Killed with SIGKILL at a random moment.
 *
 * argv: <dir> <first batch number> <rows per batch> <memtable type> [<OpenDAL s3 config as JSON>]
 */
import { writeSync } from 'node:fs';
import { OP_PUT, type Vector } from '../../src/types/write-batch.js';
import { RegionEngine } from '../../src/engine/region-engine.js';
import { crashEngineOptions, crashStorage, CRASH_DIR, CRASH_REGION, crashMetadata } from './engine-crash-setup.js';

const [dir, firstArg, rowsArg, memtableArg, s3Arg] = process.argv.slice(2);
const first = Number(firstArg);
const rows = Number(rowsArg);

const storage = await crashStorage(dir!, s3Arg === undefined ? undefined : (JSON.parse(s3Arg) as Record<string, string>));
const engine = await RegionEngine.open(crashEngineOptions(dir!, memtableArg === 'partition_tree' ? 'partition_tree' : 'time_series', storage));
try {
  await engine.openRegion(CRASH_REGION, CRASH_DIR);
} catch {
  await engine.createRegion(crashMetadata(), CRASH_DIR);
}
writeSync(1, 'ready\n');
for (let b = first; ; b++) {
  const ts = BigInt64Array.from({ length: rows }, (_, i) => BigInt(b * rows + i));
  const columns = new Map<number, Vector>([
    [0, { type: 'string', data: Array.from({ length: rows }, () => 'w') }],
    [1, { type: 'int64', data: ts }],
    [2, { type: 'float64', data: Float64Array.from({ length: rows }, () => b) }],
  ]);
  await engine.write(CRASH_REGION, { op: OP_PUT, rowCount: rows, columns });
  writeSync(1, `ack ${b}\n`);
  if (b % 7 === 0) void engine.flushRegion(CRASH_REGION).catch(() => {});
}
