/**
 * The PostgreSQL dialect of queries from PostgreSQL sessions (reference api.md §5): what psql's
 * backslash commands and GUI tools' catalog queries need that DuckDB does not read the
 * PostgreSQL way. Two steps:
 *
 * 1. On the text, before DuckDB parses it (`bridgePgQueryText`), on tokens so that strings and
 *    comments are never touched:
 *    - `OPERATOR(pg_catalog.~)` → `~` (DuckDB's parser reads the qualified form as a function);
 *    - `COLLATE pg_catalog.default`, `COLLATE "C"`, … → nothing (DuckDB has no such collations);
 *    - `::pg_catalog.text`, `AS pg_catalog.int4` → `::text`, `AS int4` (qualified type names).
 * 2. On DuckDB's parse tree (`rewritePgTree`), before its table references are resolved:
 *    - unqualified `pg_class`, `pg_type`, … name pg_catalog's tables (pg_catalog is implicitly
 *      first on PostgreSQL's search_path), which tsdb computes (`catalog/pg-catalog.ts`) in place
 *      of DuckDB's own pg_catalog views, which describe DuckDB;
 *    - `pg_catalog.f(…)` calls lose the schema (DuckDB's functions are not in it); calls of the
 *      catalog functions in `FUNCTIONS` become their SQL, over tsdb's pg_catalog (`$1`, `$2` are
 *      the arguments): `format_type`, `pg_get_userbyid`, `pg_table_is_visible`, `obj_description`,
 *      `pg_get_indexdef`, `current_schema()`, `version()`, …;
 *    - `a ~ b` / `a !~ b` / `~*` / `!~*` match anywhere in `a`, as in PostgreSQL (DuckDB's `~` must
 *      match all of it);
 *    - `'name'::regclass` becomes the relation's OID (`relation "x" does not exist` when none),
 *      `'int4'::regtype` the type's, `'public'::regnamespace` the schema's; other values cast to
 *      these become integers (a `regtype` value becomes its format_type name); `name`,
 *      `pg_node_tree`, `regproc` become VARCHAR;
 *    - `current_user`, `session_user`, `current_role` are the session's user, `current_catalog`
 *      its database;
 *    - `x = ANY(array_column)` becomes `list_contains(array_column, x)` (DuckDB cannot unnest a
 *      correlated list);
 *    - `FROM generate_series(…) s`, `FROM unnest(…) s` name their column `s` too, as PostgreSQL does.
 */
import { StatusCode } from '../common/error/status-code.js';
import { TsdbError } from '../common/error/tsdb-error.js';
import { quoteLiteral } from '../common/sql-quote.js';
import { FIRST_NORMAL_OID, isPgCatalogTable, namespaceOid, PG_CATALOG, PG_CATALOG_NAMESPACE_OID, PG_CLASS_OID, PG_TYPES, SUPERUSER_OID, typeOid, UTF8_ENCODING } from '../catalog/pg-catalog.js';
import { tokenize, type Token } from '../sql/lexer.js';
import type { QueryDialect } from './query-executor.js';
import { tableRefs } from './table-refs.js';

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
type JsonObject = { [k: string]: Json };

function isObject(v: Json | undefined): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

// ---------------------------------------------------------------------------------------------
// Text

function isIdent(t: Token | undefined, value?: string): boolean {
  return t !== undefined && (t.kind === 'ident' || t.kind === 'quoted_ident') && (value === undefined || t.value.toLowerCase() === value);
}

function isOp(t: Token | undefined, value: string): boolean {
  return t?.kind === 'op' && t.value === value;
}

