/**
 * A query with its long literal lists folded (`sql/literal-lists.ts`) answers exactly what the same
 * query as written answers (rows, column names, errors), through `runQuery` on DuckDB: integers
 * compared with timestamp columns of each unit, timestamp strings in the session's zone, key values,
 * select item names, the sandbox, lists DuckDB does not see where the scan saw them.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import type { TimeUnit } from '../types/time-unit.js';
import { TsdbError } from '../common/error/tsdb-error.js';
import { StatusCode } from '../common/error/status-code.js';
import { foldLiteralLists, LIST_MARKER_PREFIX } from '../sql/literal-lists.js';
import type { KeyValues } from './key-predicates.js';
import { runQuery, type QueryContext, type TableSource } from './query-executor.js';
import { installFunctions } from './session-functions.js';

const db = await DuckDBInstance.create(':memory:');
const conn = await db.connect();
await conn.run("SET TimeZone = 'UTC'");
await installFunctions(conn);

const UNITS: Record<TimeUnit, string> = { s: 'TIMESTAMP_S', ms: 'TIMESTAMP_MS', us: 'TIMESTAMP', ns: 'TIMESTAMP_NS' };
/** 3,000 hourly rows from 2024-03-09 00:00Z (New York's spring-forward night among them) in a table per unit. */
const BASE_S = Date.UTC(2024, 2, 9) / 1000;
const ROWS = 3000;
for (const [unit, type] of Object.entries(UNITS)) {
  await conn.run(`CREATE TABLE t_${unit} AS SELECT CAST(to_timestamp(${BASE_S} + i * 3600) AS ${type}) AS ts, 'h' || (i % 200) AS host, i AS v FROM range(${ROWS}) r(i)`);
}

/** Every SQL text sent to DuckDB by the last `run`. */
const sent: string[] = [];
const recording = new Proxy(conn, {
  get(target, prop, receiver) {
    const v = Reflect.get(target, prop, receiver) as unknown;
    if (typeof v !== 'function') return v;
    return (...args: unknown[]) => {
      if (typeof args[0] === 'string') sent.push(args[0]);
      return (v as (...a: unknown[]) => unknown).apply(target, args);
    };
  },
}) as DuckDBConnection;

/** Key values each scan was given, in order. */
const scans: Array<KeyValues | undefined> = [];

function context(zone: string): QueryContext {
  return {
    database: 'public',
    timezone: zone,
    resolve: async (_c, _d, name): Promise<TableSource> => {
      const unit = /^t_(s|ms|us|ns)$/.exec(name)?.[1] as TimeUnit | undefined;
      if (unit === undefined) throw new TsdbError(StatusCode.TableNotFound, `Table not found: ${name}`);
      return {
        key: name,
        timeIndex: { name: 'ts', unit },
        primaryKey: ['host'],
        timestampColumns: new Map([['ts', unit]]),
        columnNames: ['ts', 'host', 'v'],
        relation: async (_range, keys) => {
          scans.push(keys);
          return { sql: `SELECT * FROM t_${unit}` };
        },
      };
    },
  };
}

type Outcome = { ok: true; value: unknown } | { ok: false; code: StatusCode; message: string };

async function outcome(p: Promise<unknown>): Promise<Outcome> {
  try {
    return { ok: true, value: await p };
  } catch (e) {
    if (!(e instanceof TsdbError)) throw e;
    return { ok: false, code: e.code, message: e.message };
  }
}

/**
 * `sql` run folded and as written: both outcomes, whether the folded run fell back to the text as
 * written (DuckDB parsed the whole list), and the key values of the folded run's last scan.
 */
async function both(sql: string, zone = 'UTC'): Promise<{ folded: Outcome; written: Outcome; fellBack: boolean; keys: KeyValues | undefined }> {
  const f = foldLiteralLists(sql);
  assert.ok(f !== undefined, `folds: ${sql.slice(0, 80)}`);
  sent.length = 0;
  scans.length = 0;
  const folded = await outcome(runQuery(recording, f.text, { ...context(zone), lists: f.lists }));
  const parsedWhole = sent.some((s) => s.startsWith('SELECT json_serialize_sql(') && !s.includes(LIST_MARKER_PREFIX));
  const keys = scans.at(-1);
  assert.ok(!sent.some((s) => !s.startsWith('SELECT json_') && s.includes(LIST_MARKER_PREFIX)), 'DuckDB never runs a marker');
  const written = await outcome(runQuery(conn, sql, context(zone)));
  return { folded, written, fellBack: parsedWhole, keys };
}

const list = (n: number, f: (i: number) => string) => Array.from({ length: n }, (_, i) => f(i)).join(', ');
const rowsOf = (o: Outcome) => (o.ok ? (o.value as { rows: unknown[][] }).rows : o);

