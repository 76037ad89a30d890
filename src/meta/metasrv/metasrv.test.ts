import assert from 'node:assert/strict';
import { test, type TestContext } from 'node:test';
import { CatalogManager } from '../../catalog/catalog-manager.js';
import { LocalTableDdl } from '../../catalog/table-ddl.js';
import { datanodeTableKey, tableRouteKey, type DatanodeTable, type TableRoute } from '../../catalog/table-route.js';
import { StatusCode } from '../../common/error/status-code.js';
import { TsdbError } from '../../common/error/tsdb-error.js';
import { regionId } from '../../types/region-id.js';
import { FakeRegionServer } from '../../../test/support/fake-region-server.js';
import { gate, metasrvHarness, tableInfo, withColumn, type Harness } from '../../../test/support/metasrv-harness.js';
import { MemoryKvBackend } from '../kv/memory-kv-backend.js';
import type { DdlTask, MetaService } from '../meta-service.js';
import { PROCEDURE_PREFIX } from './procedure.js';

function decode<T>(v: Uint8Array | undefined): T | undefined {
  return v === undefined ? undefined : (JSON.parse(Buffer.from(v).toString('utf8')) as T);
}

function rejectsWith(code: StatusCode, pattern?: RegExp): (e: unknown) => boolean {
  return (e: unknown) => {
    assert.ok(e instanceof TsdbError, `expected a TsdbError, got ${String(e)}`);
    assert.equal(e.code, code, e.message);
    if (pattern !== undefined) assert.match(e.message, pattern);
    return true;
  };
}

async function route(ms: MetaService, tableId: number): Promise<TableRoute | undefined> {
  return decode<TableRoute>(await ms.get(tableRouteKey(tableId)));
}

/** Every region of every fake, as `node:regionId`. */
function regionsOnFakes(h: Harness): string[] {
  return [...h.fakes].flatMap(([node, f]) => [...f.regions.keys()].map((id) => `${node}:${id}`)).sort();
}

async function procedureRecords(h: Harness): Promise<string[]> {
  return (await h.kv.range(PROCEDURE_PREFIX)).map((e) => e.key);
}

/** The catalog as both executors must leave it: databases (names, options) and every table's info. */
async function catalogState(catalog: CatalogManager): Promise<unknown> {
  catalog.invalidate();
  const dbs = (await catalog.databases()).map((d) => ({ name: d.name, options: d.options }));
  return { dbs, tables: await catalog.allTables() };
}