/** The query text with PostgreSQL's qualified operators, collations and type names rewritten for DuckDB. */
export function bridgePgQueryText(sql: string): string {
  // Each rewrite needs one of these words: other text (most of it) is not tokenized.
  if (!/operator|collate|pg_catalog/i.test(sql)) return sql;
  let tokens: Token[];
  try {
    tokens = tokenize(sql);
  } catch {
    return sql; // DuckDB reports the error
  }
  const edits: Array<{ start: number; end: number; text: string }> = [];
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i]!;
    // OPERATOR(pg_catalog.~) → ~ (the operator's characters up to the closing parenthesis).
    if (isIdent(t, 'operator') && t.kind === 'ident' && isOp(tokens[i + 1], '(') && isIdent(tokens[i + 2], PG_CATALOG) && isOp(tokens[i + 3], '.')) {
      let j = i + 4;
      while (j < tokens.length && tokens[j]!.kind === 'op' && !isOp(tokens[j], ')')) j++;
      if (j > i + 4 && isOp(tokens[j], ')')) {
        edits.push({ start: t.start, end: tokens[j]!.end, text: sql.slice(tokens[i + 4]!.start, tokens[j - 1]!.end) });
        i = j;
        continue;
      }
    }
    // COLLATE name / COLLATE schema.name → nothing.
    if (isIdent(t, 'collate') && t.kind === 'ident' && isIdent(tokens[i + 1])) {
      let end = tokens[i + 1]!.end;
      let j = i + 1;
      if (isOp(tokens[i + 2], '.') && isIdent(tokens[i + 3])) {
        end = tokens[i + 3]!.end;
        j = i + 3;
      }
      edits.push({ start: t.start, end, text: '' });
      i = j;
      continue;
    }
    // ::pg_catalog.type, AS pg_catalog.type → the unqualified type.
    if ((isOp(t, '::') || (isIdent(t, 'as') && t.kind === 'ident')) && isIdent(tokens[i + 1], PG_CATALOG) && isOp(tokens[i + 2], '.') && isIdent(tokens[i + 3])) {
      edits.push({ start: tokens[i + 1]!.start, end: tokens[i + 3]!.start, text: '' });
      i += 2;
    }
  }
  let out = sql;
  for (const e of edits.reverse()) out = out.slice(0, e.start) + e.text + out.slice(e.end);
  return out;
}

// ---------------------------------------------------------------------------------------------
// Catalog functions

/** What the rewrite needs of the session and the catalog. */
export interface PgSession {
  readonly user: string;
  readonly database: string;
  /** `version()`: `PostgreSQL 16.3 …`. */
  readonly version: string;
  /** The OID of a relation named `name` or `schema.name` (regclass input); undefined when none. */
  relationOid(name: string): Promise<number | undefined>;
  /** `SELECT <expr>` parsed by DuckDB: its one select item (templates of the catalog functions). */
  parseExpression(sql: string): Promise<Json>;
}

/** format_type(oid, typmod): PostgreSQL's name of a type, with its modifier. */
function formatTypeSql(): string {
  const cases = PG_TYPES.map((t) => {
    const name = quoteLiteral(t.sqlName);
    switch (t.name) {
      case 'timestamp':
      case 'timestamptz':
      case 'time': {
        const [head, tail] = [t.sqlName.slice(0, t.sqlName.indexOf(' ')), t.sqlName.slice(t.sqlName.indexOf(' '))];
        return `WHEN ${t.oid} THEN ${quoteLiteral(head)} || CASE WHEN $2 >= 0 THEN '(' || CAST($2 AS VARCHAR) || ')' ELSE '' END || ${quoteLiteral(tail)}`;
      }
      case 'varchar':
      case 'bpchar':
        return `WHEN ${t.oid} THEN ${name} || CASE WHEN $2 >= 4 THEN '(' || CAST($2 - 4 AS VARCHAR) || ')' ELSE '' END`;
      default:
        return `WHEN ${t.oid} THEN ${name}`;
    }
  });
  return `CASE CAST($1 AS BIGINT) ${cases.join(' ')} ELSE CASE WHEN $1 IS NULL THEN NULL ELSE '???' END END`;
}

const FORMAT_TYPE = formatTypeSql();
const NULL_TEXT = 'CAST(NULL AS VARCHAR)';

/**
 * The call's arguments as a derived table, for templates that look things up in a subquery: an
 * argument naming a column (`oid`) must bind to the caller's row, not to the subquery's tables.
 */
const ARGS1 = '(SELECT $1 AS a1) __tsdb_args';
const ARGS2 = '(SELECT $1 AS a1, $2 AS a2) __tsdb_args';