test('integers and strings on plain columns: the same rows, without a tree of the list, and no key values from it', async () => {
  for (const sql of [
    `SELECT count(*), sum(v) FROM t_ms WHERE v IN (${list(1500, (i) => String(i * 2))})`,
    `SELECT count(*), sum(v) FROM t_ms WHERE v NOT IN (${list(1500, (i) => String(i * 2))})`,
    `SELECT count(*), sum(v) FROM t_ms WHERE host IN (${list(1200, (i) => `'h${i * 3}'`)}) AND v IN (${list(1000, (i) => String(-i))}, 7, 9)`,
    `WITH x AS (SELECT * FROM t_ms WHERE v IN (${list(1000, (i) => String(i))})) SELECT count(*) FROM x WHERE v > 10`,
    `SELECT v IN (${list(1000, (i) => `${i}.0`)}), host IN (${list(1000, (i) => `'h${i}'`)}) AS known FROM t_ms ORDER BY v LIMIT 3`,
  ]) {
    const r = await both(sql);
    assert.equal(r.fellBack, false, sql.slice(0, 60));
    assert.ok(r.folded.ok, JSON.stringify(r.folded));
    assert.deepEqual(r.folded, r.written, sql.slice(0, 60));
  }
  const tag = await both(`SELECT count(*) FROM t_ms WHERE host IN (${list(1000, (i) => `'h${i}'`)})`);
  assert.deepEqual(rowsOf(tag.folded), [[ROWS]]);
  assert.equal(tag.keys, undefined, 'the marker is no key value');
  assert.deepEqual(scans.at(-1), new Map([['host', Array.from({ length: 1000 }, (_, i) => `h${i}`)]]), 'as written, the key values reach the scan');
});

test('integers compared with a time index of each unit are epochs in its unit, IN and NOT IN', async () => {
  const per = { s: 1n, ms: 1000n, us: 1_000_000n, ns: 1_000_000_000n } as const;
  for (const unit of ['s', 'ms', 'us', 'ns'] as const) {
    // Every third row's epoch for rows 0–2997, one tick off for every third of them, and 500 epochs after the last row.
    const epochs = list(1500, (i) => String((BigInt(BASE_S) + BigInt(i * 3 * 3600)) * per[unit] + (i % 3 === 0 ? 1n : 0n)));
    for (const op of ['IN', 'NOT IN']) {
      const r = await both(`SELECT count(*), min(v), max(v) FROM t_${unit} WHERE ts ${op} (${epochs})`);
      assert.equal(r.fellBack, false);
      assert.deepEqual(r.folded, r.written, `${unit} ${op}`);
      assert.deepEqual(rowsOf(r.folded), op === 'IN' ? [[666, 3, 2994]] : [[2334, 0, 2999]], `${unit} ${op}`);
    }
  }
  // Mixed with strings, decimals and integers beyond BIGINT: element by element, as the tree rewrite does.
  const mixed = await both(`SELECT count(*) FROM t_ms WHERE ts IN (${list(1000, (i) => String((BASE_S + i * 3600) * 1000))}, '2024-03-09 00:00:00')`);
  assert.deepEqual(mixed.folded, mixed.written);
  assert.deepEqual(rowsOf(mixed.folded), [[1000]]);
  for (const odd of ['1.5', '99999999999999999999', "'not a time'"]) {
    const r = await both(`SELECT count(*) FROM t_ms WHERE ts IN (${list(1000, (i) => String(i))}, ${odd})`);
    assert.equal(r.fellBack, false);
    assert.deepEqual(r.folded, r.written, odd);
  }
});

