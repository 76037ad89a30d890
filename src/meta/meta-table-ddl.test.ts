import assert from 'node:assert/strict';
import { test } from 'node:test';
import { StatusCode } from '../common/error/status-code.js';
import { TsdbError } from '../common/error/tsdb-error.js';
import type { TableInfo } from '../catalog/table-info.js';
import type { DdlTask, MetaService } from './meta-service.js';
import { MetaTableDdl } from './meta-table-ddl.js';

const INFO = { table_id: 1024, name: 't' } as TableInfo;

test('each DDL is one task to the metasrv within ddl_timeout; caches are dropped after it, failed or not', async () => {
  const sent: Array<{ task: DdlTask; timeoutMs: number | undefined }> = [];
  const meta = {
    ddl: async (task: DdlTask, timeoutMs?: number) => {
      sent.push({ task, timeoutMs });
      if (task.kind === 'drop_table') throw new TsdbError(StatusCode.DeadlineExceeded, 'timed out after 10000 ms');
      return task.kind === 'create_database' ? { created: false } : {};
    },
    allocateTableId: async () => 1030,
  } as unknown as MetaService;
  const changed: string[] = [];
  const ddl = new MetaTableDdl(meta, 10_000, (t) => changed.push(t.kind));
  assert.equal(await ddl.allocateTableId(), 1030);
  assert.equal(await ddl.createTable(INFO, true), true);
  assert.equal(await ddl.createDatabase('d', { ttl: '1d' }, true), false, 'the metasrv says it existed');
  await ddl.alterTable(INFO, { ...INFO, name: 'u' });
  await ddl.truncateTable(INFO);
  await ddl.alterDatabase('d', { ttl: '2d' }, ['x']);
  await ddl.dropDatabase('d');
  await assert.rejects(ddl.dropTable(INFO), (e) => e instanceof TsdbError && e.code === StatusCode.DeadlineExceeded);
  assert.deepEqual(sent.map((s) => [s.task.kind, s.timeoutMs]), [
    ['create_table', 10_000],
    ['create_database', 10_000],
    ['alter_table', 10_000],
    ['truncate_table', 10_000],
    ['alter_database', 10_000],
    ['drop_database', 10_000],
    ['drop_table', 10_000],
  ]);
  assert.deepEqual(changed, ['create_table', 'create_database', 'alter_table', 'truncate_table', 'alter_database', 'drop_database', 'drop_table'], 'a task that timed out may still commit: caches dropped too');
});
