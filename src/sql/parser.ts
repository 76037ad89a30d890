/**
 * Statement parser of the tsdb SQL dialect (reference api.md §4): splits SQL text into
 * statements on top-level `;` and parses each into the AST of ast.ts by recursive descent.
 * Queries (SELECT, WITH, VALUES, …), WHERE conditions and non-literal expressions stay SQL
 * text for DuckDB. Errors are TsdbErrors with GreptimeDB's codes and messages (api.md §2).
 */
import { isEngineSetting } from './engine-settings.js';
import { fastInsert } from './fast-insert.js';
import { StatusCode } from '../common/error/status-code.js';
import { TsdbError } from '../common/error/tsdb-error.js';
import type { AlterTableAction, ColumnDef, IndexKind, ObjectName, Options, ShowFilter, SqlType, Statement, TqlCteQuery, TqlParam, TqlQuery, ValueExpr } from './ast.js';
import { checkNoNul, hexBytes, tokenize } from './lexer.js';
import { splitAlias, TqlSpans } from './tql-text.js';
import { blobLiteral } from './query-text.js';
import type { Token } from './lexer.js';
import { printTokens } from './sql-print.js';

/** Parses every statement of `sql`; empty statements (`;;`, comments only) are skipped. */
export function parseSql(sql: string): Statement[] {
  // Before the fast path, which reads values without the lexer.
  checkNoNul(sql);
  const fast = fastInsert(sql, (head) => parseStatements(head)[0]!);
  return fast !== undefined ? [fast] : parseStatements(sql);
}

/** The general parser: tokens, split at top-level `;`, one statement parser each. */
function parseStatements(sql: string): Statement[] {
  // The PromQL of TQL statements is not SQL: one raw token each (`tql-text.ts`).
  const tokens = tokenize(sql, /tql/i.test(sql) ? new TqlSpans() : undefined);
  const out: Statement[] = [];
  let group: Token[] = [];
  let depth = 0;
  for (const tok of tokens) {
    const terminates = tok.kind === 'eof' || (tok.kind === 'op' && tok.value === ';' && depth === 0);
    if (terminates) {
      if (group.length > 0) out.push(new StatementParser(sql, group, tok).parseStatement());
      group = [];
      continue;
    }
    if (tok.kind === 'op' && tok.value === '(') depth++;
    else if (tok.kind === 'op' && tok.value === ')') depth = Math.max(0, depth - 1);
    group.push(tok);
  }
  return out;
}

/** Words after SHOW that name statements of GreptimeDB's (a variable cannot be named so). */
const SHOW_WORDS = new Set(['TABLE', 'FLOWS', 'FLOW', 'VIEWS', 'REGIONS', 'REGION', 'CHARSET', 'CHARACTER', 'COLLATION', 'STATUS', 'SEARCH_PATH', 'TRIGGERS', 'CREATE']);

/** First words of statements handed to DuckDB as they are. */
const QUERY_WORDS = new Set(['SELECT', 'WITH', 'VALUES', 'FROM', 'TABLE']);

function unsupported(keyword: string): TsdbError {
  return new TsdbError(StatusCode.Unsupported, `SQL statement is not supported, keyword: ${keyword}`);
}

/**
 * First words of statements that reach outside the database — files (`COPY`, `EXPORT`, `IMPORT`,
 * `ATTACH`), extensions (`INSTALL`, `LOAD`), the engine's state and settings (`PRAGMA`, `CALL`,
 * `CHECKPOINT`, `VACUUM`, `DETACH`, `RESET`): refused for every user with a permission error
 * (DESIGN.md D12), rather than as merely unsupported.
 */
const OUTSIDE_WORDS = new Set(['COPY', 'EXPORT', 'IMPORT', 'ATTACH', 'DETACH', 'INSTALL', 'LOAD', 'FORCE', 'PRAGMA', 'CALL', 'CHECKPOINT', 'VACUUM', 'RESET']);

/** Option keys as GreptimeDB reads them: case-insensitive. */
function lowerKeys(o: Readonly<Record<string, string>>): Record<string, string> {
  return Object.fromEntries(Object.entries(o).map(([k, v]) => [k.toLowerCase(), v]));
}

/** The permission error of a statement that would reach outside the database. */
export function outsideTheDatabase(what: string): TsdbError {
  return new TsdbError(StatusCode.PermissionDenied, `Permission denied: ${what} is not allowed: tsdb SQL does not reach the server's files, network, extensions or engine settings`);
}

/** A TQL syntax error, as GreptimeDB words it. */
function tqlSyntax(message: string): TsdbError {
  return new TsdbError(StatusCode.InvalidSyntax, `Invalid TQL syntax: sql parser error: ${message}`);
}

function syntaxMessage(expected: string, tok: Token): string {
  return `Expected: ${expected}, found: ${describe(tok)}${location(tok)}`;
}

function describe(tok: Token): string {
  return tok.kind === 'eof' ? 'EOF' : tok.text;
}

/** sqlparser prints no location for the end of input. */
function location(tok: Token): string {
  return tok.kind === 'eof' ? '' : ` at Line: ${tok.line}, Column: ${tok.column}`;
}

/** Normalizes a session variable name: lower case, without `@@`, `@@session.`, `session.`, `local.`. */
function variableName(raw: string): string {
  let name = raw.toLowerCase();
  if (name.startsWith('@@')) name = name.slice(2);
  for (const prefix of ['session.', 'local.']) {
    if (name.startsWith(prefix)) name = name.slice(prefix.length);
  }
  return name;
}

/** Parses one statement: its tokens (without the `;`) and the token that ends it (`;` or EOF). */
class StatementParser {
  private pos = 0;

  constructor(
    private readonly sql: string,
    private readonly toks: readonly Token[],
    private readonly end: Token,
  ) {}

  // ---- token helpers ----

  private peek(k = 0): Token {
    return this.toks[this.pos + k] ?? this.end;
  }

  private next(): Token {
    const t = this.peek();
    if (this.pos < this.toks.length) this.pos++;
    return t;
  }

  private atEnd(): boolean {
    return this.pos >= this.toks.length;
  }

  private static isKw(t: Token, kw: string): boolean {
    return t.kind === 'ident' && t.value.toUpperCase() === kw;
  }

  private static isOp(t: Token, op: string): boolean {
    return t.kind === 'op' && t.value === op;
  }

  private peekKw(...kws: string[]): boolean {
    return kws.every((kw, i) => StatementParser.isKw(this.peek(i), kw));
  }

  private kwAt(k: number, kw: string): boolean {
    return StatementParser.isKw(this.peek(k), kw);
  }

  private eatKw(...kws: string[]): boolean {
    if (!this.peekKw(...kws)) return false;
    this.pos += kws.length;
    return true;
  }

  private expectKw(kw: string): void {
    if (!this.eatKw(kw)) throw this.expected(kw);
  }

  private peekOp(op: string, k = 0): boolean {
    return StatementParser.isOp(this.peek(k), op);
  }