test('DDL through procedures leaves the catalog and regions a standalone LocalTableDdl leaves; routes and shares follow', async (t) => {
  const h = await metasrvHarness(t, new MemoryKvBackend(), [1, 2]);
  const localKv = new MemoryKvBackend();
  const localCatalog = await CatalogManager.open(localKv);
  const localRegions = new FakeRegionServer();
  const local = new LocalTableDdl(localCatalog, localRegions);
  const ms = h.ms;

  const cpu = tableInfo(1024, 'cpu', { region_numbers: [0, 1, 2], partition: { columns: ['host'], exprs: ["host < 'h'", "host >= 'h' AND host < 'p'", "host >= 'p'"] } });
  const phy = tableInfo(1025, 'phy', { engine: 'metric', options: { physical_metric_table: '' } });
  const logical = tableInfo(1026, 'up', { engine: 'metric', options: { on_physical_table: 'phy' } });
  const tasks: DdlTask[] = [
    { kind: 'create_database', name: 'm', options: { ttl: '1h' }, if_not_exists: false },
    { kind: 'create_table', info: cpu, if_not_exists: false },
    { kind: 'create_table', info: phy, if_not_exists: false },
    { kind: 'create_table', info: logical, if_not_exists: false },
    { kind: 'alter_table', before: cpu, after: withColumn(cpu, 'w') },
    { kind: 'alter_table', before: withColumn(cpu, 'w'), after: { ...withColumn(cpu, 'w'), name: 'cpu2' } },
    { kind: 'alter_database', name: 'm', set: { ttl: '2h' }, unset: [] },
    { kind: 'truncate_table', info: { ...withColumn(cpu, 'w'), name: 'cpu2' } },
  ];
  const apply = async (task: DdlTask): Promise<boolean | void> => {
    switch (task.kind) {
      case 'create_database':
        return local.createDatabase(task.name, task.options, task.if_not_exists);
      case 'alter_database':
        return local.alterDatabase(task.name, task.set, task.unset);
      case 'drop_database':
        return local.dropDatabase(task.name);
      case 'create_table':
        return local.createTable(task.info, task.if_not_exists);
      case 'alter_table':
        return local.alterTable(task.before, task.after);
      case 'drop_table':
        return local.dropTable(task.info);
      case 'truncate_table':
        return local.truncateTable(task.info);
    }
  };
  for (const task of tasks) {
    const created = await apply(task);
    const result = await ms.ddl(task);
    if (typeof created === 'boolean') assert.equal(result.created, created, task.kind);
  }
  const clusterCatalog = CatalogManager.attach(h.kv);
  assert.deepEqual(await catalogState(clusterCatalog), await catalogState(localCatalog));

  // Regions: the same metadata, each on the datanode its route names (round robin: 1, 2, 1, then 2).
  const cpuRoute = (await route(ms, 1024))!;
  assert.deepEqual(
    cpuRoute.region_routes.map((r) => [r.region_number, r.leader_peer?.id, r.partition_expr]),
    [
      [0, 1, "host < 'h'"],
      [1, 2, "host >= 'h' AND host < 'p'"],
      [2, 1, "host >= 'p'"],
    ],
  );
  for (const r of cpuRoute.region_routes) {
    const id = regionId(1024, r.region_number);
    assert.deepEqual(h.fakes.get(r.leader_peer!.id)!.regions.get(id)?.metadata, localRegions.regions.get(id)?.metadata);
  }
  assert.equal(h.fakes.get(2)!.regions.get(regionId(1025, 0))?.metadata.schema_version, 0, 'the physical table has its region');
  assert.equal(await route(ms, 1026), undefined, 'a logical table has no route');
  assert.deepEqual(decode<DatanodeTable>(await ms.get(datanodeTableKey(1, 1024)))?.regions.map((r) => r.region_number), [0, 2]);
  assert.ok(h.fakes.get(2)!.calls.some((c) => c.method === 'truncateRegion' && c.id === regionId(1024, 1)));

  // Refusals, as in standalone.
  await assert.rejects(ms.ddl({ kind: 'create_table', info: { ...cpu, table_id: 1030, name: 'cpu2' }, if_not_exists: false }), rejectsWith(StatusCode.TableAlreadyExists, /`tsdb\.public\.cpu2`/));
  assert.deepEqual(await ms.ddl({ kind: 'create_table', info: { ...cpu, table_id: 1031, name: 'cpu2' }, if_not_exists: true }), { created: false });
  assert.equal(h.fakes.get(1)!.regions.has(regionId(1031, 0)), false, 'a name found taken creates no region');
  await assert.rejects(ms.ddl({ kind: 'alter_table', before: cpu, after: withColumn(cpu, 'x') }), rejectsWith(StatusCode.TableNotFound));
  const cpu2 = (await clusterCatalog.table('public', 'cpu2'))!;
  await assert.rejects(ms.ddl({ kind: 'alter_table', before: { ...cpu2, schema_version: 0 }, after: withColumn(cpu2, 'x') }), rejectsWith(StatusCode.RequestOutdated, /run the statement again/));
  await assert.rejects(ms.ddl({ kind: 'truncate_table', info: logical }), rejectsWith(StatusCode.Unexpected));
  await assert.rejects(ms.ddl({ kind: 'create_table', info: tableInfo(1032, 't', { database: 'nope' }), if_not_exists: false }), rejectsWith(StatusCode.DatabaseNotFound));

  // Drops: metadata, then regions; nothing of the tables left.
  for (const task of [
    { kind: 'drop_table', info: logical },
    { kind: 'drop_table', info: cpu2 },
    { kind: 'drop_table', info: phy },
    { kind: 'drop_database', name: 'm' },
  ] as DdlTask[]) {
    await apply(task);
    await ms.ddl(task);
  }
  assert.deepEqual(await catalogState(clusterCatalog), await catalogState(localCatalog));
  assert.deepEqual(regionsOnFakes(h), []);
  assert.deepEqual((await h.kv.range('__table_route/')).length + (await h.kv.range('__dn_table/')).length, 0);
  assert.deepEqual(await procedureRecords(h), [], 'finished procedures leave no record');
  await assert.rejects(ms.ddl({ kind: 'drop_table', info: cpu2 }), rejectsWith(StatusCode.TableNotFound));

  // Subscribers heard of every committed change.
  const changed = h.events.filter((e) => e.kind === 'table_changed').map((e) => (e.kind === 'table_changed' ? e.table_id : 0));
  assert.deepEqual([...new Set(changed)].sort(), [1024, 1025, 1026]);
  assert.ok(h.events.some((e) => e.kind === 'database_changed' && e.name === 'm'));
});

