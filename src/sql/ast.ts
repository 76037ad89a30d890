/**
 * The statements of the tsdb SQL dialect (reference api.md §4) as readonly discriminated unions.
 * Parts DuckDB evaluates (SELECT bodies, WHERE conditions, expressions that are not plain
 * literals) are kept as SQL text: DuckDB parses and runs them (DESIGN.md D6).
 *
 * Identifiers are normalized by the parser: unquoted ones folded to lower case, quoted ones
 * (`"X"`, `` `X` ``) kept as written.
 */

/** A possibly qualified name: `t`, `db.t` or `catalog.db.t` (parts in order). */
export interface ObjectName {
  readonly parts: readonly string[];
}

/** A value in VALUES, DEFAULT, ADMIN arguments, SET: a literal, DEFAULT, or SQL text for DuckDB. */
export type ValueExpr =
  | { readonly kind: 'null' }
  | { readonly kind: 'default' }
  | { readonly kind: 'boolean'; readonly value: boolean }
  /** A number as written (`-1.5`, `1e3`, `9223372036854775807`): exact conversion is the caller's. */
  | { readonly kind: 'number'; readonly text: string }
  /** A string literal, quotes removed and escapes resolved ('' → '). */
  | { readonly kind: 'string'; readonly value: string }
  /** A hex literal (`X'00ff'`, `0x00ff`): bytes, as their (valid, even) hex digits. */
  | { readonly kind: 'hex'; readonly digits: string }
  /** Anything else (`now()`, `1 + 1`, `'x'::TIMESTAMP`), as SQL text. */
  | { readonly kind: 'sql'; readonly text: string };

/** A column type as written: name upper-cased (`TIMESTAMP`, `DOUBLE`, `INT`), arguments, UNSIGNED. */
export interface SqlType {
  readonly name: string;
  readonly args: readonly number[];
  readonly unsigned: boolean;
}

export type IndexKind = 'inverted' | 'skipping' | 'fulltext' | 'vector';

export interface ColumnDef {
  readonly name: string;
  readonly type: SqlType;
  /** `NULL` → true, `NOT NULL` → false, unsaid → undefined. */
  readonly nullable?: boolean;
  readonly default?: ValueExpr;
  readonly comment?: string;
  /** `PRIMARY KEY` written on the column. */
  readonly primaryKey: boolean;
  /** `TIME INDEX` written on the column. */
  readonly timeIndex: boolean;
  readonly indexes: ReadonlyArray<{ readonly kind: IndexKind; readonly options: Readonly<Record<string, string>> }>;
}

/** `WITH (k = v, …)` options: keys and values as strings (`'1h'`, `true` → "true"). */
export type Options = Readonly<Record<string, string>>;

export type AlterTableAction =
  | {
      readonly kind: 'add_columns';
      readonly columns: ReadonlyArray<{ readonly column: ColumnDef; readonly ifNotExists: boolean; readonly location?: { readonly first: true } | { readonly after: string } }>;
    }
  | { readonly kind: 'drop_column'; readonly name: string }
  | { readonly kind: 'modify_column_type'; readonly name: string; readonly type: SqlType }
  | { readonly kind: 'set_default'; readonly name: string; readonly default: ValueExpr }
  | { readonly kind: 'drop_default'; readonly name: string }
  /** `MODIFY COLUMN c SET <kind> INDEX [WITH (…)]` / `UNSET <kind> INDEX`. */
  | { readonly kind: 'set_index'; readonly name: string; readonly index: IndexKind; readonly options: Options }
  | { readonly kind: 'unset_index'; readonly name: string; readonly index: IndexKind }
  | { readonly kind: 'set_options'; readonly options: Options }
  | { readonly kind: 'unset_options'; readonly keys: readonly string[] }
  | { readonly kind: 'rename'; readonly newName: string };

/** `LIKE 'pattern'` or `WHERE <condition>` of a SHOW statement. */
export type ShowFilter = { readonly kind: 'like'; readonly pattern: string } | { readonly kind: 'where'; readonly sql: string };

/** A parameter of TQL (start, end, step, lookback) as written: a number, a string, or SQL for DuckDB to evaluate. */
export type TqlParam = { readonly kind: 'number'; readonly text: string } | { readonly kind: 'string'; readonly value: string } | { readonly kind: 'sql'; readonly text: string };

