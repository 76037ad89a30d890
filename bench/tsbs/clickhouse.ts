/**
 * ClickHouse for the benchmark (Debian's clickhouse-server, 18.16): started by this process from a
 * generated config in its own temporary directory (data, tmp, logs), HTTP only on 127.0.0.1 and a
 * free port, the server's time zone UTC (so DateTime text means UTC, like every other system's
 * times), stopped by PID. Client: queries and TSV inserts over the HTTP interface, answers read as
 * JSONCompact and turned into the records `compareRows` compares.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Cell, Row, Timed } from './clients.js';
import { freePort, launch, stopper, waitReady, type Server } from './servers.js';

export type ClickhouseServer = Omit<Server, 'system'>;

export const CLICKHOUSE_BIN = '/usr/sbin/clickhouse-server';

function xml(s: string): string {
  return s.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');
}

export async function startClickhouse(dataDir: string): Promise<ClickhouseServer> {
  const data = join(dataDir, 'data');
  for (const d of [data, join(dataDir, 'tmp'), join(dataDir, 'user_files'), join(dataDir, 'format_schemas')]) mkdirSync(d, { recursive: true });
  const http = await freePort();
  const logFile = join(dataDir, 'server.log');
  const configFile = join(dataDir, 'config.xml');
  // No tcp_port or interserver port: left out, ClickHouse 18 does not listen on them.
  writeFileSync(configFile, [
    '<?xml version="1.0"?>',
    '<yandex>',
    `  <logger><level>warning</level><log>${xml(join(dataDir, 'clickhouse.log'))}</log><errorlog>${xml(join(dataDir, 'clickhouse.err.log'))}</errorlog></logger>`,
    '  <listen_host>127.0.0.1</listen_host>',
    `  <http_port>${http}</http_port>`,
    `  <path>${xml(data)}/</path>`,
    `  <tmp_path>${xml(join(dataDir, 'tmp'))}/</tmp_path>`,
    `  <user_files_path>${xml(join(dataDir, 'user_files'))}/</user_files_path>`,
    `  <format_schema_path>${xml(join(dataDir, 'format_schemas'))}/</format_schema_path>`,
    '  <timezone>UTC</timezone>',
    '  <mark_cache_size>1073741824</mark_cache_size>',
    '  <users_config>users.xml</users_config>',
    '  <default_profile>default</default_profile>',
    '  <default_database>default</default_database>',
    '</yandex>',
    '',
  ].join('\n'));
  writeFileSync(join(dataDir, 'users.xml'), [
    '<?xml version="1.0"?>',
    '<yandex>',
    '  <profiles><default><max_memory_usage>10000000000</max_memory_usage></default></profiles>',
    '  <users><default><password></password><networks><ip>127.0.0.1</ip></networks><profile>default</profile><quota>default</quota></default></users>',
    '  <quotas><default></default></quotas>',
    '</yandex>',
    '',
  ].join('\n'));
  const child = launch(CLICKHOUSE_BIN, [`--config-file=${configFile}`], logFile);
  const baseUrl = `http://127.0.0.1:${http}`;
  await waitReady(`${baseUrl}/ping`, child, logFile, (s) => s === 200);
  let version = 'unknown';
  try {
    version = (await chQuery(baseUrl, 'SELECT version()', 'TabSeparated')).body.trim();
  } catch {
    // keep unknown
  }
  const deb = spawnSync('dpkg-query', ['-W', '-f', '${Version}', 'clickhouse-server'], { encoding: 'utf8' });
  if (deb.status === 0) version = `${version} (deb ${deb.stdout.trim()})`;
  return { pid: child.pid ?? 0, baseUrl, dataDirs: { data }, logFile, version, stop: stopper(child) };
}

/** Runs `sql` (sent as the POST body) with `FORMAT <format>` appended; wall time until the body is read. */
export async function chQuery(baseUrl: string, sql: string, format = 'JSONCompact'): Promise<Timed> {
  const t0 = performance.now();
  const res = await fetch(`${baseUrl}/`, { method: 'POST', body: `${sql} FORMAT ${format}` });
  const body = await res.text();
  const ms = performance.now() - t0;
  if (!res.ok) throw new Error(`clickhouse: HTTP ${res.status}: ${body.slice(0, 500)}`);
  return { ms, body };
}

/** A statement without a result (CREATE, OPTIMIZE …). */
export async function chExec(baseUrl: string, sql: string): Promise<void> {
  const res = await fetch(`${baseUrl}/`, { method: 'POST', body: sql });
  const body = await res.text();
  if (!res.ok) throw new Error(`clickhouse: HTTP ${res.status}: ${body.slice(0, 500)}`);
}

/** `INSERT INTO <table> (<columns>) FORMAT TabSeparated` with the TSV rows as the body. */
export async function chInsertTsv(baseUrl: string, table: string, columns: readonly string[], tsv: string): Promise<void> {
  const q = `INSERT INTO ${table} (${columns.join(', ')}) FORMAT TabSeparated`;
  const res = await fetch(`${baseUrl}/?query=${encodeURIComponent(q)}`, { method: 'POST', body: tsv });
  const body = await res.text();
  if (!res.ok) throw new Error(`clickhouse insert: HTTP ${res.status}: ${body.slice(0, 500)}`);
}

interface ChJson {
  readonly meta: readonly { readonly name: string; readonly type: string }[];
  readonly data: readonly (readonly Cell[])[];
  readonly rows: number;
}

/** `DateTime` or `DateTime('Etc/UTC')` text in a UTC server → epoch ms. */
function chTimeMs(v: Cell): Cell {
  return typeof v === 'string' ? Date.parse(`${v.replace(' ', 'T')}Z`) : v;
}

/**
 * Records of a JSONCompact answer: DateTime columns become `time` in epoch ms (as tsdbRows does
 * for timestamps), 64-bit integers (quoted in ClickHouse's JSON) numbers.
 */
export function chRows(body: string): Row[] {
  const parsed = JSON.parse(body) as ChJson;
  const conv = parsed.meta.map((m) => {
    if (m.type.startsWith('DateTime')) return { name: 'time', f: chTimeMs };
    if (/^(U?Int64|Nullable\(U?Int64\))$/.test(m.type)) return { name: m.name, f: (v: Cell): Cell => (typeof v === 'string' ? Number(v) : v) };
    return { name: m.name, f: (v: Cell): Cell => v };
  });
  return parsed.data.map((r) => {
    const row: Row = {};
    conv.forEach((c, i) => {
      row[c.name] = c.f(r[i] ?? null);
    });
    return row;
  });
}

export function chRowCount(body: string): number {
  return (JSON.parse(body) as ChJson).rows;
}