test('regions go only to datanodes with a current lease; none: a clear error', async (t) => {
  const h = await metasrvHarness(t, new MemoryKvBackend(), [1, 2, 3]);
  h.now += 5000;
  await h.beat(1);
  await h.beat(3);
  h.now += 6000; // datanode 2's last heartbeat is 11 s old: its 10 s lease lapsed
  await h.ms.ddl({ kind: 'create_table', info: tableInfo(1024, 'a', { region_numbers: [0, 1, 2, 3] }), if_not_exists: false });
  assert.deepEqual((await route(h.ms, 1024))!.region_routes.map((r) => r.leader_peer?.id), [1, 3, 1, 3]);
  h.now += 10_000;
  await assert.rejects(
    h.ms.ddl({ kind: 'create_table', info: tableInfo(1025, 'b'), if_not_exists: false }),
    rejectsWith(StatusCode.RuntimeResourcesExhausted, /no datanode is available.*none of the 3 known has sent a heartbeat within its lease \(10s\)/),
  );
  // A logical table needs no datanode.
  await h.ms.ddl({ kind: 'create_table', info: tableInfo(1026, 'phy', { engine: 'metric', options: { on_physical_table: 'x' } }), if_not_exists: false });
  assert.equal((await h.ms.catalog.table('public', 'phy'))?.table_id, 1026);
});

test('heartbeats: leases for regions routed here, close for the rest, open for those routed here and not reported', async (t) => {
  const h = await metasrvHarness(t, new MemoryKvBackend(), [1, 2], { heartbeatIntervalMs: 2000 });
  await h.ms.ddl({ kind: 'create_table', info: tableInfo(1024, 'a', { region_numbers: [0, 1, 2] }), if_not_exists: false });
  const [r0, r1, r2] = [regionId(1024, 0), regionId(1024, 1), regionId(1024, 2)]; // on 1, 2, 1
  const stranger = regionId(2000, 0);
  const res = await h.beat(1, [r0, r1, stranger]);
  assert.equal(res.heartbeat_interval_ms, 2000);
  assert.equal(res.lease_ms, 7000, '3 intervals + 1 s');
  assert.deepEqual(res.leased_regions, [String(r0)]);
  assert.deepEqual([...res.close_regions].sort(), [String(r1), String(stranger)].sort());
  assert.deepEqual(res.open_regions, [{ region_id: String(r2), dir: 'tsdb/public/1024/1024_0000000002/' }]);
  const res2 = await h.beat(2);
  assert.deepEqual([res2.leased_regions, res2.close_regions, res2.open_regions], [[String(r1)], [], []]);
  const fe = await h.ms.heartbeat({ role: 'frontend', peer: { id: 77, addr: '10.0.0.9:4001' }, version: 'x', start_time_ms: 5, regions: [] });
  assert.deepEqual([fe.heartbeat_interval_ms, fe.leased_regions, fe.open_regions], [12_000, [], []]);
  await assert.rejects(h.ms.heartbeat({ role: 'datanode', peer: { id: 1, addr: '' }, version: 'x', start_time_ms: 0, regions: [] }), rejectsWith(StatusCode.InvalidArguments, /no address/));
  await assert.rejects(h.beat(1, [-1n]), rejectsWith(StatusCode.InvalidArguments, /not a u64/));
});

