/**
 * The rows of the `pg_catalog` tables a PostgreSQL session sees (reference api.md §5: "pg_catalog
 * only on PG"), built from tsdb's catalog as GreptimeDB maps it
 * (`src/catalog/src/system_schema/pg_catalog/*.rs`): a tsdb database is a PostgreSQL schema
 * (`pg_namespace`) and also a database (`pg_database`), a table is a `pg_class` row of kind `r`,
 * its columns are `pg_attribute` rows typed with the OIDs the server sends in RowDescription
 * (`servers/postgres/types.ts`), and its primary key plus time index (the key rows are deduplicated
 * on) is a unique index `<table>_pkey` with its `pg_index` and `pg_constraint` rows.
 *
 * Columns are PostgreSQL 16's; those tsdb has nothing for hold PostgreSQL's defaults, and tables
 * without tsdb counterparts (pg_proc, pg_inherits, pg_policy, …) are empty with their columns, so
 * that the catalog queries of psql and GUI tools bind and answer.
 *
 * OIDs are stable: a table's is `FIRST_NORMAL_OID + table_id`, its index's that plus `INDEX_OID_OFFSET`;
 * a database's hashes its name (`public` is 2200, as in PostgreSQL); pg_catalog's own tables and
 * types keep PostgreSQL's OIDs; information_schema's tables are `13000 + id`. OIDs are INTEGER
 * columns (PostgreSQL's are unsigned 32-bit; every OID here is below 2^31).
 */
import type { Cell, OutputColumn } from '../query/output.js';
import { informationSchemaTableDefs, type InformationSchemaSource } from './information-schema.js';
import { decimalOf, type ColumnType } from '../types/region-metadata.js';
import { INFORMATION_SCHEMA, type ColumnSchema, type DatabaseInfo, type TableInfo } from './table-info.js';
import type { ViewInfo } from './view-info.js';

export const PG_CATALOG = 'pg_catalog';
/** PostgreSQL's first OID of user objects. */
export const FIRST_NORMAL_OID = 16384;
/** Added to a table's OID for its primary-key index (and that index's constraint). */
export const INDEX_OID_OFFSET = 0x40000000;
/** The one role: the session's user, as PostgreSQL's bootstrap superuser. */
export const SUPERUSER_OID = 10;
export const PG_CATALOG_NAMESPACE_OID = 11;
const PUBLIC_NAMESPACE_OID = 2200;
const INFORMATION_SCHEMA_NAMESPACE_OID = 13000;
const INFORMATION_SCHEMA_TABLE_OID_BASE = 13000;
/** pg_am: heap (tables) and btree (indexes). */
const HEAP_AM_OID = 2;
const BTREE_AM_OID = 403;
const DEFAULT_TABLESPACE_OID = 1663;
/** pg_database.encoding of UTF8. */
export const UTF8_ENCODING = 6;
/** The collation of text types (`default`). */
const DEFAULT_COLLATION_OID = 100;
/** The OID of `pg_class` itself: pg_description.classoid of table and column comments. */
export const PG_CLASS_OID = 1259;

/** What pg_catalog shows about the session. */
export interface PgCatalogSession {
  /** The session's database: the first schema of its search_path. */
  readonly database: string;
  /** The user name, shown as the owner of everything. */
  readonly user: string;
  /** `server_version`, as the server announces it. */
  readonly serverVersion: string;
  readonly timezone: string;
}

// ---------------------------------------------------------------------------------------------
// Types

/** A row of pg_type, and how format_type() names the type. */
export interface PgTypeRow {
  readonly oid: number;
  readonly name: string;
  /** format_type()'s name (`character varying`, `timestamp without time zone`). */
  readonly sqlName: string;
  readonly len: number;
  readonly byval: boolean;
  readonly category: string;
  readonly align: string;
  /** The array type's OID (0 for arrays themselves); for an array, `elem` is its element type. */
  readonly array: number;
  readonly elem: number;
  readonly collation: number;
  readonly preferred?: boolean;
}

const base = (oid: number, name: string, sqlName: string, len: number, category: string, align: string, array: number, extra: Partial<PgTypeRow> = {}): PgTypeRow => ({
  oid,
  name,
  sqlName,
  len,
  byval: len > 0 && len <= 8,
  category,
  align,
  array,
  elem: 0,
  collation: 0,
  ...extra,
});