/** The unique index definition of an index OID, joining pg_indexes on its name. */
const INDEX_DEF = `(SELECT __tsdb_x.indexdef FROM ${ARGS1}, pg_catalog.pg_class __tsdb_y JOIN pg_catalog.pg_namespace __tsdb_z ON __tsdb_z.oid = __tsdb_y.relnamespace JOIN pg_catalog.pg_indexes __tsdb_x ON __tsdb_x.indexname = __tsdb_y.relname AND __tsdb_x.schemaname = __tsdb_z.nspname WHERE __tsdb_y.oid = __tsdb_args.a1)`;
const CONSTRAINT_DEF = `(SELECT 'PRIMARY KEY ' || regexp_extract(__tsdb_x.indexdef, ' USING btree (\\(.*\\))$', 1) FROM ${ARGS1}, pg_catalog.pg_constraint __tsdb_w JOIN pg_catalog.pg_class __tsdb_y ON __tsdb_y.oid = __tsdb_w.conindid JOIN pg_catalog.pg_namespace __tsdb_z ON __tsdb_z.oid = __tsdb_y.relnamespace JOIN pg_catalog.pg_indexes __tsdb_x ON __tsdb_x.indexname = __tsdb_y.relname AND __tsdb_x.schemaname = __tsdb_z.nspname WHERE __tsdb_w.oid = __tsdb_args.a1 AND __tsdb_w.contype = 'p')`;
/** The bytes of a user table's SSTs, by its OID. */
const RELATION_SIZE = `COALESCE((SELECT CAST(sum(__tsdb_t.data_length) AS BIGINT) FROM ${ARGS1}, information_schema.tables __tsdb_t WHERE __tsdb_t.table_type = 'BASE TABLE' AND __tsdb_t.table_id + ${FIRST_NORMAL_OID} = __tsdb_args.a1), 0)`;
const DATABASE_SIZE = `COALESCE((SELECT CAST(sum(__tsdb_t.data_length) AS BIGINT) FROM ${ARGS1}, information_schema.tables __tsdb_t JOIN pg_catalog.pg_database __tsdb_d ON __tsdb_d.datname = __tsdb_t.table_schema WHERE __tsdb_t.table_type = 'BASE TABLE' AND (__tsdb_d.datname = CAST(__tsdb_args.a1 AS VARCHAR) OR CAST(__tsdb_d.oid AS VARCHAR) = CAST(__tsdb_args.a1 AS VARCHAR))), 0)`;
const SIZE_PRETTY = `CASE WHEN abs($1) < 10240 THEN CAST($1 AS VARCHAR) || ' bytes' WHEN abs($1) < 10485760 THEN CAST(round($1 / 1024.0) AS BIGINT) || ' kB' WHEN abs($1) < 10737418240 THEN CAST(round($1 / 1048576.0) AS BIGINT) || ' MB' WHEN abs($1) < 10995116277760 THEN CAST(round($1 / 1073741824.0) AS BIGINT) || ' GB' ELSE CAST(round($1 / 1099511627776.0) AS BIGINT) || ' TB' END`;

/** The value of setting $1 in pg_settings (NULL when it has none). */
const SETTING = `(SELECT __tsdb_s.setting FROM ${ARGS1}, pg_catalog.pg_settings __tsdb_s WHERE lower(__tsdb_s.name) = lower(__tsdb_args.a1))`;

/**
 * The SQL of a catalog function called with `argc` arguments (`$1`…), or undefined to leave the
 * call to DuckDB (`has_table_privilege`, `pg_type_is_visible`, … are DuckDB's: always true).
 */