test('a datanode id held by a live datanode at another address is refused, until its lease lapses', async (t) => {
  const h = await metasrvHarness(t, new MemoryKvBackend(), [1]);
  const imposter = { role: 'datanode' as const, peer: { id: 1, addr: '10.9.9.9:3001' }, version: 'x', start_time_ms: 9, regions: [] };
  await assert.rejects(h.ms.heartbeat(imposter), rejectsWith(StatusCode.InvalidArguments, /datanode id 1 is already used by the live datanode at 10\.0\.0\.1:3001.*give every datanode its own node_id/));
  assert.equal((await h.ms.clusterInfo()).find((n) => n.role === 'datanode')?.peer.addr, '10.0.0.1:3001', 'the live node keeps its id');
  h.now += 10_000;
  await h.ms.heartbeat(imposter); // the first one is gone: its id may be taken
  assert.equal((await h.ms.clusterInfo()).find((n) => n.role === 'datanode')?.peer.addr, '10.9.9.9:3001');
});

test('clusterInfo: the metasrv first, then nodes with alive flags; a restarted metasrv knows them from the store', async (t) => {
  const h = await metasrvHarness(t, new MemoryKvBackend(), [2, 1]);
  await h.ms.heartbeat({ role: 'frontend', peer: { id: 5, addr: '10.0.0.5:4001' }, version: 'v', start_time_ms: 7, regions: [] });
  h.now += 4000;
  await h.beat(2);
  h.now += 7000; // node 1: 11 s since its heartbeat
  const info = await h.ms.clusterInfo();
  assert.deepEqual(
    info.map((n) => [n.role, n.peer.id, n.peer.addr, n.alive]),
    [
      ['metasrv', 0, '127.0.0.1:3002', true],
      ['datanode', 1, '10.0.0.1:3001', false],
      ['datanode', 2, '10.0.0.2:3001', true],
      ['frontend', 5, '10.0.0.5:4001', true],
    ],
  );
  assert.equal(info[0]!.start_time_ms, 1_000_000);
  await h.restart();
  assert.deepEqual(
    (await h.ms.clusterInfo()).map((n) => [n.role, n.peer.id, n.alive]),
    [
      ['metasrv', 0, true],
      ['datanode', 1, false],
      ['datanode', 2, true],
      ['frontend', 5, true],
    ],
  );
});

test('regions a procedure is creating are neither closed, opened nor leased by heartbeats meanwhile', async (t) => {
  const hold = gate();
  let held = false;
  const h = await metasrvHarness(t, new MemoryKvBackend(), [1], {
    procedures: {
      beforeStep: async (p) => {
        if (p.step === 'create_metadata' && !held) {
          held = true;
          await hold.wait;
        }
      },
    },
  });
  const creating = h.ms.ddl({ kind: 'create_table', info: tableInfo(1024, 'a'), if_not_exists: false });
  creating.catch(() => {}); // awaited below, after the restart
  while (!held) await new Promise((r) => setImmediate(r));
  const res = await h.beat(1);
  assert.deepEqual([res.leased_regions, res.close_regions, res.open_regions], [[], [], []], 'created, not yet routed: left alone');
  hold.release();
  await creating;
  assert.deepEqual((await h.beat(1)).leased_regions, [String(regionId(1024, 0))]);
});

test('a create that fails on one datanode drops the regions created on the others; unreachable datanodes are retried', async (t) => {
  const h = await metasrvHarness(t, new MemoryKvBackend(), [1, 2], { procedures: { maxRetries: 3 } });
  h.fakes.get(2)!.failNext('createRegion', new TsdbError(StatusCode.StorageUnavailable, 'connection refused'));
  h.fakes.get(2)!.failNext('createRegion', new TsdbError(StatusCode.StorageUnavailable, 'connection refused'));
  await h.ms.ddl({ kind: 'create_table', info: tableInfo(1024, 'a', { region_numbers: [0, 1] }), if_not_exists: false });
  assert.equal(h.fakes.get(2)!.calls.filter((c) => c.method === 'createRegion').length, 3, 'two retries, then done');

  h.fakes.get(2)!.failNext('createRegion', new TsdbError(StatusCode.InvalidArguments, 'bad metadata'));
  await assert.rejects(h.ms.ddl({ kind: 'create_table', info: tableInfo(1025, 'b', { region_numbers: [0, 1] }), if_not_exists: false }), rejectsWith(StatusCode.InvalidArguments, /create region 1 of tsdb\.public\.b on datanode 2 .*bad metadata/));
  assert.equal(await h.ms.catalog.table('public', 'b'), undefined);
  assert.deepEqual(regionsOnFakes(h), [`1:${regionId(1024, 0)}`, `2:${regionId(1024, 1)}`], 'no region of the failed table is left');
  assert.deepEqual(await procedureRecords(h), []);
});

