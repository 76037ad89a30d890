import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DuckDBInstance } from '@duckdb/node-api';
import { StatusCode } from '../common/error/status-code.js';
import { TsdbError } from '../common/error/tsdb-error.js';
import { runQuery, type QueryContext, type TableSource } from './query-executor.js';
import type { ViewBody } from './view-expansion.js';

const db = await DuckDBInstance.create(':memory:');
const conn = await db.connect();

/** A context with tables `db.nums` (n = 1..5) and `other.nums` (n = 10, 20), and the given views. */
function context(views: Record<string, ViewBody>, resolved: string[] = []): QueryContext {
  return {
    database: 'db',
    timezone: 'UTC',
    view: async (catalog, database, name) => (catalog === '' ? views[`${database}.${name}`] : undefined),
    resolve: async (_catalog, database, name): Promise<TableSource> => {
      resolved.push(`${database}.${name}`);
      if (name !== 'nums' || (database !== 'db' && database !== 'other')) throw new TsdbError(StatusCode.TableNotFound, `Table not found: ${database}.${name}`);
      const sql = database === 'db' ? 'SELECT * FROM range(1, 6) r(n)' : 'SELECT * FROM (VALUES (10), (20)) v(n)';
      return { key: `${database}.${name}`, columnNames: ['n'], relation: async () => ({ sql }) };
    },
  };
}

async function rows(sql: string, ctx: QueryContext): Promise<unknown[][]> {
  const out = await runQuery(conn, sql, ctx);
  assert.equal(out.kind, 'records');
  return out.kind === 'records' ? out.rows.map((r) => r.map((v) => (typeof v === 'bigint' ? Number(v) : v))) : [];
}

test('a view reads its query, with its column names, under its name or the reference alias', async () => {
  const ctx = context({ 'db.small': { database: 'db', query: 'SELECT n, n * 10 FROM nums WHERE n < 3', columns: ['a', 'b'] } });
  assert.deepEqual(await rows('SELECT * FROM small ORDER BY a', ctx), [
    [1, 10],
    [2, 20],
  ]);
  assert.deepEqual(await rows('SELECT small.b FROM small WHERE a = 2', ctx), [[20]]);
  assert.deepEqual(await rows('SELECT x, b FROM db.small AS s(x) WHERE s.x = 1', ctx), [[1, 10]]);
  assert.deepEqual(await rows('SELECT count(*) FROM small JOIN nums ON small.a = nums.n', ctx), [[2]]);
});

test("views of views expand; a view's unqualified tables are its query's database, not the reader's", async () => {
  const resolved: string[] = [];
  const ctx = context(
    {
      'other.big': { database: 'other', query: 'SELECT n FROM nums', columns: [] },
      'db.mixed': { database: 'db', query: 'SELECT n FROM other.big UNION ALL SELECT n FROM nums WHERE n = 1', columns: [] },
    },
    resolved,
  );
  assert.deepEqual(await rows('SELECT n FROM mixed ORDER BY n', ctx), [[1], [10], [20]]);
  assert.deepEqual(resolved.sort(), ['db.nums', 'other.nums']);
});

test("a CTE of the reader's query shadows a view of its name", async () => {
  const ctx = context({ 'db.v': { database: 'db', query: 'SELECT 1 AS x', columns: [] } });
  assert.deepEqual(await rows('WITH v AS (SELECT 2 AS x) SELECT x FROM v', ctx), [[2]]);
});

test("a view's query passes the sandbox when it is read: it is never a way around it", async () => {
  const ctx = context({ 'db.leak': { database: 'db', query: "SELECT * FROM read_text('/etc/passwd')", columns: [] } });
  await assert.rejects(runQuery(conn, 'SELECT * FROM leak', ctx), (err: unknown) => err instanceof TsdbError && err.code === StatusCode.PermissionDenied && /read_text/.test(err.message));
  const nested = context({ 'db.outer_v': { database: 'db', query: 'SELECT * FROM inner_v', columns: [] }, 'db.inner_v': { database: 'db', query: "SELECT current_setting('temp_directory')", columns: [] } });
  await assert.rejects(runQuery(conn, 'SELECT * FROM outer_v', nested), (err: unknown) => err instanceof TsdbError && err.code === StatusCode.PermissionDenied);
});

test('views that name each other fail with an error, not a hang', async () => {
  const ctx = context({ 'db.a': { database: 'db', query: 'SELECT * FROM b', columns: [] }, 'db.b': { database: 'db', query: 'SELECT * FROM a', columns: [] } });
  await assert.rejects(runQuery(conn, 'SELECT * FROM a', ctx), (err: unknown) => err instanceof TsdbError && err.code === StatusCode.InvalidArguments && /more than 32 deep/.test(err.message));
});