  private eatOp(op: string): boolean {
    if (!this.peekOp(op)) return false;
    this.pos++;
    return true;
  }

  private expectOp(op: string): void {
    if (!this.eatOp(op)) throw this.expected(op);
  }

  private expected(what: string, tok: Token = this.peek()): TsdbError {
    return new TsdbError(StatusCode.InvalidSyntax, `Invalid SQL syntax: sql parser error: ${syntaxMessage(what, tok)}`);
  }

  /** GreptimeDB's own "unexpected token" error, optionally followed by sqlparser's. */
  private unexpected(expected: string, withCause: string | undefined): TsdbError {
    const tok = this.peek();
    const cause = withCause === undefined ? '' : `: sql parser error: ${syntaxMessage(withCause, tok)}`;
    return new TsdbError(StatusCode.InvalidSyntax, `Unexpected token while parsing SQL statement, expected: '${expected}', found: ${describe(tok)}${cause}`);
  }

  private expectEnd(): void {
    if (!this.atEnd()) throw this.expected('end of statement');
  }

  /** Source text of tokens [from, to). */
  private textOf(from: number, to: number): string {
    const first = this.toks[from];
    const last = this.toks[to - 1];
    if (first === undefined || last === undefined || to <= from) return '';
    return this.sql.slice(first.start, last.end);
  }

  /** An identifier: unquoted folded to lower case, quoted as written. */
  private ident(): string {
    const t = this.peek();
    if (t.kind === 'ident') {
      this.pos++;
      return t.value.toLowerCase();
    }
    if (t.kind === 'quoted_ident') {
      // `""` names nothing (PostgreSQL and DuckDB refuse it too; in VALUES it is the empty string).
      if (t.value === '') throw new TsdbError(StatusCode.InvalidSyntax, `Invalid SQL syntax: sql parser error: zero-length delimited identifier ${t.text}${location(t)}`);
      this.pos++;
      return t.value;
    }
    throw this.expected('identifier');
  }

  private objectName(): ObjectName {
    const parts = [this.ident()];
    while (this.eatOp('.')) parts.push(this.ident());
    return { parts };
  }

  private identList(): string[] {
    this.expectOp('(');
    const out: string[] = [];
    while (!this.eatOp(')')) {
      out.push(this.ident());
      if (!this.eatOp(',')) {
        this.expectOp(')');
        break;
      }
    }
    return out;
  }

  private stringLit(): string {
    const t = this.peek();
    if (t.kind !== 'string') throw this.expected('literal string');
    this.pos++;
    return t.value;
  }

  /** `IF NOT EXISTS`, with GreptimeDB's message when the words after IF are wrong. */
  private ifNotExists(): boolean {
    if (!this.peekKw('IF')) return false;
    this.pos++;
    if (this.atEnd()) throw this.expected('NOT');
    if (!this.peekKw('NOT')) throw unsupported(this.peek().text);
    this.pos++;
    if (!this.eatKw('EXISTS')) throw this.unexpected('EXISTS', 'EXISTS');
    return true;
  }

  private ifExists(): boolean {
    if (!this.eatKw('IF')) return false;
    this.expectKw('EXISTS');
    return true;
  }

  // ---- statements ----

  parseStatement(): Statement {
    const text = this.textOf(0, this.toks.length);
    const first = this.peek();
    if (StatementParser.isOp(first, '(')) return { kind: 'query', sql: text, text };
    if (first.kind !== 'ident') throw this.expected('an SQL statement');
    const word = first.value.toUpperCase();
    if (word === 'WITH' && this.toks.some((t) => t.kind === 'raw')) return { kind: 'tql_query', ...this.tqlCtes(text), text };
    if (QUERY_WORDS.has(word)) return { kind: 'query', sql: text, text };
    // COPY of a table, a database or a query is tsdb's own statement (its paths checked by the frontend).
    if (word === 'COPY') return this.copy(text);
    if (OUTSIDE_WORDS.has(word)) throw outsideTheDatabase(word === 'FORCE' ? `FORCE ${this.peek(1).text.toUpperCase()}` : word);
    this.pos++;
    switch (word) {
      case 'CREATE':
        return this.create(text);
      case 'ALTER':
        return this.alter(text);
      case 'DROP':
        return this.drop(text);
      case 'USE': {
        const database = this.ident();
        this.expectEnd();
        return { kind: 'use', database, text };
      }
      case 'SHOW':
        return this.show(text);
      case 'DESC':
      case 'DESCRIBE': {
        if (this.peekKw('TABLE') && this.pos + 1 < this.toks.length) this.pos++;
        const name = this.objectName();
        this.expectEnd();
        return { kind: 'describe_table', name, text };
      }
      case 'TRUNCATE': {
        if (this.peekKw('TABLE') && this.pos + 1 < this.toks.length) this.pos++;
        const name = this.objectName();
        this.expectEnd();
        return { kind: 'truncate_table', name, text };
      }
      case 'INSERT':
        return this.insert(text, false);
      case 'REPLACE':
        return this.insert(text, true);
      case 'DELETE':
        return this.delete(text);
      case 'EXPLAIN':
        return this.explain(text);
      case 'ADMIN':
        return this.admin(text);
      case 'SET':
        return this.set(text);
      case 'KILL':
        return this.kill(text);
      case 'TQL':
        return { kind: 'tql', ...this.tql(), text };
      case 'PREPARE':
        return this.prepare(text);
      case 'EXECUTE':
        return this.executePrepared(text);
      case 'DEALLOCATE': {
        this.eatKw('PREPARE');
        const all = this.peekKw('ALL') && this.pos + 1 === this.toks.length;
        const name = all ? (this.pos++, undefined) : this.ident();
        this.expectEnd();
        return { kind: 'deallocate', ...(name !== undefined && { name }), text };
      }
      case 'COMMENT':
        return this.commentOn(text);
      default:
        throw unsupported(first.text);
    }
  }

  private create(text: string): Statement {
    if (this.eatKw('OR', 'REPLACE')) {
      if (this.eatKw('VIEW')) return this.createView(text, true);
      this.pos -= 2;
    }
    if (this.eatKw('VIEW')) return this.createView(text, false);
    if (this.eatKw('DATABASE') || this.eatKw('SCHEMA')) {
      const ifNotExists = this.ifNotExists();
      const name = this.ident();
      const options = this.eatKw('WITH') ? this.options() : {};
      this.expectEnd();
      return { kind: 'create_database', name, ifNotExists, options, text };
    }
    if (this.eatKw('TABLE')) return this.createTable(text);
    // CREATE [OR REPLACE] [PERSISTENT | TEMPORARY] SECRET: credentials for DuckDB's file systems.
    for (let k = 0; k < 5 && this.pos + k < this.toks.length; k++) if (this.kwAt(k, 'SECRET')) throw outsideTheDatabase('CREATE SECRET');
    const t = this.peek();
    if (t.kind === 'eof') throw this.expected('an object type after CREATE');
    throw unsupported(t.text);
  }