test('a restarted metasrv undoes a create stopped before its metadata: no table, no region left', async (t) => {
  let crash = true;
  const h = await metasrvHarness(t, new MemoryKvBackend(), [1, 2], {
    procedures: {
      beforeStep: async (p) => {
        if (crash && p.step === 'create_metadata') await new Promise(() => {}); // never goes on: a crash
      },
    },
  });
  const creating = h.ms.ddl({ kind: 'create_table', info: tableInfo(1024, 'a', { region_numbers: [0, 1, 2] }), if_not_exists: false });
  creating.catch(() => {}); // awaited below, after the restart
  while (h.fakes.get(1)!.regions.size < 2) await new Promise((r) => setImmediate(r));
  // A second task for the name waits for the first's lock: persisted too, resumed after it.
  const second = h.ms.ddl({ kind: 'create_table', info: tableInfo(1030, 'a'), if_not_exists: true });
  second.catch(() => {});
  while ((await procedureRecords(h)).length < 2) await new Promise((r) => setImmediate(r));
  crash = false;
  await h.restart();
  await assert.rejects(creating, rejectsWith(StatusCode.Cancelled, /metasrv is stopping/));
  await assert.rejects(second, rejectsWith(StatusCode.Cancelled));
  await h.ms.whenIdle();
  assert.equal(await h.ms.catalog.table('public', 'a'), undefined);
  assert.deepEqual(regionsOnFakes(h), []);
  assert.deepEqual(await procedureRecords(h), []);
  assert.equal(await route(h.ms, 1024), undefined);
  // The name is free again.
  await h.ms.ddl({ kind: 'create_table', info: tableInfo(1025, 'a'), if_not_exists: false });
});

test('a restarted metasrv finishes a create whose metadata was written', async (t) => {
  let record: Uint8Array | undefined;
  const h = await metasrvHarness(t, new MemoryKvBackend(), [1], {
    procedures: {
      beforeStep: async (p) => {
        if (p.step === 'create_metadata') record = await h.kv.get(`${PROCEDURE_PREFIX}${p.id}`);
      },
    },
  });
  await h.ms.ddl({ kind: 'create_table', info: tableInfo(1024, 'a'), if_not_exists: false });
  // As if the metasrv stopped after the metadata batch, before removing the record.
  const id = (decode<{ id: string }>(record))!.id;
  await h.kv.put(`${PROCEDURE_PREFIX}${id}`, record!);
  await h.restart();
  await h.ms.whenIdle();
  assert.equal((await h.ms.catalog.table('public', 'a'))?.table_id, 1024);
  assert.deepEqual(regionsOnFakes(h), [`1:${regionId(1024, 0)}`], 'its region stays');
  assert.deepEqual(await procedureRecords(h), []);
});

test('a rollback that cannot reach a datanode keeps its record; the next start drops what is left', async (t) => {
  const h = await metasrvHarness(t, new MemoryKvBackend(), [1, 2], { procedures: { maxRetries: 2 } });
  h.fakes.get(2)!.failNext('createRegion', new TsdbError(StatusCode.Internal, 'disk on fire'));
  for (let i = 0; i < 2; i++) h.fakes.get(1)!.failNext('dropRegion', new TsdbError(StatusCode.StorageUnavailable, 'unreachable'));
  await assert.rejects(h.ms.ddl({ kind: 'create_table', info: tableInfo(1024, 'a', { region_numbers: [0, 1] }), if_not_exists: false }), rejectsWith(StatusCode.Internal, /disk on fire/));
  assert.deepEqual(regionsOnFakes(h), [`1:${regionId(1024, 0)}`]);
  assert.equal((await procedureRecords(h)).length, 1, 'unfinished: kept');
  await h.restart();
  await h.ms.whenIdle();
  assert.deepEqual(regionsOnFakes(h), []);
  assert.deepEqual(await procedureRecords(h), []);
});