function functionSql(name: string, argc: number, s: PgSession): string | undefined {
  const db = quoteLiteral(s.database);
  const visible = `${PG_CATALOG_NAMESPACE_OID}, ${namespaceOid(s.database)}`;
  switch (`${name}/${argc}`) {
    case 'current_schema/0':
    case 'current_database/0':
      return db;
    case 'current_schemas/1':
      return `CASE WHEN $1 THEN [${quoteLiteral(PG_CATALOG)}, ${db}] ELSE [${db}] END`;
    case 'version/0':
      return quoteLiteral(s.version);
    case 'pg_get_userbyid/1':
      return `CASE WHEN $1 = ${SUPERUSER_OID} THEN ${quoteLiteral(s.user)} ELSE 'unknown (OID=' || CAST($1 AS VARCHAR) || ')' END`;
    case 'pg_table_is_visible/1':
      return `(CAST($1 AS BIGINT) IN (SELECT __tsdb_c.oid FROM pg_catalog.pg_class __tsdb_c WHERE __tsdb_c.relnamespace IN (${visible})))`;
    case 'to_regclass/1':
      return `(SELECT __tsdb_c.oid FROM ${ARGS1}, pg_catalog.pg_class __tsdb_c WHERE __tsdb_c.relname = __tsdb_args.a1 AND __tsdb_c.relnamespace IN (${visible}) ORDER BY __tsdb_c.relnamespace LIMIT 1)`;
    case 'format_type/2':
      return FORMAT_TYPE;
    case 'pg_get_expr/2':
    case 'pg_get_expr/3':
      return '$1';
    case 'obj_description/1':
      return `(SELECT __tsdb_d.description FROM ${ARGS1}, pg_catalog.pg_description __tsdb_d WHERE __tsdb_d.objoid = __tsdb_args.a1 AND __tsdb_d.objsubid = 0 LIMIT 1)`;
    case 'obj_description/2':
      return `(SELECT __tsdb_d.description FROM ${ARGS2}, pg_catalog.pg_description __tsdb_d WHERE __tsdb_d.objoid = __tsdb_args.a1 AND __tsdb_d.objsubid = 0 AND __tsdb_d.classoid = CASE __tsdb_args.a2 WHEN 'pg_class' THEN ${PG_CLASS_OID} ELSE -1 END LIMIT 1)`;
    case 'col_description/2':
      return `(SELECT __tsdb_d.description FROM ${ARGS2}, pg_catalog.pg_description __tsdb_d WHERE __tsdb_d.objoid = __tsdb_args.a1 AND __tsdb_d.classoid = ${PG_CLASS_OID} AND __tsdb_d.objsubid = __tsdb_args.a2 LIMIT 1)`;
    case 'shobj_description/2':
      return NULL_TEXT;
    case 'getdatabaseencoding/0':
      return "'UTF8'";
    case 'pg_char_to_encoding/1':
      return `CASE upper($1) WHEN 'UTF8' THEN ${UTF8_ENCODING} WHEN 'SQL_ASCII' THEN 0 ELSE -1 END`;
    case 'pg_encoding_to_char/1':
      return `CASE $1 WHEN ${UTF8_ENCODING} THEN 'UTF8' WHEN 0 THEN 'SQL_ASCII' ELSE '' END`;
    case 'pg_get_indexdef/1':
      return INDEX_DEF;
    case 'pg_get_indexdef/3':
      // Column $2 of the index (0: the whole definition).
      return `CASE WHEN $2 = 0 THEN ${INDEX_DEF} ELSE (SELECT __tsdb_a.attname FROM ${ARGS2}, pg_catalog.pg_attribute __tsdb_a WHERE __tsdb_a.attrelid = __tsdb_args.a1 AND __tsdb_a.attnum = __tsdb_args.a2) END`;
    case 'pg_get_constraintdef/1':
    case 'pg_get_constraintdef/2':
      return CONSTRAINT_DEF;
    case 'pg_relation_size/1':
    case 'pg_relation_size/2':
    case 'pg_table_size/1':
    case 'pg_total_relation_size/1':
      return RELATION_SIZE;
    case 'pg_indexes_size/1':
      return 'CAST(0 AS BIGINT)';
    case 'pg_database_size/1':
      return DATABASE_SIZE;
    case 'pg_size_pretty/1':
      return SIZE_PRETTY;
    case 'quote_ident/1':
      return `CASE WHEN regexp_full_match($1, '[a-z_][a-z0-9_$]*') THEN $1 ELSE '"' || replace($1, '"', '""') || '"' END`;
    case 'array_upper/2':
      return 'CASE WHEN $2 = 1 AND len($1) > 0 THEN len($1) END';
    case 'array_lower/2':
      return 'CASE WHEN $2 = 1 AND len($1) > 0 THEN 1 END';
    // PostgreSQL's settings as pg_settings shows them (never the query engine's); an unknown name is
    // an error unless the second argument (missing_ok) is true.
    case 'current_setting/1':
      return `COALESCE(${SETTING}, error('unrecognized configuration parameter "' || CAST($1 AS VARCHAR) || '"'))`;
    case 'current_setting/2':
      return `CASE WHEN $2 THEN ${SETTING} ELSE COALESCE(${SETTING}, error('unrecognized configuration parameter "' || CAST($1 AS VARCHAR) || '"')) END`;
    case 'pg_get_viewdef/1':
    case 'pg_get_viewdef/2':
    case 'pg_get_triggerdef/1':
    case 'pg_get_triggerdef/2':
    case 'pg_get_functiondef/1':
    case 'pg_get_function_arguments/1':
    case 'pg_get_function_identity_arguments/1':
    case 'pg_get_function_result/1':
    case 'pg_get_partkeydef/1':
    case 'pg_get_statisticsobjdef_columns/1':
      // Of objects tsdb has none of (views, triggers, functions, partitioned tables, statistics).
      return NULL_TEXT;
    case 'pg_relation_is_publishable/1':
    case 'pg_is_in_recovery/0':
      return 'false';
    case 'pg_tablespace_location/1':
      return "''";
    // PostgreSQL's regular expression operators match anywhere (DuckDB's `~` matches the whole string).
    case 'regexp_full_match/2':
      return 'regexp_matches($1, $2)';
    case '~*/2':
      return "regexp_matches($1, $2, 'i')";
    case '!~*/2':
      return "NOT regexp_matches($1, $2, 'i')";
  }
  return undefined;
}