const BASE_TYPES: readonly PgTypeRow[] = [
  base(16, 'bool', 'boolean', 1, 'B', 'c', 1000, { preferred: true }),
  base(17, 'bytea', 'bytea', -1, 'U', 'i', 1001),
  base(18, 'char', '"char"', 1, 'Z', 'c', 1002),
  base(19, 'name', 'name', 64, 'S', 'c', 1003, { byval: false, collation: 950 }),
  base(20, 'int8', 'bigint', 8, 'N', 'd', 1016),
  base(21, 'int2', 'smallint', 2, 'N', 's', 1005),
  base(22, 'int2vector', 'int2vector', -1, 'A', 'i', 1006, { elem: 21 }),
  base(23, 'int4', 'integer', 4, 'N', 'i', 1007),
  base(24, 'regproc', 'regproc', 4, 'N', 'i', 1008),
  base(25, 'text', 'text', -1, 'S', 'i', 1009, { collation: DEFAULT_COLLATION_OID, preferred: true }),
  base(26, 'oid', 'oid', 4, 'N', 'i', 1028, { preferred: true }),
  base(30, 'oidvector', 'oidvector', -1, 'A', 'i', 1013, { elem: 26 }),
  base(114, 'json', 'json', -1, 'U', 'i', 199),
  base(700, 'float4', 'real', 4, 'N', 'i', 1021),
  base(701, 'float8', 'double precision', 8, 'N', 'd', 1022, { preferred: true }),
  base(705, 'unknown', 'unknown', -2, 'X', 'c', 0),
  base(1033, 'aclitem', 'aclitem', 16, 'U', 'd', 1034, { byval: false }),
  base(1042, 'bpchar', 'character', -1, 'S', 'i', 1014, { collation: DEFAULT_COLLATION_OID }),
  base(1043, 'varchar', 'character varying', -1, 'S', 'i', 1015, { collation: DEFAULT_COLLATION_OID }),
  base(1082, 'date', 'date', 4, 'D', 'i', 1182),
  base(1083, 'time', 'time without time zone', 8, 'D', 'd', 1183),
  base(1114, 'timestamp', 'timestamp without time zone', 8, 'D', 'd', 1115),
  base(1184, 'timestamptz', 'timestamp with time zone', 8, 'D', 'd', 1185, { preferred: true }),
  base(1186, 'interval', 'interval', 16, 'T', 'd', 1187, { byval: false, preferred: true }),
  base(1700, 'numeric', 'numeric', -1, 'N', 'i', 1231),
  base(2205, 'regclass', 'regclass', 4, 'N', 'i', 2210),
  base(2206, 'regtype', 'regtype', 4, 'N', 'i', 2211),
  base(2950, 'uuid', 'uuid', 16, 'U', 'c', 2951, { byval: false }),
  base(3802, 'jsonb', 'jsonb', -1, 'U', 'i', 3807),
];

/** Every type of pg_type: the base types, then their arrays (`_int4`, category `A`). */
export const PG_TYPES: readonly PgTypeRow[] = [
  ...BASE_TYPES,
  ...BASE_TYPES.filter((t) => t.array !== 0).map((t) => ({
    oid: t.array,
    name: `_${t.name}`,
    sqlName: `${t.sqlName}[]`,
    len: -1,
    byval: false,
    category: 'A',
    align: t.align === 'd' ? 'd' : 'i',
    array: 0,
    elem: t.oid,
    collation: t.collation,
  })),
];