test('a drop stopped after its metadata is finished by a restarted metasrv (regions already gone count as dropped)', async (t) => {
  let crash = false;
  const h = await metasrvHarness(t, new MemoryKvBackend(), [1, 2], {
    procedures: {
      beforeStep: async (p) => {
        if (crash && p.step === 'drop_regions') await new Promise(() => {});
      },
    },
  });
  const info = tableInfo(1024, 'a', { region_numbers: [0, 1] });
  await h.ms.ddl({ kind: 'create_table', info, if_not_exists: false });
  crash = true;
  const dropping = h.ms.ddl({ kind: 'drop_table', info });
  dropping.catch(() => {}); // awaited below, after the restart
  while ((await h.ms.catalog.tableRoute(1024)) !== undefined) await new Promise((r) => setImmediate(r));
  await h.fakes.get(2)!.dropRegion(regionId(1024, 1)); // one region went before the crash
  crash = false;
  await h.restart();
  await assert.rejects(dropping);
  await h.ms.whenIdle();
  assert.deepEqual(regionsOnFakes(h), []);
  assert.equal(await h.ms.catalog.table('public', 'a'), undefined);
  assert.deepEqual(await procedureRecords(h), []);
});

test('an alter resumed after its regions were altered goes on to the metadata', async (t) => {
  let crash = false;
  const h = await metasrvHarness(t, new MemoryKvBackend(), [1], {
    procedures: {
      beforeStep: async (p) => {
        if (crash && p.step === 'update_metadata') await new Promise(() => {});
      },
    },
  });
  const info = tableInfo(1024, 'a');
  await h.ms.ddl({ kind: 'create_table', info, if_not_exists: false });
  crash = true;
  const altering = h.ms.ddl({ kind: 'alter_table', before: info, after: withColumn(info, 'w') });
  altering.catch(() => {}); // awaited below, after the restart
  while (h.fakes.get(1)!.regions.get(regionId(1024, 0))!.metadata.schema_version === 0) await new Promise((r) => setImmediate(r));
  crash = false;
  // The fake accepts a repeated alter; an engine refuses it (InvalidArguments), which a resumed alter counts as done.
  h.fakes.get(1)!.failNext('alterRegion', new TsdbError(StatusCode.InvalidArguments, 'alter of region needs a schema version above 1'));
  await h.restart();
  await assert.rejects(altering);
  await h.ms.whenIdle();
  assert.deepEqual((await h.ms.catalog.table('public', 'a'))?.columns.map((c) => c.name), ['host', 'ts', 'v', 'w']);
  assert.deepEqual(await procedureRecords(h), []);
});

test('ddl fails after its timeout while the procedure goes on; DDL of one table waits for the one before', async (t) => {
  const hold = gate();
  let holding = true;
  const h = await metasrvHarness(t, new MemoryKvBackend(), [1], {
    procedures: {
      beforeStep: async (p) => {
        if (holding && p.step === 'create_regions') await hold.wait;
      },
    },
  });
  await assert.rejects(h.ms.ddl({ kind: 'create_table', info: tableInfo(1024, 'a'), if_not_exists: false }, 50), rejectsWith(StatusCode.DeadlineExceeded, /CREATE TABLE tsdb\.public\.a \(id 1024\) did not finish within 50ms; it goes on/));
  // The same name again: waits for the lock, then finds the table.
  const again = h.ms.ddl({ kind: 'create_table', info: tableInfo(1025, 'a'), if_not_exists: true });
  // Another table is not held up.
  holding = false;
  await h.ms.ddl({ kind: 'create_table', info: tableInfo(1026, 'b'), if_not_exists: false });
  hold.release();
  assert.deepEqual(await again, { created: false });
  assert.equal((await h.ms.catalog.table('public', 'a'))?.table_id, 1024);
});

test('at most maxRunning procedures run at once', async (t) => {
  let running = 0;
  let most = 0;
  const h = await metasrvHarness(t, new MemoryKvBackend(), [1], {
    procedures: {
      maxRunning: 2,
      beforeStep: async () => {
        most = Math.max(most, ++running);
        await new Promise((r) => setTimeout(r, 5));
        running--;
      },
    },
  });
  await Promise.all(Array.from({ length: 6 }, (_, i) => h.ms.ddl({ kind: 'create_table', info: tableInfo(1024 + i, `t${i}`), if_not_exists: false })));
  assert.equal(most, 2);
  assert.equal((await h.ms.catalog.tables('public')).length, 6);
});