/** Parsed templates by text (session values are inlined: a few per database and user). */
const templateCache = new Map<string, Json>();
const TEMPLATE_CACHE_SIZE = 512;

async function template(sql: string, s: PgSession): Promise<Json> {
  let t = templateCache.get(sql);
  if (t === undefined) {
    t = await s.parseExpression(sql);
    if (templateCache.size >= TEMPLATE_CACHE_SIZE) templateCache.clear();
    templateCache.set(sql, t);
  }
  return structuredClone(t);
}

/** The template with its `$n` parameters replaced by the call's arguments. */
function substitute(node: Json, args: readonly Json[]): Json {
  if (Array.isArray(node)) return node.map((x) => substitute(x, args));
  if (!isObject(node)) return node;
  if (node['class'] === 'PARAMETER' && typeof node['identifier'] === 'string') {
    const arg = args[Number(node['identifier']) - 1];
    if (arg !== undefined) {
      const out = structuredClone(arg);
      // `$1 AS a1`: the template's alias wins.
      if (isObject(out) && typeof node['alias'] === 'string' && node['alias'] !== '') out['alias'] = node['alias'];
      return out;
    }
  }
  for (const [k, v] of Object.entries(node)) node[k] = substitute(v, args);
  return node;
}

// ---------------------------------------------------------------------------------------------
// Tree

function constant(type: 'VARCHAR' | 'INTEGER', value: string | number, alias = ''): JsonObject {
  return { class: 'CONSTANT', type: 'VALUE_CONSTANT', alias, query_location: 0, value: { type: { id: type, type_info: null }, is_null: false, value } };
}

function cast(child: Json, id: 'VARCHAR' | 'INTEGER' | 'BIGINT', alias = ''): JsonObject {
  return { class: 'CAST', type: 'OPERATOR_CAST', alias, query_location: 0, child, cast_type: { id, type_info: null }, try_cast: false };
}

function stringConstant(n: Json): string | undefined {
  if (!isObject(n) || n['class'] !== 'CONSTANT') return undefined;
  const v = n['value'];
  if (!isObject(v) || v['is_null'] === true || typeof v['value'] !== 'string') return undefined;
  return v['value'];
}

/** Types PostgreSQL has and DuckDB lacks, as what the rewrite makes of a cast to them. */
const PG_ONLY_TYPES = new Set(['regclass', 'regtype', 'regnamespace', 'regrole', 'regproc', 'regprocedure', 'oid', 'name', 'pg_node_tree', 'xid', 'xid8', 'cid', 'aclitem']);

const USER_COLUMNS = new Set(['current_user', 'session_user', 'current_role']);

/**
 * Rewrites a serialized parse tree of a PostgreSQL session's query in place (see the module
 * comment); `sql` is the text it was parsed from. Returns whether anything changed.
 */