  /** `PREPARE s FROM 'sql'` or `PREPARE s [(type, …)] AS <statement>`, after PREPARE. */
  private prepare(text: string): Statement {
    const name = this.ident();
    if (this.eatKw('FROM')) {
      const sql = this.stringLit();
      this.expectEnd();
      return { kind: 'prepare', name, sql: sql.trim().replace(/;\s*$/, ''), types: [], text };
    }
    const types: string[] = [];
    if (this.eatOp('(')) {
      while (!this.eatOp(')')) {
        const [from, to] = this.scanExpr(() => false);
        types.push(this.textOf(from, to));
        if (!this.eatOp(',')) {
          this.expectOp(')');
          break;
        }
      }
    }
    this.expectKw('AS');
    if (this.atEnd()) throw this.expected('a statement');
    const sql = this.textOf(this.pos, this.toks.length);
    this.pos = this.toks.length;
    return { kind: 'prepare', name, sql, types, text };
  }

  /** `EXECUTE s [USING v, …]` or `EXECUTE s [(v, …)]`, after EXECUTE. */
  private executePrepared(text: string): Statement {
    const name = this.ident();
    const args: ValueExpr[] = [];
    const list = (close: boolean) => {
      do {
        const [from, to] = this.scanExpr(() => false);
        args.push(this.valueOf(from, to, false));
      } while (this.eatOp(','));
      if (close) this.expectOp(')');
    };
    if (this.eatKw('USING')) list(false);
    else if (this.eatOp('(')) {
      if (!this.eatOp(')')) list(true);
    }
    this.expectEnd();
    return { kind: 'execute', name, args, text };
  }

  /** `CREATE [OR REPLACE] VIEW [IF NOT EXISTS] v [(cols)] AS <query>` after `… VIEW`. */
  private createView(text: string, orReplace: boolean): Statement {
    const ifNotExists = this.ifNotExists();
    const nameFrom = this.pos;
    const name = this.objectName();
    const nameText = printTokens(this.toks.slice(nameFrom, this.pos));
    let columns: string[] = [];
    let columnTexts: string[] = [];
    if (this.peekOp('(')) {
      const from = this.pos + 1;
      columns = this.identList();
      columnTexts = this.toks.slice(from, this.pos - 1).filter((t) => !StatementParser.isOp(t, ',')).map((t) => t.text);
    }
    this.expectKw('AS');
    if (this.atEnd()) throw this.expected('SELECT, VALUES, or a subquery in the query body');
    const bodyTokens = this.toks.slice(this.pos);
    const query = this.textOf(this.pos, this.toks.length);
    const first = this.peek();
    const tql = StatementParser.isKw(first, 'TQL');
    const isQuery = StatementParser.isOp(first, '(') || (first.kind === 'ident' && QUERY_WORDS.has(first.value.toUpperCase()));
    if (!tql && !isQuery) {
      throw new TsdbError(StatusCode.Unsupported, `Failed to plan SQL: This feature is not implemented: Query ${printTokens(bodyTokens)} not implemented yet`);
    }
    this.pos = this.toks.length;
    const definition = `CREATE ${orReplace ? 'OR REPLACE ' : ''}VIEW ${ifNotExists ? 'IF NOT EXISTS ' : ''}${nameText}${columnTexts.length > 0 ? ` (${columnTexts.join(', ')})` : ''} AS ${tql ? query : printTokens(bodyTokens)}`;
    return { kind: 'create_view', name, orReplace, ifNotExists, columns, query, tql, definition, text };
  }

  private createTable(text: string): Statement {
    const ifNotExists = this.ifNotExists();
    const name = this.objectName();
    if (this.eatKw('LIKE')) {
      const like = this.objectName();
      this.expectEnd();
      return { kind: 'create_table', name, ifNotExists, columns: [], options: {}, like, text };
    }
    this.expectOp('(');
    const columns: ColumnDef[] = [];
    const timeIndexes: string[] = [];
    let primaryKey: string[] | undefined;
    let primaryKeyTwice = false;
    while (!this.eatOp(')')) {
      if (this.peekKw('TIME', 'INDEX') && this.peekOp('(', 2)) {
        this.pos += 2;
        const cols = this.identList();
        if (cols.length !== 1) {
          throw new TsdbError(StatusCode.InvalidSyntax, 'Invalid time index: it should contain only one column in time index');
        }
        timeIndexes.push(cols[0] as string);
      } else if (this.peekKw('PRIMARY', 'KEY') && this.peekOp('(', 2)) {
        this.pos += 2;
        if (primaryKey !== undefined) primaryKeyTwice = true;
        primaryKey = this.identList();
      } else {
        columns.push(this.columnDef(false));
      }
      if (!this.eatOp(',')) {
        if (!this.eatOp(')')) throw this.expected("',' or ')' after column definition");
        break;
      }
    }

    const inlineTimeIndexes = columns.filter((c) => c.timeIndex).length;
    const timeIndexCount = inlineTimeIndexes + timeIndexes.length;
    if (timeIndexCount === 0) throw new TsdbError(StatusCode.InvalidSyntax, 'Missing time index constraint');
    if (timeIndexCount > 1) {
      throw new TsdbError(StatusCode.InvalidSyntax, `Invalid time index: expected only one time index constraint but actual ${timeIndexCount}`);
    }
    if (primaryKeyTwice || (primaryKey !== undefined && columns.some((c) => c.primaryKey))) {
      throw new TsdbError(StatusCode.InvalidArguments, 'Illegal primary keys definition: found definitions of primary keys in multiple places');
    }

    let partition: { columns: string[]; exprs: string[] } | undefined;
    let engine: string | undefined;
    let options: Options | undefined;
    while (!this.atEnd()) {
      if (partition === undefined && this.eatKw('PARTITION')) {
        this.expectKw('ON');
        this.expectKw('COLUMNS');
        const cols = this.identList();
        this.expectOp('(');
        const exprs: string[] = [];
        while (!this.eatOp(')')) {
          const [from, to] = this.scanExpr(() => false);
          exprs.push(this.textOf(from, to));
          if (!this.eatOp(',')) {
            this.expectOp(')');
            break;
          }
        }
        partition = { columns: cols, exprs };
      } else if (engine === undefined && this.eatKw('ENGINE')) {
        this.eatOp('=');
        engine = this.ident();
      } else if (options === undefined && this.eatKw('WITH')) {
        options = this.options();
      } else {
        throw this.expected('end of statement');
      }
    }

    return {
      kind: 'create_table',
      name,
      ifNotExists,
      columns,
      ...(timeIndexes.length > 0 ? { timeIndex: timeIndexes[0] as string } : {}),
      ...(primaryKey !== undefined ? { primaryKey } : {}),
      ...(engine !== undefined ? { engine } : {}),
      options: options ?? {},
      ...(partition !== undefined ? { partition } : {}),
      text,
    };
  }

