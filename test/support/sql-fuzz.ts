/**
 * A seeded generator of broken SQL for the fuzz test (`test/integration/sql-fuzz.test.ts`): it takes
 * valid statements (the golden cases') and mutates them — truncations, token deletions,
 * duplications, swaps and replacements, inserted fragments (keywords, operators, punctuation, huge
 * numbers, control bytes, unicode, very long identifiers, deep parentheses, unterminated strings and
 * comments, parameters), literals and words replaced by others (statements that still run, with
 * awkward values and mismatched columns) and splices of two statements. Pure: the same seed gives the same
 * statements, whatever the server answers.
 */

/** A deterministic pseudo-random source (mulberry32 over a 32-bit state). */
export class Rng {
  private state: number;

  constructor(seed: number) {
    this.state = seed >>> 0;
  }

  /** A float in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let z = this.state;
    z = Math.imul(z ^ (z >>> 15), z | 1);
    z ^= z + Math.imul(z ^ (z >>> 7), z | 61);
    return ((z ^ (z >>> 14)) >>> 0) / 4294967296;
  }

  /** An integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.next() * n);
  }

  /** An integer in [lo, hi]. */
  between(lo: number, hi: number): number {
    return lo + this.int(hi - lo + 1);
  }

  pick<T>(xs: readonly T[]): T {
    return xs[this.int(xs.length)]!;
  }

  chance(p: number): boolean {
    return this.next() < p;
  }
}

/**
 * The fuzzer's own token split: quoted runs (possibly unterminated), comments, words, numbers,
 * whitespace runs and single other characters. Never fails; the tokens joined give `sql` back.
 */
export function fuzzTokens(sql: string): string[] {
  const re = /'(?:[^']|'')*'?|"(?:[^"]|"")*"?|`(?:[^`]|``)*`?|--[^\n]*\n?|\/\*[\s\S]*?(?:\*\/|$)|[A-Za-z_$@\u0080-\uffff][\w$@\u0080-\uffff]*|\d+(?:\.\d*)?(?:[eE][+-]?\d+)?|\s+|[\s\S]/gu;
  return sql.match(re) ?? [];
}

/** Indexes of the tokens that are not whitespace. */
function solid(tokens: readonly string[]): number[] {
  const out: number[] = [];
  tokens.forEach((t, i) => {
    if (!/^\s+$/.test(t)) out.push(i);
  });
  return out;
}

const KEYWORDS = [
  'SELECT', 'FROM', 'WHERE', 'GROUP BY', 'ORDER BY', 'HAVING', 'LIMIT', 'OFFSET', 'DISTINCT', 'DISTINCT ON', 'UNION ALL', 'JOIN', 'LEFT JOIN',
  'ON', 'AS', 'CAST', 'TRY_CAST', 'INTERVAL', 'CASE', 'WHEN', 'THEN', 'ELSE', 'END', 'AND', 'OR', 'NOT', 'IS', 'NULL', 'IN', 'LIKE',
  'BETWEEN', 'EXISTS', 'TRUE', 'FALSE', 'DEFAULT', 'RANGE', 'ALIGN', 'BY', 'FILL', 'TO', 'NOW', 'PREV', 'LINEAR', 'CREATE', 'TABLE',
  'DATABASE', 'IF NOT EXISTS', 'IF EXISTS', 'TIME INDEX', 'PRIMARY KEY', 'ENGINE', 'WITH', 'DROP', 'ALTER', 'ADD COLUMN', 'MODIFY COLUMN',
  'RENAME', 'SET', 'UNSET', 'INSERT INTO', 'REPLACE INTO', 'VALUES', 'DELETE', 'TRUNCATE', 'SHOW', 'DESC', 'EXPLAIN', 'EXPLAIN ANALYZE',
  'ADMIN', 'USE', 'TQL', 'FULL', 'COLUMNS', 'TABLES', 'INDEX', 'TIMESTAMP', 'TIMESTAMP(9)', 'STRING', 'DOUBLE', 'BIGINT UNSIGNED',
  'VARBINARY', 'TINYINT', 'COMMENT', 'FIRST', 'AFTER', 'LATERAL', 'UNNEST', 'QUALIFY', 'WINDOW', 'OVER', 'PARTITION BY', 'RECURSIVE',
  'PIVOT', 'SAMPLE', 'COPY', 'ATTACH', 'PRAGMA', 'INSTALL', 'LOAD', 'CALL', 'PREPARE', 'EXECUTE',
];
const OPERATORS = ['+', '-', '*', '/', '%', '=', '==', '<>', '!=', '<', '>', '<=', '>=', '<=>', '||', '::', '->', '->>', '&', '|', '^', '~', '<<', '>>', '!', '@', '#', ':=', '=>', '**', '^@', '~~'];
const PUNCTUATION = ['(', ')', ',', ';', '.', '[', ']', '{', '}', '..', '()', '(,)', ',,', ';;', '*.*'];
const NUMBERS = [
  '0', '-0', '1', '-1', '00', '0.0', '.5', '5.', '1e309', '-1e309', '1e-400', '1.7976931348623157e308', '4.9e-324', '9223372036854775807',
  '9223372036854775808', '-9223372036854775808', '-9223372036854775809', '18446744073709551615', '18446744073709551616',
  '170141183460469231731687303715884105728', '340282366920938463463374607431768211456', '99999999999999999999999999999999999999999',
  '0x7fffffffffffffff', '0xffffffffffffffffff', '0x', '0b101', '1_000', '1e', '1e+', '2147483648', '4294967296', '65536', '1.5e10',
];
const CONTROL = ['\u0000', '\u0001', '\u0007', '\b', '\u000b', '\f', '\u001b', '\u001f', '\u007f', '\u0085', '\u00a0', '\u2028', '\u2029', '\ufeff', '\ufffd', '\ud800', '\udfff'];
const UNICODE = ['é', 'ÿ', 'Ω', 'ß', 'İ', 'ǅ', '漢字', 'データ', '😀', '👩‍👩‍👧', '\u202e', 'a\u0301', 'ﬁ', '𝔘', 'Ⅻ', '٣'];
const TIMES = [
  "'2024-01-01 00:00:00'", "'2024-02-30'", "'9999-12-31 23:59:59.999999999'", "'0000-01-01'", "'-infinity'", "'infinity'", "'epoch'",
  "'1970-01-01T00:00:00Z'", "'2024-01-01T00:00:00+25:00'", "'5m'", "'0s'", "'-1s'", "'1000000000000y'", "'1h30m'", "'1.5s'", "'9999999999999999999ms'",
  "INTERVAL '1' DAY", "INTERVAL '-1 day'", "INTERVAL '99999999 years'", "(INTERVAL '1' minute)", "now()", "now() - INTERVAL '5m'",
];
const PARAMETERS = ['$1', '$0', '$99999', '?', '$ts', '$', ':name', ':1', '@x', '@@version', '@@session.time_zone', '$$', '$tag$x$tag$'];
const UNTERMINATED = ["'abc", '"abc', '`abc', '/* abc', '/* /* x */', "X'ab", "x'", "E'\\", "'it''s", '"a""', "''''", '--'];

