/**
 * Result column names as GreptimeDB gives them: DataFusion's display names of unaliased select
 * items (`Int64(1)`, `t.a + Int64(1)`, `avg(cpu.usage)`, `count(*)`, `ifnull(NULL,Utf8("x"))`),
 * where DuckDB names them by its own SQL text (`1`, `(a + 1)`, `avg(usage)`, `count_star()`).
 * Clients, dashboards and scripts written for GreptimeDB read results back by those names.
 *
 * The names are worked out once per query from DuckDB's parse tree as the user wrote it (before
 * tsdb's rewrites), with the columns of the tables it reads, and put on the result's columns by
 * position after DuckDB has run it: no alias goes into the SQL, so the query text and DuckDB's
 * plan stay as they were (no extra round trip, and no name DuckDB could find clashing). An item
 * whose name this cannot work out for certain keeps DuckDB's.
 *
 * The rules (DataFusion's `SchemaDisplay`, checked against GreptimeDB's sqlness results):
 * literals `Int64(1)`, `Float64(1.5)`, `Utf8("x")`, `Boolean(true)`, `NULL`; columns in an
 * expression qualified by the relation they come from as the query names it (alias, or the table
 * as written: `information_schema.flows.created_time`); binary operators `l op r` with no
 * parentheses; functions `name(a,b)` (no space), `count(*)`, `count(DISTINCT t.a)`; a cast shows
 * what it casts, except a cast to a timestamp type, which GreptimeDB plans as
 * `arrow_cast(x,Utf8("Timestamp(ms)"))`; unary minus `(- x)`; `x IS NULL`, `x BETWEEN a AND b`,
 * `x IN a, b`, `CASE WHEN … THEN … ELSE … END`; window functions with their PARTITION BY, ORDER BY
 * and frame. A plain column keeps its own name; an alias is kept. A set operation is named by its
 * first query.
 *
 * DataFusion refuses a projection two of whose items have one name (`SELECT 1, 1`, `SELECT a, a`):
 * so does tsdb, with its message (PlanQuery), for the query's own select list.
 *
 * A `*` over a join `USING (k)` or a NATURAL join is DataFusion's too, in its columns as well as
 * their names: where DuckDB gives one merged `k` (first, or where the left side has it), DataFusion
 * keeps every column of every relation in FROM order but, of each join's `k` columns, only the one
 * whose qualified name sorts first (`exclude_using_columns`: `b.k` of `a JOIN b USING (k)`, with
 * `b.k`'s own values). Such a star is written out in the tree as those qualified columns, so that
 * DuckDB gives DataFusion's columns; where a relation's columns are unknown it is left as it is.
 */
import { StatusCode } from '../common/error/status-code.js';
import { TsdbError } from '../common/error/tsdb-error.js';
import { makeData, RecordBatch, Schema, Struct } from 'apache-arrow';
import type { Output, OutputColumn } from './output.js';
import { integerOf } from './sql-json.js';
import { decimalConstantText } from './float-literals.js';
import { DIVISION_FUNCTIONS } from './division.js';
import { withinGroupMacro } from '../sql/query-text.js';
import { castNode, isNode, type Json, type Node } from './sql-tree.js';
import { VARIABLE_FUNCTION } from './session-functions.js';
import { markedParameter, PARAMETER_MARK_PREFIX } from '../sql/parameter-marks.js';

/** A column as DataFusion knows it: its name and the relation that qualifies it, if any. */
interface Field {
  readonly name: string;
  readonly qualifier: string | undefined;
}

/** A relation of a FROM clause: what qualifies its columns and, when known, its columns. */
interface Relation {
  readonly qualifier: string | undefined;
  readonly fields: readonly Field[] | undefined;
}

/** The relations a SELECT's expressions see (its FROM, then the outer queries'), and the CTEs in reach. */
interface Scope {
  readonly relations: readonly Relation[];
  readonly outer: Scope | undefined;
  readonly ctes: ReadonlyMap<string, readonly Field[] | undefined>;
}

/** An item of a select list: one column, or a star's many (unknown: undefined). */
type Segment =
  | { readonly kind: 'one'; readonly item: Node; readonly column: boolean; readonly field: Field | undefined; readonly display: string | undefined; readonly name: string | undefined }
  | { readonly kind: 'many'; readonly fields: readonly Field[] | undefined };

/** The names of a query's result columns, worked out from its parse tree (`resultNames`). */
export interface ResultNames {
  /** The root select items this names (their DuckDB names are not needed). */
  readonly named: ReadonlySet<Node>;
  /** `columns` with the names GreptimeDB gives them (as they were when the count does not match the query's). */
  rename(columns: readonly OutputColumn[]): readonly OutputColumn[];
  /** A query's output with its columns (and Arrow fields) so named. */
  output(out: Output): Output;
}

/** What the naming needs besides the tree: the text DuckDB parsed and the columns of base tables. */
export interface NamingContext {
  /** The text the tree was parsed from (its `query_location`s are byte offsets into it). */
  readonly sql: string;
  /** A base table reference's columns (the tree's own `BASE_TABLE` node), when known. */
  columnsOf(ref: Node): readonly string[] | undefined;
  /** Whether a column reference stands for something else (a folded literal list's marker): not named. */
  opaque?(ref: Node): boolean;
}

const NO_SCOPE: Scope = { relations: [], outer: undefined, ctes: new Map() };

/**
 * The result names of the one statement in `tree` (DuckDB's serialized parse tree, before tsdb's
 * rewrites); undefined when it is not a query. Throws PlanQuery where DataFusion refuses the
 * select list for two items of one name.
 */
export function resultNames(tree: unknown, ctx: NamingContext): ResultNames | undefined {
  const statements = (tree as Node)['statements'];
  if (!Array.isArray(statements) || statements.length !== 1 || !isNode(statements[0])) return undefined;
  const root = statements[0]['node'];
  if (!isNode(root)) return undefined;
  const namer = new Namer(ctx);
  const segments = namer.queryOutputs(root, NO_SCOPE, true);
  // Stars over USING and NATURAL joins written out as DataFusion expands them (the module's doc).
  namer.expandUsingStars();
  if (segments === undefined) return undefined;
  const named = new Set<Node>();
  for (const s of segments) if (s.kind === 'one' && s.name !== undefined) named.add(s.item);
  const rename = (columns: readonly OutputColumn[]) => renameColumns(columns, segments);
  return { named, rename, output: (out) => renameOutput(out, rename) };
}

function renameOutput(out: Output, rename: (columns: readonly OutputColumn[]) => readonly OutputColumn[]): Output {
  if (out.kind !== 'records') return out;
  const columns = rename(out.columns);
  if (columns === out.columns) return out;
  if (out.arrow === undefined) return { ...out, columns };
  const fields = out.arrow.schema.fields.map((f, i) => (columns[i] !== undefined && columns[i].name !== f.name ? f.clone({ name: columns[i].name }) : f));
  const schema = new Schema(fields, out.arrow.schema.metadata);
  const batches = out.arrow.batches.map((b) => new RecordBatch(schema, makeData({ type: new Struct(schema.fields), length: b.numRows, nullCount: 0, children: b.data.children })));
  return { ...out, columns, arrow: { schema, batches } };
}

