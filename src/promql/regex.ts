/**
 * Label-matcher regular expressions: Prometheus's RE2 syntax (Go `regexp/syntax`, Perl flags) to
 * a fully anchored JavaScript RegExp with the same meaning, or the error Prometheus gives.
 *
 * The pattern is parsed as Prometheus compiles it, `^(?:<pattern>)$`, so Go's error messages
 * (`error parsing regexp: missing closing ): `^(?:(abc)$``) come out alike. Then it is written
 * out for JavaScript's `u` mode: RE2's `.` excludes only `\n` (`[^\n]`), `\s` is `[\t\n\f\r ]`,
 * `(?s)` makes `.` `[^]`, `(?m)` makes `^`/`$` line anchors (written as lookarounds), `\A`/`\z`,
 * POSIX classes `[[:alpha:]]`, `\pL`/`\p{Greek}`, `\Q…\E`, octal and `\x{…}` escapes; `(?i)` on
 * the whole pattern becomes the `i` flag, a scoped one spells each letter's cases out. Named
 * groups (`(?P<n>…)`) stay capturing (named when JavaScript allows the name), numbered as in RE2,
 * for label_replace's `$1`. What RE2 refuses (backreferences, lookaround, `(?<n>`) is refused
 * with Go's message.
 *
 * Backtracking bound. RE2 matches in linear time; JavaScript backtracks, on the event loop, so a
 * pattern like `(a+)+b` would take time exponential in a label value's length, and `.*a.*a.*a`
 * cubic. Nothing valid is refused for this (Prometheus accepts it); instead the pattern is measured:
 *   - a repetition (`*`, `+`, `{n,}`, `{n,m}`, `{n}` with n > 1) of anything but one character
 *     (literal, class, `.`), a fixed sequence of them, or an alternation of literal strings whose
 *     first characters differ (`(foo|bar)+`) — nested or ambiguous repetition — or optional and
 *     bounded repetitions multiplying to more than 4096 ways: exponential, so every value is
 *     matched by `LinearRegExp` (a Thompson NFA, linear time);
 *   - d > 1 unbounded repetitions in sequence (`.*foo.*`): polynomial, n^d; values short enough
 *     for n^d to stay near 10^6 steps go to the backtracking engine (it is ~10x faster there),
 *     longer ones to the NFA;
 *   - otherwise a plain RegExp.
 * Patterns longer than MAX_PATTERN_LENGTH, or compiling to more than MAX_PROGRAM NFA states, are
 * refused (bad_data).
 */
import type { LabelMatcher } from './ast.js';
import { PromqlError } from './errors.js';
import { LinearRegExp, LiteralSetRegExp, MAX_PROGRAM } from './linear-regexp.js';

export const MAX_PATTERN_LENGTH = 1024 * 1024;
const MAX_UNBOUNDED_IN_SEQUENCE = 1;
/** The backtracking steps a polynomial pattern is allowed on one value before the NFA takes over. */
const POLYNOMIAL_STEPS = 1e6;
const MAX_WAYS = 4096;
const MAX_NESTING = 1000;
const MAX_REPEAT = 1000;
/** A `{n,m}` range this narrow counts as bounded, not unbounded. */
const NARROW_RANGE = 16;

interface Flags {
  readonly i: boolean;
  readonly m: boolean;
  readonly s: boolean;
}

/** Zero-width assertions: text and line boundaries, ASCII word boundaries; `none` is a flag group's place. */
export type AssertKind = 'bot' | 'eot' | 'bol' | 'eol' | 'wb' | 'nwb' | 'none';

/** A parsed pattern, for the analysis and the linear-time matcher; `js` is a piece's JavaScript source. */
export type Re2Node = Node;
type Node =
  | { readonly t: 'char'; readonly js: string; readonly lit?: string; readonly fold: boolean }
  | { readonly t: 'assert'; readonly js: string; readonly kind: AssertKind }
  | { readonly t: 'cat'; readonly items: readonly Node[] }
  | { readonly t: 'alt'; readonly branches: readonly Node[] }
  | { readonly t: 'group'; readonly node: Node; readonly capture: boolean; readonly name?: string }
  | { readonly t: 'repeat'; readonly node: Node; readonly min: number; readonly max: number; readonly lazy: boolean; readonly counted: boolean };

const cache = new Map<string, RegExp>();
const CACHE_LIMIT = 1000;