/** The PostgreSQL type of a tsdb column type (the OID the server sends for it) and its typmod. */
export function pgColumnType(t: ColumnType): { oid: number; typmod: number } {
  switch (t) {
    case 'Boolean':
      return { oid: 16, typmod: -1 };
    case 'Int8':
    case 'Int16':
    case 'UInt8':
      return { oid: 21, typmod: -1 };
    case 'Int32':
    case 'UInt16':
      return { oid: 23, typmod: -1 };
    case 'Int64':
    case 'UInt32':
      return { oid: 20, typmod: -1 };
    case 'UInt64':
      return { oid: 1700, typmod: -1 };
    case 'Float32':
      return { oid: 700, typmod: -1 };
    case 'Float64':
      return { oid: 701, typmod: -1 };
    case 'String':
      return { oid: 1043, typmod: -1 };
    case 'Binary':
      return { oid: 17, typmod: -1 };
    case 'Date':
      return { oid: 1082, typmod: -1 };
    case 'TimestampSecond':
      return { oid: 1114, typmod: 0 };
    case 'TimestampMillisecond':
      return { oid: 1114, typmod: 3 };
    case 'TimestampMicrosecond':
      return { oid: 1114, typmod: 6 };
    case 'TimestampNanosecond':
      return { oid: 1114, typmod: 9 };
    case 'Json':
      return { oid: 114, typmod: -1 };
    default: {
      // DECIMAL: numeric, typmod ((precision << 16) | scale) + 4 as PostgreSQL encodes it.
      const d = decimalOf(t);
      // Vectors: their bytes.
      if (d === undefined) return { oid: 17, typmod: -1 };
      return { oid: 1700, typmod: ((d.precision << 16) | d.scale) + 4 };
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Table definitions

/** The PostgreSQL types pg_catalog's own columns have, and what DuckDB holds them as. */
const COLUMN_KINDS = {
  oid: { type: 26, data: 'Int32' },
  name: { type: 19, data: 'String' },
  text: { type: 25, data: 'String' },
  char: { type: 18, data: 'String' },
  bool: { type: 16, data: 'Boolean' },
  int2: { type: 21, data: 'Int16' },
  int4: { type: 23, data: 'Int32' },
  int8: { type: 20, data: 'Int64' },
  float4: { type: 700, data: 'Float32' },
  timestamptz: { type: 1184, data: 'TimestampMicrosecond' },
  'text[]': { type: 1009, data: 'List<String>' },
  'oid[]': { type: 1028, data: 'List<Int32>' },
  'int2[]': { type: 1005, data: 'List<Int16>' },
  'char[]': { type: 1002, data: 'List<String>' },
} as const;
type ColumnKind = keyof typeof COLUMN_KINDS;

/** `name:kind` pairs, kind defaulting to oid (`relname:name, relnamespace`). */
function columns(spec: string): ReadonlyArray<{ name: string; kind: ColumnKind }> {
  return spec.split(',').map((s) => {
    const [name, kind] = s.trim().split(':') as [string, ColumnKind | undefined];
    if (kind !== undefined && !(kind in COLUMN_KINDS)) throw new Error(`pg_catalog: unknown column kind ${kind}`);
    return { name, kind: kind ?? 'oid' };
  });
}

interface CatalogData {
  readonly session: PgCatalogSession;
  readonly databases: readonly DatabaseInfo[];
  /** The user tables of each database, by database name. */
  readonly tables: ReadonlyMap<string, readonly TableInfo[]>;
  /** The views of each database, by database name. */
  readonly views: ReadonlyMap<string, readonly ViewInfo[]>;
}

type RowsOf = (d: CatalogData) => Cell[][];

interface PgTable {
  readonly oid: number;
  /** `v` for PostgreSQL's views, else `r`. */
  readonly kind: 'r' | 'v';
  readonly columns: ReadonlyArray<{ name: string; kind: ColumnKind }>;
  readonly rows: RowsOf;
}

const none: RowsOf = () => [];

const PG_TABLES: Readonly<Record<string, PgTable>> = {
  pg_am: { oid: 2601, kind: 'r', columns: columns('oid, amname:name, amhandler:text, amtype:char'), rows: () => [[HEAP_AM_OID, 'heap', 'heap_tableam_handler', 't'], [BTREE_AM_OID, 'btree', 'bthandler', 'i']] },
  pg_attrdef: { oid: 2604, kind: 'r', columns: columns('oid, adrelid, adnum:int2, adbin:text'), rows: attrdefRows },
  pg_attribute: {
    oid: 1249,
    kind: 'r',
    columns: columns(
      'attrelid, attname:name, atttypid, attstattarget:int2, attlen:int2, attnum:int2, attndims:int2, attcacheoff:int4, atttypmod:int4, attbyval:bool, attalign:char, attstorage:char, attcompression:char, attnotnull:bool, atthasdef:bool, atthasmissing:bool, attidentity:char, attgenerated:char, attisdropped:bool, attislocal:bool, attinhcount:int2, attcollation, attacl:text[], attoptions:text[], attfdwoptions:text[], attmissingval:text',
    ),
    rows: attributeRows,
  },
  pg_auth_members: { oid: 1261, kind: 'r', columns: columns('oid, roleid, member, grantor, admin_option:bool, inherit_option:bool, set_option:bool'), rows: none },
  pg_class: {
    oid: PG_CLASS_OID,
    kind: 'r',
    columns: columns(
      'oid, relname:name, relnamespace, reltype, reloftype, relowner, relam, relfilenode, reltablespace, relpages:int4, reltuples:float4, relallvisible:int4, reltoastrelid, relhasindex:bool, relisshared:bool, relpersistence:char, relkind:char, relnatts:int2, relchecks:int2, relhasrules:bool, relhastriggers:bool, relhassubclass:bool, relrowsecurity:bool, relforcerowsecurity:bool, relispopulated:bool, relreplident:char, relispartition:bool, relrewrite, relfrozenxid:int8, relminmxid:int8, relacl:text[], reloptions:text[], relpartbound:text',
    ),
    rows: classRows,
  },
  pg_cast: { oid: 2605, kind: 'r', columns: columns('oid, castsource, casttarget, castfunc, castcontext:char, castmethod:char'), rows: none },
  pg_collation: {
    oid: 3456,
    kind: 'r',
    columns: columns('oid, collname:name, collnamespace, collowner, collprovider:char, collisdeterministic:bool, collencoding:int4, collcollate:text, collctype:text, colliculocale:text, collicurules:text, collversion:text'),
    rows: () => [
      [DEFAULT_COLLATION_OID, 'default', PG_CATALOG_NAMESPACE_OID, SUPERUSER_OID, 'd', true, -1, null, null, null, null, null],
      [950, 'C', PG_CATALOG_NAMESPACE_OID, SUPERUSER_OID, 'c', true, -1, 'C', 'C', null, null, null],
      [951, 'POSIX', PG_CATALOG_NAMESPACE_OID, SUPERUSER_OID, 'c', true, -1, 'POSIX', 'POSIX', null, null, null],
    ],
  },
  pg_conversion: {
    oid: 2607,
    kind: 'r',
    columns: columns('oid, conname:name, connamespace, conowner, conforencoding:int4, contoencoding:int4, conproc:text, condefault:bool'),
    rows: none,
  },
  pg_constraint: {
    oid: 2606,
    kind: 'r',
    columns: columns(
      'oid, conname:name, connamespace, contype:char, condeferrable:bool, condeferred:bool, convalidated:bool, conrelid, contypid, conindid, conparentid, confrelid, confupdtype:char, confdeltype:char, confmatchtype:char, conislocal:bool, coninhcount:int2, connoinherit:bool, conkey:int2[], confkey:int2[], conpfeqop:oid[], conppeqop:oid[], conffeqop:oid[], confdelsetcols:int2[], conexclop:oid[], conbin:text',
    ),
    rows: constraintRows,
  },
  pg_database: {
    oid: 1262,
    kind: 'r',
    columns: columns(
      'oid, datname:name, datdba, encoding:int4, datlocprovider:char, datistemplate:bool, datallowconn:bool, datconnlimit:int4, datfrozenxid:int8, datminmxid:int8, dattablespace, datcollate:text, datctype:text, daticulocale:text, daticurules:text, datcollversion:text, datacl:text[]',
    ),
    rows: (d) => d.databases.map((db) => [namespaceOid(db.name), db.name, SUPERUSER_OID, UTF8_ENCODING, 'c', false, true, -1, 0, 1, DEFAULT_TABLESPACE_OID, 'C.UTF-8', 'C.UTF-8', null, null, null, null]),
  },
  pg_depend: { oid: 2608, kind: 'r', columns: columns('classid, objid, objsubid:int4, refclassid, refobjid, refobjsubid:int4, deptype:char'), rows: none },
  pg_description: { oid: 2609, kind: 'r', columns: columns('objoid, classoid, objsubid:int4, description:text'), rows: descriptionRows },
  pg_enum: { oid: 3501, kind: 'r', columns: columns('oid, enumtypid, enumsortorder:float4, enumlabel:name'), rows: none },
  pg_event_trigger: { oid: 3466, kind: 'r', columns: columns('oid, evtname:name, evtevent:name, evtowner, evtfoid, evtenabled:char, evttags:text[]'), rows: none },
  pg_extension: {
    oid: 3079,
    kind: 'r',
    columns: columns('oid, extname:name, extowner, extnamespace, extrelocatable:bool, extversion:text, extconfig:oid[], extcondition:text[]'),
    rows: none,
  },
  pg_foreign_data_wrapper: { oid: 2328, kind: 'r', columns: columns('oid, fdwname:name, fdwowner, fdwhandler, fdwvalidator, fdwacl:text[], fdwoptions:text[]'), rows: none },
  pg_foreign_server: { oid: 1417, kind: 'r', columns: columns('oid, srvname:name, srvowner, srvfdw, srvtype:text, srvversion:text, srvacl:text[], srvoptions:text[]'), rows: none },
  pg_foreign_table: { oid: 3118, kind: 'r', columns: columns('ftrelid, ftserver, ftoptions:text[]'), rows: none },
  pg_index: {
    oid: 2610,
    kind: 'r',
    columns: columns(
      'indexrelid, indrelid, indnatts:int2, indnkeyatts:int2, indisunique:bool, indnullsnotdistinct:bool, indisprimary:bool, indisexclusion:bool, indimmediate:bool, indisclustered:bool, indisvalid:bool, indcheckxmin:bool, indisready:bool, indislive:bool, indisreplident:bool, indkey:int2[], indcollation:oid[], indclass:oid[], indoption:int2[], indexprs:text, indpred:text',
    ),
    rows: indexRows,
  },
  pg_indexes: { oid: 12007, kind: 'v', columns: columns('schemaname:name, tablename:name, indexname:name, tablespace:name, indexdef:text'), rows: indexesRows },
  pg_inherits: { oid: 2611, kind: 'r', columns: columns('inhrelid, inhparent, inhseqno:int4, inhdetachpending:bool'), rows: none },
  pg_language: {
    oid: 2612,
    kind: 'r',
    columns: columns('oid, lanname:name, lanowner, lanispl:bool, lanpltrusted:bool, lanplcallfoid, laninline, lanvalidator, lanacl:text[]'),
    rows: none,
  },
  pg_largeobject_metadata: { oid: 2995, kind: 'r', columns: columns('oid, lomowner, lomacl:text[]'), rows: none },
  pg_matviews: {
    oid: 12008,
    kind: 'v',
    columns: columns('schemaname:name, matviewname:name, matviewowner:name, tablespace:name, hasindexes:bool, ispopulated:bool, definition:text'),
    rows: none,
  },
  pg_namespace: {
    oid: 2615,
    kind: 'r',
    columns: columns('oid, nspname:name, nspowner, nspacl:text[]'),
    rows: (d) => [[PG_CATALOG_NAMESPACE_OID, PG_CATALOG, SUPERUSER_OID, null], ...d.databases.map((db) => [namespaceOid(db.name), db.name, SUPERUSER_OID, null])],
  },
  pg_opclass: {
    oid: 2616,
    kind: 'r',
    columns: columns('oid, opcmethod, opcname:name, opcnamespace, opcowner, opcfamily, opcintype, opcdefault:bool, opckeytype'),
    rows: none,
  },
  pg_operator: {
    oid: 2617,
    kind: 'r',
    columns: columns('oid, oprname:name, oprnamespace, oprowner, oprkind:char, oprcanmerge:bool, oprcanhash:bool, oprleft, oprright, oprresult, oprcom, oprnegate, oprcode:text, oprrest:text, oprjoin:text'),
    rows: none,
  },
  pg_opfamily: { oid: 2753, kind: 'r', columns: columns('oid, opfmethod, opfname:name, opfnamespace, opfowner'), rows: none },
  pg_policy: { oid: 3256, kind: 'r', columns: columns('oid, polname:name, polrelid, polcmd:char, polpermissive:bool, polroles:oid[], polqual:text, polwithcheck:text'), rows: none },
  pg_proc: {
    oid: 1255,
    kind: 'r',
    columns: columns(
      'oid, proname:name, pronamespace, proowner, prolang, procost:float4, prorows:float4, provariadic, prosupport, prokind:char, prosecdef:bool, proleakproof:bool, proisstrict:bool, proretset:bool, provolatile:char, proparallel:char, pronargs:int2, pronargdefaults:int2, prorettype, proargtypes:oid[], proallargtypes:oid[], proargmodes:char[], proargnames:text[], proargdefaults:text, protrftypes:oid[], prosrc:text, probin:text, prosqlbody:text, proconfig:text[], proacl:text[]',
    ),
    rows: none,
  },
  pg_publication: {
    oid: 6104,
    kind: 'r',
    columns: columns('oid, pubname:name, pubowner, puballtables:bool, pubinsert:bool, pubupdate:bool, pubdelete:bool, pubtruncate:bool, pubviaroot:bool'),
    rows: none,
  },
  pg_publication_namespace: { oid: 6237, kind: 'r', columns: columns('oid, pnpubid, pnnspid'), rows: none },
  pg_publication_rel: { oid: 6106, kind: 'r', columns: columns('oid, prpubid, prrelid, prqual:text, prattrs:int2[]'), rows: none },
  pg_roles: {
    oid: 12009,
    kind: 'v',
    columns: columns(
      'rolname:name, rolsuper:bool, rolinherit:bool, rolcreaterole:bool, rolcreatedb:bool, rolcanlogin:bool, rolreplication:bool, rolconnlimit:int4, rolpassword:text, rolvaliduntil:timestamptz, rolbypassrls:bool, rolconfig:text[], oid',
    ),
    rows: (d) => [[d.session.user, true, true, true, true, true, true, -1, '********', null, true, null, SUPERUSER_OID]],
  },
  pg_rewrite: { oid: 2618, kind: 'r', columns: columns('oid, rulename:name, ev_class, ev_type:char, ev_enabled:char, is_instead:bool, ev_qual:text, ev_action:text'), rows: none },
  pg_sequence: {
    oid: 2224,
    kind: 'r',
    columns: columns('seqrelid, seqtypid, seqstart:int8, seqincrement:int8, seqmax:int8, seqmin:int8, seqcache:int8, seqcycle:bool'),
    rows: none,
  },
  pg_settings: {
    oid: 12010,
    kind: 'v',
    columns: columns(
      'name:text, setting:text, unit:text, category:text, short_desc:text, extra_desc:text, context:text, vartype:text, source:text, min_val:text, max_val:text, enumvals:text[], boot_val:text, reset_val:text, sourcefile:text, sourceline:int4, pending_restart:bool',
    ),
    rows: settingsRows,
  },
  pg_statistic_ext: {
    oid: 3381,
    kind: 'r',
    columns: columns('oid, stxrelid, stxname:name, stxnamespace, stxowner, stxstattarget:int4, stxkeys:int2[], stxkind:char[], stxexprs:text'),
    rows: none,
  },
  pg_tables: {
    oid: 12011,
    kind: 'v',
    columns: columns('schemaname:name, tablename:name, tableowner:name, tablespace:name, hasindexes:bool, hasrules:bool, hastriggers:bool, rowsecurity:bool'),
    rows: (d) => userTables(d).map(({ db, t }) => [db, t.name, d.session.user, null, indexColumns(t) !== undefined, false, false, false]),
  },
  pg_tablespace: {
    oid: 1213,
    kind: 'r',
    columns: columns('oid, spcname:name, spcowner, spcacl:text[], spcoptions:text[]'),
    rows: () => [[DEFAULT_TABLESPACE_OID, 'pg_default', SUPERUSER_OID, null, null], [1664, 'pg_global', SUPERUSER_OID, null, null]],
  },
  pg_trigger: {
    oid: 2620,
    kind: 'r',
    columns: columns('oid, tgrelid, tgparentid, tgname:name, tgfoid, tgtype:int2, tgenabled:char, tgisinternal:bool, tgconstrrelid, tgconstrindid, tgconstraint, tgdeferrable:bool, tginitdeferred:bool, tgnargs:int2, tgattr:int2[], tgargs:text, tgqual:text, tgoldtable:name, tgnewtable:name'),
    rows: none,
  },
  pg_type: {
    oid: 1247,
    kind: 'r',
    columns: columns(
      'oid, typname:name, typnamespace, typowner, typlen:int2, typbyval:bool, typtype:char, typcategory:char, typispreferred:bool, typisdefined:bool, typdelim:char, typrelid, typsubscript:text, typelem, typarray, typinput:text, typoutput:text, typreceive:text, typsend:text, typmodin:text, typmodout:text, typanalyze:text, typalign:char, typstorage:char, typnotnull:bool, typbasetype, typtypmod:int4, typndims:int4, typcollation, typdefaultbin:text, typdefault:text, typacl:text[]',
    ),
    rows: typeRows,
  },
  pg_user: {
    oid: 12012,
    kind: 'v',
    columns: columns('usename:name, usesysid, usecreatedb:bool, usesuper:bool, userepl:bool, usebypassrls:bool, passwd:text, valuntil:timestamptz, useconfig:text[]'),
    rows: (d) => [[d.session.user, SUPERUSER_OID, true, true, true, true, '********', null, null]],
  },
  pg_views: {
    oid: 12013,
    kind: 'v',
    columns: columns('schemaname:name, viewname:name, viewowner:name, definition:text'),
    rows: (d) => userViews(d).map(({ db, v }) => [db, v.name, d.session.user, v.query]),
  },
};

/** The tables of pg_catalog, sorted by name. */
export const PG_CATALOG_TABLES: readonly string[] = Object.freeze(Object.keys(PG_TABLES).sort());

export function isPgCatalogTable(name: string): boolean {
  return Object.hasOwn(PG_TABLES, name.toLowerCase());
}

// ---------------------------------------------------------------------------------------------
// OIDs

/** FNV-1a, 32 bits. */
function hash32(s: string): number {
  let h = 0x811c9dc5;
  for (const b of Buffer.from(s, 'utf8')) h = Math.imul(h ^ b, 0x01000193) >>> 0;
  return h;
}

/** A database's (schema's) OID: fixed for public, information_schema and pg_catalog, else a hash of its name. */
export function namespaceOid(database: string): number {
  if (database === 'public') return PUBLIC_NAMESPACE_OID;
  if (database === INFORMATION_SCHEMA) return INFORMATION_SCHEMA_NAMESPACE_OID;
  if (database === PG_CATALOG) return PG_CATALOG_NAMESPACE_OID;
  return FIRST_NORMAL_OID + (hash32(database) % (INDEX_OID_OFFSET - FIRST_NORMAL_OID));
}

export function tableOid(t: Pick<TableInfo, 'table_id'>): number {
  return FIRST_NORMAL_OID + t.table_id;
}

export function indexOid(t: Pick<TableInfo, 'table_id'>): number {
  return tableOid(t) + INDEX_OID_OFFSET;
}

// ---------------------------------------------------------------------------------------------
// Rows

/** User views, as relations of kind `v` (no columns: a view's columns are its query's, known when it is read). */
function userViews(d: CatalogData): Array<{ db: string; v: ViewInfo }> {
  return d.databases.flatMap((db) => (d.views.get(db.name) ?? []).map((v) => ({ db: db.name, v })));
}

function userTables(d: CatalogData): Array<{ db: string; t: TableInfo }> {
  return d.databases.flatMap((db) => (d.tables.get(db.name) ?? []).map((t) => ({ db: db.name, t })));
}

/**
 * The columns of a table's unique index: its primary key, then its time index (the key rows are
 * deduplicated on); undefined for append-mode tables, which keep duplicate rows.
 */
function indexColumns(t: TableInfo): string[] | undefined {
  if (t.options['append_mode'] === 'true') return undefined;
  return [...t.primary_key, t.time_index];
}

function quoteIdent(name: string): string {
  return /^[a-z_][a-z0-9_$]*$/.test(name) ? name : `"${name.replaceAll('"', '""')}"`;
}

function indexDef(db: string, t: TableInfo, cols: readonly string[]): string {
  return `CREATE UNIQUE INDEX ${quoteIdent(`${t.name}_pkey`)} ON ${quoteIdent(db)}.${quoteIdent(t.name)} USING btree (${cols.map(quoteIdent).join(', ')})`;
}

/** Every relation a session can name: pg_catalog's, information_schema's, the user tables. */
interface ClassView {
  readonly oid: number;
  readonly name: string;
  readonly namespace: number;
  readonly kind: 'r' | 'v' | 'i';
  readonly natts: number;
  readonly hasIndex: boolean;
  readonly am: number;
}

function classViews(d: CatalogData): ClassView[] {
  const out: ClassView[] = [];
  for (const name of PG_CATALOG_TABLES) {
    const t = PG_TABLES[name]!;
    out.push({ oid: t.oid, name, namespace: PG_CATALOG_NAMESPACE_OID, kind: t.kind, natts: t.columns.length, hasIndex: false, am: t.kind === 'r' ? HEAP_AM_OID : 0 });
  }
  for (const v of informationSchemaTableDefs()) {
    out.push({ oid: INFORMATION_SCHEMA_TABLE_OID_BASE + v.id, name: v.name, namespace: INFORMATION_SCHEMA_NAMESPACE_OID, kind: 'v', natts: v.columns.length, hasIndex: false, am: 0 });
  }
  for (const { db, t } of userTables(d)) {
    const cols = indexColumns(t);
    out.push({ oid: tableOid(t), name: t.name, namespace: namespaceOid(db), kind: 'r', natts: t.columns.length, hasIndex: cols !== undefined, am: HEAP_AM_OID });
    if (cols !== undefined) out.push({ oid: indexOid(t), name: `${t.name}_pkey`, namespace: namespaceOid(db), kind: 'i', natts: cols.length, hasIndex: false, am: BTREE_AM_OID });
  }
  for (const { db, v } of userViews(d)) out.push({ oid: tableOid({ table_id: v.view_id }), name: v.name, namespace: namespaceOid(db), kind: 'v', natts: 0, hasIndex: false, am: 0 });
  return out;
}

function classRows(d: CatalogData): Cell[][] {
  return classViews(d).map((c) => [
    c.oid, c.name, c.namespace, 0, 0, SUPERUSER_OID, c.am, c.kind === 'v' ? 0 : c.oid, 0, 0, -1, 0, 0, c.hasIndex, false, 'p', c.kind, c.natts, 0, false, false, false, false, false, true, c.kind === 'r' ? 'd' : 'n', false, 0, 0, 0, null, null, null,
  ]);
}

/** A column as pg_attribute shows it. */
interface AttributeView {
  readonly name: string;
  readonly type: number;
  readonly typmod: number;
  readonly notNull: boolean;
  readonly hasDefault: boolean;
}

function attributeRow(rel: number, num: number, a: AttributeView): Cell[] {
  const t = PG_TYPES.find((x) => x.oid === a.type)!;
  return [rel, a.name, a.type, -1, t.len, num, t.category === 'A' ? 1 : 0, -1, a.typmod, t.byval, t.align, t.len === -1 ? 'x' : 'p', '', a.notNull, a.hasDefault, false, '', '', false, true, 0, t.collation, null, null, null, null];
}

function userAttribute(t: TableInfo, c: ColumnSchema): AttributeView {
  const { oid, typmod } = pgColumnType(c.data_type);
  return { name: c.name, type: oid, typmod, notNull: !c.nullable || c.name === t.time_index, hasDefault: c.default !== undefined };
}

function attributeRows(d: CatalogData): Cell[][] {
  const rows: Cell[][] = [];
  for (const name of PG_CATALOG_TABLES) {
    const t = PG_TABLES[name]!;
    t.columns.forEach((c, i) => rows.push(attributeRow(t.oid, i + 1, { name: c.name, type: COLUMN_KINDS[c.kind].type, typmod: -1, notNull: false, hasDefault: false })));
  }
  for (const v of informationSchemaTableDefs()) {
    v.columns.forEach((c, i) => {
      const { oid, typmod } = pgColumnType(c.type);
      rows.push(attributeRow(INFORMATION_SCHEMA_TABLE_OID_BASE + v.id, i + 1, { name: c.name, type: oid, typmod, notNull: !c.nullable, hasDefault: false }));
    });
  }
  for (const { t } of userTables(d)) {
    t.columns.forEach((c, i) => rows.push(attributeRow(tableOid(t), i + 1, userAttribute(t, c))));
    const cols = indexColumns(t);
    cols?.forEach((name, i) => rows.push(attributeRow(indexOid(t), i + 1, userAttribute(t, t.columns.find((c) => c.name === name)!))));
  }
  return rows;
}

/** A default as PostgreSQL's pg_get_expr prints it. */
function defaultExpr(c: ColumnSchema): string | undefined {
  const d = c.default;
  if (d === undefined) return undefined;
  if (d.kind === 'current_timestamp') return 'CURRENT_TIMESTAMP';
  if (d.value === null) return 'NULL';
  if (typeof d.value === 'string') return `'${d.value.replaceAll("'", "''")}'::${PG_TYPES.find((x) => x.oid === pgColumnType(c.data_type).oid)!.sqlName}`;
  return String(d.value);
}

function attrdefRows(d: CatalogData): Cell[][] {
  const rows: Cell[][] = [];
  let oid = 0;
  for (const { t } of userTables(d)) {
    t.columns.forEach((c, i) => {
      const expr = defaultExpr(c);
      // One oid per default, after the tables' and indexes' (unique within pg_attrdef).
      if (expr !== undefined) rows.push([INDEX_OID_OFFSET * 1.5 + oid++, tableOid(t), i + 1, expr]);
    });
  }
  return rows;
}

function indexRows(d: CatalogData): Cell[][] {
  const rows: Cell[][] = [];
  for (const { t } of userTables(d)) {
    const cols = indexColumns(t);
    if (cols === undefined) continue;
    const keys = cols.map((n) => t.columns.findIndex((c) => c.name === n) + 1);
    rows.push([indexOid(t), tableOid(t), keys.length, keys.length, true, false, true, false, true, false, true, false, true, true, false, keys, keys.map(() => 0), keys.map(() => 0), keys.map(() => 0), null, null]);
  }
  return rows;
}

function indexesRows(d: CatalogData): Cell[][] {
  const rows: Cell[][] = [];
  for (const { db, t } of userTables(d)) {
    const cols = indexColumns(t);
    if (cols !== undefined) rows.push([db, t.name, `${t.name}_pkey`, null, indexDef(db, t, cols)]);
  }
  return rows;
}

function constraintRows(d: CatalogData): Cell[][] {
  const rows: Cell[][] = [];
  for (const { db, t } of userTables(d)) {
    const cols = indexColumns(t);
    if (cols === undefined) continue;
    const keys = cols.map((n) => t.columns.findIndex((c) => c.name === n) + 1);
    rows.push([indexOid(t), `${t.name}_pkey`, namespaceOid(db), 'p', false, false, true, tableOid(t), 0, indexOid(t), 0, 0, ' ', ' ', ' ', true, 0, true, keys, null, null, null, null, null, null, null]);
  }
  return rows;
}

function descriptionRows(d: CatalogData): Cell[][] {
  const rows: Cell[][] = [];
  for (const { t } of userTables(d)) {
    const comment = t.comment ?? t.options['comment'];
    if (comment !== undefined && comment !== '') rows.push([tableOid(t), PG_CLASS_OID, 0, comment]);
    t.columns.forEach((c, i) => {
      if (c.comment !== undefined && c.comment !== '') rows.push([tableOid(t), PG_CLASS_OID, i + 1, c.comment]);
    });
  }
  return rows;
}

function typeRows(): Cell[][] {
  return PG_TYPES.map((t) => [
    t.oid, t.name, PG_CATALOG_NAMESPACE_OID, SUPERUSER_OID, t.len, t.byval, t.oid === 705 ? 'p' : 'b', t.category, t.preferred ?? false, true, ',', 0,
    t.category === 'A' ? 'array_subscript_handler' : '-', t.elem, t.array,
    t.category === 'A' ? 'array_in' : `${t.name}in`, t.category === 'A' ? 'array_out' : `${t.name}out`, t.category === 'A' ? 'array_recv' : `${t.name}recv`, t.category === 'A' ? 'array_send' : `${t.name}send`,
    '-', '-', '-', t.align, t.len === -1 ? 'x' : 'p', false, 0, -1, 0, t.collation, null, null, null,
  ]);
}

function settingsRows(d: CatalogData): Cell[][] {
  const s = (name: string, setting: string, category: string, vartype = 'string'): Cell[] => [name, setting, null, category, '', null, 'user', vartype, 'default', null, null, null, setting, setting, null, null, false];
  const major = d.session.serverVersion.split(/[.-]/);
  const versionNum = String(Number(major[0] ?? 16) * 10000 + Number(major[1] ?? 0));
  return [
    s('client_encoding', 'UTF8', 'Client Connection Defaults / Locale and Formatting'),
    s('DateStyle', 'ISO, YMD', 'Client Connection Defaults / Locale and Formatting'),
    s('default_transaction_isolation', 'read committed', 'Client Connection Defaults / Statement Behavior', 'enum'),
    s('integer_datetimes', 'on', 'Preset Options', 'bool'),
    s('max_identifier_length', '63', 'Preset Options', 'integer'),
    s('search_path', d.session.database, 'Client Connection Defaults / Statement Behavior'),
    s('server_encoding', 'UTF8', 'Preset Options'),
    s('server_version', d.session.serverVersion, 'Preset Options'),
    s('server_version_num', versionNum, 'Preset Options', 'integer'),
    s('standard_conforming_strings', 'on', 'Version and Platform Compatibility', 'bool'),
    s('TimeZone', d.session.timezone, 'Client Connection Defaults / Locale and Formatting'),
    s('transaction_isolation', 'read committed', 'Client Connection Defaults / Statement Behavior', 'enum'),
  ];
}

// ---------------------------------------------------------------------------------------------
// Entry points

async function catalogData(source: InformationSchemaSource, session: PgCatalogSession): Promise<CatalogData> {
  const dbs = (await source.databases()).filter((d) => d.name !== INFORMATION_SCHEMA);
  dbs.push({ name: INFORMATION_SCHEMA, options: {}, created_at: 0 });
  dbs.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const tables = new Map<string, TableInfo[]>();
  for (const db of dbs) if (db.name !== INFORMATION_SCHEMA) tables.set(db.name, [...(await source.tables(db.name))].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)));
  const views = new Map<string, ViewInfo[]>();
  if (source.views !== undefined) for (const db of dbs) if (db.name !== INFORMATION_SCHEMA) views.set(db.name, await source.views(db.name));
  return { session, databases: dbs, tables, views };
}

/** The columns and rows of `pg_catalog.<name>` (name lower-case); undefined for an unknown table. */
export async function pgCatalogTable(name: string, source: InformationSchemaSource, session: PgCatalogSession): Promise<{ columns: OutputColumn[]; rows: Cell[][] } | undefined> {
  const key = name.toLowerCase();
  const def = Object.hasOwn(PG_TABLES, key) ? PG_TABLES[key] : undefined;
  if (def === undefined) return undefined;
  const data = def.rows === none ? undefined : await catalogData(source, session);
  return { columns: def.columns.map((c) => ({ name: c.name, data_type: COLUMN_KINDS[c.kind].data })), rows: data === undefined ? [] : def.rows(data) };
}

/**
 * The OID of a relation named as `'name'::regclass` names it: `schema.name` or `name`, looked up
 * in pg_catalog then the session's database; undefined when there is none.
 */
export async function relationOid(text: string, source: InformationSchemaSource, session: PgCatalogSession): Promise<number | undefined> {
  const parts = splitQualified(text);
  if (parts === undefined) return undefined;
  const [schema, name] = parts.length === 2 ? [parts[0]!, parts[1]!] : [undefined, parts[0]!];
  const views = classViews(await catalogData(source, session));
  const namespaces = schema === undefined ? [PG_CATALOG_NAMESPACE_OID, namespaceOid(session.database)] : [namespaceOid(schema)];
  for (const ns of namespaces) {
    const hit = views.find((c) => c.namespace === ns && c.name === name);
    if (hit !== undefined) return hit.oid;
  }
  return undefined;
}

/** `a.b`, `"A".b`, `b` as its parts (unquoted names lower-cased, as PostgreSQL reads them). */
export function splitQualified(text: string): string[] | undefined {
  const parts: string[] = [];
  const re = /\s*(?:"((?:[^"]|"")*)"|([^".\s]+))\s*(\.|$)/y;
  let m: RegExpExecArray | null;
  while (re.lastIndex < text.length && (m = re.exec(text)) !== null) {
    parts.push(m[1] !== undefined ? m[1].replaceAll('""', '"') : m[2]!.toLowerCase());
    if (m[3] === '') break;
  }
  return parts.length === 0 || parts.length > 2 || re.lastIndex < text.length ? undefined : parts;
}

/** The OID of a type named as `'name'::regtype` names it (`int4`, `integer`, `character varying`). */
export function typeOid(text: string): number | undefined {
  const t = text.trim().toLowerCase().replace(/^pg_catalog\./, '');
  const aliases: Record<string, string> = { int: 'int4', integer: 'int4', smallint: 'int2', bigint: 'int8', real: 'float4', 'double precision': 'float8', boolean: 'bool', 'character varying': 'varchar', character: 'bpchar', 'timestamp without time zone': 'timestamp', 'timestamp with time zone': 'timestamptz', 'time without time zone': 'time', decimal: 'numeric' };
  const name = aliases[t] ?? t;
  return PG_TYPES.find((x) => x.name === name || x.sqlName === t)?.oid;
}
