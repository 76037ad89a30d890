/**
 * Long literal lists of `IN (…)` folded out of SQL text, and put back just before DuckDB runs it.
 *
 * `SELECT count(*) FROM t WHERE v IN (0, 1, …, 999999)` is 7 MB of text whose elements no step of
 * tsdb needs to see one by one; handled like any query, each element would be a token of the lexer
 * and a node of DuckDB's parse tree (serialized, parsed, walked by every rewrite, written back), all
 * on the event loop: seconds during which the server answers nothing. Folded, the list's elements
 * are replaced by one marker identifier (`__tsdb_list_<nonce>_<k>`, a per-process nonce), which DuckDB
 * parses as a column reference: the tree stays small, and the key-predicate and time-literal rewrites
 * see a column, not values. The elements' text is kept and replaces the marker in the final query
 * text (`query/query-executor.ts`), rewritten there as the tree rewrites would have rewritten each
 * literal (`query/folded-lists.ts`).
 *
 * Only lists of at least `MIN_FOLDED_ELEMENTS` plain literals are folded: numbers (an optional `-`
 * touching the digits; no hex, no `_`) and `'strings'`, separated by commas and whitespace, nothing
 * else (no comment, cast, NULL or expression), so a marker stands for nothing the sandbox would have
 * to check. The scan here only proposes: an `IN (` inside a string or comment (by this scan's
 * reading) is skipped, and the executor checks in DuckDB's own parse tree that each marker is the
 * one element of an IN list, else runs the statement as written.
 */
import { randomBytes } from 'node:crypto';
import type { Statement } from './ast.js';
import { parseSql } from './parser.js';
import { blockCommentEnd } from './lexer.js';

/** Elements a literal list needs to be folded: below, the tree path costs a few milliseconds. */
export const MIN_FOLDED_ELEMENTS = 1000;

/** Every marker starts so; the nonce keeps user text from matching. */
export const LIST_MARKER_PREFIX = `__tsdb_list_${randomBytes(6).toString('hex')}_`;

/** A marker in SQL text, as written here or by DuckDB (an identifier it may quote). */
export const LIST_MARKER_PATTERN = new RegExp(`"?${LIST_MARKER_PREFIX}\\d+"?`, 'g');

/** What an element of a folded list is, as DuckDB reads it. */
export type ElementKind =
  /** A `'string'` (a VARCHAR constant). */
  | 'string'
  /** An integer in BIGINT's range (an INTEGER or BIGINT constant). */
  | 'integer'
  /** Any other number: a decimal, an exponent, an integer beyond BIGINT (DECIMAL, DOUBLE, HUGEINT constants). */
  | 'number';

/** A list folded out of the text. */
export interface LiteralList {
  readonly marker: string;
  /** The elements as written, from the first one's start to the last one's end. */
  readonly source: string;
  readonly elements: number;
  /** Elements of each kind. */
  readonly strings: number;
  readonly integers: number;
}

/** SQL text with its long literal lists folded. */
export interface FoldedSql {
  readonly text: string;
  /** The lists by marker. */
  readonly lists: ReadonlyMap<string, LiteralList>;
}

function isSpace(c: number): boolean {
  return c === 32 || (c >= 9 && c <= 13);
}

function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}