/** The anchored JavaScript RegExp of an RE2 matcher pattern; refusals throw PromqlError('bad_data'). */
export function compileMatcherRegex(pattern: string): RegExp {
  const hit = cache.get(pattern);
  if (hit !== undefined) return hit;
  if (pattern.length > MAX_PATTERN_LENGTH) {
    throw new PromqlError('bad_data', `error parsing regexp: pattern longer than ${MAX_PATTERN_LENGTH} characters`);
  }
  const wrapped = `^(?:${pattern})$`;
  const p = new Re2Parser(wrapped, pattern);
  const node = p.parse();
  const source = emit(node);
  const flags = p.globalFold ? 'iu' : 'u';
  let re: RegExp;
  try {
    const literals = p.globalFold ? undefined : literalSet(node);
    const limit = backtrackLimit(node);
    if (literals !== undefined && literals.size > 1) re = new LiteralSetRegExp(source, flags, literals);
    else re = limit === Infinity ? new RegExp(source, flags) : new LinearRegExp(source, flags, node, limit);
  } catch (e) {
    if (e instanceof RangeError) throw new PromqlError('bad_data', `error parsing regexp: expression too large (more than ${MAX_PROGRAM} NFA states): \`${pattern}\``);
    throw new PromqlError('bad_data', `error parsing regexp: ${(e as Error).message}`);
  }
  if (cache.size >= CACHE_LIMIT) cache.clear();
  cache.set(pattern, re);
  return re;
}

/** The pattern on the linear-time NFA whatever its shape (for tests: the NFA must agree with RE2 everywhere). */
export function compileMatcherNfa(pattern: string): LinearRegExp {
  const p = new Re2Parser(`^(?:${pattern})$`, pattern);
  const node = p.parse();
  return new LinearRegExp(emit(node), p.globalFold ? 'iu' : 'u', node, 0);
}

function re2Error(code: string, expr: string): PromqlError {
  return new PromqlError('bad_data', `error parsing regexp: ${code}: \`${expr}\``);
}

const GENERAL_CATEGORIES = new Set([
  'C', 'Cc', 'Cf', 'Co', 'Cs', 'L', 'Ll', 'Lm', 'Lo', 'Lt', 'Lu', 'M', 'Mc', 'Me', 'Mn', 'N', 'Nd', 'Nl', 'No', 'P', 'Pc', 'Pd', 'Pe', 'Pf', 'Pi', 'Po', 'Ps', 'S',
  'Sc', 'Sk', 'Sm', 'So', 'Z', 'Zl', 'Zp', 'Zs',
]);

/** POSIX classes as JavaScript class contents (ASCII, as in RE2). */
const POSIX: Readonly<Record<string, string>> = {
  alnum: '0-9A-Za-z',
  alpha: 'A-Za-z',
  ascii: '\\x00-\\x7f',
  blank: '\\t ',
  cntrl: '\\x00-\\x1f\\x7f',
  digit: '0-9',
  graph: '!-~',
  lower: 'a-z',
  print: ' -~',
  punct: '!-\\/:-@\\[-`{-~',
  space: '\\t\\n\\v\\f\\r ',
  upper: 'A-Z',
  word: '0-9A-Za-z_',
  xdigit: '0-9A-Fa-f',
};
/** Perl classes (`\d`, `\s`, `\w`) as JavaScript class contents (ASCII, as in RE2). */
const PERL: Readonly<Record<string, string>> = { d: '0-9', s: '\\t\\n\\f\\r ', w: '0-9A-Za-z_' };

/** A character class being built: positive contents and complemented sets. */
interface ClassParts {
  pos: string;
  readonly neg: string[];
}

class Re2Parser {
  private i = 0;
  private readonly names = new Set<string>();
  /** Set when `(?i)` starts the user's pattern and is never turned off: the RegExp gets the `i` flag. */
  globalFold = false;