/** `TQL EVAL|EXPLAIN|ANALYZE …` (reference api.md §4.6). */
export interface TqlQuery {
  readonly mode: 'eval' | 'explain' | 'analyze';
  readonly verbose: boolean;
  /** `FORMAT JSON|TEXT|GRAPHVIZ` (other words are ignored, as GreptimeDB does). */
  readonly format?: 'json' | 'text' | 'graphviz';
  /** `(start, end, step[, lookback])`; absent: `(0, 0, '5m')`. */
  readonly params?: { readonly start: TqlParam; readonly end: TqlParam; readonly step: TqlParam; readonly lookback?: TqlParam };
  /** The PromQL text, trimmed. */
  readonly query: string;
  /** `AS alias`: the name of the value column. */
  readonly alias?: string;
}

/** A query whose WITH clause has TQL bodies: each `tql` at [start, end) of `sql` (offsets into it). */
export interface TqlCteQuery {
  readonly sql: string;
  readonly ctes: ReadonlyArray<{ readonly name: string; readonly start: number; readonly end: number; readonly tql: TqlQuery }>;
}

interface Base {
  /** The statement's own text, trimmed, without its `;`. */
  readonly text: string;
}

export type Statement = Base &
  (
    | { readonly kind: 'create_database'; readonly name: string; readonly ifNotExists: boolean; readonly options: Options }
    | { readonly kind: 'alter_database'; readonly name: string; readonly set: Options; readonly unset: readonly string[] }
    | { readonly kind: 'drop_database'; readonly name: string; readonly ifExists: boolean }
    | { readonly kind: 'use'; readonly database: string }
    | { readonly kind: 'show_databases'; readonly full: boolean; readonly filter?: ShowFilter }
    | { readonly kind: 'show_create_database'; readonly name: string }
    | {
        readonly kind: 'create_table';
        readonly name: ObjectName;
        readonly ifNotExists: boolean;
        readonly columns: readonly ColumnDef[];
        /** `TIME INDEX (c)` constraints (the parser reports more than one, or one of several columns). */
        readonly timeIndex?: string;
        /** `PRIMARY KEY (a, b)` constraint. */
        readonly primaryKey?: readonly string[];
        readonly engine?: string;
        readonly options: Options;
        /** `PARTITION ON COLUMNS (a, …) (expr, …)`: columns, and each partition's condition as SQL. */
        readonly partition?: { readonly columns: readonly string[]; readonly exprs: readonly string[] };
        /** `CREATE TABLE t LIKE src` (then `columns` is empty). */
        readonly like?: ObjectName;
      }
    | { readonly kind: 'drop_table'; readonly names: readonly ObjectName[]; readonly ifExists: boolean }
    | { readonly kind: 'truncate_table'; readonly name: ObjectName }
    | { readonly kind: 'alter_table'; readonly name: ObjectName; readonly action: AlterTableAction }
    | { readonly kind: 'show_tables'; readonly full: boolean; readonly database?: string; readonly filter?: ShowFilter }
    | { readonly kind: 'show_columns'; readonly full: boolean; readonly name: ObjectName; readonly database?: string; readonly filter?: ShowFilter }
    | { readonly kind: 'show_index'; readonly name: ObjectName; readonly database?: string; readonly filter?: ShowFilter }
    | { readonly kind: 'show_create_table'; readonly name: ObjectName }
    | { readonly kind: 'describe_table'; readonly name: ObjectName }
    | {
        readonly kind: 'insert';
        readonly name: ObjectName;
        /** `INSERT INTO t (a, b)`; undefined = every column in table order. */
        readonly columns?: readonly string[];
        /** `REPLACE INTO` (same effect in tsdb: rows with the same key and time replace older ones). */
        readonly replace: boolean;
        readonly source: { readonly kind: 'values'; readonly rows: ReadonlyArray<readonly ValueExpr[]> } | { readonly kind: 'query'; readonly sql: string };
      }
    | { readonly kind: 'delete'; readonly name: ObjectName; readonly where?: string }
    /** SELECT, WITH … SELECT, VALUES, a parenthesized query: SQL text for DuckDB. */
    | { readonly kind: 'query'; readonly sql: string }
    | {
        readonly kind: 'explain';
        readonly analyze: boolean;
        readonly verbose: boolean;
        readonly statement: string;
        /** The explained query's TQL CTEs, when it has some. */
        readonly tql?: TqlCteQuery;
      }
    | ({ readonly kind: 'tql' } & TqlQuery)
    /** `WITH x AS (TQL EVAL …), … SELECT …`. */
    | ({ readonly kind: 'tql_query' } & TqlCteQuery)
    /** `ADMIN fn(args)`: the function name lower-cased, its arguments. */
    | { readonly kind: 'admin'; readonly func: string; readonly args: readonly ValueExpr[] }
    /** `SET [SESSION|LOCAL] name = value` (`SET TIME ZONE 'x'` → name `time_zone`). */
    | { readonly kind: 'set'; readonly variable: string; readonly value: ValueExpr }
    | { readonly kind: 'show_variables'; readonly name: string }
    /** `SHOW [FULL] PROCESSLIST`. */
    | { readonly kind: 'show_processlist'; readonly full: boolean }
    /**
     * `KILL <id>` / `KILL '<id>'`: a statement of the process list (`target` process);
     * `KILL QUERY|CONNECTION <n>`: the statement running on MySQL connection `n` (`target` connection).
     */
    | { readonly kind: 'kill'; readonly target: 'process' | 'connection'; readonly id: number; readonly server?: string }
    /**
     * `CREATE [OR REPLACE] VIEW [IF NOT EXISTS] v [(a, …)] AS <query>`: the query as written (a
     * SELECT, WITH, VALUES or parenthesized query, or TQL), and the statement as GreptimeDB prints it.
     */
    | {
        readonly kind: 'create_view';
        readonly name: ObjectName;
        readonly orReplace: boolean;
        readonly ifNotExists: boolean;
        readonly columns: readonly string[];
        readonly query: string;
        readonly tql: boolean;
        readonly definition: string;
      }
    | { readonly kind: 'drop_view'; readonly name: ObjectName; readonly ifExists: boolean }
    | { readonly kind: 'show_views'; readonly database?: string; readonly filter?: ShowFilter }
    | { readonly kind: 'show_create_view'; readonly name: ObjectName }
    /**
     * `PREPARE s FROM 'sql'` (MySQL) or `PREPARE s [(type, …)] AS <statement>` (PostgreSQL): the
     * statement's text with its `?` / `$n` placeholders, and the parameters' types when given.
     */
    | { readonly kind: 'prepare'; readonly name: string; readonly sql: string; readonly types: readonly string[] }
    /** `EXECUTE s [USING v, …]` (MySQL) or `EXECUTE s [(v, …)]` (PostgreSQL). */
    | { readonly kind: 'execute'; readonly name: string; readonly args: readonly ValueExpr[] }
    /** `DEALLOCATE [PREPARE] s`; `DEALLOCATE [PREPARE] ALL`: name undefined. */
    | { readonly kind: 'deallocate'; readonly name?: string }
    /** `SHOW TABLE STATUS [FROM|IN db] [LIKE 'p' | WHERE cond]`. */
    | { readonly kind: 'show_table_status'; readonly database?: string; readonly filter?: ShowFilter }
    /**
     * `COMMENT ON TABLE t IS 'c'` / `COMMENT ON COLUMN t.c IS 'c'`: `comment` null for `IS NULL`
     * (the comment removed); `column` only for a column's.
     */
    | { readonly kind: 'comment_on'; readonly name: ObjectName; readonly column?: string; readonly comment: string | null }
    /** `SHOW CHARACTER SET | CHARSET [LIKE | WHERE]`, `SHOW COLLATION [LIKE | WHERE]`. */
    | { readonly kind: 'show_charset' | 'show_collation'; readonly filter?: ShowFilter }
    /**
     * `COPY [db.]t TO|FROM '<location>' [WITH (…)] [CONNECTION (…)] [LIMIT n]` and `COPY DATABASE db
     * TO|FROM '<dir>' …` (`frontend/statement/copy.ts`): options and connection keys lower-cased.
     */
    | {
        readonly kind: 'copy';
        readonly target: { readonly kind: 'table'; readonly name: ObjectName } | { readonly kind: 'database'; readonly name: string } | { readonly kind: 'query'; readonly sql: string };
        readonly direction: 'to' | 'from';
        readonly location: string;
        readonly options: Options;
        readonly connection: Options;
        readonly limit?: number;
      }
    /** `SHOW STATUS`: MySQL's server status counters, none in tsdb (GreptimeDB answers no rows). */
    | { readonly kind: 'show_status' }
  );

export type StatementKind = Statement['kind'];