/**
 * Integer literals of the root select list typed as DataFusion types them (Int64, where DuckDB's are
 * INTEGER): each integer constant of an item made of integer constants alone (`1`, `-1`,
 * `2147483647 + 1`, `7 % 3`), or of such arithmetic cast to a type, becomes a BIGINT cast of
 * itself, so that its type, and its arithmetic's overflow, are Int64's. Items that read columns are left as they are (DuckDB would refuse some
 * BIGINT operands, `DATE + BIGINT`). Only items in `named` (their names do not come from DuckDB)
 * and aliased ones.
 */
export function widenIntegerLiterals(tree: unknown, named: ReadonlySet<Node>): void {
  const statements = (tree as Node)['statements'];
  if (!Array.isArray(statements) || !isNode(statements[0])) return;
  let node = statements[0]['node'];
  while (isNode(node) && node['type'] === 'SET_OPERATION_NODE') node = node['left'];
  if (!isNode(node) || node['type'] !== 'SELECT_NODE' || !Array.isArray(node['select_list'])) return;
  const list = node['select_list'];
  list.forEach((item, i) => {
    const aliased = isNode(item) && typeof item['alias'] === 'string' && item['alias'] !== '';
    if (!isNode(item) || (!named.has(item) && !aliased)) return;
    if (integerConstantsOnly(item)) list[i] = widened(item);
    // A cast of such arithmetic (an INSERT's VALUES expression cast to its column's type) computes it in Int64 too.
    else if (item['class'] === 'CAST' && isNode(item['child']) && item['child']['class'] === 'FUNCTION' && integerConstantsOnly(item['child'])) item['child'] = widened(item['child']);
  });
}

const INTEGER_TYPES = new Set(['TINYINT', 'SMALLINT', 'INTEGER']);
const INTEGER_ARITHMETIC = new Set(['+', '-', '*', '%']);

/** The macros of the ordered-set forms (`sql/query-text.ts`): the function as written, its arguments besides x, the order. */
const WITHIN_GROUP: ReadonlyMap<string, { fn: string; args: number; desc: boolean }> = new Map(
  (['approx_percentile_cont', 'approx_percentile_cont_with_weight'] as const).flatMap((fn) =>
    [false, true].map((desc) => [withinGroupMacro(fn, desc), { fn, args: fn === 'approx_percentile_cont' ? 1 : 2, desc }] as const),
  ),
);
const DIVISION_MACROS: ReadonlySet<string> = new Set(DIVISION_FUNCTIONS);

function integerConstantsOnly(n: Node): boolean {
  if (n['class'] === 'CONSTANT') return INTEGER_TYPES.has(String(((n['value'] as Node)['type'] as Node)['id'])) && (n['value'] as Node)['is_null'] !== true;
  if (n['class'] !== 'FUNCTION') return false;
  // Division and remainder are macros by now (`division.ts`).
  if (n['is_operator'] !== true ? !DIVISION_MACROS.has(String(n['function_name'])) : !INTEGER_ARITHMETIC.has(String(n['function_name']))) return false;
  const children = n['children'];
  return Array.isArray(children) && children.length > 0 && children.every((c) => isNode(c) && integerConstantsOnly(c));
}

function widened(n: Node): Node {
  if (n['class'] === 'CONSTANT') return { ...castNode({ ...n, alias: '' }, 'BIGINT'), alias: n['alias'] ?? '', query_location: n['query_location'] ?? 0 };
  return { ...n, children: (n['children'] as Node[]).map(widened) };
}

function renameColumns(columns: readonly OutputColumn[], segments: readonly Segment[]): readonly OutputColumn[] {
  // Where each segment's columns are: a star of unknown width takes what the others leave.
  let known = 0;
  let unknown = 0;
  for (const s of segments) {
    if (s.kind === 'one') known++;
    else if (s.fields !== undefined) known += s.fields.length;
    else unknown++;
  }
  if (unknown > 1 || (unknown === 0 && known !== columns.length) || known > columns.length) return columns;
  let out: OutputColumn[] | undefined;
  let at = 0;
  const rename = (name: string | undefined) => {
    if (name !== undefined && name !== columns[at]!.name) {
      out ??= columns.slice();
      out[at] = { ...columns[at]!, name };
    }
    at++;
  };
  for (const s of segments) {
    if (s.kind === 'one') rename(s.name);
    else if (s.fields === undefined) at += columns.length - known;
    // A star over a subquery or CTE: its columns by the names the inner items have.
    else for (const f of s.fields) rename(f.name);
  }
  return out ?? columns;
}

/** Keys of the root SELECT's items, for DataFusion's unique-name check: qualifier and name. */
function checkUnique(segments: readonly Segment[]): void {
  const seen = new Map<string, { position: number; shown: string }>();
  let position = 0;
  const add = (key: string, shown: string) => {
    const first = seen.get(key);
    if (first !== undefined) {
      throw new TsdbError(
        StatusCode.PlanQuery,
        `Failed to plan SQL: Error during planning: Projections require unique expression names but the expression "${first.shown}" at position ${first.position} and "${shown}" at position ${position} have the same name. Consider aliasing ("AS") one of them.`,
      );
    }
    seen.set(key, { position, shown });
  };
  for (const s of segments) {
    if (s.kind === 'many') {
      if (s.fields === undefined) return;
      for (const f of s.fields) {
        add(`${f.qualifier ?? ''}\u0000${f.name}`, qualified(f));
        position++;
      }
      continue;
    }
    const alias = s.item['alias'];
    if (typeof alias === 'string' && alias !== '') {
      if (s.display === undefined) return;
      add(`\u0000${alias}`, `${s.display} AS ${alias}`);
    } else if (s.column) {
      if (s.field === undefined) return;
      add(`${s.field.qualifier ?? ''}\u0000${s.field.name}`, qualified(s.field));
    } else {
      if (s.display === undefined) return;
      add(`\u0000${s.display}`, s.display);
    }
    position++;
  }
}

function qualified(f: Field): string {
  return f.qualifier !== undefined ? `${f.qualifier}.${f.name}` : f.name;
}

const COMPARISONS: Readonly<Record<string, string>> = {
  COMPARE_EQUAL: '=',
  COMPARE_NOTEQUAL: '!=',
  COMPARE_LESSTHAN: '<',
  COMPARE_GREATERTHAN: '>',
  COMPARE_LESSTHANOREQUALTO: '<=',
  COMPARE_GREATERTHANOREQUALTO: '>=',
  COMPARE_DISTINCT_FROM: 'IS DISTINCT FROM',
  COMPARE_NOT_DISTINCT_FROM: 'IS NOT DISTINCT FROM',
};

/** DuckDB's binary operators (function names) as DataFusion shows them. */
const OPERATORS: Readonly<Record<string, string>> = {
  '+': '+',
  '-': '-',
  '*': '*',
  '/': '/',
  '%': '%',
  '||': '||',
  '&': '&',
  '|': '|',
  '<<': '<<',
  '>>': '>>',
  '^': 'BIT_XOR',
  '~~': 'LIKE',
  '!~~': 'NOT LIKE',
  '~~*': 'ILIKE',
  '!~~*': 'NOT ILIKE',
  '~*': '~*',
  '!~*': '!~*',
};

