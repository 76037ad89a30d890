/** Helpers for WAL tests: two regions, numbered batches, replay of everything. */
import type { TestContext } from 'node:test';
import { silentLogger } from '../../src/common/logging.js';
import { regionId, type RegionId } from '../../src/types/region-id.js';
import type { WalEntry, WalRecord } from '../../src/engine/wal/record.js';
import { Wal, type WalOptions } from '../../src/engine/wal/wal.js';

export const A = regionId(1024, 0);
export const B = regionId(1025, 0);

export async function openWal(t: TestContext, dir: string, opts: Partial<WalOptions> = {}): Promise<Wal> {
  const wal = await Wal.open({ dir, fileSize: 1 << 20, syncWrite: false, readBatchSize: 128, logger: silentLogger(), ...opts });
  t.after(() => wal.close());
  return wal;
}

/** Region `r`'s batch number `n` (sequences n*10+1 … n*10+10), with a recognisable payload. */
export function batch(r: RegionId, n: number, payloadSize = 16): WalEntry {
  const payload = Buffer.alloc(payloadSize, n % 251);
  payload.write(`${r}:${n}`);
  return { regionId: r, sequence: n * 10 + 1, count: 10, type: 1, payload };
}

export async function replayAll(wal: Wal, after: Map<RegionId, number>): Promise<WalRecord[]> {
  const out: WalRecord[] = [];
  for await (const b of wal.replay(after)) out.push(...b);
  return out;
}

