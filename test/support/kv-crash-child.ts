/**
 * The writer killed by the key-value store crash test (src/meta/kv/level-kv-backend.test.ts):
 * opens the LevelDB store in the directory given, prints `ready`, then puts `k/<n>` (n on six
 * digits) = `value <n>` for n = first, first + 1, … and prints `ack <n>` once each put is
 * acknowledged. Killed with SIGKILL at a random moment.
 *
 * argv: <dir> <first n>
 */
import { writeSync } from 'node:fs';
import { LevelKvBackend } from '../../src/meta/kv/level-kv-backend.js';

const [dir, firstArg] = process.argv.slice(2);
const kv = await LevelKvBackend.open(dir!);
writeSync(1, 'ready\n');
for (let n = Number(firstArg); ; n++) {
  await kv.put(`k/${String(n).padStart(6, '0')}`, new TextEncoder().encode(`value ${n}`));
  writeSync(1, `ack ${n}\n`);
}
