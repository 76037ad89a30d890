/**
 * The types of a prepared statement's parameters, inferred from where they stand, as PostgreSQL
 * and GreptimeDB (DataFusion's `get_parameter_types`) infer them: a parameter given as a value of an
 * INSERT takes its column's type, one compared with a column (`c = $1`, `$1 < t.c`, `c IN ($1, $2)`,
 * `c BETWEEN $1 AND $2`, `c LIKE $1`) that column's, one cast (`$1::BIGINT`, `CAST(? AS DOUBLE)`)
 * the cast's. Anything else stays unknown. Best effort: a statement the lexer cannot read, or that
 * names unknown tables, has no inferred types (running it reports the error).
 *
 * Placeholders are PostgreSQL's `$n` or MySQL's `?` (numbered from 1 in order of appearance).
 */
import { columnTypeOf } from '../catalog/column-types.js';
import { tokenize, type Token } from '../sql/lexer.js';
import { foldLiteralLists } from '../sql/literal-lists.js';

/** The columns of a table (`[table]` or `[database, table]`): name → tsdb type; undefined when unknown. */
export type ColumnLookup = (name: readonly string[]) => Promise<ReadonlyMap<string, string> | undefined>;

export type PlaceholderStyle = 'dollar' | 'question';

const COMPARISONS = new Set(['=', '==', '<>', '!=', '<', '<=', '>', '>=', '<=>']);

/** Parameter number (from 1) → tsdb type name (`Int64`, `TimestampMillisecond`, …). */
export async function inferParamTypes(sql: string, style: PlaceholderStyle, lookup: ColumnLookup): Promise<Map<number, string>> {
  const out = new Map<number, string>();
  let tokens: Token[];
  try {
    // Long literal lists hold no parameter and say nothing of one: not tokenized (`sql/literal-lists.ts`).
    tokens = tokenize(foldLiteralLists(sql)?.text ?? sql);
  } catch {
    return out;
  }
  // Placeholder number of each token index.
  const params = new Map<number, number>();
  let next = 1;
  tokens.forEach((t, i) => {
    if (style === 'question' && t.kind === 'op' && t.value === '?') params.set(i, next++);
    if (style === 'dollar' && t.kind === 'ident' && /^\$\d+$/.test(t.value)) params.set(i, Number(t.value.slice(1)));
  });
  if (params.size === 0) return out;

  const columns = new Map<string, string>();
  for (const name of tableNames(tokens)) {
    const cols = await lookup(name);
    if (cols !== undefined) for (const [k, v] of cols) if (!columns.has(k)) columns.set(k, v);
  }
  const set = (n: number | undefined, type: string | undefined): void => {
    if (n !== undefined && type !== undefined && !out.has(n)) out.set(n, type);
  };

  insertValueTypes(tokens, params, columns, set);
  const columnAt = (i: number): string | undefined => columnRefBefore(tokens, i, columns);
  for (const [i, n] of params) {
    set(n, castType(tokens, i));
    const prev = tokens[i - 1];
    const after = tokens[i + 1];
    if (prev?.kind === 'op' && COMPARISONS.has(prev.value)) set(n, columnAt(i - 2));
    if (after?.kind === 'op' && COMPARISONS.has(after.value)) set(n, columnAfter(tokens, i + 2, columns));
    if (prev !== undefined && isKeyword(prev, 'LIKE', 'ILIKE')) set(n, columnAt(i - 2) === undefined ? undefined : 'String');
    if (prev !== undefined && isKeyword(prev, 'BETWEEN')) set(n, columnAt(i - 2));
    if (prev !== undefined && isKeyword(prev, 'AND') && isKeyword(tokens[i - 3], 'BETWEEN')) set(n, columnAt(i - 4));
    set(n, inListColumn(tokens, i, columnAt));
  }
  return out;
}

function isKeyword(t: Token | undefined, ...words: string[]): boolean {
  return t !== undefined && t.kind === 'ident' && words.includes(t.value.toUpperCase());
}

/** An identifier's name as stored: unquoted ones lower-cased. */
function nameOf(t: Token): string {
  return t.kind === 'quoted_ident' ? t.value : t.value.toLowerCase();
}

function isName(t: Token | undefined): t is Token {
  return t !== undefined && (t.kind === 'quoted_ident' || (t.kind === 'ident' && !t.value.startsWith('$')));
}

/** Tables named after FROM, JOIN, INTO, UPDATE (`t`, `db.t`). */
function tableNames(tokens: readonly Token[]): string[][] {
  const out: string[][] = [];
  for (let i = 0; i < tokens.length; i++) {
    if (!isKeyword(tokens[i], 'FROM', 'JOIN', 'INTO', 'UPDATE')) continue;
    let j = i + 1;
    if (isKeyword(tokens[j], 'TABLE')) j++;
    if (!isName(tokens[j])) continue;
    const parts = [nameOf(tokens[j]!)];
    while (tokens[j + 1]?.kind === 'op' && tokens[j + 1]!.value === '.' && isName(tokens[j + 2])) {
      parts.push(nameOf(tokens[j + 2]!));
      j += 2;
    }
    if (tokens[j + 1]?.kind === 'op' && tokens[j + 1]!.value === '(' && !isKeyword(tokens[i], 'INTO')) continue; // a table function
    out.push(parts);
  }
  return out;
}

