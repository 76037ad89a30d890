/**
 * DuckDB's parse trees kept per statement shape — the text with its string and integer literals
 * taken out — so that a query of a shape seen before (a dashboard's or an application's query with
 * other values) is not sent to `json_serialize_sql` again: one DuckDB round trip less per query.
 *
 * A tree is kept for a shape only when each of the literals taken out is exactly one constant of
 * the tree, at the literal's offset and of its value (a VARCHAR constant for a string, an INTEGER
 * or BIGINT one for an integer); its parse then does not depend on the values, as DuckDB's grammar
 * reads a literal as one token whatever it holds. A later text of the shape gets the tree with its
 * own values in those constants and every `query_location` moved by the change of length of the
 * literals before it: what DuckDB would have given. Texts this cannot take apart for certain
 * (comments, dollar quotes, prefixed strings like `E'…'`, non-ASCII text, whose offsets are
 * bytes) are not kept; numbers other than integers stay part of the shape (their type follows
 * their digits).
 */
import { integerOf, parseSqlJson } from './sql-json.js';
import { readQuoted } from './table-splice.js';

/** A literal taken out of a text: where it is and what it holds. */
interface Literal {
  readonly start: number;
  readonly end: number;
  /** The string's value (quotes undone), or the integer's. */
  readonly value: string | bigint;
}

/** A text taken apart: its shape (the cache key) and its literals. */
export interface Shape {
  readonly key: string;
  readonly literals: readonly Literal[];
}

const INT32_MIN = -(2n ** 31n);
const INT32_MAX = 2n ** 31n - 1n;
const SAFE_MAX = BigInt(Number.MAX_SAFE_INTEGER);

/**
 * What an integer's constant type is, by DuckDB's rule for literals (INTEGER, else BIGINT): part
 * of the shape. Undefined beyond 2^53, where a tree holds the number as text: kept in the shape.
 */
function integerClass(v: bigint): string | undefined {
  if (v >= INT32_MIN && v <= INT32_MAX) return 'i';
  return v <= SAFE_MAX ? 'l' : undefined;
}

const WORD = /[A-Za-z0-9_$]/;
const NUMBER = /[0-9]+(\.[0-9]*)?([eE][+-]?[0-9]+)?|\.[0-9]+([eE][+-]?[0-9]+)?/y;