  /** `INVERTED INDEX`, `SKIPPING INDEX`, `FULLTEXT INDEX`, `VECTOR INDEX` (consumed), else undefined. */
  private indexKind(): IndexKind | undefined {
    for (const [kw, kind] of [['INVERTED', 'inverted'], ['SKIPPING', 'skipping'], ['FULLTEXT', 'fulltext'], ['VECTOR', 'vector']] as const) {
      if (this.eatKw(kw, 'INDEX')) return kind;
    }
    return undefined;
  }

  /** A column definition; in ALTER TABLE ADD, FIRST / AFTER end it too. */
  private columnDef(inAlter: boolean): ColumnDef {
    const name = this.ident();
    const type = this.sqlType();
    let nullable: boolean | undefined;
    let def: ValueExpr | undefined;
    let comment: string | undefined;
    let primaryKey = false;
    let timeIndex = false;
    const indexes: Array<{ kind: IndexKind; options: Options }> = [];
    const indexOptions = (): Options => (this.eatKw('WITH') ? this.options() : {});
    for (;;) {
      if (this.eatKw('NOT', 'NULL')) nullable = false;
      else if (this.eatKw('NULL')) nullable = true;
      else if (this.eatKw('DEFAULT')) {
        const start = this.pos;
        const [from, to] = this.scanExpr((i) => i > start && this.endsColumnOption(i, inAlter));
        def = this.valueOf(from, to, false);
      } else if (this.eatKw('COMMENT')) comment = this.stringLit();
      else if (this.eatKw('PRIMARY', 'KEY')) primaryKey = true;
      else if (this.eatKw('TIME', 'INDEX')) timeIndex = true;
      else if (this.eatKw('SKIPPING', 'INDEX')) indexes.push({ kind: 'skipping', options: indexOptions() });
      else if (this.eatKw('FULLTEXT')) {
        this.eatKw('INDEX');
        indexes.push({ kind: 'fulltext', options: indexOptions() });
      } else if (this.eatKw('INVERTED', 'INDEX')) indexes.push({ kind: 'inverted', options: {} });
      else if (this.eatKw('VECTOR', 'INDEX')) indexes.push({ kind: 'vector', options: indexOptions() });
      else break;
    }
    return {
      name,
      type,
      ...(nullable !== undefined ? { nullable } : {}),
      ...(def !== undefined ? { default: def } : {}),
      ...(comment !== undefined ? { comment } : {}),
      primaryKey,
      timeIndex,
      indexes,
    };
  }

  /** Whether token `i` starts a column option (ending a DEFAULT expression). */
  private endsColumnOption(i: number, inAlter: boolean): boolean {
    const at = (k: number, kw: string): boolean => {
      const t = this.toks[i + k];
      return t !== undefined && StatementParser.isKw(t, kw);
    };
    return (
      at(0, 'NULL') ||
      (at(0, 'NOT') && at(1, 'NULL')) ||
      at(0, 'DEFAULT') ||
      at(0, 'COMMENT') ||
      (at(0, 'PRIMARY') && at(1, 'KEY')) ||
      (at(0, 'TIME') && at(1, 'INDEX')) ||
      (at(0, 'SKIPPING') && at(1, 'INDEX')) ||
      at(0, 'FULLTEXT') ||
      (at(0, 'INVERTED') && at(1, 'INDEX')) ||
      (at(0, 'VECTOR') && at(1, 'INDEX')) ||
      (inAlter && (at(0, 'FIRST') || at(0, 'AFTER')))
    );
  }

  private sqlType(): SqlType {
    const t = this.peek();
    if (t.kind !== 'ident') throw this.expected('a data type name');
    this.pos++;
    const args: number[] = [];
    if (this.eatOp('(')) {
      for (;;) {
        const n = this.peek();
        if (n.kind !== 'number' || !/^\d+$/.test(n.value)) throw this.expected('literal int');
        this.pos++;
        args.push(Number(n.value));
        if (this.eatOp(')')) break;
        this.expectOp(',');
      }
    }
    const unsigned = this.eatKw('UNSIGNED');
    return { name: t.value.toUpperCase(), args, unsigned };
  }

  /** `(k = v, …)` after WITH. */
  private options(): Options {
    this.expectOp('(');
    const entries: Array<[string, string]> = [];
    while (!this.eatOp(')')) {
      const key = this.optionKey();
      this.expectOp('=');
      entries.push([key, this.optionValue()]);
      if (!this.eatOp(',')) {
        this.expectOp(')');
        break;
      }
    }
    return Object.fromEntries(entries);
  }

  /** `'k'`, `"k"`, `k` or `a.b.c` (parts folded like identifiers). */
  private optionKey(): string {
    const t = this.peek();
    if (t.kind === 'string') {
      this.pos++;
      return t.value;
    }
    if (t.kind !== 'ident' && t.kind !== 'quoted_ident') throw this.expected('option name');
    const parts = [this.ident()];
    while (this.eatOp('.')) parts.push(this.ident());
    return parts.join('.');
  }

  /** An option value as a string: strings unquoted, numbers as written, true/false, NULL → ''. */
  private optionValue(): string {
    const t = this.peek();
    if (t.kind === 'string' || t.kind === 'quoted_ident') {
      this.pos++;
      return t.value;
    }
    let sign = '';
    if ((StatementParser.isOp(t, '-') || StatementParser.isOp(t, '+')) && this.peek(1).kind === 'number') {
      sign = t.value;
      this.pos++;
    }
    const v = this.peek();
    if (v.kind === 'number') {
      this.pos++;
      // `1d`, `30s` written without quotes: the unit touches the number.
      let text = sign + v.value;
      let prev = v;
      while ((this.peek().kind === 'ident' || this.peek().kind === 'number') && this.peek().start === prev.end) {
        prev = this.next();
        text += prev.value;
      }
      return text;
    }
    if (sign === '' && v.kind === 'ident') {
      this.pos++;
      return StatementParser.isKw(v, 'NULL') ? '' : v.value.toLowerCase();
    }
    throw this.expected('literal string, number or boolean');
  }

  /**
   * Scans an expression from the current token to the next top-level `,` or `)` (or a token
   * for which `stop` holds, or the end); returns its token range and moves past it.
   */
  private scanExpr(stop: (i: number) => boolean): [number, number] {
    const from = this.pos;
    let depth = 0;
    let i = from;
    for (; i < this.toks.length; i++) {
      const t = this.toks[i] as Token;
      if (depth === 0 && (StatementParser.isOp(t, ',') || StatementParser.isOp(t, ')') || stop(i))) break;
      if (StatementParser.isOp(t, '(') || StatementParser.isOp(t, '[')) depth++;
      else if (StatementParser.isOp(t, ')') || StatementParser.isOp(t, ']')) depth--;
    }
    if (i === from) throw this.expected('an expression');
    this.pos = i;
    return [from, i];
  }

