/**
 * CREATE DATABASE's and ALTER DATABASE's options, and what ALTER DATABASE does to the database's
 * tables. A table keeps only the options its user set; the database's TTL and compaction options
 * apply to it as they are now (`effectiveOptions`, GreptimeDB's dynamic options). GreptimeDB reads
 * them when it compacts; here a region works by the options in its metadata, so an ALTER DATABASE
 * that changes them alters the regions of every table they reach (through `TableDdl.alterTable`,
 * so a cluster's datanodes get them by the metasrv's procedures, as for ALTER TABLE).
 */
import { ownsNoRegions, type TableInfo } from '../../catalog/table-info.js';
import { checkOptions, effectiveOptions, isDatabaseOptionKey, isDynamicDatabaseOption, parseTtl, regionOptionsOf } from '../../catalog/table-options.js';
import type { CatalogManager } from '../../catalog/catalog-manager.js';
import type { TableDdl } from '../../catalog/table-ddl.js';
import { StatusCode } from '../../common/error/status-code.js';
import { TsdbError } from '../../common/error/tsdb-error.js';

/** How often a table's alter is tried again when another DDL changed the table meanwhile. */
const ALTER_ATTEMPTS = 3;

function isInstant(value: string): boolean {
  try {
    return parseTtl(value) === 0;
  } catch {
    return false;
  }
}

/** CREATE DATABASE's options, checked: a database's TTL cannot be `instant` (GreptimeDB's error). */
export function createDatabaseOptions(options: Readonly<Record<string, string>>): Record<string, string> {
  for (const [k, v] of Object.entries(options)) {
    // GreptimeDB's text; its code is Unexpected (HTTP 500), but a user's mistake is a 400 here.
    if (k.toLowerCase() === 'ttl' && isInstant(v)) throw new TsdbError(StatusCode.InvalidArguments, `Failed to parse value ${v} into key ttl`);
  }
  return checkOptions(options, 'database');
}

/** ALTER DATABASE's SET options, checked one by one with GreptimeDB's message. */
function setOptions(set: Readonly<Record<string, string>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(set)) {
    const refused = new TsdbError(StatusCode.InvalidArguments, `Invalid set database option, key: ${k}, value: ${v}`);
    if (k.toLowerCase() === 'ttl' && isInstant(v)) throw refused;
    try {
      Object.assign(out, checkOptions({ [k]: v }, 'database'));
    } catch (err) {
      if (err instanceof TsdbError && err.code === StatusCode.InvalidArguments) throw refused;
      throw err;
    }
  }
  return out;
}

function unsetKeys(unset: readonly string[]): string[] {
  return unset.map((k) => {
    const key = k.toLowerCase();
    if (!isDatabaseOptionKey(key)) throw new TsdbError(StatusCode.InvalidArguments, `Invalid unset database option, key: ${k}`);
    return key;
  });
}

/** The region options of a table under its database's options `database`, comparable as text. */
function regionOptionsText(table: TableInfo, database: Readonly<Record<string, string>> | undefined): string {
  return JSON.stringify(regionOptionsOf(effectiveOptions(table.options, database)));
}

/**
 * ALTER DATABASE: the database's options changed, then — when a TTL or compaction option changed —
 * the regions of each of its tables whose effective options changed altered (the table's info is
 * the same but for its schema version, which an alter of its regions needs).
 */
export async function alterDatabase(
  name: string,
  set: Readonly<Record<string, string>>,
  unset: readonly string[],
  catalog: CatalogManager,
  ddl: TableDdl,
  /** Runs a change of a table serialized with the other schema changes of this frontend (ingestion's new columns). */
  serialized: (table: TableInfo, change: () => Promise<void>) => Promise<void> = (_t, change) => change(),
): Promise<void> {
  const checkedSet = setOptions(set);
  const keys = unsetKeys(unset);
  const before = (await catalog.database(name))?.options;
  await ddl.alterDatabase(name, checkedSet, keys);
  if (![...Object.keys(checkedSet), ...keys].some(isDynamicDatabaseOption)) return;
  catalog.invalidate();
  const after = (await catalog.requireDatabase(name)).options;
  for (const table of await catalog.tables(name)) {
    if (ownsNoRegions(table) || regionOptionsText(table, before) === regionOptionsText(table, after)) continue;
    await serialized(table, () => applyDatabaseOptions(table, catalog, ddl));
  }
}

/** Alters the regions of `table` to its database's options as they are now. */
async function applyDatabaseOptions(table: TableInfo, catalog: CatalogManager, ddl: TableDdl): Promise<void> {
  let current = await catalog.tableById(table.table_id);
  for (let attempt = 1; current !== undefined; attempt++) {
    try {
      await ddl.alterTable(current, { ...current, schema_version: current.schema_version + 1 });
      return;
    } catch (err) {
      // Another DDL changed the table meanwhile: tried again on the table as it is now (gone: nothing to do).
      if (!(err instanceof TsdbError && err.code === StatusCode.RequestOutdated) || attempt >= ALTER_ATTEMPTS) throw err;
      catalog.invalidate();
      current = await catalog.tableById(current.table_id);
    }
  }
}
