import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { startEtcd } from '../../../test/support/etcd.js';
import { metasrvHarness, tableInfo, withColumn } from '../../../test/support/metasrv-harness.js';
import { regionId } from '../../types/region-id.js';
import { EtcdKvBackend } from '../kv/etcd-kv-backend.js';
import { PROCEDURE_PREFIX } from './procedure.js';

// The procedures over a real etcd: every record, lock-protected batch and route in its transactions.
const etcd = await startEtcd({ after });

test('over etcd: procedures create, alter and drop a table; a create cut short is undone by a restarted metasrv', async (t) => {
  const kv = await EtcdKvBackend.connect({ endpoints: [etcd.endpoint], namespace: `/metasrv-${process.pid}/` });
  t.after(() => kv.close());
  let crash = false;
  const h = await metasrvHarness(t, kv, [1, 2], {
    procedures: {
      beforeStep: async (p) => {
        if (crash && p.step === 'create_metadata') await new Promise(() => {});
      },
    },
  });
  const info = tableInfo(1024, 'cpu', { region_numbers: [0, 1] });
  assert.deepEqual(await h.ms.ddl({ kind: 'create_table', info, if_not_exists: false }), { created: true });
  assert.deepEqual((await h.beat(2)).leased_regions, [String(regionId(1024, 1))]);
  await h.ms.ddl({ kind: 'alter_table', before: info, after: withColumn(info, 'w') });
  assert.equal((await h.ms.catalog.table('public', 'cpu'))?.schema_version, 1);
  assert.equal(h.fakes.get(1)!.regions.get(regionId(1024, 0))?.metadata.schema_version, 1);
  await h.ms.ddl({ kind: 'drop_table', info: withColumn(info, 'w') });
  assert.equal(await h.ms.catalog.table('public', 'cpu'), undefined);
  assert.deepEqual([...h.fakes.values()].map((f) => f.regions.size), [0, 0]);

  crash = true;
  const creating = h.ms.ddl({ kind: 'create_table', info: tableInfo(1025, 'mem', { region_numbers: [0, 1] }), if_not_exists: false });
  creating.catch(() => {}); // awaited below, after the restart
  while (h.fakes.get(2)!.regions.size === 0) await new Promise((r) => setTimeout(r, 2));
  crash = false;
  await h.restart();
  await assert.rejects(creating);
  await h.ms.whenIdle();
  assert.equal(await h.ms.catalog.table('public', 'mem'), undefined);
  assert.deepEqual([...h.fakes.values()].map((f) => f.regions.size), [0, 0], 'no orphan region');
  assert.deepEqual(await kv.range(PROCEDURE_PREFIX), []);
  assert.deepEqual(await kv.range('__dn_table/'), []);
});