  /** The ValueExpr of tokens [from, to); with `quotedStrings`, `"x"` is the string 'x'. */
  private valueOf(from: number, to: number, quotedStrings: boolean): ValueExpr {
    const first = this.toks[from] as Token;
    if (to - from === 1) {
      if (first.kind === 'number') return { kind: 'number', text: first.value };
      if (first.kind === 'string') return { kind: 'string', value: first.value };
      if (first.kind === 'hex') {
        hexBytes(first.value); // InvalidSyntax for bad digits
        return { kind: 'hex', digits: first.value };
      }
      if (first.kind === 'quoted_ident' && first.quote === '"' && quotedStrings) return { kind: 'string', value: first.value };
      if (StatementParser.isKw(first, 'NULL')) return { kind: 'null' };
      if (StatementParser.isKw(first, 'DEFAULT')) return { kind: 'default' };
      if (StatementParser.isKw(first, 'TRUE')) return { kind: 'boolean', value: true };
      if (StatementParser.isKw(first, 'FALSE')) return { kind: 'boolean', value: false };
    }
    const second = this.toks[from + 1];
    if (to - from === 2 && (StatementParser.isOp(first, '-') || StatementParser.isOp(first, '+')) && second?.kind === 'number') {
      return { kind: 'number', text: first.value + second.value };
    }
    // An expression for DuckDB: hex literals as BLOB literals (and `"x"` as 'x' with quotedStrings).
    let text = '';
    let cursor = first.start;
    for (let i = from; i < to; i++) {
      const t = this.toks[i] as Token;
      if (t.kind === 'hex') {
        text += this.sql.slice(cursor, t.start) + blobLiteral(t.value);
        cursor = t.end;
      } else if (quotedStrings && t.kind === 'quoted_ident' && t.quote === '"') {
        text += this.sql.slice(cursor, t.start) + `'${t.value.replaceAll("'", "''")}'`;
        cursor = t.end;
      }
    }
    return { kind: 'sql', text: text + this.sql.slice(cursor, (this.toks[to - 1] as Token).end) };
  }

  /** `LIKE 'p'` or `WHERE cond` ending a SHOW statement, or nothing. */
  private showFilter(): ShowFilter | undefined {
    if (this.eatKw('LIKE')) {
      const pattern = this.stringLit();
      this.expectEnd();
      return { kind: 'like', pattern };
    }
    if (this.eatKw('WHERE')) {
      if (this.atEnd()) throw this.expected('an expression');
      const sql = this.textOf(this.pos, this.toks.length);
      this.pos = this.toks.length;
      return { kind: 'where', sql };
    }
    this.expectEnd();
    return undefined;
  }

  private fromDatabase(): string | undefined {
    return this.eatKw('FROM') || this.eatKw('IN') ? this.ident() : undefined;
  }

  private show(text: string): Statement {
    if (this.eatKw('CREATE')) {
      if (this.eatKw('TABLE')) {
        const name = this.objectName();
        this.expectEnd();
        return { kind: 'show_create_table', name, text };
      }
      if (this.eatKw('DATABASE') || this.eatKw('SCHEMA')) {
        const name = this.ident();
        this.expectEnd();
        return { kind: 'show_create_database', name, text };
      }
      if (this.eatKw('VIEW')) {
        const name = this.objectName();
        this.expectEnd();
        return { kind: 'show_create_view', name, text };
      }
      throw this.peek().kind === 'eof' ? this.expected('TABLE or DATABASE') : unsupported(this.peek().text);
    }
    if (this.eatKw('STATUS')) {
      if (!this.atEnd()) throw unsupported(this.peek().text);
      return { kind: 'show_status', text };
    }
    if (this.eatKw('VARIABLES')) {
      const parts = [this.ident()];
      while (this.eatOp('.')) parts.push(this.ident());
      this.expectEnd();
      return { kind: 'show_variables', name: variableName(parts.join('.')), text };
    }
    if (this.eatKw('INDEX') || this.eatKw('INDEXES') || this.eatKw('KEYS')) {
      if (!this.eatKw('FROM') && !this.eatKw('IN')) throw this.unexpected('{FROM | IN} table', undefined);
      const name = this.objectName();
      const database = this.fromDatabase();
      const filter = this.showFilter();
      return { kind: 'show_index', name, ...(database !== undefined ? { database } : {}), ...(filter ? { filter } : {}), text };
    }
    if (this.eatKw('CHARSET') || this.eatKw('CHARACTER', 'SET') || this.eatKw('COLLATION')) {
      const kind = StatementParser.isKw(this.peek(-1), 'COLLATION') ? 'show_collation' : 'show_charset';
      const filter = this.showFilter();
      return { kind, ...(filter ? { filter } : {}), text };
    }
    if (this.eatKw('TABLE', 'STATUS')) {
      const database = this.fromDatabase();
      const filter = this.showFilter();
      return { kind: 'show_table_status', ...(database !== undefined ? { database } : {}), ...(filter ? { filter } : {}), text };
    }
    const full = this.eatKw('FULL');
    if (this.eatKw('PROCESSLIST')) {
      this.expectEnd();
      return { kind: 'show_processlist', full, text };
    }
    if (this.eatKw('DATABASES') || this.eatKw('SCHEMAS')) {
      const filter = this.showFilter();
      return { kind: 'show_databases', full, ...(filter ? { filter } : {}), text };
    }
    if (!full && this.eatKw('VIEWS')) {
      const database = this.fromDatabase();
      const filter = this.showFilter();
      return { kind: 'show_views', ...(database !== undefined ? { database } : {}), ...(filter ? { filter } : {}), text };
    }
    if (this.eatKw('TABLES')) {
      const database = this.fromDatabase();
      const filter = this.showFilter();
      return { kind: 'show_tables', full, ...(database !== undefined ? { database } : {}), ...(filter ? { filter } : {}), text };
    }
    if (this.eatKw('COLUMNS') || this.eatKw('FIELDS')) {
      if (!this.eatKw('FROM') && !this.eatKw('IN')) throw this.unexpected('{FROM | IN} table', undefined);
      const name = this.objectName();
      const database = this.fromDatabase();
      const filter = this.showFilter();
      return { kind: 'show_columns', full, name, ...(database !== undefined ? { database } : {}), ...(filter ? { filter } : {}), text };
    }
    const t = this.peek();
    if (t.kind === 'eof') throw this.expected('an object type after SHOW');
    // `SHOW <variable>` (PostgreSQL's form, as GreptimeDB reads it): one name, nothing after it.
    if (!full && (t.kind === 'quoted_ident' || (t.kind === 'ident' && !SHOW_WORDS.has(t.value.toUpperCase())))) {
      const parts = [this.ident()];
      while (this.eatOp('.')) parts.push(this.ident());
      if (!this.atEnd()) throw unsupported(this.peek().text);
      return { kind: 'show_variables', name: variableName(parts.join('.')), text };
    }
    throw unsupported(t.text);
  }

