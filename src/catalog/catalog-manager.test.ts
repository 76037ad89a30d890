import assert from 'node:assert/strict';
import { test } from 'node:test';
import { StatusCode } from '../common/error/status-code.js';
import { TsdbError } from '../common/error/tsdb-error.js';
import { MemoryKvBackend } from '../meta/kv/memory-kv-backend.js';
import { CatalogManager } from './catalog-manager.js';
import type { TableInfo } from './table-info.js';
import { tablePlacement } from './table-route.js';

function table(id: number, database: string, name: string): TableInfo {
  return {
    table_id: id,
    catalog: 'tsdb',
    database,
    name,
    columns: [{ column_id: 0, name: 'ts', data_type: 'TimestampMillisecond', semantic_type: 'timestamp', nullable: false }],
    primary_key: [],
    time_index: 'ts',
    engine: 'mito',
    options: {},
    region_numbers: [0],
    next_column_id: 1,
    schema_version: 0,
    created_at: 0,
  };
}

test('a new catalog has public and information_schema; databases are created once', async () => {
  const kv = new MemoryKvBackend();
  const c = await CatalogManager.open(kv);
  assert.deepEqual((await c.databases()).map((d) => d.name), ['information_schema', 'public']);
  assert.equal(await c.createDatabase('m', { ttl: '1h' }, false), true);
  assert.equal(await c.createDatabase('m', {}, true), false);
  await assert.rejects(c.createDatabase('m', {}, false), (e: unknown) => e instanceof TsdbError && e.code === StatusCode.InvalidArguments && e.message === 'Schema m already exists');
  await c.alterDatabase('m', { ttl: '2h' }, []);
  assert.deepEqual((await c.database('m'))?.options, { ttl: '2h' });
  // Reopening the same store finds everything again.
  const again = await CatalogManager.open(kv);
  assert.deepEqual((await again.databases()).map((d) => d.name), ['information_schema', 'm', 'public']);
});

test('table ids are unique and increasing from 1024, also under concurrency', async () => {
  const c = await CatalogManager.open(new MemoryKvBackend());
  const ids = await Promise.all(Array.from({ length: 50 }, () => c.allocateTableId()));
  assert.deepEqual([...ids].sort((a, b) => a - b), Array.from({ length: 50 }, (_, i) => 1024 + i));
});

test('tables: create, find, list, rename, drop; a name is claimed once', async () => {
  const c = await CatalogManager.open(new MemoryKvBackend());
  await c.createTable(table(1024, 'public', 'a'));
  await assert.rejects(c.createTable(table(1025, 'public', 'a')), (e: unknown) => e instanceof TsdbError && e.code === StatusCode.TableAlreadyExists && /`tsdb\.public\.a`/.test(e.message));
  assert.equal(await c.tableById(1025), undefined, 'the losing creation leaves no info behind');
  const results = await Promise.allSettled([c.createTable(table(1030, 'public', 'b')), c.createTable(table(1031, 'public', 'b'))]);
  assert.deepEqual(results.map((r) => r.status).sort(), ['fulfilled', 'rejected']);
  assert.deepEqual((await c.tables('public')).map((t) => t.name), ['a', 'b']);
  const a = (await c.table('public', 'a'))!;
  await c.updateTable(a, { ...a, name: 'c' });
  assert.equal(await c.table('public', 'a'), undefined);
  assert.equal((await c.table('public', 'c'))?.table_id, 1024);
  await c.dropTable((await c.table('public', 'c'))!);
  assert.deepEqual((await c.allTables()).map((t) => t.name), ['b']);
});

test('table reads are cached; a change is seen at once, also by reads that raced with it', async () => {
  const kv = new MemoryKvBackend();
  const c = await CatalogManager.open(kv);
  const racing = c.table('public', 'x'); // read while the table is being created
  const created = c.createTable(table(1024, 'public', 'x'));
  assert.equal(await racing, undefined);
  await created;
  assert.equal((await c.table('public', 'x'))?.table_id, 1024, 'the read before the creation is not kept');
  // Served from the cache: the store is not read again.
  let reads = 0;
  const get = kv.get.bind(kv);
  kv.get = (k: string) => {
    reads++;
    return get(k);
  };
  await c.table('public', 'x');
  await c.table('public', 'x');
  assert.equal(reads, 0);
  const x = (await c.table('public', 'x'))!;
  await c.updateTable(x, { ...x, options: { ttl: '1day' } });
  assert.deepEqual((await c.table('public', 'x'))?.options, { ttl: '1day' });
  await c.dropTable(x);
  assert.equal(await c.table('public', 'x'), undefined);
});