/** A string literal with awkward content. */
function stringLiteral(r: Rng): string {
  const parts = [r.pick(['', 'x', "''", '%', '_', '\\', '\\0', '\n', ' ']), r.pick([...CONTROL, ...UNICODE, 'abc', ''])];
  if (r.chance(0.1)) parts.push('y'.repeat(r.pick([1000, 70000])));
  return `'${parts.join('').replaceAll("'", "''")}'`;
}

/** An identifier far longer than usual, quoted or not. */
function longIdent(r: Rng): string {
  const name = r.pick(['a', 'x_', 'Z9']).repeat(r.pick([64, 65, 255, 256, 1024, 70000]) / 2);
  return r.chance(0.5) ? `"${name}"` : name;
}

/** Deeply nested parentheses, balanced or not. */
function nested(r: Rng): string {
  const depth = r.pick([40, 100, 1000, 5000]);
  const inner = r.pick(['1', '(', 'SELECT 1', 'v', "'x'", '']);
  const close = r.chance(0.7) ? ')'.repeat(depth) : ')'.repeat(r.int(depth));
  return `${'('.repeat(depth)}${inner}${close}`;
}

/** One fragment to insert or to replace a token with. */
export function fragment(r: Rng): string {
  switch (r.int(14)) {
    case 0:
    case 1:
      return r.pick(KEYWORDS);
    case 2:
      return r.pick(OPERATORS);
    case 3:
      return r.pick(PUNCTUATION);
    case 4:
    case 5:
      return r.chance(0.8) ? r.pick(NUMBERS) : `${r.pick(['', '-'])}${'9'.repeat(r.between(19, 80))}`;
    case 6:
      return stringLiteral(r);
    case 7:
      return r.pick(CONTROL);
    case 8:
      return r.pick(UNICODE);
    case 9:
      return longIdent(r);
    case 10:
      return nested(r);
    case 11:
      return r.pick(UNTERMINATED);
    case 12:
      return r.pick(TIMES);
    default:
      return r.chance(0.7) ? r.pick(PARAMETERS) : r.pick(['-- c\n', '/* c */', '/**/', '-- \u0000\n']);
  }
}

/** The mutation operators, by name. */
export const OPERATIONS = ['truncate-char', 'truncate-token', 'delete-token', 'duplicate-token', 'swap-tokens', 'insert', 'replace', 'replace-literal', 'replace-word', 'splice'] as const;
export type Operation = (typeof OPERATIONS)[number];