test('timestamp strings are read in the session time zone (DST edges, offsets, non-timestamps), on columns and timestamp expressions', async () => {
  const wall = (i: number) => {
    // Local wall-clock texts of New York around its spring-forward night, 02:30 (skipped) among them.
    const d = new Date(Date.UTC(2024, 2, 9) + i * 1_800_000);
    return `'${d.toISOString().slice(0, 19).replace('T', ' ')}'`;
  };
  const strings = `${list(1200, wall)}, '2024-03-09T12:00:00Z', '2024-03-10 05:00:00+02:00', '2024-03-10T07:30:00.000-04:00'`;
  for (const zone of ['UTC', '+08:00', 'America/New_York', 'Asia/Kolkata']) {
    for (const sql of [
      `SELECT count(*), min(v), max(v) FROM t_ms WHERE ts IN (${strings})`,
      `SELECT count(*), min(v), max(v) FROM t_ns WHERE ts NOT IN (${strings})`,
      `SELECT count(*) FROM t_s WHERE CAST(v AS VARCHAR) = '1' OR date_trunc('hour', ts) IN (${list(1000, wall)})`,
    ]) {
      const r = await both(sql, zone);
      assert.equal(r.fellBack, false, `${zone}: ${sql.slice(0, 60)}`);
      assert.ok(r.folded.ok, JSON.stringify(r.folded).slice(0, 300));
      assert.deepEqual(r.folded, r.written, `${zone}: ${sql.slice(0, 60)}`);
    }
  }
  // The strings matter: in New York the same list meets other rows than in UTC.
  const ny = await both(`SELECT min(v) FROM t_ms WHERE ts IN (${list(1200, wall)})`, 'America/New_York');
  assert.deepEqual(rowsOf(ny.folded), [[5]]);
  // Strings that are no timestamps (or no day) stay as written, and fail alike.
  for (const odd of ["'soon'", "'2024-02-30 00:00:00'"]) {
    const r = await both(`SELECT count(*) FROM t_ms WHERE ts IN (${list(1000, wall)}, ${odd})`, '+08:00');
    assert.equal(r.fellBack, false);
    assert.ok(!r.folded.ok);
    assert.deepEqual(r.folded, r.written, odd);
  }
});

test('select items keep their names; an unnamed item whose list a rewrite changes runs as written', async () => {
  const plain = await both(`SELECT v IN (${list(1000, String)}), v FROM t_ms LIMIT 1`);
  assert.equal(plain.fellBack, false);
  assert.deepEqual(plain.folded, plain.written);
  const converted = await both(`SELECT ts IN (${list(1000, (i) => String((BASE_S + i * 3600) * 1000))}) FROM t_ms ORDER BY v LIMIT 2`);
  assert.equal(converted.fellBack, true);
  assert.deepEqual(converted.folded, converted.written);
  const aliased = await both(`SELECT ts IN (${list(1000, (i) => String((BASE_S + i * 3600) * 1000))}) AS hit, now() > ts AS past FROM t_ms ORDER BY v LIMIT 2`);
  assert.equal(aliased.fellBack, false);
  assert.deepEqual(aliased.folded, aliased.written);
});

test('the sandbox sees the whole query; lists DuckDB reads otherwise, and syntax errors, run as written', async () => {
  const ints = list(1000, String);
  const refused = await both(`SELECT count(*) FROM t_ms WHERE v IN (${ints}) AND current_setting('threads') = '1'`);
  assert.deepEqual(refused.folded, refused.written);
  assert.equal(!refused.folded.ok && refused.folded.code, StatusCode.PermissionDenied);
  // An escape string (DuckDB's E'…') whose \' the scan reads as its end: DuckDB sees one string.
  const text = `it\\'s IN (${ints})`;
  const escaped = await both(`SELECT E'${text}' AS s, 1 AS one`);
  assert.equal(escaped.fellBack, true);
  assert.deepEqual(escaped.folded, escaped.written);
  assert.deepEqual(rowsOf(escaped.folded), [[`it's IN (${ints})`, 1]]);
  for (const bad of [`SELECT * FROM t_ms WHERE v IN (${ints}) ORDER`, `SELECT * FROM t_ms WHERE v IN (${ints}) AND`, `SELECT * FROM t_ms WHERE v IN (${ints}) GROUP v`]) {
    const r = await both(bad);
    assert.equal(r.fellBack, true);
    assert.ok(!r.folded.ok && r.folded.code === StatusCode.InvalidSyntax, JSON.stringify(r.folded).slice(0, 200));
    assert.deepEqual(r.folded, r.written);
  }
  const missing = await both(`SELECT count(*) FROM t_ms WHERE nope IN (${ints})`);
  assert.deepEqual(missing.folded, missing.written);
  assert.ok(!missing.folded.ok && !missing.folded.message.includes(LIST_MARKER_PREFIX));
});

test('range queries and EXPLAIN carry folded lists too', async () => {
  const r = await both(`SELECT ts, count(v) RANGE '1d' AS n FROM t_ms WHERE v IN (${list(1000, (i) => String(i * 2))}) ALIGN '1d' BY () ORDER BY ts LIMIT 3`);
  assert.equal(r.fellBack, false);
  assert.deepEqual(r.folded, r.written);
  assert.deepEqual((rowsOf(r.folded) as unknown[][]).map((row) => row[1]), [12, 12, 12]);
  const f = foldLiteralLists(`SELECT count(*) FROM t_ms WHERE v IN (${list(1000, String)})`)!;
  const plan = await runQuery(conn, f.text, { ...context('UTC'), lists: f.lists }, 'explain');
  assert.ok(!JSON.stringify(plan, (_k, v: unknown) => (typeof v === 'bigint' ? String(v) : v)).includes(LIST_MARKER_PREFIX));
});