test('database reads are cached; creating, altering and dropping one is seen at once; invalidate() forgets them', async () => {
  const kv = new MemoryKvBackend();
  const c = await CatalogManager.open(kv);
  assert.equal(await c.database('d'), undefined);
  await c.createDatabase('d', { ttl: '1h' }, false);
  assert.deepEqual((await c.database('d'))?.options, { ttl: '1h' }, 'the earlier "not found" is not kept');
  let reads = 0;
  const get = kv.get.bind(kv);
  kv.get = (k: string) => {
    reads++;
    return get(k);
  };
  await c.database('d');
  await c.database('public');
  await c.database('public');
  assert.equal(reads, 1, 'd from the cache, public read once');
  await c.alterDatabase('d', { ttl: '2h' }, []);
  assert.deepEqual((await c.database('d'))?.options, { ttl: '2h' });
  await c.dropDatabase('d');
  assert.equal(await c.database('d'), undefined);
  // Written by another process (a cluster's metasrv): seen after invalidate().
  assert.equal(await c.database('e'), undefined);
  await CatalogManager.attach(kv).createDatabase('e', {}, false);
  assert.equal(await c.database('e'), undefined, 'as last read');
  c.invalidate();
  assert.equal((await c.database('e'))?.name, 'e');
});

test('cluster writes: a table with its placement is one batch; drop removes route and shares; alter checks the stored info', async () => {
  const kv = new MemoryKvBackend();
  const c = await CatalogManager.open(kv);
  const info = { ...table(1024, 'public', 'p'), region_numbers: [0, 1, 2] };
  const placement = tablePlacement(info, [
    { id: 1, addr: 'a:1' },
    { id: 2, addr: 'b:2' },
    { id: 1, addr: 'a:1' },
  ]);
  let batches = 0;
  const batch = kv.batch.bind(kv);
  kv.batch = (ops) => {
    batches++;
    return batch(ops);
  };
  await c.createTable(info, placement);
  assert.equal(batches, 1, 'name, info, route and shares in one batch');
  assert.deepEqual(await c.tableRoute(1024), placement.route);
  assert.deepEqual((await c.datanodeTable(1, 1024))?.regions, [
    { region_number: 0, dir: 'tsdb/public/1024/1024_0000000000/' },
    { region_number: 2, dir: 'tsdb/public/1024/1024_0000000002/' },
  ]);
  assert.deepEqual((await c.datanodeTables(2)).map((t) => t.regions.map((r) => r.region_number)), [[1]]);
  await assert.rejects(c.createTable({ ...info, table_id: 1025 }, placement), (e: unknown) => e instanceof TsdbError && e.code === StatusCode.TableAlreadyExists);
  assert.equal(await kv.get('__table_info/1025'), undefined, 'a refused creation writes nothing');

  // Alter: the stored info must still be `before`.
  const renamed = { ...info, name: 'q', schema_version: 1 };
  await assert.rejects(c.updateTable({ ...info, schema_version: 7 }, renamed, { checkCurrent: true }), (e: unknown) => e instanceof TsdbError && e.code === StatusCode.RequestOutdated && /run the statement again/.test(e.message));
  // Key order does not matter (the info may have crossed the network).
  const reordered = JSON.parse(JSON.stringify(Object.fromEntries(Object.entries(info).reverse()))) as TableInfo;
  await c.updateTable(reordered, renamed, { checkCurrent: true });
  assert.equal(await c.table('public', 'p'), undefined);
  assert.equal((await c.table('public', 'q'))?.schema_version, 1);
  await assert.rejects(c.updateTable(info, renamed, { checkCurrent: true }), (e: unknown) => e instanceof TsdbError && e.code === StatusCode.TableNotFound);

  // A region moves: route and both shares in one batch.
  const moved = { ...placement.route, region_routes: placement.route.region_routes.map((r) => (r.region_number === 1 ? { ...r, leader_peer: { id: 1, addr: 'a:1' } } : r)), version: 1 };
  const share1 = (await c.datanodeTable(1, 1024))!;
  await c.updateRoute(moved, new Map([[2, undefined], [1, { ...share1, regions: [...share1.regions, { region_number: 1, dir: 'tsdb/public/1024/1024_0000000001/' }] }]]));
  assert.equal(await c.datanodeTable(2, 1024), undefined);
  assert.equal((await c.datanodeTable(1, 1024))?.regions.length, 3);

  batches = 0;
  await c.dropTable(renamed, moved);
  assert.equal(batches, 1);
  assert.deepEqual((await kv.range('')).map((e) => e.key).filter((k) => k.includes('1024')), [], 'nothing of the table is left');
});