/** Functions DataFusion plans under another name than DuckDB's parse keeps (special syntax: TRIM, SUBSTRING …). */
const FUNCTION_NAMES: Readonly<Record<string, string>> = {
  trim: 'btrim',
  substring: 'substr',
  position: 'strpos',
  count_star: 'count',
  list_value: 'make_array',
  unnest: 'UNNEST',
  // DataFusion shows an aggregate by its canonical name, not the alias written.
  covar: 'covar_samp',
  var: 'var_samp',
  var_sample: 'var_samp',
  var_population: 'var_pop',
};

/** GreptimeDB's type aliases (`type_alias.rs`) as the Arrow type its `arrow_cast` of them names. */
const TYPE_ALIASES: Readonly<Record<string, string>> = {
  INT2: 'Int16',
  INT16: 'Int16',
  INT4: 'Int32',
  INT32: 'Int32',
  INT8: 'Int64',
  INT64: 'Int64',
  UINT8: 'UInt8',
  UINT16: 'UInt16',
  UINT32: 'UInt32',
  UINT64: 'UInt64',
  FLOAT4: 'Float32',
  FLOAT32: 'Float32',
  FLOAT8: 'Float64',
  FLOAT64: 'Float64',
  BOOL: 'Boolean',
  TINYTEXT: 'Utf8',
  MEDIUMTEXT: 'Utf8',
  LONGTEXT: 'Utf8',
  DATETIME: 'Timestamp(µs)',
  TIMESTAMP_S: 'Timestamp(s)',
  TIMESTAMP_SEC: 'Timestamp(s)',
  TIMESTAMPSECOND: 'Timestamp(s)',
  TIMESTAMP_MS: 'Timestamp(ms)',
  TIMESTAMPMILLISECOND: 'Timestamp(ms)',
  TIMESTAMP_US: 'Timestamp(µs)',
  TIMESTAMPMICROSECOND: 'Timestamp(µs)',
  TIMESTAMP_NS: 'Timestamp(ns)',
  TIMESTAMPNANOSECOND: 'Timestamp(ns)',
};

const TIMESTAMP_PRECISIONS: Readonly<Record<string, string>> = { '0': 's', '3': 'ms', '6': 'µs', '9': 'ns' };

/**
 * The Arrow type GreptimeDB's `arrow_cast` names for the cast written at the start of `text`
 * (`::type` or `CAST(… AS type)`), or undefined for a cast it plans as a cast.
 */