  /** `COMMENT ON TABLE t IS 'c' | NULL`, `COMMENT ON COLUMN t.c IS 'c' | NULL`. */
  private commentOn(text: string): Statement {
    this.expectKw('ON');
    const target = this.peek();
    const onColumn = this.eatKw('COLUMN');
    if (!onColumn && !this.eatKw('TABLE')) throw this.peek().kind === 'eof' ? this.expected('TABLE or COLUMN') : unsupported(target.text);
    const name = this.objectName();
    if (onColumn && name.parts.length < 2) throw this.expected('a column name qualified by its table (table.column)');
    this.expectKw('IS');
    let comment: string | null;
    if (this.eatKw('NULL')) comment = null;
    else comment = this.stringLit();
    this.expectEnd();
    if (!onColumn) return { kind: 'comment_on', name, comment, text };
    return { kind: 'comment_on', name: { parts: name.parts.slice(0, -1) }, column: name.parts[name.parts.length - 1]!, comment, text };
  }

  /** `KILL [QUERY | CONNECTION] <n>` or `KILL '<n>'`. */
  /** `COPY [DATABASE] name TO|FROM 'location' [WITH (…)] [CONNECTION (…)] [LIMIT n]` (after nothing was eaten). */
  private copy(text: string): Statement {
    this.pos++;
    if (this.peekOp('(')) return this.copyQuery(text);
    const database = this.peekKw('DATABASE') && this.peek(1).kind !== 'eof' && !this.kwAt(1, 'TO') && !this.kwAt(1, 'FROM');
    if (database) this.pos++;
    const name = this.objectName();
    if (database && name.parts.length > 2) throw this.expected('database name', this.peek());
    let direction: 'to' | 'from';
    if (this.eatKw('TO')) direction = 'to';
    else if (this.eatKw('FROM')) direction = 'from';
    else throw this.expected('TO or FROM');
    const location = this.stringLit();
    let options: Record<string, string> = {};
    let connection: Record<string, string> = {};
    let limit: number | undefined;
    while (!this.atEnd()) {
      if (this.eatKw('WITH')) options = lowerKeys(this.options());
      else if (this.eatKw('CONNECTION')) connection = lowerKeys(this.options());
      else if (this.eatKw('LIMIT')) {
        if (direction === 'to' || database) throw new TsdbError(StatusCode.InvalidSyntax, 'Invalid SQL, error: limit is not supported');
        const n = this.peek();
        if (n.kind !== 'number' || !/^\d+$/.test(n.value)) throw this.unexpected('the number of maximum rows', 'literal int');
        this.pos++;
        limit = Number(n.value);
      } else throw this.expected('end of statement');
    }
    // `COPY DATABASE "catalog"."db"` (as GreptimeDB's export tool writes it): the database is the last part.
    const target = database ? { kind: 'database' as const, name: name.parts[name.parts.length - 1]! } : { kind: 'table' as const, name };
    return { kind: 'copy', target, direction, location, options, connection, ...(limit !== undefined && { limit }), text };
  }

  /** `COPY (<query>) TO 'file' [WITH (…)] [CONNECTION (…)]`, at the `(`. */
  private copyQuery(text: string): Statement {
    const open = this.pos;
    let depth = 0;
    let close = -1;
    for (let i = open; i < this.toks.length; i++) {
      if (StatementParser.isOp(this.toks[i]!, '(')) depth++;
      else if (StatementParser.isOp(this.toks[i]!, ')') && --depth === 0) {
        close = i;
        break;
      }
    }
    if (close < 0) throw this.expected(')', this.end);
    const sql = this.textOf(open + 1, close);
    const first = this.toks[open + 1];
    if (first === undefined || first.kind !== 'ident' || !QUERY_WORDS.has(first.value.toUpperCase())) throw this.expected('a query', first ?? this.end);
    this.pos = close + 1;
    this.expectKw('TO');
    const location = this.stringLit();
    let options: Record<string, string> = {};
    let connection: Record<string, string> = {};
    while (!this.atEnd()) {
      if (this.eatKw('WITH')) options = lowerKeys(this.options());
      else if (this.eatKw('CONNECTION')) connection = lowerKeys(this.options());
      else if (this.peekKw('LIMIT')) throw new TsdbError(StatusCode.InvalidSyntax, 'Invalid SQL, error: limit is not supported');
      else throw this.expected('end of statement');
    }
    return { kind: 'copy', target: { kind: 'query', sql }, direction: 'to', location, options, connection, text };
  }

  private kill(text: string): Statement {
    const target = this.eatKw('QUERY') || this.eatKw('CONNECTION') ? 'connection' : 'process';
    const t = this.peek();
    const written = t.kind === 'number' ? t.text : t.kind === 'string' && target === 'process' ? t.value.trim() : undefined;
    // A process id as SHOW PROCESSLIST shows it (`127.0.0.1:4001/7`), or its number alone.
    const slash = written?.lastIndexOf('/') ?? -1;
    const server = written !== undefined && slash > 0 ? written.slice(0, slash) : undefined;
    const digits = written !== undefined && slash >= 0 ? written.slice(slash + 1) : written;
    if (digits === undefined || !/^\d{1,15}$/.test(digits)) {
      throw this.expected(target === 'process' ? 'a process id (a number, or a string holding one)' : 'a MySQL connection id (a number)');
    }
    this.pos++;
    this.expectEnd();
    return { kind: 'kill', target, id: Number(digits), ...(server !== undefined && { server }), text };
  }

  private alter(text: string): Statement {
    if (this.eatKw('DATABASE') || this.eatKw('SCHEMA')) {
      const name = this.ident();
      if (this.eatKw('SET')) {
        const set = this.keyValueList();
        this.expectEnd();
        return { kind: 'alter_database', name, set, unset: [], text };
      }
      if (this.eatKw('UNSET')) {
        const unset = this.keyList();
        this.expectEnd();
        return { kind: 'alter_database', name, set: {}, unset, text };
      }
      throw this.expected('SET or UNSET');
    }
    if (!this.eatKw('TABLE')) {
      const t = this.peek();
      if (t.kind === 'eof') throw this.expected('TABLE or DATABASE after ALTER');
      throw unsupported(t.text);
    }
    const name = this.objectName();
    const action = this.alterAction();
    this.expectEnd();
    return { kind: 'alter_table', name, action, text };
  }

  /** `'k' = v[, …]` of ALTER … SET. */
  private keyValueList(): Options {
    const entries: Array<[string, string]> = [];
    do {
      const key = this.optionKey();
      this.expectOp('=');
      entries.push([key, this.optionValue()]);
    } while (this.eatOp(','));
    return Object.fromEntries(entries);
  }

  private keyList(): string[] {
    const keys: string[] = [];
    do keys.push(this.optionKey());
    while (this.eatOp(','));
    return keys;
  }