async function failoverHarness(t: TestContext, enableFailover: boolean): Promise<Harness> {
  const h = await metasrvHarness(t, new MemoryKvBackend(), [1, 2, 3], { enableFailover, failoverTickMs: 3_600_000 });
  await h.ms.ddl({ kind: 'create_table', info: tableInfo(1024, 'a', { region_numbers: [0, 1, 2, 3], options: { storage: 'S3' } }), if_not_exists: false });
  // Round robin: regions 0 and 3 on datanode 1, 1 on 2, 2 on 3. Then datanode 1 goes quiet.
  for (let i = 0; i < 4; i++) {
    h.now += 3000;
    await h.beat(2);
    await h.beat(3);
  }
  return h;
}

test('failover: the regions of a datanode whose lease lapsed reopen on live ones; routes and shares move; subscribers told', async (t) => {
  const h = await failoverHarness(t, true);
  h.events.length = 0;
  await h.ms.checkFailover();
  const r = (await route(h.ms, 1024))!;
  assert.equal(r.version, 1);
  // Round robin over the live nodes 2 and 3 (its counter at 4 after the creation).
  assert.deepEqual(r.region_routes.map((x) => x.leader_peer?.id), [2, 2, 3, 3]);
  assert.deepEqual(h.events, [{ kind: 'table_changed', table_id: 1024 }]);
  assert.equal(await h.ms.get(datanodeTableKey(1, 1024)), undefined, 'the lost node has no share left');
  for (const x of r.region_routes) {
    const id = regionId(1024, x.region_number);
    assert.ok(h.fakes.get(x.leader_peer!.id)!.openIds().includes(id), `region ${x.region_number} open on its new leader`);
    const share = decode<DatanodeTable>(await h.ms.get(datanodeTableKey(x.leader_peer!.id, 1024)))!;
    assert.equal(share.storage, 'S3');
    assert.ok(share.regions.some((s) => s.region_number === x.region_number && s.dir === `tsdb/public/1024/${1024}_${String(x.region_number).padStart(10, '0')}/`));
  }
  // The new leaders' heartbeats lease the moved regions.
  const leased = [...(await h.beat(2)).leased_regions, ...(await h.beat(3)).leased_regions].sort();
  assert.deepEqual(leased, [0, 1, 2, 3].map((n) => String(regionId(1024, n))).sort());
  // The lost node comes back: told to close what moved, leased nothing.
  const back = await h.beat(1);
  assert.deepEqual([...back.close_regions].sort(), [String(regionId(1024, 0)), String(regionId(1024, 3))].sort());
  assert.deepEqual(back.leased_regions, []);
  assert.deepEqual(await procedureRecords(h), []);
  // A second tick finds nothing more to move.
  await h.ms.checkFailover();
  assert.equal((await route(h.ms, 1024))!.version, 1);
});

test('without failover (or on local storage) routes stay and a datanode that comes back keeps its leases', async (t) => {
  const h = await failoverHarness(t, false);
  await h.ms.checkFailover();
  assert.equal((await route(h.ms, 1024))!.version, 0);
  assert.deepEqual([...(await h.beat(1)).leased_regions].sort(), [String(regionId(1024, 0)), String(regionId(1024, 3))].sort());

  const local = await metasrvHarness(t, new MemoryKvBackend(), [1, 2], { enableFailover: true, failoverTickMs: 3_600_000 });
  await local.beat(1, [], false);
  await local.ms.ddl({ kind: 'create_table', info: tableInfo(1024, 'a'), if_not_exists: false });
  await local.beat(1, undefined, false);
  local.now += 11_000;
  await local.beat(2);
  await local.ms.checkFailover();
  assert.equal((await route(local.ms, 1024))!.region_routes[0]!.leader_peer?.id, 1, 'local storage: not moved');
});