/** `sql` taken apart into its shape and literals, or undefined when it is not certain how. */
export function shapeOf(sql: string): Shape | undefined {
  if (!/^[\x00-\x7f]*$/.test(sql) || sql.includes('--') || sql.includes('/*') || sql.includes('$')) return undefined;
  const literals: Literal[] = [];
  let key = '';
  let from = 0;
  let i = 0;
  while (i < sql.length) {
    const c = sql[i]!;
    if (c === "'") {
      // A prefix (E'…', X'…', B'…', N'…', U&'…') changes what the quotes hold.
      if (i > 0 && (WORD.test(sql[i - 1]!) || sql[i - 1] === '&')) return undefined;
      const quoted = readQuoted(sql, i, "'");
      if (quoted === undefined) return undefined;
      const j = quoted.end;
      // Strings next to each other are one string in the grammar.
      if (/^\s*'/.test(sql.slice(j, j + 64))) return undefined;
      key += sql.slice(from, i) + "\u0000s";
      literals.push({ start: i, end: j, value: quoted.text });
      from = i = j;
      continue;
    }
    if (c === '"') {
      const quoted = readQuoted(sql, i, '"');
      if (quoted === undefined) return undefined;
      i = quoted.end;
      continue;
    }
    if ((c >= '0' && c <= '9') || (c === '.' && /[0-9]/.test(sql[i + 1] ?? ''))) {
      if (i > 0 && (WORD.test(sql[i - 1]!) || sql[i - 1] === '.')) {
        i++;
        continue;
      }
      NUMBER.lastIndex = i;
      const m = NUMBER.exec(sql);
      if (m === null) return undefined;
      const end = i + m[0].length;
      if (WORD.test(sql[end] ?? ' ')) return undefined;
      const cls = /^[0-9]+$/.test(m[0]) ? integerClass(BigInt(m[0])) : undefined;
      if (cls !== undefined) {
        key += sql.slice(from, i) + `\u0000${cls}`;
        literals.push({ start: i, end, value: BigInt(m[0]) });
        from = end;
      }
      i = end;
      continue;
    }
    if (WORD.test(c)) {
      while (i < sql.length && WORD.test(sql[i]!)) i++;
      continue;
    }
    i++;
  }
  return { key: key + sql.slice(from), literals };
}

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

function isObject(n: unknown): n is { [k: string]: Json } {
  return typeof n === 'object' && n !== null && !Array.isArray(n);
}

/** The constant a literal is in `tree`: its value node, found by offset. */
function constantsAt(tree: unknown, offsets: ReadonlyMap<number, number>, visit: (literal: number, value: { [k: string]: Json }) => void): void {
  const walk = (n: unknown): void => {
    if (Array.isArray(n)) {
      for (const x of n) walk(x);
      return;
    }
    if (!isObject(n)) return;
    if (n['class'] === 'CONSTANT' && typeof n['query_location'] === 'number' && isObject(n['value'])) {
      const literal = offsets.get(n['query_location']);
      if (literal !== undefined) visit(literal, n['value']);
    }
    for (const k in n) {
      const v = n[k];
      if (typeof v === 'object' && v !== null) walk(v);
    }
  };
  walk(tree);
}

/** Whether each literal of `shape` is exactly one constant of `tree` (parsed from its text), of its value. */
function literalsAreConstants(tree: unknown, shape: Shape): boolean {
  const offsets = new Map(shape.literals.map((l, i) => [l.start, i]));
  const seen = new Array<number>(shape.literals.length).fill(0);
  let ok = true;
  constantsAt(tree, offsets, (i, value) => {
    seen[i]!++;
    const literal = shape.literals[i]!;
    const type = isObject(value['type']) ? value['type']['id'] : undefined;
    if (value['is_null'] !== false) ok = false;
    else if (typeof literal.value === 'string') ok &&= type === 'VARCHAR' && value['value'] === literal.value;
    else ok &&= (type === 'INTEGER' || type === 'BIGINT') && integerOf(value['value']) === literal.value;
  });
  return ok && seen.every((n) => n === 1);
}

/** A kept tree: the parse of `text`, whose literals were `literals`. */
interface Entry {
  readonly tree: string;
  readonly literals: readonly Literal[];
}

/** Shapes kept, most recently used last; `null`: a shape whose trees are not kept. */
export class ParseCache {
  private readonly entries = new Map<string, Entry | null>();
  /** Characters of the kept keys and trees. */
  private chars = 0;

  constructor(
    private readonly maxEntries = 2048,
    private readonly maxTextLength = 16 * 1024,
    /** Characters of keys and trees kept at most (~2 bytes each). */
    private readonly maxChars = 16 * 1024 * 1024,
  ) {}

  get size(): number {
    return this.entries.size;
  }

  /**
   * The parse tree of `sql`: DuckDB's `json_serialize_sql` text (`serialize`) read by
   * `parseSqlJson`, from the cache when a text of its shape was parsed before. Trees are kept as
   * DuckDB's text: each use reads its own, which rewrites may change.
   */
  async parse(sql: string, serialize: (sql: string) => Promise<string>): Promise<unknown> {
    const shape = sql.length <= this.maxTextLength ? shapeOf(sql) : undefined;
    if (shape === undefined) return parseSqlJson(await serialize(sql));
    const entry = this.entries.get(shape.key);
    if (entry !== undefined) {
      this.entries.delete(shape.key);
      this.entries.set(shape.key, entry);
      if (entry !== null) return this.fill(parseSqlJson(entry.tree), entry.literals, shape.literals);
      return parseSqlJson(await serialize(sql));
    }
    const text = await serialize(sql);
    const tree = parseSqlJson(text);
    // A text that does not parse is not kept: its error message quotes it.
    if (!(isObject(tree) && tree['error'] === true)) {
      const entry = literalsAreConstants(tree, shape) ? { tree: text, literals: shape.literals } : null;
      this.entries.set(shape.key, entry);
      this.chars += shape.key.length + (entry?.tree.length ?? 0);
      while (this.entries.size > this.maxEntries || (this.chars > this.maxChars && this.entries.size > 0)) {
        const [key, old] = this.entries.entries().next().value!;
        this.entries.delete(key);
        this.chars -= key.length + (old?.tree.length ?? 0);
      }
    }
    return tree;
  }

  /** `tree` (of a text whose literals were `was`) made the tree of the text whose literals are `now`. */
  private fill(tree: unknown, was: readonly Literal[], now: readonly Literal[]): unknown {
    const offsets = new Map(was.map((l, i) => [l.start, i]));
    constantsAt(tree, offsets, (i, value) => {
      const v = now[i]!.value;
      value['value'] = typeof v === 'string' ? v : Number(v);
    });
    // Every offset after a literal moves by the change of that literal's length.
    const moves = was.map((l, i) => ({ at: l.start, by: now[i]!.end - now[i]!.start - (l.end - l.start) })).filter((m) => m.by !== 0);
    if (moves.length > 0) {
      const walk = (n: unknown): void => {
        if (Array.isArray(n)) {
          for (const x of n) walk(x);
          return;
        }
        if (!isObject(n)) return;
        const at = n['query_location'];
        if (typeof at === 'number' && at > 0) {
          let by = 0;
          for (const m of moves) if (m.at < at) by += m.by;
          n['query_location'] = at + by;
        }
        for (const k in n) {
          const v = n[k];
          if (typeof v === 'object' && v !== null) walk(v);
        }
      };
      walk(tree);
    }
    return tree;
  }
}