/** A literal to put in place of another: most statements stay valid and run, with awkward values. */
function literal(r: Rng): string {
  switch (r.int(4)) {
    case 0:
      return r.chance(0.85) ? r.pick(NUMBERS) : `${r.pick(['', '-'])}${'9'.repeat(r.between(19, 80))}`;
    case 1:
      return stringLiteral(r);
    case 2:
      return r.pick(TIMES);
    default:
      return r.pick(['NULL', 'DEFAULT', 'TRUE', 'FALSE', "X'00ff'", '0x00', "''", "'NaN'", "'-inf'", '-0.0', '1.0e-310']);
  }
}

const isLiteral = (t: string) => /^(?:'|\d|\.\d)/.test(t);
const isWord = (t: string) => /^[A-Za-z_"`]/.test(t);

function apply(r: Rng, op: Operation, sql: string, corpus: readonly string[]): string {
  if (op === 'truncate-char') return sql.slice(0, r.int(sql.length + 1));
  const tokens = fuzzTokens(sql);
  const at = solid(tokens);
  if (at.length === 0) return op === 'insert' || op === 'replace' ? fragment(r) : sql;
  const sep = () => r.pick([' ', ' ', '', '\n']);
  switch (op) {
    case 'truncate-token':
      return tokens.slice(0, at[r.int(at.length)]! + (r.chance(0.5) ? 1 : 0)).join('');
    case 'delete-token': {
      const i = r.pick(at);
      return [...tokens.slice(0, i), ...tokens.slice(i + 1)].join('');
    }
    case 'duplicate-token': {
      const i = r.pick(at);
      const copies = r.chance(0.9) ? 1 : r.between(2, 50);
      return [...tokens.slice(0, i + 1), ...Array.from({ length: copies }, () => sep() + tokens[i]!), ...tokens.slice(i + 1)].join('');
    }
    case 'swap-tokens': {
      const i = r.pick(at);
      const j = r.chance(0.5) ? (at[at.indexOf(i) + 1] ?? r.pick(at)) : r.pick(at);
      const out = [...tokens];
      [out[i], out[j]] = [out[j]!, out[i]!];
      return out.join('');
    }
    case 'insert': {
      const i = r.int(tokens.length + 1);
      return [...tokens.slice(0, i), sep(), fragment(r), sep(), ...tokens.slice(i)].join('');
    }
    case 'replace': {
      const i = r.pick(at);
      return [...tokens.slice(0, i), fragment(r), ...tokens.slice(i + 1)].join('');
    }
    case 'replace-literal': {
      const literals = at.filter((i) => isLiteral(tokens[i]!));
      const i = literals.length > 0 ? r.pick(literals) : r.pick(at);
      return [...tokens.slice(0, i), literal(r), ...tokens.slice(i + 1)].join('');
    }
    case 'replace-word': {
      // Another statement's word (a column, table, function or keyword) in place of one of this one's.
      const words = at.filter((i) => isWord(tokens[i]!));
      const others = fuzzTokens(r.pick(corpus)).filter(isWord);
      if (words.length === 0 || others.length === 0) return sql;
      const i = r.pick(words);
      return [...tokens.slice(0, i), r.pick(others), ...tokens.slice(i + 1)].join('');
    }
    case 'splice': {
      const other = fuzzTokens(r.pick(corpus));
      const cut = r.int(tokens.length + 1);
      const from = r.int(other.length + 1);
      return [...tokens.slice(0, cut), sep(), ...other.slice(from)].join('');
    }
  }
}

export interface Mutant {
  /** The statement the mutant was made from (an index into the corpus). */
  readonly base: number;
  readonly ops: readonly Operation[];
  readonly sql: string;
}

/** Statements longer than this are cut (the server's body limit is far above; this keeps runs fast). */
const MAX_LENGTH = 200_000;

/** One mutant of a random corpus statement: one to three operations. */
export function mutate(r: Rng, corpus: readonly string[]): Mutant {
  const base = r.int(corpus.length);
  let sql = corpus[base]!;
  const ops: Operation[] = [];
  const n = r.pick([1, 1, 1, 2, 2, 3]);
  for (let k = 0; k < n; k++) {
    // Insertions and replacements reach further than cuts: they keep most of the statement valid.
    const op = r.pick<Operation>(['truncate-char', 'truncate-token', 'delete-token', 'duplicate-token', 'swap-tokens', 'insert', 'insert', 'insert', 'replace', 'replace', 'replace-literal', 'replace-literal', 'replace-literal', 'replace-word', 'replace-word', 'splice']);
    ops.push(op);
    sql = apply(r, op, sql, corpus);
  }
  return { base, ops, sql: sql.length > MAX_LENGTH ? sql.slice(0, MAX_LENGTH) : sql };
}

/** `count` mutants of `corpus` from `seed`: the same arguments give the same list. */
export function* mutants(seed: number, corpus: readonly string[], count: number): Generator<Mutant> {
  const r = new Rng(seed);
  for (let i = 0; i < count; i++) yield mutate(r, corpus);
}