test('databases and datanode shares are cached; the shares follow the changes made here, so they are known with the store unreachable', async () => {
  const kv = new MemoryKvBackend();
  const c = await CatalogManager.open(kv);
  const unreachable = new TsdbError(StatusCode.StorageUnavailable, 'etcd is down');
  let down = false;
  const real = { get: kv.get.bind(kv), range: kv.range.bind(kv), batch: kv.batch.bind(kv) };
  kv.get = (k) => (down ? Promise.reject(unreachable) : real.get(k));
  kv.range = (p) => (down ? Promise.reject(unreachable) : real.range(p));

  assert.equal((await c.database('public'))?.name, 'public');
  await c.alterDatabase('public', { ttl: '1d' }, []);
  assert.deepEqual((await c.database('public'))?.options, { ttl: '1d' }, 'a change of a database is seen at once');
  assert.deepEqual(await c.datanodeTables(1), []);
  assert.deepEqual(await c.datanodeTables(2), []);

  const a = { ...table(1024, 'public', 'a'), region_numbers: [0, 1] };
  await c.createTable(a, tablePlacement(a, [{ id: 1, addr: 'a:1' }, { id: 2, addr: 'b:2' }]));
  const b = table(1025, 'public', 'b');
  await c.createTable(b, tablePlacement(b, [{ id: 1, addr: 'a:1' }]));
  const shares = async (node: number) => (await c.datanodeTables(node)).map((s) => [s.table_id, s.regions.map((r) => r.region_number)]);
  const stored = async (node: number) => (await real.range(`__dn_table/${node}/`)).map((e) => JSON.parse(Buffer.from(e.value).toString('utf8')) as { table_id: number; regions: Array<{ region_number: number }> }).map((s) => [s.table_id, s.regions.map((r) => r.region_number)]);
  // Region 1 of `a` moves to datanode 1; `b` is dropped.
  const route = (await c.tableRoute(1024))!;
  const share1 = (await c.datanodeTable(1, 1024))!;
  await c.updateRoute(
    { ...route, region_routes: route.region_routes.map((r) => ({ ...r, leader_peer: { id: 1, addr: 'a:1' } })), version: 1 },
    new Map([[2, undefined], [1, { ...share1, regions: [...share1.regions, { region_number: 1, dir: 'tsdb/public/1024/1024_0000000001/' }] }]]),
  );
  await c.dropTable(b, (await c.tableRoute(1025))!);
  await c.database('public');

  down = true;
  assert.deepEqual((await c.database('public'))?.options, { ttl: '1d' }, 'the database from the cache');
  assert.deepEqual(await shares(1), [[1024, [0, 1]]]);
  assert.deepEqual(await shares(2), []);
  down = false;
  assert.deepEqual(await shares(1), await stored(1), 'the cache is what the store holds');

  // A batch that fails may have been applied: the shares are read again.
  kv.batch = () => Promise.reject(unreachable);
  await assert.rejects(c.dropTable(a, (await c.tableRoute(1024))!));
  down = true;
  await assert.rejects(c.datanodeTables(1), (e: unknown) => e === unreachable);
  down = false;
  kv.batch = real.batch;
  assert.deepEqual(await shares(1), [[1024, [0, 1]]]);
});