  private alterAction(): AlterTableAction {
    if (this.eatKw('ADD')) {
      const columns: Array<{ column: ColumnDef; ifNotExists: boolean; location?: { first: true } | { after: string } }> = [];
      for (;;) {
        this.eatKw('COLUMN');
        const ifNotExists = this.ifNotExists();
        const column = this.columnDef(true);
        let location: { first: true } | { after: string } | undefined;
        if (this.eatKw('FIRST')) location = { first: true };
        else if (this.eatKw('AFTER')) location = { after: this.ident() };
        columns.push({ column, ifNotExists, ...(location ? { location } : {}) });
        if (!this.peekOp(',')) break;
        this.pos++;
        this.expectKw('ADD');
      }
      return { kind: 'add_columns', columns };
    }
    if (this.eatKw('DROP')) {
      this.eatKw('COLUMN');
      return { kind: 'drop_column', name: this.ident() };
    }
    if (this.eatKw('MODIFY')) {
      this.eatKw('COLUMN');
      const name = this.ident();
      if (this.eatKw('SET')) {
        if (this.eatKw('DEFAULT')) {
          const [from, to] = this.scanExpr(() => false);
          return { kind: 'set_default', name, default: this.valueOf(from, to, false) };
        }
        const index = this.indexKind();
        if (index !== undefined) return { kind: 'set_index', name, index, options: index !== 'inverted' && this.eatKw('WITH') ? this.options() : {} };
        throw this.peek().kind === 'eof' ? this.expected('DEFAULT') : unsupported(this.peek().text);
      }
      if (this.peekKw('DROP', 'DEFAULT')) {
        this.pos += 2;
        return { kind: 'drop_default', name };
      }
      if (this.eatKw('UNSET')) {
        const index = this.indexKind();
        if (index !== undefined) return { kind: 'unset_index', name, index };
        throw this.peek().kind === 'eof' ? this.expected('an index kind') : unsupported(this.peek().text);
      }
      return { kind: 'modify_column_type', name, type: this.sqlType() };
    }
    if (this.eatKw('SET')) return { kind: 'set_options', options: this.keyValueList() };
    if (this.eatKw('UNSET')) return { kind: 'unset_options', keys: this.keyList() };
    if (this.eatKw('RENAME')) {
      this.eatKw('TO');
      return { kind: 'rename', newName: this.ident() };
    }
    const t = this.peek();
    if (t.kind === 'eof') throw this.expected('ADD, DROP, MODIFY, SET, UNSET or RENAME');
    throw unsupported(t.text);
  }

  private drop(text: string): Statement {
    if (this.eatKw('DATABASE') || this.eatKw('SCHEMA')) {
      const ifExists = this.ifExists();
      const name = this.ident();
      this.expectEnd();
      return { kind: 'drop_database', name, ifExists, text };
    }
    if (this.eatKw('TABLE')) {
      const ifExists = this.ifExists();
      const names = [this.objectName()];
      while (this.eatOp(',')) names.push(this.objectName());
      this.expectEnd();
      return { kind: 'drop_table', names, ifExists, text };
    }
    if (this.eatKw('VIEW')) {
      const ifExists = this.ifExists();
      const name = this.objectName();
      this.expectEnd();
      return { kind: 'drop_view', name, ifExists, text };
    }
    const t = this.peek();
    if (t.kind === 'eof') throw this.expected('TABLE, DATABASE or SCHEMA after DROP');
    throw unsupported(t.text);
  }

  private insert(text: string, replace: boolean): Statement {
    this.expectKw('INTO');
    if (this.peekKw('TABLE') && this.peek(1).kind !== 'eof' && !this.peekOp('(', 1) && !this.kwAt(1, 'VALUES')) this.pos++;
    const name = this.objectName();
    let columns: string[] | undefined;
    if (this.peekOp('(') && !this.kwAt(1, 'SELECT') && !this.kwAt(1, 'WITH') && !this.peekOp('(', 1)) {
      columns = this.identList();
    }
    const base = { kind: 'insert' as const, name, ...(columns !== undefined ? { columns } : {}), replace, text };
    if (this.eatKw('VALUES')) {
      const rows: ValueExpr[][] = [];
      do {
        if (this.atEnd() && rows.length > 0) break;
        this.expectOp('(');
        const row: ValueExpr[] = [];
        while (!this.eatOp(')')) {
          const [from, to] = this.scanExpr(() => false);
          row.push(this.valueOf(from, to, true));
          if (!this.eatOp(',')) {
            this.expectOp(')');
            break;
          }
        }
        rows.push(row);
      } while (this.eatOp(','));
      this.expectEnd();
      return { ...base, source: { kind: 'values', rows } };
    }
    if (this.peekKw('SELECT') || this.peekKw('WITH') || this.peekOp('(')) {
      return { ...base, source: { kind: 'query', sql: this.textOf(this.pos, this.toks.length) } };
    }
    throw this.expected('SELECT, VALUES, or a subquery in the query body');
  }

  private delete(text: string): Statement {
    this.expectKw('FROM');
    const name = this.objectName();
    if (this.eatKw('WHERE')) {
      if (this.atEnd()) throw this.expected('an expression');
      return { kind: 'delete', name, where: this.textOf(this.pos, this.toks.length), text };
    }
    this.expectEnd();
    return { kind: 'delete', name, text };
  }

  private explain(text: string): Statement {
    const analyze = this.eatKw('ANALYZE');
    const verbose = this.eatKw('VERBOSE');
    if (this.peekKw('FORMAT')) throw unsupported(this.peek().text);
    if (this.atEnd()) throw this.expected('an SQL statement');
    if (this.peekKw('TQL')) throw unsupported('TQL (use TQL EXPLAIN or TQL ANALYZE)');
    // Parsed for its errors; the plan is made from its text.
    const inner = new StatementParser(this.sql, this.toks.slice(this.pos), this.end).parseStatement();
    if (inner.kind === 'tql_query') return { kind: 'explain', analyze, verbose, statement: inner.text, tql: { sql: inner.sql, ctes: inner.ctes }, text };
    return { kind: 'explain', analyze, verbose, statement: inner.text, text };
  }