function arrowCastTarget(text: string): string | undefined {
  let rest: string | undefined;
  if (text.startsWith('::')) rest = text.slice(2);
  else {
    const open = /^(try_)?cast\s*\(/i.exec(text);
    if (open === null) return undefined;
    // The AS at the call's own depth, past the cast expression's strings and parentheses.
    let depth = 0;
    for (let i = open[0].length; i < text.length; i++) {
      const c = text[i]!;
      if (c === "'" || c === '"') {
        const end = text.indexOf(c, i + 1);
        if (end < 0) return undefined;
        i = end;
      } else if (c === '(') depth++;
      else if (c === ')') depth--;
      else if (depth === 0 && /\sAS\s/iy.test(text.slice(i - 1, i + 3)) && /\s/.test(text[i - 1]!)) {
        rest = text.slice(i + 2);
        break;
      }
    }
  }
  const m = rest === undefined ? null : /^\s*([A-Za-z_][A-Za-z0-9_]*)(?:\s*\(\s*(\d+)\s*\))?/.exec(rest);
  if (m === null) return undefined;
  const name = m[1]!.toUpperCase();
  if (name === 'TIMESTAMP' || name === 'TIMESTAMPTZ') {
    const unit = m[2] === undefined ? 'ms' : TIMESTAMP_PRECISIONS[m[2]];
    return unit === undefined ? undefined : `Timestamp(${unit})`;
  }
  return m[2] === undefined ? TYPE_ALIASES[name] : undefined;
}

/** DuckDB's interval constructors (`INTERVAL 2 DAY`) and what one of their unit is. */
const INTERVAL_FUNCTIONS: Readonly<Record<string, { months?: number; days?: number; nanos?: bigint }>> = {
  to_years: { months: 12 },
  to_months: { months: 1 },
  to_days: { days: 1 },
  to_hours: { nanos: 3_600_000_000_000n },
  to_minutes: { nanos: 60_000_000_000n },
  to_seconds: { nanos: 1_000_000_000n },
  to_milliseconds: { nanos: 1_000_000n },
  to_microseconds: { nanos: 1_000n },
};

/**
 * DataFusion's order of qualified columns (`Column`'s derived `Ord`): unqualified first, then by the
 * qualifier's kind (`t` before `s.t` before `c.s.t`) and parts, then by name.
 */
function compareColumns(a: Field, b: Field): number {
  const cmp = (x: string, y: string) => (x < y ? -1 : x > y ? 1 : 0);
  const qa = a.qualifier?.split('.');
  const qb = b.qualifier?.split('.');
  if (qa === undefined || qb === undefined) return qa === qb ? cmp(a.name, b.name) : qa === undefined ? -1 : 1;
  if (qa.length !== qb.length) return qa.length - qb.length;
  for (let i = 0; i < qa.length; i++) {
    const c = cmp(qa[i]!, qb[i]!);
    if (c !== 0) return c;
  }
  return cmp(a.name, b.name);
}

/** The first field of `fields` named `name` (as written, else in any case). */
function fieldNamed(fields: readonly Field[], name: string): Field | undefined {
  return fields.find((f) => f.name === name) ?? fields.find((f) => f.name.toLowerCase() === name.toLowerCase());
}

class Namer {
  private bytes: Buffer | undefined;
  /** Columns of USING and NATURAL joins that an unqualified star leaves out (DataFusion's `exclude_using_columns`). */
  private readonly excluded = new Set<Field>();
  /** Stars to write out as columns: each in its select list, with its columns. */
  private readonly usingStars = new Map<Node, { readonly list: Json[]; readonly fields: readonly Field[] }>();

  constructor(private readonly ctx: NamingContext) {}

  /** The output columns of a query node (SELECT, set operation); `root` checks its names' uniqueness. */
  queryOutputs(node: Node, outer: Scope, root = false): Segment[] | undefined {
    const ctes = this.ctesOf(node, outer);
    const scope: Scope = { ...outer, ctes };
    if (node['type'] === 'SET_OPERATION_NODE') {
      const left = node['left'];
      const right = node['right'];
      if (!isNode(left)) return undefined;
      // Each side is a projection of its own (checked apart); the result is named by the first.
      if (root && isNode(right)) this.queryOutputs(right, scope, true);
      return this.queryOutputs(left, scope, root);
    }
    if (node['type'] !== 'SELECT_NODE' || !Array.isArray(node['select_list'])) return undefined;
    const relations = this.fromRelations(node['from_table'], scope);
    const inner: Scope = { relations, outer: outer.relations.length > 0 || outer.outer !== undefined ? outer : undefined, ctes };
    const segments: Segment[] = [];
    for (const item of node['select_list']) {
      if (!isNode(item)) return undefined;
      if (item['class'] === 'STAR') {
        const fields = this.starFields(item, relations);
        if (fields !== undefined && fields.length < relations.reduce((n, r) => n + (r.fields?.length ?? 0), 0) && this.expandable(item, relations)) {
          this.usingStars.set(item, { list: node['select_list'], fields });
        }
        segments.push({ kind: 'many', fields });
        continue;
      }
      const display = this.display(item, inner);
      const alias = item['alias'];
      // `+a` is the column itself to DataFusion.
      let core = item;
      while (core['class'] === 'FUNCTION' && core['is_operator'] === true && core['function_name'] === '+' && Array.isArray(core['children']) && core['children'].length === 1 && isNode(core['children'][0])) core = core['children'][0];
      const column = core['class'] === 'COLUMN_REF';
      let field: Field | undefined;
      const aliased = typeof alias === 'string' && alias !== '';
      // DataFusion folds an unquoted alias to lower case (`AS R00` names the column `r00`).
      const folded = aliased && alias !== alias.toLowerCase() && !this.quotedSomewhere(alias) ? alias.toLowerCase() : undefined;
      if (aliased) field = { name: folded ?? alias, qualifier: undefined };
      else if (column) field = this.resolve(core, inner);
      else if (display !== undefined) field = { name: display, qualifier: undefined };
      // The result column's name: an alias's is DuckDB's too (unless folded); a plain column's, its own.
      const name = folded ?? (field === undefined || aliased ? undefined : column ? field.name : display);
      segments.push({ kind: 'one', item, column, field, display, name });
    }
    if (root) checkUnique(segments);
    return segments;
  }

  /** The output fields of a query node as a relation's columns, when all are known. */
  private queryFields(node: Json | undefined, outer: Scope): Field[] | undefined {
    if (!isNode(node)) return undefined;
    const segments = this.queryOutputs(node, outer);
    if (segments === undefined) return undefined;
    const fields: Field[] = [];
    for (const s of segments) {
      if (s.kind === 'many') {
        if (s.fields === undefined) return undefined;
        fields.push(...s.fields);
      } else {
        if (s.field === undefined) return undefined;
        fields.push(s.field);
      }
    }
    return fields;
  }

  /** The CTEs a query node defines, over those of the outer queries. */
  private ctesOf(node: Node, outer: Scope): ReadonlyMap<string, readonly Field[] | undefined> {
    const map = isNode(node['cte_map']) ? node['cte_map']['map'] : undefined;
    if (!Array.isArray(map) || map.length === 0) return outer.ctes;
    const ctes = new Map(outer.ctes);
    for (const entry of map) {
      if (!isNode(entry) || typeof entry['key'] !== 'string' || !isNode(entry['value'])) continue;
      const cte = entry['value'];
      const query = isNode(cte['query']) ? cte['query']['node'] : undefined;
      let fields = this.queryFields(query, { relations: [], outer: undefined, ctes });
      const aliases = cte['aliases'];
      if (fields !== undefined && Array.isArray(aliases) && aliases.length > 0) fields = fields.map((f, i) => ({ name: typeof aliases[i] === 'string' ? aliases[i] : f.name, qualifier: f.qualifier }));
      ctes.set(entry['key'].toLowerCase(), fields);
    }
    return ctes;
  }

  /** The relations a FROM clause brings into scope. */
  private fromRelations(from: Json | undefined, scope: Scope): Relation[] {
    if (!isNode(from)) return [];
    const alias = typeof from['alias'] === 'string' && from['alias'] !== '' ? from['alias'] : undefined;
    switch (from['type']) {
      case 'EMPTY':
        return [];
      case 'BASE_TABLE': {
        const table = String(from['table_name']);
        let written = [from['catalog_name'], from['schema_name'], table].filter((p): p is string => typeof p === 'string' && p !== '').join('.');
        if (alias === undefined && this.unquoted(from)) written = written.toLowerCase();
        const qualifier = alias ?? written;
        const cte = from['schema_name'] === '' && from['catalog_name'] === '' ? scope.ctes.get(table.toLowerCase()) : undefined;
        if (cte !== undefined || (from['schema_name'] === '' && scope.ctes.has(table.toLowerCase()))) {
          return [{ qualifier, fields: cte?.map((f) => ({ name: f.name, qualifier })) }];
        }
        const columns = this.ctx.columnsOf(from);
        return [{ qualifier, fields: columns?.map((name) => ({ name, qualifier })) }];
      }
      case 'SUBQUERY': {
        const sub = isNode(from['subquery']) ? from['subquery']['node'] : undefined;
        let fields = this.queryFields(sub, { relations: [], outer: undefined, ctes: scope.ctes });
        const names = from['column_name_alias'];
        if (fields !== undefined && Array.isArray(names) && names.length > 0) fields = fields.map((f, i) => ({ name: typeof names[i] === 'string' ? names[i] : f.name, qualifier: f.qualifier }));
        // An aliased subquery qualifies its columns by its alias; an unaliased one keeps theirs.
        return [{ qualifier: alias, fields: alias !== undefined ? fields?.map((f) => ({ name: f.name, qualifier: alias })) : fields }];
      }
      case 'JOIN': {
        const left = this.fromRelations(from['left'], scope);
        const right = this.fromRelations(from['right'], scope);
        this.excludeUsingColumns(from, left, right);
        return [...left, ...right];
      }
      default:
        return [{ qualifier: alias, fields: undefined }];
    }
  }

  /**
   * Notes the columns a USING or NATURAL join's star leaves out: of each key, the first column of
   * that name on each side (for NATURAL, the names both sides have) make one set, of which all but
   * the first in DataFusion's column order are left out. Nothing when a side's columns are unknown
   * (a star over them is unknown too).
   */
  private excludeUsingColumns(join: Node, left: readonly Relation[], right: readonly Relation[]): void {
    const fieldsOf = (rs: readonly Relation[]) => (rs.every((r) => r.fields !== undefined) ? rs.flatMap((r) => r.fields!) : undefined);
    const l = fieldsOf(left);
    const r = fieldsOf(right);
    if (l === undefined || r === undefined) return;
    const using = join['using_columns'];
    const keys =
      join['ref_type'] === 'NATURAL'
        ? r.map((f) => f.name).filter((name) => l.some((f) => f.name === name))
        : Array.isArray(using)
          ? using.filter((k): k is string => typeof k === 'string')
          : [];
    const set = new Set<Field>();
    for (const key of keys) {
      const a = fieldNamed(l, key);
      const b = fieldNamed(r, key);
      if (a !== undefined && b !== undefined) set.add(a).add(b);
    }
    const kept = new Set<string>();
    for (const f of [...set].sort(compareColumns)) {
      if (kept.has(f.name)) this.excluded.add(f);
      else kept.add(f.name);
    }
  }

  private starFields(star: Node, relations: readonly Relation[]): readonly Field[] | undefined {
    if (star['columns'] === true || (Array.isArray(star['exclude_list']) && star['exclude_list'].length > 0) || (Array.isArray(star['replace_list']) && star['replace_list'].length > 0)) return undefined;
    if (isNode(star['expr'])) return undefined;
    const of = typeof star['relation_name'] === 'string' && star['relation_name'] !== '' ? star['relation_name'].toLowerCase() : undefined;
    const fields: Field[] = [];
    for (const r of relations) {
      if (of !== undefined && r.qualifier?.toLowerCase() !== of && r.qualifier?.split('.').pop()?.toLowerCase() !== of) continue;
      if (r.fields === undefined) return undefined;
      // A qualified star (`t.*`) keeps a join's USING columns, as DataFusion's does.
      fields.push(...(of === undefined ? r.fields.filter((f) => !this.excluded.has(f)) : r.fields));
    }
    return fields;
  }

  /** Whether DuckDB can be given the star's columns by name: each relation named, its columns qualified by that name. */
  private expandable(star: Node, relations: readonly Relation[]): boolean {
    return star['relation_name'] === '' && relations.every((r) => r.qualifier !== undefined && r.fields?.every((f) => f.qualifier === r.qualifier) === true);
  }

  /**
   * Writes out each star noted over a USING or NATURAL join as its columns, each qualified by its
   * relation's name (the last part of a `schema.table`, which is DuckDB's name of it too).
   */
  expandUsingStars(): void {
    for (const [star, { list, fields }] of this.usingStars) {
      const at = list.indexOf(star);
      if (at < 0) continue;
      const columns = fields.map((f): Node => ({ class: 'COLUMN_REF', type: 'COLUMN_REF', alias: '', query_location: star['query_location'] ?? 0, column_names: [f.qualifier!.split('.').pop()!, f.name] }));
      list.splice(at, 1, ...columns);
    }
    this.usingStars.clear();
  }

  /** The field a column reference names, as DataFusion qualifies it; undefined when unsure. */
  private resolve(ref: Node, scope: Scope): Field | undefined {
    // As written, in lower case where unquoted (DataFusion's reading of identifiers).
    const names = (ref['column_names'] as string[]).map(this.unquoted(ref) ? (x: string) => x.toLowerCase() : (x: string) => x);
    if (names.length === 1) {
      const name = names[0]!.toLowerCase();
      for (let s: Scope | undefined = scope; s !== undefined; s = s.outer) {
        for (const r of s.relations) {
          const f = r.fields?.find((x) => x.name.toLowerCase() === name);
          if (f !== undefined) return f;
        }
        // Not among the known columns: the one relation of unknown columns has it.
        const open = s.relations.filter((r) => r.fields === undefined);
        if (open.length === 1) return { name: names[0]!, qualifier: open[0]!.qualifier };
        if (open.length > 1) return undefined;
      }
      return undefined;
    }
    if (names.length === 2) {
      const q = names[0]!.toLowerCase();
      const name = names[1]!.toLowerCase();
      for (let s: Scope | undefined = scope; s !== undefined; s = s.outer) {
        for (const r of s.relations) {
          const qualifier = r.qualifier?.toLowerCase();
          if (qualifier !== q && qualifier?.split('.').pop() !== q) continue;
          if (r.fields === undefined) return { name: names[1]!, qualifier: r.qualifier };
          const f = r.fields.find((x) => x.name.toLowerCase() === name);
          return f ?? undefined;
        }
      }
      return undefined;
    }
    return { name: names[names.length - 1]!, qualifier: names.slice(0, -1).join('.') };
  }

  /** DataFusion's display name of an expression, or undefined where this cannot tell it. */
  display(n: Json | undefined, scope: Scope): string | undefined {
    if (!isNode(n)) return undefined;
    const parameter = this.parameter(n);
    if (parameter !== undefined) return `$${parameter}`;
    switch (n['class']) {
      case 'CONSTANT':
        return this.constant(n);
      case 'COLUMN_REF': {
        if (this.ctx.opaque?.(n) === true) return undefined;
        const f = this.resolve(n, scope);
        return f === undefined ? undefined : qualified(f);
      }
      case 'CAST':
        return this.cast(n, scope);
      case 'COMPARISON': {
        const op = COMPARISONS[String(n['type'])];
        return op === undefined ? undefined : this.binary(n['left'], op, n['right'], scope);
      }
      case 'CONJUNCTION': {
        const op = n['type'] === 'CONJUNCTION_AND' ? ' AND ' : n['type'] === 'CONJUNCTION_OR' ? ' OR ' : undefined;
        return op === undefined ? undefined : this.list(n['children'], scope, op);
      }
      case 'OPERATOR':
        return this.operator(n, scope);
      case 'BETWEEN':
        return this.between(n, scope, false);
      case 'CASE':
        return this.caseExpr(n, scope);
      case 'FUNCTION':
        return this.call(n, scope);
      case 'WINDOW':
        return this.window(n, scope);
      case 'SUBQUERY':
        return this.subquery(n, scope, false);
      default:
        return undefined;
    }
  }

  private constant(n: Node): string | undefined {
    const value = n['value'] as Node;
    if (value['is_null'] === true) return 'NULL';
    const type = value['type'] as Node;
    const id = String(type['id']);
    const v = value['value'];
    switch (id) {
      case 'VARCHAR':
        return `Utf8("${String(v)}")`;
      case 'BOOLEAN':
        return `Boolean(${String(v)})`;
      case 'TINYINT':
      case 'SMALLINT':
      case 'INTEGER':
      case 'BIGINT':
      case 'UTINYINT':
      case 'USMALLINT':
      case 'UINTEGER':
      case 'UBIGINT':
        return integerName(integerOf(v));
      case 'HUGEINT':
      case 'UHUGEINT': {
        const parts = isNode(v) ? { upper: integerOf(v['upper']), lower: integerOf(v['lower']) } : undefined;
        if (parts?.upper === undefined || parts.lower === undefined) return undefined;
        return integerName(parts.upper * 2n ** 64n + parts.lower);
      }
      case 'DECIMAL': {
        const text = decimalConstantText(value);
        return text === undefined ? undefined : `Float64(${rustFloat(Number(text))})`;
      }
      case 'FLOAT':
      case 'DOUBLE':
        return typeof v === 'number' ? `Float64(${rustFloat(v)})` : undefined;
      default:
        return undefined;
    }
  }

  private cast(n: Node, scope: Scope): string | undefined {
    const to = isNode(n['cast_type']) ? String(n['cast_type']['id']) : '';
    const child = n['child'];
    const at = n['query_location'];
    const located = typeof at === 'number' && at > 0;
    const constant = isNode(child) && child['class'] === 'CONSTANT' ? (child['value'] as Node) : undefined;
    const text = constant !== undefined && (constant['type'] as Node)['id'] === 'VARCHAR' ? constant['value'] : undefined;
    // DuckDB parses `true` and `false` as a cast of 't' and 'f' that no text is at.
    if (to === 'BOOLEAN' && !located && (text === 't' || text === 'f')) return `Boolean(${text === 't'})`;
    // `INTERVAL '1 hour'` is a cast where its string is (`'1 hour'::INTERVAL` is at its `::`, a cast).
    if (to === 'INTERVAL' && typeof text === 'string' && located && at === (child as Node)['query_location']) return intervalName(text);
    const inner = this.display(child, scope);
    if (inner === undefined) return undefined;
    // GreptimeDB plans a cast to a timestamp type or to one of its type aliases (`Int8`, `bool`,
    // `TIMESTAMP_SEC` …) as `arrow_cast`, by the type as written; other casts show what they cast.
    const target = located ? arrowCastTarget(this.textFrom(at, 200)) : undefined;
    return target !== undefined ? `arrow_cast(${inner},Utf8("${target}"))` : inner;
  }

  private binary(left: Json | undefined, op: string, right: Json | undefined, scope: Scope): string | undefined {
    const l = this.display(left, scope);
    const r = l === undefined ? undefined : this.display(right, scope);
    return r === undefined ? undefined : `${l} ${op} ${r}`;
  }

  private list(children: Json | undefined, scope: Scope, separator: string): string | undefined {
    if (!Array.isArray(children)) return undefined;
    const parts: string[] = [];
    for (const c of children) {
      const d = this.display(c, scope);
      if (d === undefined) return undefined;
      parts.push(d);
    }
    return parts.join(separator);
  }

  private operator(n: Node, scope: Scope): string | undefined {
    const children = Array.isArray(n['children']) ? n['children'] : [];
    const first = children[0];
    switch (n['type']) {
      case 'OPERATOR_NOT': {
        if (isNode(first) && first['class'] === 'BETWEEN') return this.between(first, scope, true);
        if (isNode(first) && first['class'] === 'SUBQUERY') return this.subquery(first, scope, true);
        // `a !~ b` arrives as NOT of DuckDB's full match.
        const inner = isNode(first) && first['function_name'] === 'regexp_full_match' ? (first['children'] as Json[]) : undefined;
        if (inner?.length === 2 && this.isWritten(n, '!~')) return this.binary(inner[0], '!~', inner[1], scope);
        const d = this.display(first, scope);
        return d === undefined ? undefined : `NOT ${d}`;
      }
      case 'OPERATOR_IS_NULL':
      case 'OPERATOR_IS_NOT_NULL': {
        const d = this.display(first, scope);
        return d === undefined ? undefined : `${d} ${n['type'] === 'OPERATOR_IS_NULL' ? 'IS NULL' : 'IS NOT NULL'}`;
      }
      case 'COMPARE_IN':
      case 'COMPARE_NOT_IN': {
        const d = this.display(first, scope);
        const items = d === undefined ? undefined : this.list(children.slice(1), scope, ', ');
        return items === undefined ? undefined : `${d} ${n['type'] === 'COMPARE_IN' ? 'IN' : 'NOT IN'} ${items}`;
      }
      case 'OPERATOR_COALESCE': {
        // IFNULL, NVL and COALESCE all parse to this: the name is the one written before the first argument.
        const args = this.list(children, scope, ',');
        return args === undefined ? undefined : `${this.writtenName(first) ?? 'coalesce'}(${args})`;
      }
      default:
        return undefined;
    }
  }

  private between(n: Node, scope: Scope, negated: boolean): string | undefined {
    const x = this.display(n['input'], scope);
    const low = x === undefined ? undefined : this.display(n['lower'], scope);
    const high = low === undefined ? undefined : this.display(n['upper'], scope);
    return high === undefined ? undefined : `${x} ${negated ? 'NOT BETWEEN' : 'BETWEEN'} ${low} AND ${high}`;
  }

  private caseExpr(n: Node, scope: Scope): string | undefined {
    const checks = n['case_checks'];
    if (!Array.isArray(checks) || checks.length === 0) return undefined;
    // MySQL's IF(c, a, b) arrives as a CASE where `IF(` is written: DataFusion's `if` function.
    if (checks.length === 1 && isNode(checks[0]) && this.writtenIf(n)) {
      const args = this.list([checks[0]['when_expr'] as Json, checks[0]['then_expr'] as Json, n['else_expr'] as Json], scope, ',');
      return args === undefined ? undefined : `if(${args})`;
    }
    // `CASE x WHEN v …` arrives as `x = v` checks that no text is at, all of one `x`.
    const whens = checks.map((c) => (isNode(c) ? c['when_expr'] : undefined));
    const operandForm = whens.every((w) => isNode(w) && w['class'] === 'COMPARISON' && w['type'] === 'COMPARE_EQUAL' && w['query_location'] === 0);
    let operand: string | undefined;
    if (operandForm) {
      const lefts = whens.map((w) => JSON.stringify((w as Node)['left']));
      if (lefts.every((l) => l === lefts[0])) operand = this.display((whens[0] as Node)['left'], scope);
      if (operand === undefined) return undefined;
    }
    let out = 'CASE ';
    if (operand !== undefined) out += `${operand} `;
    for (const c of checks) {
      if (!isNode(c)) return undefined;
      const when = operand !== undefined ? this.display((c['when_expr'] as Node)['right'], scope) : this.display(c['when_expr'], scope);
      const then = this.display(c['then_expr'], scope);
      if (when === undefined || then === undefined) return undefined;
      out += `WHEN ${when} THEN ${then} `;
    }
    const otherwise = n['else_expr'];
    // No ELSE arrives as a NULL constant that no text is at.
    const absent = isNode(otherwise) && otherwise['class'] === 'CONSTANT' && otherwise['query_location'] === 0 && (otherwise['value'] as Node)['is_null'] === true;
    if (isNode(otherwise) && !absent) {
      const e = this.display(otherwise, scope);
      if (e === undefined) return undefined;
      out += `ELSE ${e} `;
    }
    return `${out}END`;
  }

  private call(n: Node, scope: Scope): string | undefined {
    const name = String(n['function_name']).toLowerCase();
    const children = Array.isArray(n['children']) ? n['children'] : [];
    // `@@name` as written: the text bridge made it a call (`sql/query-text.ts`), the user did not.
    if (name === VARIABLE_FUNCTION && children.length === 1 && isNode(children[0]) && children[0]['class'] === 'CONSTANT') {
      const v = (children[0]['value'] as Node)['value'];
      if (typeof v === 'string') return v;
    }
    if (n['is_operator'] === true) {
      if (children.length === 1 && name === '-') {
        const d = this.display(children[0], scope);
        return d === undefined ? undefined : `(- ${d})`;
      }
      if (children.length === 1 && name === '+') return this.display(children[0], scope);
      const op = OPERATORS[name];
      return children.length === 2 && op !== undefined ? this.binary(children[0], op, children[1], scope) : undefined;
    }
    if (n['export_state'] === true) return undefined;
    const ordered = WITHIN_GROUP.get(name);
    if (ordered !== undefined && children.length === ordered.args + 1 && n['filter'] === null && n['distinct'] !== true) {
      // `approx_percentile_cont(p) WITHIN GROUP (ORDER BY x)` as written (`sql/query-text.ts`).
      const [x, ...rest] = children.map((c) => this.display(c, scope));
      const args = rest.every((a) => a !== undefined) ? rest.join(',') : undefined;
      return x === undefined || args === undefined ? undefined : `${ordered.fn}(${args}) WITHIN GROUP [${x} ${ordered.desc ? 'DESC NULLS FIRST' : 'ASC NULLS LAST'}]`;
    }
    // `a ~ b` arrives as DuckDB's function of it.
    if (name === 'regexp_full_match' && children.length === 2 && this.isWritten(n, '~')) return this.binary(children[0], '~', children[1], scope);
    const interval = INTERVAL_FUNCTIONS[name];
    if (interval !== undefined && children.length === 1) return intervalOf(children[0], interval);
    let args: string | undefined;
    if (name === 'count_star') args = '*';
    else if (name === 'date_part' && children.length === 2 && this.isKeyword(children[0])) {
      // EXTRACT(year FROM x): DataFusion's date_part with the unit in capitals.
      const rest = this.display(children[1], scope);
      const unit = /^[A-Za-z_]+/.exec(this.textFrom((children[0] as Node)['query_location'] as number, 40))?.[0];
      args = rest === undefined || unit === undefined ? undefined : `Utf8("${unit.toUpperCase()}"),${rest}`;
    } else args = this.list(children, scope, ',');
    if (args === undefined) return undefined;
    let out = `${FUNCTION_NAMES[name] ?? name}(${n['distinct'] === true ? 'DISTINCT ' : ''}${args})`;
    if (n['filter'] !== null && n['filter'] !== undefined) {
      const f = this.display(n['filter'], scope);
      if (f === undefined) return undefined;
      out += ` FILTER (WHERE ${f})`;
    }
    const orders = isNode(n['order_bys']) ? n['order_bys']['orders'] : undefined;
    if (Array.isArray(orders) && orders.length > 0) {
      const sorts = this.sorts(orders, scope);
      if (sorts === undefined) return undefined;
      out += ` ORDER BY [${sorts}]`;
    }
    return out;
  }

  private window(n: Node, scope: Scope): string | undefined {
    if (n['ignore_nulls'] === true || n['filter_expr'] !== null || (n['exclude_clause'] !== undefined && n['exclude_clause'] !== 'NO_OTHER') || n['distinct'] === true) return undefined;
    const children = [...(Array.isArray(n['children']) ? n['children'] : [])];
    for (const extra of [n['offset_expr'], n['default_expr']]) if (isNode(extra)) children.push(extra);
    const args = this.list(children, scope, ',');
    if (args === undefined) return undefined;
    let out = `${String(n['function_name']).toLowerCase()}(${args})`;
    const partitions = Array.isArray(n['partitions']) ? n['partitions'] : [];
    if (partitions.length > 0) {
      const p = this.list(partitions, scope, ', ');
      if (p === undefined) return undefined;
      out += ` PARTITION BY [${p}]`;
    }
    const orders = Array.isArray(n['orders']) ? n['orders'] : [];
    if (orders.length > 0) {
      const s = this.sorts(orders, scope);
      if (s === undefined) return undefined;
      out += ` ORDER BY [${s}]`;
    }
    const frame = windowFrame(n, orders.length > 0);
    return frame === undefined ? undefined : `${out} ${frame}`;
  }

  private sorts(orders: Json[], scope: Scope): string | undefined {
    const parts: string[] = [];
    for (const o of orders) {
      if (!isNode(o)) return undefined;
      const e = this.display(o['expression'], scope);
      if (e === undefined) return undefined;
      const desc = o['type'] === 'DESCENDING';
      // DataFusion's default: NULLS LAST ascending, NULLS FIRST descending.
      const nulls = String(o['null_order']).replace('_', ' ');
      const nullsFirst = nulls === 'NULLS FIRST' || (nulls !== 'NULLS LAST' && desc);
      parts.push(`${e} ${desc ? 'DESC' : 'ASC'} ${nullsFirst ? 'NULLS FIRST' : 'NULLS LAST'}`);
    }
    return parts.join(', ');
  }

  private subquery(n: Node, scope: Scope, negated: boolean): string | undefined {
    switch (n['subquery_type']) {
      case 'EXISTS':
        return negated ? 'NOT EXISTS' : 'EXISTS';
      case 'ANY':
        return n['comparison_type'] === 'COMPARE_EQUAL' ? (negated ? 'NOT IN' : 'IN') : undefined;
      case 'SCALAR': {
        if (negated) return undefined;
        // A scalar subquery is named by its one column.
        const sub = isNode(n['subquery']) ? n['subquery']['node'] : undefined;
        const fields = isNode(sub) ? this.queryOutputs(sub, scope) : undefined;
        const first = fields?.[0];
        return first?.kind === 'one' ? first.field?.name : undefined;
      }
      default:
        return undefined;
    }
  }

  /**
   * The prepared statement's parameter whose bound value `n` is (`sql/parameter-marks.ts`): its
   * mark is right before the node. `TRUE` and `FALSE` are casts at no text, of a constant at theirs.
   */
  private parameter(n: Node): number | undefined {
    if (!this.ctx.sql.includes(PARAMETER_MARK_PREFIX)) return undefined;
    let at = n['query_location'];
    if (n['class'] === 'CAST' && !this.located(at) && isNode(n['child'])) at = n['child']['query_location'];
    return this.located(at) ? markedParameter(this.textBefore(at)) : undefined;
  }

  /** Whether `at` is an offset into the query text (DuckDB gives nodes at no text the largest one). */
  private located(at: Json | undefined): at is number {
    return typeof at === 'number' && at > 0 && at < (this.bytes?.length ?? Buffer.byteLength(this.ctx.sql));
  }

  /** Whether a constant was written as a keyword (`year` of EXTRACT), not a quoted string. */
  private isKeyword(n: Json | undefined): boolean {
    if (!isNode(n) || n['class'] !== 'CONSTANT' || ((n['value'] as Node)['type'] as Node)['id'] !== 'VARCHAR') return false;
    const at = n['query_location'];
    if (typeof at !== 'number' || at <= 0) return false;
    const c = this.byteAt(at);
    return c !== undefined && c !== 0x27; // not a quote
  }

  /** The function name written right before `(` and the node at its first argument, if any. */
  private writtenName(first: Json | undefined): string | undefined {
    const at = isNode(first) ? first['query_location'] : undefined;
    if (typeof at !== 'number' || at <= 0) return undefined;
    const before = this.textBefore(at);
    const m = /([A-Za-z_][A-Za-z0-9_]*)\s*\(\s*$/.exec(before.slice(-200));
    return m?.[1]?.toLowerCase();
  }

  /** Whether the CASE `n` was written `IF(`: the text before its first located part opens it. */
  private writtenIf(n: Node): boolean {
    let first = Infinity;
    const walk = (x: Json): void => {
      if (Array.isArray(x)) x.forEach(walk);
      else if (isNode(x)) {
        const at = x['query_location'];
        if (typeof at === 'number' && at > 0 && at < first) first = at;
        for (const v of Object.values(x)) if (typeof v === 'object' && v !== null) walk(v);
      }
    };
    walk(n['case_checks'] as Json);
    walk(n['else_expr'] as Json);
    return first !== Infinity && /\bif\s*\([^()']*$/i.test(this.textBefore(first).slice(-100));
  }

  /** Whether `written` (lower case, spaces ignored) is the text at `n`'s offset. */
  private isWritten(n: Node, written: string): boolean {
    const at = n['query_location'];
    return typeof at === 'number' && at > 0 && this.textFrom(at, written.length + 8).replace(/\s+/g, '').toLowerCase().startsWith(written);
  }

  /** Up to `length` characters of the query text from byte `offset`. */
  private textFrom(offset: number, length: number): string {
    const sql = this.ctx.sql;
    if (/^[\x00-\x7f]*$/.test(sql)) return sql.slice(offset, offset + length);
    this.bytes ??= Buffer.from(sql);
    return this.bytes.subarray(offset, offset + length * 4).toString('utf8').slice(0, length);
  }

  /**
   * Whether the reference at `n` was written unquoted (DataFusion then reads its names in lower
   * case): no `"` in the dotted name at its offset. Unknown (no offset): as written.
   */
  /** Whether `name` is written quoted (`"Name"` or a MySQL backquote) anywhere in the statement. */
  private quotedSomewhere(name: string): boolean {
    return this.ctx.sql.includes(`"${name.replace(/"/g, '""')}"`) || this.ctx.sql.includes(`\`${name}\``);
  }

  private unquoted(n: Node): boolean {
    const at = n['query_location'];
    if (typeof at !== 'number' || at <= 0) return false;
    const written = /^[A-Za-z0-9_$."]+/.exec(this.textFrom(at, 300))?.[0] ?? '"';
    return !written.includes('"');
  }

  private byteAt(offset: number): number | undefined {
    const sql = this.ctx.sql;
    if (/^[\x00-\x7f]*$/.test(sql)) return sql.charCodeAt(offset);
    this.bytes ??= Buffer.from(sql);
    return this.bytes[offset];
  }

  private textBefore(offset: number): string {
    const sql = this.ctx.sql;
    if (/^[\x00-\x7f]*$/.test(sql)) return sql.slice(0, offset);
    this.bytes ??= Buffer.from(sql);
    return this.bytes.subarray(0, offset).toString('utf8');
  }
}

/** An integer literal as DataFusion types it: Int64, else UInt64, else Float64. */
function integerName(v: bigint | undefined): string | undefined {
  if (v === undefined) return undefined;
  if (v >= -(2n ** 63n) && v < 2n ** 63n) return `Int64(${v})`;
  if (v >= 0n && v < 2n ** 64n) return `UInt64(${v})`;
  return `Float64(${rustFloat(Number(v))})`;
}


/**
 * A float as Rust's `Display` writes it (DataFusion's `Float64(…)`): the shortest digits that read
 * back as the same number, never in exponent form (`1e21` is `1000000000000000000000`).
 */
export function rustFloat(v: number): string {
  if (Number.isNaN(v)) return 'NaN';
  if (!Number.isFinite(v)) return v > 0 ? 'inf' : '-inf';
  if (v === 0) return Object.is(v, -0) ? '-0' : '0';
  const [mantissa, exp] = Math.abs(v).toExponential().split('e') as [string, string];
  const digits = mantissa.replace('.', '');
  const point = Number(exp) + 1;
  let out: string;
  if (point <= 0) out = `0.${'0'.repeat(-point)}${digits}`;
  else if (point >= digits.length) out = digits + '0'.repeat(point - digits.length);
  else out = `${digits.slice(0, point)}.${digits.slice(point)}`;
  return v < 0 ? `-${out}` : out;
}

const INTERVAL_UNITS: ReadonlyArray<[RegExp, { months?: number; days?: number; nanos?: number }]> = [
  [/^(years?|y)$/, { months: 12 }],
  [/^(months?|mons?)$/, { months: 1 }],
  [/^(weeks?|w)$/, { days: 7 }],
  [/^(days?|d)$/, { days: 1 }],
  [/^(hours?|h)$/, { nanos: 3.6e12 }],
  [/^(minutes?|mins?|m)$/, { nanos: 6e10 }],
  [/^(seconds?|secs?|s)$/, { nanos: 1e9 }],
  [/^(milliseconds?|ms)$/, { nanos: 1e6 }],
  [/^(microseconds?|us)$/, { nanos: 1e3 }],
  [/^(nanoseconds?|ns)$/, { nanos: 1 }],
];

function monthDayNano(months: number, days: number, nanos: bigint): string {
  return `IntervalMonthDayNano("IntervalMonthDayNano { months: ${months}, days: ${days}, nanoseconds: ${nanos} }")`;
}

/** `INTERVAL '1 hour 30 minutes'` (or `'1h30m'`, `'-2mon'`) as DataFusion names it; undefined for a text this does not read. */
function intervalName(text: string): string | undefined {
  const parts = /^\s*(?:-?\d+(?:\.\d+)?\s*[a-z]+\s*)+$/i.test(text) ? text.matchAll(/(-?\d+(?:\.\d+)?)\s*([a-z]+)/gi) : undefined;
  if (parts === undefined) return undefined;
  let months = 0;
  let days = 0;
  let nanos = 0n;
  for (const [, amount, word] of parts) {
    const unit = INTERVAL_UNITS.find(([re]) => re.test(word!.toLowerCase()))?.[1];
    if (unit === undefined) return undefined;
    const n = Number(amount);
    if (unit.months !== undefined || unit.days !== undefined) {
      // A fraction of a month or day DataFusion spreads over smaller units: not named here.
      const m = n * (unit.months ?? 0);
      const d = n * (unit.days ?? 0);
      if (!Number.isInteger(m) || !Number.isInteger(d)) return undefined;
      months += m;
      days += d;
    } else if (/^-?\d+$/.test(amount!)) nanos += BigInt(amount!) * BigInt(unit.nanos!);
    else nanos += BigInt(Math.round(n * unit.nanos!));
  }
  return monthDayNano(months, days, nanos);
}

/** `INTERVAL 2 DAY` (DuckDB: `to_days(CAST(trunc(CAST(2 AS DOUBLE)) AS INTEGER))`) as DataFusion names it. */
function intervalOf(arg: Json | undefined, unit: { months?: number; days?: number; nanos?: bigint }): string | undefined {
  let n: Json | undefined = arg;
  // Down to the integer the casts and trunc wrap.
  for (let depth = 0; depth < 4 && isNode(n) && n['class'] !== 'CONSTANT'; depth++) {
    if (n['class'] === 'CAST') n = n['child'];
    else if (n['class'] === 'FUNCTION' && n['function_name'] === 'trunc' && Array.isArray(n['children']) && n['children'].length === 1) n = n['children'][0];
    else return undefined;
  }
  if (!isNode(n) || n['class'] !== 'CONSTANT') return undefined;
  const v = integerOf((n['value'] as Node)['value']);
  if (v === undefined) return undefined;
  return monthDayNano((unit.months ?? 0) * Number(v), (unit.days ?? 0) * Number(v), (unit.nanos ?? 0n) * v);
}

/** DataFusion's window frame: the default one (by whether there is an ORDER BY), or the one written. */
function windowFrame(n: Node, ordered: boolean): string | undefined {
  const start = String(n['start']);
  const end = String(n['end']);
  if (start === 'UNBOUNDED_PRECEDING' && end === 'CURRENT_ROW_RANGE') {
    return ordered ? 'RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW' : 'ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING';
  }
  const units = [start, end].map((b) => /_(ROWS|RANGE|GROUPS)$/.exec(b)?.[1]).find((u) => u !== undefined) ?? 'ROWS';
  const bound = (b: string, expr: Json | undefined): string | undefined => {
    if (b === 'UNBOUNDED_PRECEDING') return 'UNBOUNDED PRECEDING';
    if (b === 'UNBOUNDED_FOLLOWING') return 'UNBOUNDED FOLLOWING';
    if (b.startsWith('CURRENT_ROW')) return 'CURRENT ROW';
    const v = isNode(expr) && expr['class'] === 'CONSTANT' ? integerOf((expr['value'] as Node)['value']) : undefined;
    if (v === undefined) return undefined;
    if (b.startsWith('EXPR_PRECEDING')) return `${v} PRECEDING`;
    if (b.startsWith('EXPR_FOLLOWING')) return `${v} FOLLOWING`;
    return undefined;
  };
  const s = bound(start, n['start_expr']);
  const e = bound(end, n['end_expr']);
  return s === undefined || e === undefined ? undefined : `${units} BETWEEN ${s} AND ${e}`;
}