/** The column a reference ending at token `i` (`c`, `t.c`) names, when it is a known column. */
function columnRefBefore(tokens: readonly Token[], i: number, columns: ReadonlyMap<string, string>): string | undefined {
  const t = tokens[i];
  if (!isName(t)) return undefined;
  return columns.get(nameOf(t));
}

/** The column a reference starting at token `i` names (`c`, `t.c`, `db.t.c`). */
function columnAfter(tokens: readonly Token[], i: number, columns: ReadonlyMap<string, string>): string | undefined {
  let j = i;
  if (!isName(tokens[j])) return undefined;
  while (tokens[j + 1]?.kind === 'op' && tokens[j + 1]!.value === '.' && isName(tokens[j + 2])) j += 2;
  // Not a function call.
  if (tokens[j + 1]?.kind === 'op' && tokens[j + 1]!.value === '(') return undefined;
  return columns.get(nameOf(tokens[j]!));
}

/** `$1::TYPE[(n)] [UNSIGNED]` or `CAST($1 AS TYPE[(n)] [UNSIGNED])`: the tsdb type of the cast. */
function castType(tokens: readonly Token[], i: number): string | undefined {
  let j: number;
  if (tokens[i + 1]?.kind === 'op' && tokens[i + 1]!.value === '::') j = i + 2;
  else if (isKeyword(tokens[i - 2], 'CAST') && tokens[i - 1]?.value === '(' && isKeyword(tokens[i + 1], 'AS')) j = i + 2;
  else return undefined;
  const name = tokens[j];
  if (name?.kind !== 'ident') return undefined;
  const args: number[] = [];
  let k = j + 1;
  if (tokens[k]?.value === '(') {
    k++;
    while (tokens[k]?.kind === 'number') {
      args.push(Number(tokens[k]!.value));
      k++;
      if (tokens[k]?.value === ',') k++;
    }
    if (tokens[k]?.value !== ')') return undefined;
    k++;
  }
  const unsigned = isKeyword(tokens[k], 'UNSIGNED');
  try {
    return columnTypeOf({ name: name.value, args, unsigned });
  } catch {
    return undefined;
  }
}

/** `c [NOT] IN (…, $1, …)`: the column's type for a parameter of the list. */
function inListColumn(tokens: readonly Token[], i: number, columnAt: (i: number) => string | undefined): string | undefined {
  let j = i - 1;
  while (j >= 0 && tokens[j]!.value !== '(') {
    const t = tokens[j]!;
    if (!(t.value === ',' || t.kind === 'number' || t.kind === 'string' || (t.kind === 'ident' && t.value.startsWith('$')) || t.value === '?')) return undefined;
    j--;
  }
  if (!isKeyword(tokens[j - 1], 'IN')) return undefined;
  return columnAt(isKeyword(tokens[j - 2], 'NOT') ? j - 3 : j - 2);
}

/** `INSERT|REPLACE INTO t [(c, …)] VALUES (…), …`: each value that is a lone parameter takes its column's type. */
function insertValueTypes(
  tokens: readonly Token[],
  params: ReadonlyMap<number, number>,
  columns: ReadonlyMap<string, string>,
  set: (n: number | undefined, type: string | undefined) => void,
): void {
  if (!isKeyword(tokens[0], 'INSERT', 'REPLACE')) return;
  let i = 1;
  if (isKeyword(tokens[i], 'INTO')) i++;
  if (isKeyword(tokens[i], 'TABLE')) i++;
  if (!isName(tokens[i])) return;
  while (tokens[i + 1]?.value === '.' && isName(tokens[i + 2])) i += 2;
  i++;
  let targets: string[] | undefined;
  if (tokens[i]?.value === '(') {
    targets = [];
    i++;
    while (isName(tokens[i])) {
      targets.push(nameOf(tokens[i]!));
      i++;
      if (tokens[i]?.value === ',') i++;
    }
    if (tokens[i]?.value !== ')') return;
    i++;
  }
  if (!isKeyword(tokens[i], 'VALUES')) return;
  const types = targets === undefined ? [...columns.values()] : targets.map((c) => columns.get(c));
  i++;
  // Rows: ( v, v, … ) [, ( … )]…; a value is the tokens between commas at depth 1.
  while (tokens[i]?.value === '(') {
    let depth = 1;
    let k = 0;
    let start = i + 1;
    i++;
    for (; i < tokens.length && depth > 0; i++) {
      const v = tokens[i]!.value;
      const op = tokens[i]!.kind === 'op';
      if (op && v === '(') depth++;
      else if (op && v === ')') depth--;
      if ((op && v === ',' && depth === 1) || depth === 0) {
        if (i - start === 1 && params.has(start)) set(params.get(start), types[k]);
        k++;
        start = i + 1;
      }
    }
    if (tokens[i]?.value === ',') i++;
  }
}