/** Characters of identifiers (the lexer's, `lexer.ts`), and digits. */
function isWordChar(c: number): boolean {
  return (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || isDigit(c) || c === 95 || c === 64 || c === 36 || c >= 0x80;
}

const INT64_MAX = '9223372036854775807';
const INT64_MIN = '9223372036854775808';

/** Whether the digits (no sign), negated or not, are in BIGINT's range. */
function fitsBigint(digits: string, negative: boolean): boolean {
  const d = digits.replace(/^0+(?=\d)/, '');
  if (d.length !== 19) return d.length < 19;
  return d <= (negative ? INT64_MIN : INT64_MAX);
}

/** The element starting at `i`: its end and kind, or undefined when none starts there. */
function elementAt(sql: string, i: number): { end: number; kind: ElementKind } | undefined {
  const c = sql.charCodeAt(i);
  if (c === 39) {
    let from = i + 1;
    for (;;) {
      const close = sql.indexOf("'", from);
      if (close < 0) return undefined;
      if (sql.charCodeAt(close + 1) === 39) {
        from = close + 2;
        continue;
      }
      return { end: close + 1, kind: 'string' };
    }
  }
  let j = i;
  if (c === 45) j++;
  const digitsStart = j;
  while (isDigit(sql.charCodeAt(j))) j++;
  const intEnd = j;
  let plain = true;
  if (sql.charCodeAt(j) === 46) {
    plain = false;
    j++;
    while (isDigit(sql.charCodeAt(j))) j++;
  }
  if (j - digitsStart - (plain ? 0 : 1) <= 0) return undefined;
  const e = sql.charCodeAt(j);
  if (e === 101 || e === 69) {
    plain = false;
    let k = j + 1;
    const sign = sql.charCodeAt(k);
    if (sign === 43 || sign === 45) k++;
    if (!isDigit(sql.charCodeAt(k))) return undefined;
    while (isDigit(sql.charCodeAt(k))) k++;
    j = k;
  }
  const kind: ElementKind = plain && fitsBigint(sql.slice(digitsStart, intEnd), c === 45) ? 'integer' : 'number';
  return { end: j, kind };
}

interface ScannedList {
  /** The first element's start, the last one's end, the closing parenthesis. */
  readonly start: number;
  readonly end: number;
  readonly close: number;
  readonly elements: number;
  readonly strings: number;
  readonly integers: number;
}

/** The literal list after an opening parenthesis (`at` is just past it), or undefined when the parenthesis holds anything else. */
function scanList(sql: string, at: number): ScannedList | undefined {
  let i = at;
  while (isSpace(sql.charCodeAt(i))) i++;
  const start = i;
  let elements = 0;
  let strings = 0;
  let integers = 0;
  for (;;) {
    const el = elementAt(sql, i);
    if (el === undefined) return undefined;
    elements++;
    if (el.kind === 'string') strings++;
    else if (el.kind === 'integer') integers++;
    const end = el.end;
    i = end;
    while (isSpace(sql.charCodeAt(i))) i++;
    const c = sql.charCodeAt(i);
    if (c === 41) {
      // A NUL would end the text for DuckDB's parser: such a list stays where it is.
      if (strings > 0 && sql.slice(start, end).includes('\0')) return undefined;
      return { start, end, close: i, elements, strings, integers };
    }
    if (c !== 44) return undefined;
    i++;
    while (isSpace(sql.charCodeAt(i))) i++;
  }
}

/**
 * Where code resumes after the string, quoted identifier, comment or dollar-quoted string that
 * starts at `i`, or `i` when none starts there (undefined: it does not end).
 */
function skipQuoted(sql: string, i: number): number | undefined {
  const c = sql.charCodeAt(i);
  if (c === 39 || c === 34 || c === 96) {
    const q = sql[i]!;
    let from = i + 1;
    for (;;) {
      const close = sql.indexOf(q, from);
      if (close < 0) return undefined;
      if (sql.charCodeAt(close + 1) === c) {
        from = close + 2;
        continue;
      }
      return close + 1;
    }
  }
  if (c === 45 && sql.charCodeAt(i + 1) === 45) {
    const nl = sql.indexOf('\n', i);
    return nl < 0 ? sql.length : nl + 1;
  }
  if (c === 47 && sql.charCodeAt(i + 1) === 42) {
    const end = blockCommentEnd(sql, i);
    return end < 0 ? undefined : end;
  }
  if (c === 36 && (i === 0 || !isWordChar(sql.charCodeAt(i - 1)))) {
    // PostgreSQL's and DuckDB's $$…$$ / $tag$…$tag$.
    const m = /\$(?:[A-Za-z_][A-Za-z0-9_]*)?\$/y;
    m.lastIndex = i;
    const tag = m.exec(sql)?.[0];
    if (tag === undefined) return i;
    const close = sql.indexOf(tag, i + tag.length);
    return close < 0 ? undefined : close + tag.length;
  }
  return i;
}

/** `IN (` (any case, any whitespace between): the places a list may follow. */
const IN_PAREN = /[iI][nN]\s*\(/g;

/**
 * `sql` with each `IN (…)` list of at least `min` literals outside strings and comments replaced by
 * a marker; undefined when there is none (the common case, found by one regular-expression scan).
 */
export function foldLiteralLists(sql: string, min = MIN_FOLDED_ELEMENTS): FoldedSql | undefined {
  // A list of `min` elements has at least 2·min − 1 characters.
  if (sql.length < 2 * min) return undefined;
  const candidates: Array<{ at: number; list: ScannedList }> = [];
  IN_PAREN.lastIndex = 0;
  for (let m = IN_PAREN.exec(sql); m !== null; m = IN_PAREN.exec(sql)) {
    if (m.index > 0 && isWordChar(sql.charCodeAt(m.index - 1))) continue;
    const list = scanList(sql, m.index + m[0].length);
    if (list === undefined || list.elements < min) continue;
    candidates.push({ at: m.index, list });
    IN_PAREN.lastIndex = list.close;
  }
  if (candidates.length === 0) return undefined;
  // Keep the candidates that are code: walk the text from its start, past strings and comments.
  const lists = new Map<string, LiteralList>();
  let text = '';
  let copied = 0;
  let i = 0;
  for (const { at, list } of candidates) {
    while (i < at) {
      const next = skipQuoted(sql, i);
      if (next === undefined) return lists.size === 0 ? undefined : { text: text + sql.slice(copied), lists };
      i = next === i ? i + 1 : next;
    }
    if (i !== at) continue; // inside a string or comment
    const marker = `${LIST_MARKER_PREFIX}${lists.size + 1}`;
    lists.set(marker, { marker, source: sql.slice(list.start, list.end), elements: list.elements, strings: list.strings, integers: list.integers });
    text += sql.slice(copied, list.start) + marker;
    copied = list.end;
    i = list.close;
  }
  return lists.size === 0 ? undefined : { text: text + sql.slice(copied), lists };
}

/** `text` with every marker of `lists` replaced by the elements as written. */
export function unfoldLiteralLists(text: string, lists: ReadonlyMap<string, LiteralList>): string {
  return text.replace(LIST_MARKER_PATTERN, (m) => lists.get(m.replaceAll('"', ''))?.source ?? m);
}

/** Milliseconds of work between two yields to the event loop in `mapElements`. */
const SLICE_MS = 8;

/**
 * The elements of `list`, each as `map` writes it (given its kind and text as written), joined by
 * `, `; computed in slices of a few milliseconds with the event loop served in between.
 */
export async function mapElements(list: LiteralList, map: (kind: ElementKind, text: string) => string): Promise<string> {
  const src = list.source;
  const out: string[] = [];
  let sliceStart = performance.now();
  let i = 0;
  for (let n = 1; ; n++) {
    const el = elementAt(src, i)!;
    out.push(map(el.kind, src.slice(i, el.end)));
    i = el.end;
    while (isSpace(src.charCodeAt(i))) i++;
    if (i >= src.length) break;
    i++; // the comma
    while (isSpace(src.charCodeAt(i))) i++;
    if (n % 256 === 0 && performance.now() - sliceStart >= SLICE_MS) {
      await new Promise((resolve) => setImmediate(resolve));
      sliceStart = performance.now();
    }
  }
  return out.join(', ');
}

/** The value of a `'string'` element as written. */
export function stringValue(text: string): string {
  return text.slice(1, -1).replaceAll("''", "'");
}

/** Statement kinds whose text reaches DuckDB only through the query path, which puts folded lists back. */
const FOLDABLE_KINDS: ReadonlySet<Statement['kind']> = new Set(['query', 'explain', 'insert', 'delete']);

/**
 * `parseSql` of `sql` with its long literal lists folded, and the lists by marker (for
 * `QueryContext.lists`). The statements are parsed as written when there is no list to fold, when
 * a list would land in a statement of another kind (a default, an option, a SHOW filter), or when
 * the folded text does not parse (the error is then the text's own, with its positions).
 */
export function parseFoldedSql(sql: string): { readonly statements: Statement[]; readonly lists?: ReadonlyMap<string, LiteralList> } {
  const folded = foldLiteralLists(sql);
  if (folded === undefined) return { statements: parseSql(sql) };
  let statements: Statement[];
  try {
    statements = parseSql(folded.text);
  } catch {
    return { statements: parseSql(sql) };
  }
  if (statements.some((s) => !FOLDABLE_KINDS.has(s.kind) && s.text.includes(LIST_MARKER_PREFIX))) return { statements: parseSql(sql) };
  return { statements, lists: folded.lists };
}