  /**
   * `TQL EVAL|EVALUATE|EXPLAIN|ANALYZE [VERBOSE] [FORMAT f] [(start, end, step[, lookback])] <promql> [AS alias]`
   * (after `TQL`), as GreptimeDB's TQL parser reads it; the PromQL is the lexer's raw token.
   */
  private tql(): TqlQuery {
    const verbTok = this.peek();
    const verb = verbTok.kind === 'ident' ? verbTok.value.toUpperCase() : '';
    if (verb !== 'EVAL' && verb !== 'EVALUATE' && verb !== 'EXPLAIN' && verb !== 'ANALYZE') {
      throw verbTok.kind === 'eof' ? this.expected('EVAL, EXPLAIN or ANALYZE after TQL') : unsupported(verbTok.text);
    }
    this.pos++;
    const mode = verb === 'EXPLAIN' ? 'explain' : verb === 'ANALYZE' ? 'analyze' : 'eval';
    let verbose = false;
    let format: TqlQuery['format'];
    if (mode !== 'eval') {
      verbose = this.eatKw('VERBOSE');
      if (this.eatKw('FORMAT')) {
        const f = this.peek();
        if (f.kind === 'ident') {
          this.pos++;
          const v = f.value.toLowerCase();
          if (v === 'json' || v === 'text' || v === 'graphviz') format = v;
        }
      }
    }
    let params: TqlQuery['params'];
    if (this.eatOp('(')) {
      const exprs: TqlParam[] = [];
      for (;;) {
        const [from, to] = this.scanExpr(() => false);
        for (let i = from; i < to; i++) if (StatementParser.isOp(this.toks[i]!, ';')) throw tqlSyntax(syntaxMessage('an expression', this.toks[i]!));
        // `1m` is no duration in SQL: sqlparser reads the number and stops at the word.
        if (to - from === 2 && this.toks[from]!.kind === 'number' && this.toks[from + 1]!.kind === 'ident') throw tqlSyntax(`Expected ')' after TQL parameters, but found: ${this.toks[from + 1]!.text}`);
        exprs.push(this.tqlParam(from, to));
        if (!this.eatOp(',')) break;
      }
      if (exprs.length !== 3 && exprs.length !== 4) throw tqlSyntax(`Expected 3 or 4 expressions in TQL parameters (start, end, step, [lookback]), but found ${exprs.length}`);
      if (!this.eatOp(')')) throw tqlSyntax(`Expected ')' after TQL parameters, but found: ${describe(this.peek())}`);
      params = { start: exprs[0]!, end: exprs[1]!, step: exprs[2]!, ...(exprs[3] !== undefined && { lookback: exprs[3] }) };
    }
    const raw = this.peek();
    if (raw.kind !== 'raw') throw tqlSyntax(raw.kind === 'eof' ? 'empty TQL query' : syntaxMessage('a PromQL query', raw));
    this.pos++;
    this.expectEnd();
    // GreptimeDB skips commas between the parameters and the query.
    const split = splitAlias(raw.value.replace(/^[\s,]+/, ''));
    if ('error' in split) throw tqlSyntax(split.error);
    if (split.query === '') throw tqlSyntax('empty TQL query');
    return { mode, verbose, ...(format !== undefined && { format }), ...(params !== undefined && { params }), query: split.query, ...(split.alias !== undefined && { alias: split.alias }) };
  }

  /** A TQL parameter: a number (optionally signed), a string, or any other expression as SQL. */
  private tqlParam(from: number, to: number): TqlParam {
    const v = this.valueOf(from, to, false);
    switch (v.kind) {
      case 'number':
        return { kind: 'number', text: v.text };
      case 'string':
        return { kind: 'string', value: v.value };
      case 'sql':
        return { kind: 'sql', text: v.text };
      default:
        throw tqlSyntax(`Expected number, string or word, but have ${this.textOf(from, to)}`);
    }
  }

  /**
   * The CTEs of `WITH [RECURSIVE] name [(cols)] AS [[NOT] MATERIALIZED] (body), … <query>` whose
   * body is TQL (only EVAL, as GreptimeDB allows), with their offsets in the statement's text.
   */
  private tqlCtes(text: string): TqlCteQuery {
    const base = this.toks[0]!.start;
    this.expectKw('WITH');
    this.eatKw('RECURSIVE');
    const ctes: Array<TqlCteQuery['ctes'][number]> = [];
    for (;;) {
      const name = this.ident();
      if (this.peekOp('(')) this.identList();
      this.expectKw('AS');
      if (!this.eatKw('MATERIALIZED')) if (this.eatKw('NOT')) this.expectKw('MATERIALIZED');
      this.expectOp('(');
      const from = this.pos;
      let depth = 0;
      let close = from;
      for (; close < this.toks.length; close++) {
        const t = this.toks[close]!;
        if (StatementParser.isOp(t, '(')) depth++;
        else if (StatementParser.isOp(t, ')') && depth-- === 0) break;
      }
      if (close >= this.toks.length) {
        this.pos = close;
        throw this.expected(')');
      }
      if (this.kwAt(0, 'TQL')) {
        const body = new StatementParser(this.sql, this.toks.slice(from, close), this.toks[close]!);
        body.pos = 1; // past TQL
        const tql = body.tql();
        if (tql.mode !== 'eval') throw new TsdbError(StatusCode.InvalidSyntax, 'Invalid SQL, error: Only TQL EVAL is supported in CTEs');
        ctes.push({ name, start: this.toks[from]!.start - base, end: this.toks[close - 1]!.end - base, tql });
      } else {
        for (let i = from; i < close; i++) {
          if (this.toks[i]!.kind === 'raw') throw new TsdbError(StatusCode.InvalidSyntax, 'Invalid SQL, error: TQL is supported only as the whole body of a CTE of the outermost WITH');
        }
      }
      this.pos = close + 1;
      if (!this.eatOp(',')) break;
    }
    for (let i = this.pos; i < this.toks.length; i++) {
      if (this.toks[i]!.kind === 'raw') throw new TsdbError(StatusCode.InvalidSyntax, 'Invalid SQL, error: TQL is supported only as the whole body of a CTE of the outermost WITH');
    }
    return { sql: text, ctes };
  }

  private admin(text: string): Statement {
    const t = this.peek();
    if (t.kind !== 'ident') throw this.expected('function name');
    this.pos++;
    this.expectOp('(');
    const args: ValueExpr[] = [];
    while (!this.eatOp(')')) {
      const [from, to] = this.scanExpr(() => false);
      args.push(this.valueOf(from, to, false));
      if (!this.eatOp(',')) {
        this.expectOp(')');
        break;
      }
    }
    this.expectEnd();
    return { kind: 'admin', func: t.value.toLowerCase(), args, text };
  }

  private set(text: string): Statement {
    if (this.peekKw('GLOBAL') || (this.peek().kind === 'ident' && this.peek().value.toLowerCase().startsWith('@@global'))) {
      // SET GLOBAL x, SET @@global.x (`@@global` `.` `x` as tokens)
      const name = this.peekKw('GLOBAL') ? this.peek(1).value : this.peek().value.toLowerCase() === '@@global' && this.peekOp('.', 1) ? this.peek(2).value : this.peek().value.replace(/^@@global\./i, '');
      if (isEngineSetting(name)) throw outsideTheDatabase(`SET GLOBAL ${name}`);
      throw unsupported(this.peek().text);
    }
    if ((this.peekKw('SESSION') || this.peekKw('LOCAL')) && !this.peekOp('=', 1) && !this.kwAt(1, 'TO')) this.pos++;
    let variable: string;
    if (this.eatKw('TIME', 'ZONE')) variable = 'time_zone';
    else if (this.eatKw('NAMES')) variable = 'names';
    else if (this.peekKw('VARIABLE') && (this.peek(1).kind === 'ident' || this.peek(1).kind === 'quoted_ident')) throw outsideTheDatabase('SET VARIABLE');
    else {
      const parts = [this.ident()];
      while (this.eatOp('.')) parts.push(this.ident());
      variable = variableName(parts.join('.'));
      if (isEngineSetting(variable)) throw outsideTheDatabase(`SET ${variable}`);
      if (!this.eatOp('=') && !this.eatKw('TO')) throw this.expected('equals sign or TO');
    }
    if (this.atEnd()) throw this.expected('variable value');
    const value = this.valueOf(this.pos, this.toks.length, false);
    return { kind: 'set', variable, value, text };
  }
}
