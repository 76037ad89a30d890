/**
 * `information_schema.views` and the views' rows of `information_schema.tables` (GreptimeDB's
 * `system_schema/information_schema/views.rs` and `tables.rs`): one row per view, its definition
 * as `SHOW CREATE VIEW` prints it.
 */
import type { Cell } from '../query/output.js';
import type { InformationSchemaSource, VirtualColumn } from './information-schema.js';
import type { DatabaseInfo } from './table-info.js';
import type { ViewInfo } from './view-info.js';

const text = (name: string, nullable: boolean): VirtualColumn => ({ name, type: 'String', nullable });

export const VIEWS_COLUMNS: readonly VirtualColumn[] = [
  text('table_catalog', false),
  text('table_schema', false),
  text('table_name', false),
  text('view_definition', false),
  text('check_option', true),
  text('is_updatable', true),
  text('definer', true),
  text('security_type', true),
  text('character_set_client', true),
  text('collation_connection', true),
];

/** The views of every database (`information_schema` has none), by database then name. */
async function allViews(source: InformationSchemaSource): Promise<ViewInfo[]> {
  if (source.views === undefined) return [];
  const dbs: DatabaseInfo[] = await source.databases();
  const out: ViewInfo[] = [];
  for (const db of [...dbs].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) out.push(...(await source.views(db.name)));
  return out;
}

export async function viewsRows(source: InformationSchemaSource): Promise<Cell[][]> {
  return (await allViews(source)).map((v) => [v.catalog, v.database, v.name, v.definition, null, 'NO', null, null, 'utf8', 'utf8_bin']);
}

/** A view's row of `information_schema.tables` (its columns: `TABLES_COLUMNS`). */
export function viewTablesRow(v: ViewInfo): Cell[] {
  const created = Math.floor(v.created_at / 1000);
  return [v.catalog, v.database, v.name, 'VIEW', v.view_id, 0, 0, 0, 0, 0, '', 11, 'Fixed', 0, 0, 0, created, created, null, 'utf8_bin', 0, '', null, 'N'];
}