export async function rewritePgTree(tree: unknown, sql: string, s: PgSession): Promise<boolean> {
  let changed = false;
  // Unqualified pg_catalog tables (CTEs excluded: tableRefs skips them).
  for (const ref of tableRefs(tree)) {
    if (ref.catalog_name === '' && ref.schema_name === '' && isPgCatalogTable(ref.table_name)) {
      ref.schema_name = PG_CATALOG;
      changed = true;
    }
  }

  const expand = async (node: JsonObject, name: string, args: readonly Json[], selectItem: boolean): Promise<Json | undefined> => {
    const text = functionSql(name, args.length, s);
    if (text === undefined) return undefined;
    const out = substitute(await template(text, s), args);
    if (isObject(out)) {
      const alias = typeof node['alias'] === 'string' && node['alias'] !== '' ? node['alias'] : selectItem && /^[a-z_]+$/.test(name) ? name : '';
      out['alias'] = alias;
    }
    return out;
  };

  const visit = async (n: Json, selectItem: boolean): Promise<Json> => {
    if (Array.isArray(n)) {
      for (let i = 0; i < n.length; i++) n[i] = await visit(n[i]!, selectItem);
      return n;
    }
    if (!isObject(n)) return n;
    for (const [k, v] of Object.entries(n)) n[k] = await visit(v, k === 'select_list');

    // FROM generate_series(…) s: PostgreSQL names the column s too.
    if (n['type'] === 'TABLE_FUNCTION' && isObject(n['function'])) {
      const f = n['function'];
      if (f['schema'] === PG_CATALOG) {
        f['schema'] = '';
        changed = true;
      }
      const fname = typeof f['function_name'] === 'string' ? f['function_name'].toLowerCase() : '';
      if ((fname === 'generate_series' || fname === 'unnest') && typeof n['alias'] === 'string' && n['alias'] !== '' && Array.isArray(n['column_name_alias']) && n['column_name_alias'].length === 0) {
        n['column_name_alias'] = [n['alias']];
        changed = true;
      }
      return n;
    }

    if (n['class'] === 'FUNCTION' && typeof n['function_name'] === 'string' && Array.isArray(n['children'])) {
      if (n['schema'] === PG_CATALOG) {
        n['schema'] = '';
        changed = true;
      }
      if (n['schema'] !== '') return n;
      const name = n['function_name'].toLowerCase();
      // `a SIMILAR TO b` is regexp_full_match too: only the `~` operator (at its location) matches anywhere.
      if (name === 'regexp_full_match' && !isRegexOperator(sql, n['query_location'])) return n;
      const out = await expand(n, name, n['children'], selectItem);
      if (out === undefined) return n;
      changed = true;
      return out;
    }

    // a !~ b: NOT regexp_full_match(a, b), located at `!~`.
    if (n['class'] === 'OPERATOR' && n['type'] === 'OPERATOR_NOT' && Array.isArray(n['children']) && n['children'].length === 1 && sql.startsWith('!~', locationOf(n['query_location']))) {
      const f = n['children'][0];
      if (isObject(f) && f['class'] === 'FUNCTION' && f['function_name'] === 'regexp_full_match' && Array.isArray(f['children'])) {
        const out = await expand(f, 'regexp_full_match', f['children'], false);
        if (out !== undefined) {
          n['children'] = [out];
          changed = true;
        }
      }
      return n;
    }

    if (n['class'] === 'CAST' && isObject(n['cast_type'])) {
      const out = await rewriteCast(n, selectItem);
      if (out !== n) changed = true;
      return out;
    }

    if (n['class'] === 'COLUMN_REF' && Array.isArray(n['column_names']) && n['column_names'].length === 1) {
      const col = String(n['column_names'][0]).toLowerCase();
      const alias = typeof n['alias'] === 'string' && n['alias'] !== '' ? n['alias'] : selectItem ? col : '';
      if (USER_COLUMNS.has(col)) {
        changed = true;
        return constant('VARCHAR', s.user, alias);
      }
      if (col === 'current_catalog') {
        changed = true;
        return constant('VARCHAR', s.database, alias);
      }
      return n;
    }

    // x = ANY(list): DuckDB reads it as a subquery unnesting the list, which fails when correlated.
    if (n['class'] === 'SUBQUERY' && n['subquery_type'] === 'ANY' && n['comparison_type'] === 'COMPARE_EQUAL' && isObject(n['subquery'])) {
      const list = unnestedList(n['subquery']);
      if (list !== undefined) {
        changed = true;
        return { class: 'FUNCTION', type: 'FUNCTION', alias: n['alias'] ?? '', query_location: 0, function_name: 'list_contains', schema: '', children: [list, n['child'] ?? null], filter: null, order_bys: { type: 'ORDER_MODIFIER', orders: [] }, distinct: false, is_operator: false, export_state: false, catalog: '' };
      }
    }
    return n;
  };

  const rewriteCast = async (n: JsonObject, selectItem: boolean): Promise<Json> => {
    const ct = n['cast_type'] as JsonObject;
    const info = ct['type_info'];
    if (ct['id'] !== 'UNBOUND' || !isObject(info) || typeof info['name'] !== 'string') return n;
    if (info['schema'] === PG_CATALOG) info['schema'] = '';
    const type = info['name'].toLowerCase();
    if (!PG_ONLY_TYPES.has(type) || info['schema'] !== '') return n;
    const alias = typeof n['alias'] === 'string' ? n['alias'] : '';
    const text = stringConstant(n['child'] ?? null);
    switch (type) {
      case 'regclass': {
        if (text === undefined) return cast(n['child'] ?? null, 'BIGINT', alias);
        const oid = await s.relationOid(text);
        if (oid === undefined) throw new TsdbError(StatusCode.TableNotFound, `relation "${text}" does not exist`);
        return constant('INTEGER', oid, alias);
      }
      case 'regtype': {
        if (text === undefined) {
          const out = substitute(await template(FORMAT_TYPE, s), [n['child'] ?? null, constant('INTEGER', -1)]);
          if (isObject(out)) out['alias'] = alias !== '' ? alias : selectItem ? 'regtype' : '';
          return out;
        }
        const oid = typeOid(text);
        if (oid === undefined) throw new TsdbError(StatusCode.InvalidArguments, `type "${text}" does not exist`);
        return constant('INTEGER', oid, alias);
      }
      case 'regnamespace':
        return text === undefined ? cast(n['child'] ?? null, 'BIGINT', alias) : constant('INTEGER', namespaceOid(text), alias);
      case 'regrole':
        return text === undefined ? cast(n['child'] ?? null, 'BIGINT', alias) : constant('INTEGER', SUPERUSER_OID, alias);
      case 'oid':
      case 'xid':
      case 'xid8':
      case 'cid':
        return cast(n['child'] ?? null, 'BIGINT', alias);
      default:
        return cast(n['child'] ?? null, 'VARCHAR', alias);
    }
  };

  await visit(tree as Json, false);
  return changed;
}

