import assert from 'node:assert/strict';
import { test, type TestContext } from 'node:test';
import { testEngineOptions } from '../../test/support/engine.js';
import { tempDir } from '../../test/support/temp.js';
import { CatalogManager } from '../catalog/catalog-manager.js';
import type { RegionId } from '../engine/region/region-id.js';
import { RegionEngine } from '../engine/region-engine.js';
import { MemoryKvBackend } from '../meta/kv/memory-kv-backend.js';
import { FrontendInstance } from './instance.js';
import { LocalRegionAccess } from './region-access.js';
import { newSession } from './session.js';

/** Region access that records the time range of every scan it attaches. */
class RecordingAccess extends LocalRegionAccess {
  readonly ranges: Array<{ start?: bigint; end?: bigint }> = [];
  get regionEngine(): RegionEngine {
    return this.engine;
  }
  override scanRelation(id: RegionId, range: { start?: bigint; end?: bigint } = {}) {
    this.ranges.push(range);
    return super.scanRelation(id, range);
  }
}

async function frontend(t: TestContext): Promise<{ fe: FrontendInstance; access: RecordingAccess }> {
  const dir = tempDir(t);
  const engine = await RegionEngine.open(testEngineOptions(dir, { compactAfterFlush: false }));
  t.after(() => engine.close());
  const access = new RecordingAccess(engine);
  return { fe: new FrontendInstance(await CatalogManager.open(new MemoryKvBackend()), access), access };
}

test('a query\'s time range reaches the scan: files outside it are not read', async (t) => {
  const { fe, access } = await frontend(t);
  const s = newSession();
  await fe.executeSql("CREATE TABLE m (host STRING PRIMARY KEY, ts TIMESTAMP TIME INDEX, v DOUBLE); INSERT INTO m VALUES ('a', 0, 1), ('a', 1000, 2)", s);
  await fe.executeSql("ADMIN FLUSH_TABLE('m'); INSERT INTO m VALUES ('a', 100000, 3), ('a', 101000, 4); ADMIN FLUSH_TABLE('m')", s);
  const [out] = await fe.executeSql("SELECT sum(v) AS s FROM m WHERE ts >= 100000 AND ts < '1970-01-01 00:01:42'", s);
  assert.deepEqual(out, { kind: 'records', columns: [{ name: 's', data_type: 'Float64' }], rows: [[7]] });
  assert.deepEqual(access.ranges.at(-1), { start: 100000n, end: 102000n });
  const region = access.regionEngine.region([...access.regionEngine.regionIds()][0]!);
  assert.equal(region.files().length, 2);
  assert.equal(access.regionEngine.scan(region.id, { start: 100000n, end: 102000n }).fileCount, 1, 'the scan of that range reads one of the two files');
  // Through a CTE, as a range query reads its table, the range still reaches the scan.
  const [ranged] = await fe.executeSql("SELECT ts, max(v) RANGE '1s' AS m FROM m WHERE ts >= 100000 ALIGN '1s' BY () ORDER BY ts", s);
  assert.deepEqual((ranged as unknown as { rows: unknown[][] }).rows, [[100000, 3], [101000, 4]]);
  assert.deepEqual(access.ranges.at(-1), { start: 100000n });
  // A query without a usable range reads everything, and answers the same way.
  await fe.executeSql('SELECT sum(v) FROM m WHERE ts >= 100000 OR v > 100', s);
  assert.deepEqual(access.ranges.at(-1), {});
});