test('failover waits for a live datanode; a lost node alone stays routed', async (t) => {
  const h = await metasrvHarness(t, new MemoryKvBackend(), [1], { enableFailover: true, failoverTickMs: 3_600_000 });
  await h.ms.ddl({ kind: 'create_table', info: tableInfo(1024, 'a'), if_not_exists: false });
  h.now += 20_000;
  await h.ms.checkFailover();
  assert.equal((await route(h.ms, 1024))!.region_routes[0]!.leader_peer?.id, 1);
  assert.deepEqual(await procedureRecords(h), [], 'a failover that could not start leaves no record');
});

test('stop ends even with a procedure stuck in a datanode call', async (t) => {
  const h = await metasrvHarness(t, new MemoryKvBackend(), [1]);
  const fake = h.fakes.get(1)!;
  fake.createRegion = () => new Promise(() => {});
  const creating = h.ms.ddl({ kind: 'create_table', info: tableInfo(1024, 'a'), if_not_exists: false });
  creating.catch(() => {}); // awaited below, after the restart
  await new Promise((r) => setTimeout(r, 10));
  const started = Date.now();
  await h.ms.stop();
  assert.ok(Date.now() - started < 1000);
  await assert.rejects(creating, rejectsWith(StatusCode.Cancelled));
  await assert.rejects(h.ms.ddl({ kind: 'create_table', info: tableInfo(1025, 'b'), if_not_exists: false }), rejectsWith(StatusCode.IllegalState, /stopped/));
  assert.equal((await procedureRecords(h)).length, 1, 'kept for the next start');
});

test('tables created concurrently under one name: one wins', async (t) => {
  const h = await metasrvHarness(t, new MemoryKvBackend(), [1, 2]);
  const results = await Promise.allSettled(Array.from({ length: 5 }, (_, i) => h.ms.ddl({ kind: 'create_table', info: tableInfo(1024 + i, 'same', { region_numbers: [0, 1] }), if_not_exists: false })));
  assert.equal(results.filter((r) => r.status === 'fulfilled').length, 1);
  const winner = (await h.ms.catalog.table('public', 'same'))!.table_id;
  assert.deepEqual(regionsOnFakes(h), [`1:${regionId(winner, 0)}`, `2:${regionId(winner, 1)}`]);
});

test('with the store unreachable, heartbeats still renew the leases of the regions placed before (by a DDL just before too); DDL fails', async (t) => {
  const kv = new MemoryKvBackend();
  const h = await metasrvHarness(t, kv, [1, 2]);
  await h.ms.ddl({ kind: 'create_table', info: tableInfo(1024, 'a', { region_numbers: [0, 1] }), if_not_exists: false });
  const [r0, r1] = [regionId(1024, 0), regionId(1024, 1)]; // on 1 and 2, and no heartbeat since
  const real = { get: kv.get, range: kv.range, put: kv.put, batch: kv.batch, compareAndPut: kv.compareAndPut };
  const unreachable = () => Promise.reject(new TsdbError(StatusCode.StorageUnavailable, 'etcd at 10.0.0.1:2379 is unavailable'));
  const unanswered: Array<() => void> = [];
  kv.get = unreachable;
  kv.range = unreachable;
  kv.put = unreachable;
  kv.compareAndPut = unreachable;
  // A store that does not answer at all: a heartbeat must not wait for it.
  kv.batch = () => new Promise<void>((resolve) => unanswered.push(resolve));
  t.after(() => {
    Object.assign(kv, real);
    for (const answer of unanswered) answer();
  });
  h.now += 5000;
  const within = <T>(p: Promise<T>): Promise<T> => Promise.race([p, new Promise<never>((_, reject) => setTimeout(() => reject(new Error('the heartbeat waited for the store')), 1000).unref())]);
  const one = await within(h.beat(1, [r0]));
  const two = await within(h.beat(2, [r1]));
  assert.deepEqual([one.leased_regions, one.close_regions, two.leased_regions, two.close_regions], [[String(r0)], [], [String(r1)], []]);
  assert.ok(unanswered.length > 0, 'the heartbeats were sent to the store');
  assert.ok((await h.ms.clusterInfo()).filter((n) => n.role === 'datanode').every((n) => n.alive && n.last_activity_ms === h.now));
  await assert.rejects(h.ms.ddl({ kind: 'create_table', info: tableInfo(1025, 'b'), if_not_exists: false }), rejectsWith(StatusCode.StorageUnavailable, /etcd at 10\.0\.0\.1:2379 is unavailable/));
});
