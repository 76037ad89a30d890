/**
 * GreptimeDB's `matches_term(text, term)` and its operator `text @@ term`: whether `term` occurs in
 * `text` as a whole term, case-sensitively. What counts as the term's edge depends on what the term
 * is made of (facts read from GreptimeDB's `scalars/matches_term.rs`):
 * - a term with a Han character matches anywhere (Chinese has no spaces between words);
 * - a term of ASCII letters and digits (and other characters) must not touch an ASCII letter or
 *   digit on either side (`cat` in `cat!`, not in `category` or `cat5`);
 * - a term with other letters or digits (`café`, `русский`) must not touch any letter or digit;
 * - a side where the term itself starts or ends with punctuation or space (`/cat`, `dog/`) has no
 *   condition; an empty term matches only an empty text.
 * A JavaScript scalar function (`js-functions.ts`); `@@` is rewritten into its call in the parse tree.
 */
import { BOOLEAN, VARCHAR, type DuckDBConnection } from '@duckdb/node-api';
import { registrar, scalar } from './js-functions.js';
import { isNode, type Json } from './sql-tree.js';

type CharClass = 'ascii' | 'han' | 'word' | 'other';

const HAN = /\p{Script=Han}/u;
/** Rust's `char::is_alphanumeric`: Alphabetic or Numeric. */
const ALPHANUMERIC = /[\p{Alphabetic}\p{N}]/u;

function classOf(c: string): CharClass {
  if (/^[A-Za-z0-9]$/.test(c)) return 'ascii';
  if (HAN.test(c)) return 'han';
  return ALPHANUMERIC.test(c) ? 'word' : 'other';
}

/** A term prepared for matching many texts. */
export class TermFinder {
  private readonly kind: 'ascii' | 'word' | 'han';
  private readonly openStart: boolean;
  private readonly openEnd: boolean;

  constructor(readonly term: string) {
    const chars = [...term];
    const classes = chars.map(classOf);
    this.kind = classes.includes('han') ? 'han' : classes.includes('word') ? 'word' : 'ascii';
    this.openStart = classes[0] === 'other';
    this.openEnd = classes.at(-1) === 'other';
  }

  private edgeOk(neighbor: string | undefined): boolean {
    if (neighbor === undefined) return true;
    const c = classOf(neighbor);
    return this.kind === 'ascii' ? c !== 'ascii' : this.kind === 'word' ? c === 'other' : true;
  }

  find(text: string): boolean {
    if (this.term === '') return text === '';
    for (let at = text.indexOf(this.term); at >= 0; at = text.indexOf(this.term, at + 1)) {
      const before = charBefore(text, at);
      if (!this.openStart && !this.edgeOk(before)) continue;
      if (this.kind === 'han') return true;
      const end = at + this.term.length;
      const after = end < text.length ? String.fromCodePoint(text.codePointAt(end)!) : undefined;
      if (this.openEnd || this.edgeOk(after)) return true;
    }
    return false;
  }
}

/** The character (code point) before UTF-16 offset `i`, or undefined at the start. */
function charBefore(s: string, i: number): string | undefined {
  if (i === 0) return undefined;
  const low = s.charCodeAt(i - 1);
  return low >= 0xdc00 && low <= 0xdfff && i >= 2 ? String.fromCodePoint(s.codePointAt(i - 2)!) : s[i - 1];
}

/** `matches_term(text, term)`; NULL when either is NULL. */
export function matchesTerm(text: string, term: string): boolean {
  return new TermFinder(term).find(text);
}

export function registerTermMatch(conn: DuckDBConnection): void {
  // The finder of the last term seen: a column matched against one constant term prepares it once.
  let last: TermFinder | undefined;
  registrar(conn).registerScalarFunction(
    scalar('matches_term', [VARCHAR, VARCHAR], BOOLEAN, (input, i) => {
      const term = input[1]!.getItem(i) as string;
      if (last?.term !== term) last = new TermFinder(term);
      return last.find(input[0]!.getItem(i) as string);
    }),
  );
}

/** Rewrites `a @@ b` of a serialized parse tree into `matches_term(a, b)`, in place. Returns whether it changed anything. */
export function rewriteAtat(tree: unknown): boolean {
  let changed = false;
  const visit = (n: Json | undefined): void => {
    if (Array.isArray(n)) return n.forEach(visit);
    if (!isNode(n)) return;
    for (const v of Object.values(n)) visit(v);
    if (n['class'] === 'FUNCTION' && n['function_name'] === '@@' && n['is_operator'] === true && Array.isArray(n['children']) && n['children'].length === 2) {
      n['function_name'] = 'matches_term';
      n['is_operator'] = false;
      changed = true;
    }
  };
  visit(tree as Json);
  return changed;
}