function locationOf(loc: Json | undefined): number {
  return typeof loc === 'number' ? loc : -1;
}

/** Whether the text at `loc` is PostgreSQL's `~` operator (not `~~`, which DuckDB reads as LIKE). */
function isRegexOperator(sql: string, loc: Json | undefined): boolean {
  const i = locationOf(loc);
  return i >= 0 && sql[i] === '~' && sql[i + 1] !== '~';
}

/** `SELECT unnest(list)` (DuckDB's reading of `ANY(list)`): the list. */
function unnestedList(q: JsonObject): Json | undefined {
  const node = q['node'];
  if (!isObject(node) || node['type'] !== 'SELECT_NODE') return undefined;
  const from = node['from_table'];
  const items = node['select_list'];
  if (!isObject(from) || from['type'] !== 'EMPTY' || !Array.isArray(items) || items.length !== 1) return undefined;
  const f = items[0];
  if (!isObject(f) || f['class'] !== 'FUNCTION' || f['function_name'] !== 'unnest' || !Array.isArray(f['children']) || f['children'].length !== 1) return undefined;
  if (node['where_clause'] !== null || (Array.isArray(node['modifiers']) && node['modifiers'].length > 0)) return undefined;
  return f['children'][0];
}

/** The PostgreSQL dialect of a session, for `QueryContext.dialect`. */
export function pgDialect(session: Omit<PgSession, 'parseExpression'>): QueryDialect {
  return {
    text: bridgePgQueryText,
    rewrite: (tree, sql, parse) => rewritePgTree(tree, sql, { ...session, parseExpression: async (e) => (await parse(e)) as Json }),
  };
}