  constructor(
    private readonly s: string,
    private readonly user: string,
  ) {
    this.globalFold = /^\(\?[ms]*i[ms]*\)/.test(user) && !/\(\?[imsU]*-/.test(user);
  }

  parse(): Node {
    const node = this.alternation({ i: false, m: false, s: false }, 0);
    if (this.i < this.s.length) throw re2Error('unexpected )', this.s);
    return node;
  }

  private alternation(flags: Flags, depth: number): Node {
    const branches: Node[] = [];
    let current = flags;
    for (;;) {
      const [node, after] = this.concatenation(current, depth);
      branches.push(node);
      current = after;
      if (this.s[this.i] !== '|') break;
      this.i++;
    }
    return branches.length === 1 ? branches[0]! : { t: 'alt', branches };
  }

  /** A sequence up to `|`, `)` or the end; returns the flags in force after it (`(?i)` mid-group). */
  private concatenation(flags: Flags, depth: number): [Node, Flags] {
    const items: Node[] = [];
    /** Start of the last repetition operator, for Go's "invalid nested repetition operator". */
    let lastRepeat = -1;
    while (this.i < this.s.length) {
      const c = this.s[this.i]!;
      if (c === '|' || c === ')') break;
      const opStart = this.i;
      if (c === '*' || c === '+' || c === '?' || c === '{') {
        let min: number;
        let max: number;
        if (c === '{') {
          const m = /^\{(\d+)(,(\d*))?\}/.exec(this.s.slice(this.i, this.i + 32));
          if (m === null) {
            // Not a repetition: a literal `{`.
            this.i++;
            items.push(this.literal('{', flags));
            lastRepeat = -1;
            continue;
          }
          min = Number(m[1]);
          max = m[2] === undefined ? min : m[3] === '' ? -1 : Number(m[3]);
          this.i += m[0].length;
          if (min > MAX_REPEAT || max > MAX_REPEAT || (max >= 0 && max < min)) throw re2Error('invalid repeat count', this.s.slice(opStart, this.i));
        } else {
          this.i++;
          [min, max] = c === '*' ? [0, -1] : c === '+' ? [1, -1] : [0, 1];
        }
        let lazy = false;
        if (this.s[this.i] === '?') {
          this.i++;
          lazy = true;
        }
        if (lastRepeat >= 0) throw re2Error('invalid nested repetition operator', this.s.slice(lastRepeat, this.i));
        const prev = items.pop();
        if (prev === undefined || prev.t === 'assert' && prev.js === '') throw re2Error('missing argument to repetition operator', this.s.slice(opStart, this.i));
        const rep: Node = { t: 'repeat', node: prev, min, max, lazy, counted: c === '{' };
        // Go (1.19) bounds nested counted repetitions: their counts multiply to at most 1000.
        if (c === '{' && (min >= 2 || max >= 2) && !repeatIsValid(rep, MAX_REPEAT)) throw re2Error('invalid repeat count', this.s.slice(opStart, this.i));
        items.push(rep);
        lastRepeat = opStart;
        continue;
      }
      lastRepeat = -1;
      if (c === '(') {
        const r = this.group(flags, depth);
        if (r.flagsOnly !== undefined) {
          flags = r.flagsOnly;
          // A flag group is no operand: `(?i)*` has nothing to repeat.
          items.push({ t: 'assert', js: '', kind: 'none' });
          continue;
        }
        items.push(r.node!);
        continue;
      }
      this.i++;
      switch (c) {
        case '[':
          items.push(this.charClass(flags, this.i - 1));
          break;
        case '.':
          items.push({ t: 'char', js: flags.s ? '[^]' : '[^\\n]', fold: false });
          break;
        case '^':
          items.push(flags.m ? { t: 'assert', js: '(?<![^\\n])', kind: 'bol' } : { t: 'assert', js: '^', kind: 'bot' });
          break;
        case '$':
          items.push(flags.m ? { t: 'assert', js: '(?![^\\n])', kind: 'eol' } : { t: 'assert', js: '$', kind: 'eot' });
          break;
        case '\\':
          items.push(...this.escape(flags));
          break;
        default: {
          const cp = this.s.codePointAt(this.i - 1)!;
          if (cp > 0xffff) this.i++;
          items.push(this.literal(String.fromCodePoint(cp), flags));
        }
      }
    }
    const real = items.filter((n) => !(n.t === 'assert' && n.js === ''));
    return [real.length === 1 ? real[0]! : { t: 'cat', items: real }, flags];
  }

  private literal(ch: string, flags: Flags): Node {
    if (flags.i && !this.globalFold) {
      const cases = caseVariants(ch);
      if (cases.length > 1) return { t: 'char', js: `[${cases.map(classChar).join('')}]`, lit: ch.toLowerCase(), fold: true };
    }
    return { t: 'char', js: literalChar(ch), lit: flags.i ? ch.toLowerCase() : ch, fold: flags.i };
  }

  private group(flags: Flags, depth: number): { node?: Node; flagsOnly?: Flags } {
    const open = this.i;
    if (depth + 1 > MAX_NESTING) throw re2Error('expression nests too deeply', this.s);
    this.i++;
    let inner = flags;
    let capture = true;
    let groupName: string | undefined;
    if (this.s[this.i] === '?') {
      const rest = this.s.slice(this.i + 1);
      if (rest.startsWith('P<')) {
        const m = /^P<([^>]*)>/.exec(rest);
        if (m === null) throw re2Error('invalid named capture', this.s.slice(open));
        const name = m[1]!;
        if (!/^[0-9A-Za-z_]+$/.test(name)) throw re2Error('invalid named capture', this.s.slice(open, this.i + 1 + m[0].length));
        this.i += 1 + m[0].length;
        // JavaScript wants unique names that are identifiers; others stay numbered groups.
        if (/^[A-Za-z_]/.test(name) && !this.names.has(name)) groupName = name;
        this.names.add(name);
      } else {
        // Flags: `(?i)`, `(?i-s:…)`.
        let j = this.i + 1;
        let neg = false;
        let sawFlag = false;
        const f = { ...flags };
        for (;;) {
          const c = this.s[j];
          if (c === undefined) throw re2Error('missing closing )', this.s.slice(open));
          if (c === 'i' || c === 'm' || c === 's' || c === 'U') {
            if (c !== 'U') f[c] = !neg;
            sawFlag = true;
            j++;
            continue;
          }
          if (c === '-' && !neg) {
            neg = true;
            sawFlag = false;
            j++;
            continue;
          }
          if ((c === ')' || c === ':') && (sawFlag || (c === ':' && j === this.i + 1))) {
            this.i = j + 1;
            if (c === ')') return { flagsOnly: f };
            inner = f;
            capture = false;
            break;
          }
          throw re2Error('invalid or unsupported Perl syntax', this.s.slice(open, j + 1));
        }
      }
    }
    const node = this.alternation(inner, depth + 1);
    if (this.s[this.i] !== ')') throw re2Error('missing closing )', this.s);
    this.i++;
    // The user's pattern sits in a group of Prometheus's wrapping, which captures nothing.
    if (open === 1) capture = false;
    return { node: groupName === undefined ? { t: 'group', node, capture } : { t: 'group', node, capture, name: groupName } };
  }

  /** After `\` outside a class. */
  private escape(flags: Flags): Node[] {
    const start = this.i - 1;
    const c = this.s[this.i];
    if (c === undefined) throw re2Error('trailing backslash at end of expression', '');
    switch (c) {
      case 'A':
        this.i++;
        return [{ t: 'assert', js: '^', kind: 'bot' }];
      case 'z':
        this.i++;
        return [{ t: 'assert', js: '$', kind: 'eot' }];
      case 'b':
        this.i++;
        return [{ t: 'assert', js: '(?:(?<=[0-9A-Za-z_])(?![0-9A-Za-z_])|(?<![0-9A-Za-z_])(?=[0-9A-Za-z_]))', kind: 'wb' }];
      case 'B':
        this.i++;
        return [{ t: 'assert', js: '(?:(?<=[0-9A-Za-z_])(?=[0-9A-Za-z_])|(?<![0-9A-Za-z_])(?![0-9A-Za-z_]))', kind: 'nwb' }];
      case 'Q': {
        this.i++;
        let end = this.s.indexOf('\\E', this.i);
        if (end === -1) end = this.s.length;
        const text = this.s.slice(this.i, end);
        this.i = Math.min(end + 2, this.s.length);
        return [...text].map((ch) => this.literal(ch, flags));
      }
    }
    const parts: ClassParts = { pos: '', neg: [] };
    if (this.classEscape(parts, flags, start)) return [{ t: 'char', js: classSource(parts, false), fold: false }];
    const ch = this.escapedChar(start);
    return [this.literal(ch, flags)];
  }

  /** `\d`, `\pL`… into `parts`; false when the escape is a single character. */
  private classEscape(parts: ClassParts, _flags: Flags, start: number): boolean {
    const c = this.s[this.i]!;
    const lower = c.toLowerCase();
    if (lower in PERL && (c === lower || c.toUpperCase() === c)) {
      this.i++;
      if (c === lower) parts.pos += PERL[lower];
      else parts.neg.push(PERL[lower]!);
      return true;
    }
    if (c === 'p' || c === 'P') {
      this.i++;
      let name: string;
      if (this.s[this.i] === '{') {
        const end = this.s.indexOf('}', this.i);
        if (end === -1) throw re2Error('invalid character class range', this.s.slice(start));
        name = this.s.slice(this.i + 1, end);
        this.i = end + 1;
      } else {
        const cp = this.s.codePointAt(this.i);
        if (cp === undefined) throw re2Error('invalid character class range', this.s.slice(start));
        name = String.fromCodePoint(cp);
        this.i += name.length;
      }
      let negate = c === 'P';
      const text = this.s.slice(start, this.i);
      if (name.startsWith('^')) {
        negate = !negate;
        name = name.slice(1);
      }
      let js: string;
      if (name === 'Any') js = '\\u0000-\\u{10ffff}';
      else if (GENERAL_CATEGORIES.has(name)) js = `\\p{${name}}`;
      else if (/^[A-Za-z_]+$/.test(name)) js = `\\p{Script=${name}}`;
      else throw re2Error('invalid character class range', text);
      try {
        new RegExp(`[${js}]`, 'u');
      } catch {
        throw re2Error('invalid character class range', text);
      }
      if (negate) parts.neg.push(js);
      else parts.pos += js;
      return true;
    }
    return false;
  }

  /** A one-character escape after `\` at `start`: `\n`, `\x41`, `\101`, `\.`… */
  private escapedChar(start: number): string {
    const c = this.s[this.i]!;
    this.i++;
    switch (c) {
      case 'a':
        return '\x07';
      case 'f':
        return '\f';
      case 't':
        return '\t';
      case 'n':
        return '\n';
      case 'r':
        return '\r';
      case 'v':
        return '\v';
      case 'x': {
        if (this.s[this.i] === '{') {
          // Go reports the escape up to the first character that is not a hex digit.
          let j = this.i + 1;
          let v = 0;
          for (;;) {
            const c = this.s[j];
            if (c === undefined) throw re2Error('invalid escape sequence', this.s.slice(start, j));
            j++;
            if (c === '}') break;
            const d = digitValue(c);
            v = v * 16 + d;
            if (d < 0 || v > 0x10ffff) throw re2Error('invalid escape sequence', this.s.slice(start, j));
          }
          if (j === this.i + 2) throw re2Error('invalid escape sequence', this.s.slice(start, j));
          this.i = j;
          return String.fromCodePoint(v);
        }
        const h = this.s.slice(this.i, this.i + 2);
        if (!/^[0-9A-Fa-f]{2}$/.test(h)) throw re2Error('invalid escape sequence', this.s.slice(start, Math.min(this.i + 2, this.s.length)));
        this.i += 2;
        return String.fromCodePoint(parseInt(h, 16));
      }
    }
    if (c >= '0' && c <= '7') {
      // `\1`…`\7` alone would be a backreference, which RE2 lacks; `\0` and `\12` are octal.
      const next = this.s[this.i];
      if (c !== '0' && (next === undefined || next < '0' || next > '7')) throw re2Error('invalid escape sequence', this.s.slice(start, this.i));
      let v = Number(c);
      for (let k = 1; k < 3; k++) {
        const d = this.s[this.i];
        if (d === undefined || d < '0' || d > '7') break;
        v = v * 8 + Number(d);
        this.i++;
      }
      return String.fromCodePoint(v);
    }
    const cp = c.charCodeAt(0);
    if (cp < 0x80 && !/[0-9A-Za-z]/.test(c)) return c;
    const full = String.fromCodePoint(this.s.codePointAt(this.i - 1)!);
    throw re2Error('invalid escape sequence', `\\${full}`);
  }

  /** `[…]`; `open` is the position of `[`. */
  private charClass(flags: Flags, open: number): Node {
    const parts: ClassParts = { pos: '', neg: [] };
    let negated = false;
    if (this.s[this.i] === '^') {
      negated = true;
      this.i++;
    }
    let first = true;
    const ranges: [number, number][] = [];
    for (;;) {
      if (this.i >= this.s.length) throw re2Error('missing closing ]', this.s.slice(open));
      const c = this.s[this.i]!;
      if (c === ']' && !first) {
        this.i++;
        break;
      }
      first = false;
      const itemStart = this.i;
      if (c === '[' && this.s[this.i + 1] === ':') {
        const end = this.s.indexOf(':]', this.i + 2);
        if (end !== -1) {
          let name = this.s.slice(this.i + 2, end);
          const neg = name.startsWith('^');
          if (neg) name = name.slice(1);
          const js = POSIX[name];
          if (js === undefined) throw re2Error('invalid character class range', this.s.slice(itemStart, end + 2));
          if (neg) parts.neg.push(js);
          else parts.pos += js;
          this.i = end + 2;
          continue;
        }
      }
      if (c === '\\') {
        this.i++;
        if (this.i >= this.s.length) throw re2Error('trailing backslash at end of expression', '');
        if (this.classEscape(parts, flags, itemStart)) continue;
      }
      const lo = c === '\\' ? this.escapedChar(itemStart) : this.classChar();
      let hi = lo;
      if (this.s[this.i] === '-' && this.s[this.i + 1] !== ']' && this.i + 1 < this.s.length) {
        this.i++;
        const c2 = this.s[this.i]!;
        if (c2 === '\\') {
          this.i++;
          if (this.i >= this.s.length) throw re2Error('trailing backslash at end of expression', '');
          // Go reads the range's end as one character: `[a-\d]` is an invalid escape.
          hi = this.escapedChar(this.i - 1);
        } else {
          hi = this.classChar();
        }
        if (hi.codePointAt(0)! < lo.codePointAt(0)!) throw re2Error('invalid character class range', this.s.slice(itemStart, this.i));
      }
      ranges.push([lo.codePointAt(0)!, hi.codePointAt(0)!]);
    }
    if (flags.i && !this.globalFold) ranges.push(...foldRanges(ranges));
    for (const [lo, hi] of ranges) parts.pos += lo === hi ? classChar(String.fromCodePoint(lo)) : `${classChar(String.fromCodePoint(lo))}-${classChar(String.fromCodePoint(hi))}`;
    return { t: 'char', js: classSource(parts, negated), fold: false };
  }

  private classChar(): string {
    const cp = this.s.codePointAt(this.i)!;
    const ch = String.fromCodePoint(cp);
    this.i += ch.length;
    return ch;
  }
}

/** JavaScript source of a class with complemented parts (JavaScript's `u` mode cannot nest them). */
function classSource(parts: ClassParts, negated: boolean): string {
  if (parts.neg.length === 0) {
    if (parts.pos === '') return negated ? '[^]' : '[]';
    return `[${negated ? '^' : ''}${parts.pos}]`;
  }
  if (!negated) {
    const alts = parts.neg.map((n) => `[^${n}]`);
    if (parts.pos !== '') alts.unshift(`[${parts.pos}]`);
    return alts.length === 1 ? alts[0]! : `(?:${alts.join('|')})`;
  }
  // Not (P or not N1 or not N2…) = not P and N1 and N2…
  const n = parts.neg;
  const pre = parts.pos === '' ? '' : `(?![${parts.pos}])`;
  return `${pre}${n.slice(0, -1).map((x) => `(?=[${x}])`).join('')}[${n[n.length - 1]}]`;
}

function digitValue(c: string): number {
  return /^[0-9A-Fa-f]$/.test(c) ? parseInt(c, 16) : -1;
}

function caseVariants(ch: string): string[] {
  const out = new Set([ch]);
  for (const v of [ch.toLowerCase(), ch.toUpperCase()]) if ([...v].length === 1) out.add(v);
  return [...out];
}

/** The other-case counterparts of class ranges (for a scoped `(?i)`): ASCII letters, and small non-ASCII ranges by enumeration. */
function foldRanges(ranges: readonly [number, number][]): [number, number][] {
  const out: [number, number][] = [];
  for (const [lo, hi] of ranges) {
    const clip = (a: number, b: number, delta: number): void => {
      const l = Math.max(lo, a);
      const h = Math.min(hi, b);
      if (l <= h) out.push([l + delta, h + delta]);
    };
    clip(65, 90, 32);
    clip(97, 122, -32);
    if (hi > 127 && hi - Math.max(lo, 128) < 512) {
      for (let c = Math.max(lo, 128); c <= hi; c++) {
        for (const v of caseVariants(String.fromCodePoint(c))) {
          const cp = v.codePointAt(0)!;
          if (cp !== c) out.push([cp, cp]);
        }
      }
    }
  }
  return out;
}

const JS_SYNTAX = new Set('^$\\.*+?()[]{}|/'.split(''));

function literalChar(ch: string): string {
  if (JS_SYNTAX.has(ch)) return `\\${ch}`;
  return safeChar(ch);
}

function classChar(ch: string): string {
  if (ch === '\\' || ch === ']' || ch === '[' || ch === '^' || ch === '-') return `\\${ch}`;
  return safeChar(ch);
}

function safeChar(ch: string): string {
  const cp = ch.codePointAt(0)!;
  if (cp < 0x20 || cp === 0x7f || (cp >= 0xd800 && cp <= 0xdfff) || cp === 0x2028 || cp === 0x2029) return `\\u{${cp.toString(16)}}`;
  return ch;
}

function emit(n: Node): string {
  switch (n.t) {
    case 'char':
    case 'assert':
      return n.js;
    case 'cat':
      return n.items.map(emit).join('');
    case 'alt':
      return n.branches.length > FACTOR_BRANCHES ? emitFactored(n.branches) : n.branches.map(emit).join('|');
    case 'group':
      // Capturing groups stay capturing, numbered as in RE2 (label_replace's `$1`).
      return n.name !== undefined ? `(?<${n.name}>${emit(n.node)})` : n.capture ? `(${emit(n.node)})` : `(?:${emit(n.node)})`;
    case 'repeat': {
      const inner = n.node.t === 'char' && !n.node.js.startsWith('(') ? n.node.js : `(?:${emit(n.node)})`;
      const q = n.min === 0 && n.max === -1 ? '*' : n.min === 1 && n.max === -1 ? '+' : n.min === 0 && n.max === 1 ? '?' : n.max === -1 ? `{${n.min},}` : n.max === n.min ? `{${n.min}}` : `{${n.min},${n.max}}`;
      return `${inner}${q}${n.lazy ? '?' : ''}`;
    }
  }
}

/** The strings `^(?:a|b|…)$` matches when its alternatives are all literal (case-sensitive), else undefined. */
function literalSet(n: Node): Set<string> | undefined {
  if (n.t !== 'cat' || n.items.length !== 3) return undefined;
  const [first, body, last] = n.items;
  if (first?.t !== 'assert' || first.kind !== 'bot' || last?.t !== 'assert' || last.kind !== 'eot' || body?.t !== 'group') return undefined;
  const inner = unwrap(body.node);
  const branches = inner.t === 'alt' ? inner.branches : [inner];
  const out = new Set<string>();
  for (const b of branches) {
    const lit = literalString(b);
    if (lit === undefined || hasFold(b)) return undefined;
    out.add(lit);
  }
  return out;
}

function hasFold(n: Node): boolean {
  n = unwrap(n);
  if (n.t === 'char') return n.fold;
  if (n.t === 'cat') return n.items.some(hasFold);
  return false;
}

/** Go's `repeatIsValid`: counted repetitions nested in `n` multiply to at most `limit`. */
function repeatIsValid(n: Node, limit: number): boolean {
  switch (n.t) {
    case 'repeat': {
      if (n.counted) {
        const m = n.max === -1 ? n.min : n.max;
        if (m > 0) {
          if (m > limit) return false;
          limit = Math.floor(limit / m);
        }
      }
      return repeatIsValid(n.node, limit);
    }
    case 'group':
      return repeatIsValid(n.node, limit);
    case 'cat':
      return n.items.every((c) => repeatIsValid(c, limit));
    case 'alt':
      return n.branches.every((c) => repeatIsValid(c, limit));
    default:
      return true;
  }
}

/** Alternations longer than this get their common prefixes factored out. */
const FACTOR_BRANCHES = 16;

/** The pieces of a branch made only of one-character pieces (no repetition, no assertion), or undefined. */
function tokens(n: Node): string[] | undefined {
  n = unwrap(n);
  if (n.t === 'char') return [n.js];
  if (n.t !== 'cat') return undefined;
  const out: string[] = [];
  for (const item of n.items) {
    const u = unwrap(item);
    if (u.t !== 'char') return undefined;
    out.push(u.js);
  }
  return out;
}

interface Trie {
  end: boolean;
  readonly children: Map<string, Trie>;
}

/**
 * `host1|host2|…` as `host(?:1|2|…)`: JavaScript tries alternatives one by one, so a long list
 * of similar ones costs their number per value; factored, the cost is their length. The
 * alternatives made of single characters only are factored (no captures inside: order does not
 * change what matches); the others follow as they are.
 */
function emitFactored(branches: readonly Node[]): string {
  const root: Trie = { end: false, children: new Map() };
  const rest: string[] = [];
  for (const b of branches) {
    const ts = tokens(b);
    if (ts === undefined) {
      rest.push(emit(b));
      continue;
    }
    let node = root;
    for (const t of ts) {
      let next = node.children.get(t);
      if (next === undefined) {
        next = { end: false, children: new Map() };
        node.children.set(t, next);
      }
      node = next;
    }
    node.end = true;
  }
  const alts = emitTrie(root);
  return [...(alts === undefined ? [] : [alts]), ...rest, ...(root.end ? [''] : [])].join('|');
}

/** The alternatives below a trie node (undefined when there are none), `|`-joined. */
function emitTrie(node: Trie): string | undefined {
  const alts: string[] = [];
  for (const [t, child] of node.children) {
    let s = t;
    let c = child;
    // A chain of single children is one literal run.
    while (!c.end && c.children.size === 1) {
      const [t2, c2] = c.children.entries().next().value as [string, Trie];
      s += t2;
      c = c2;
    }
    const below = emitTrie(c);
    if (below === undefined) alts.push(s);
    else alts.push(`${s}(?:${below}${c.end ? '|' : ''})`);
  }
  return alts.length === 0 ? undefined : alts.join('|');
}

function unwrap(n: Node): Node {
  while (n.t === 'group') n = n.node;
  return n;
}

/** A fixed sequence of single characters (exact repetitions of one allowed). */
function isFixed(n: Node): boolean {
  n = unwrap(n);
  if (n.t === 'char' || n.t === 'assert') return true;
  if (n.t === 'cat') return n.items.every(isFixed);
  if (n.t === 'repeat') return n.min === n.max && unwrap(n.node).t === 'char';
  return false;
}

/** The literal string of a node made only of literal characters, or undefined. */
function literalString(n: Node): string | undefined {
  n = unwrap(n);
  if (n.t === 'char') return n.lit;
  if (n.t === 'cat') {
    let s = '';
    for (const item of n.items) {
      const l = literalString(item);
      if (l === undefined) return undefined;
      s += l;
    }
    return s;
  }
  return undefined;
}

/** What a repetition may repeat without backtracking blowing up (see the file header). */
function safeToRepeat(n: Node): boolean {
  n = unwrap(n);
  if (isFixed(n)) return true;
  if (n.t !== 'alt') return false;
  const firsts = new Set<string>();
  for (const b of n.branches) {
    const lit = literalString(b);
    if (lit === undefined || lit === '') return false;
    const first = [...lit][0]!;
    if (firsts.has(first)) return false;
    firsts.add(first);
  }
  return true;
}

/** Unbounded repetitions in sequence (max over alternatives) and the product of bounded choices. */
function measure(n: Node): { unbounded: number; ways: number } {
  switch (n.t) {
    case 'char':
    case 'assert':
      return { unbounded: 0, ways: 1 };
    case 'group':
      return measure(n.node);
    case 'cat': {
      let unbounded = 0;
      let ways = 1;
      for (const item of n.items) {
        const m = measure(item);
        unbounded += m.unbounded;
        ways = Math.min(ways * m.ways, Number.MAX_SAFE_INTEGER);
      }
      return { unbounded, ways };
    }
    case 'alt': {
      let unbounded = 0;
      let ways = 0;
      for (const b of n.branches) {
        const m = measure(b);
        unbounded = Math.max(unbounded, m.unbounded);
        ways = Math.max(ways, m.ways);
      }
      return { unbounded, ways };
    }
    case 'repeat': {
      const inner = measure(n.node);
      const optional = n.min === 0 && n.max === 1;
      if (!optional && !(n.min === n.max && n.min <= 1) && !safeToRepeat(n.node)) return { unbounded: Infinity, ways: Infinity };
      if (n.max === -1 || n.max - n.min > NARROW_RANGE) return { unbounded: inner.unbounded + 1, ways: inner.ways };
      return { unbounded: inner.unbounded, ways: Math.min(inner.ways * (n.max - n.min + 1), Number.MAX_SAFE_INTEGER) };
    }
  }
}

/**
 * The longest value JavaScript's backtracking may be trusted with for `n` (see the file header):
 * Infinity for patterns without nested or ambiguous repetition and with one unbounded repetition
 * in sequence; 0 for those with (exponential); for d unbounded repetitions in sequence (time up to
 * n^d) the length where n^d stays near 10^6 steps.
 */
function backtrackLimit(n: Node): number {
  const m = measure(n);
  if (m.unbounded === Infinity || m.ways > MAX_WAYS) return 0;
  if (m.unbounded <= MAX_UNBOUNDED_IN_SEQUENCE) return Infinity;
  return Math.floor(POLYNOMIAL_STEPS ** (1 / m.unbounded));
}

/** Whether a label matcher holds for a value (Prometheus's `Matcher.Matches`; absent labels are ""). */
export function matcherMatches(m: LabelMatcher, value: string): boolean {
  switch (m.type) {
    case '=':
      return value === m.value;
    case '!=':
      return value !== m.value;
    case '=~':
      return compileMatcherRegex(m.value).test(value);
    case '!~':
      return !compileMatcherRegex(m.value).test(value);
  }
}
