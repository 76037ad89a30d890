/**
 * A RegExp whose `test` runs in time linear in the input: a Thompson NFA (Pike VM without
 * captures) over the parsed RE2 pattern, for the patterns JavaScript's backtracking engine could
 * take exponential or high-polynomial time over (`regex.ts` decides which). RE2 itself works this
 * way; the answer is the same as the RegExp's, only the time differs.
 *
 * `exec` (used by `String.prototype.replace`, so by label_replace's `$1`) first asks the NFA and
 * only runs the backtracking engine for the groups when the value is known to match, where it
 * finds the match on its first path in all but contrived cases.
 */
import type { AssertKind, Re2Node } from './regex.js';

const CHAR = 0;
const SPLIT = 1;
const JMP = 2;
const ASSERT = 3;
const MATCH = 4;

/** The most NFA instructions a pattern may compile to (`x{1000}` of a large group would be huge). */
export const MAX_PROGRAM = 100_000;

interface Program {
  readonly op: Uint8Array;
  readonly x: Int32Array;
  readonly y: Int32Array;
  readonly tests: readonly (((cp: number) => boolean) | undefined)[];
  readonly kinds: readonly (AssertKind | undefined)[];
  readonly start: number;
}

class Builder {
  op: number[] = [];
  x: number[] = [];
  y: number[] = [];
  tests: (((cp: number) => boolean) | undefined)[] = [];
  kinds: (AssertKind | undefined)[] = [];
  private readonly testers = new Map<string, (cp: number) => boolean>();

  constructor(private readonly flags: string) {}

  add(op: number, x: number, y: number, test?: (cp: number) => boolean, kind?: AssertKind): number {
    if (this.op.length >= MAX_PROGRAM) throw new RangeError('program too large');
    this.op.push(op);
    this.x.push(x);
    this.y.push(y);
    this.tests.push(test);
    this.kinds.push(kind);
    return this.op.length - 1;
  }

  tester(n: Extract<Re2Node, { t: 'char' }>): (cp: number) => boolean {
    if (n.lit !== undefined && !n.fold && [...n.lit].length === 1) {
      const want = n.lit.codePointAt(0)!;
      return (cp) => cp === want;
    }
    let t = this.testers.get(n.js);
    if (t === undefined) {
      const re = new RegExp(`^(?:${n.js})$`, this.flags);
      const memo = new Map<number, boolean>();
      t = (cp) => {
        let r = memo.get(cp);
        if (r === undefined) {
          r = re.test(String.fromCodePoint(cp));
          if (memo.size < 4096) memo.set(cp, r);
        }
        return r;
      };
      this.testers.set(n.js, t);
    }
    return t;
  }

  /** Compiles `n` to run before `next`; returns its first instruction. */
  compile(n: Re2Node, next: number): number {
    switch (n.t) {
      case 'char':
        return this.add(CHAR, next, 0, this.tester(n));
      case 'assert':
        return n.kind === 'none' ? next : this.add(ASSERT, next, 0, undefined, n.kind);
      case 'group':
        return this.compile(n.node, next);
      case 'cat': {
        let cur = next;
        for (let i = n.items.length - 1; i >= 0; i--) cur = this.compile(n.items[i]!, cur);
        return cur;
      }
      case 'alt': {
        let cur = this.compile(n.branches[n.branches.length - 1]!, next);
        for (let i = n.branches.length - 2; i >= 0; i--) cur = this.add(SPLIT, this.compile(n.branches[i]!, next), cur);
        return cur;
      }
      case 'repeat': {
        let cur = next;
        if (n.max === -1) {
          const loop = this.add(SPLIT, 0, next);
          this.x[loop] = this.compile(n.node, loop);
          cur = loop;
        } else {
          for (let k = 0; k < n.max - n.min; k++) cur = this.add(SPLIT, this.compile(n.node, cur), next);
        }
        for (let k = 0; k < n.min; k++) cur = this.compile(n.node, cur);
        return cur;
      }
    }
  }
}

function compileProgram(node: Re2Node, flags: string): Program {
  const b = new Builder(flags);
  const match = b.add(MATCH, 0, 0);
  const start = b.compile(node, match);
  return { op: Uint8Array.from(b.op), x: Int32Array.from(b.x), y: Int32Array.from(b.y), tests: b.tests, kinds: b.kinds, start };
}

function isWord(cp: number): boolean {
  return cp === 95 || (cp >= 48 && cp <= 57) || (cp >= 65 && cp <= 90) || (cp >= 97 && cp <= 122);
}

function assertHolds(kind: AssertKind, i: number, len: number, prev: number, cur: number): boolean {
  switch (kind) {
    case 'bot':
      return i === 0;
    case 'eot':
      return i === len;
    case 'bol':
      return i === 0 || prev === 10;
    case 'eol':
      return i === len || cur === 10;
    case 'wb':
      return isWord(prev) !== isWord(cur);
    case 'nwb':
      return isWord(prev) === isWord(cur);
    case 'none':
      return true;
  }
}

/** Whether the program matches anywhere in `s` (as RegExp.test does), in O(|s| · program) time. */
function run(p: Program, s: string): boolean {
  const n = p.op.length;
  let clist = new Int32Array(n);
  let nlist = new Int32Array(n);
  let ccount = 0;
  let ncount = 0;
  const mark = new Uint32Array(n);
  let gen = 0;
  const stack = new Int32Array(n * 2 + 2);
  const len = s.length;
  let prev = -1;
  let i = 0;
  /** Adds `pc` and what it leads to without input to `list` at position `at`. */
  const addThread = (list: Int32Array, count: number, pc: number, at: number, before: number, here: number): number => {
    let sp = 0;
    stack[sp++] = pc;
    while (sp > 0) {
      const q = stack[--sp]!;
      if (mark[q] === gen) continue;
      mark[q] = gen;
      switch (p.op[q]) {
        case JMP:
          stack[sp++] = p.x[q]!;
          break;
        case SPLIT:
          stack[sp++] = p.y[q]!;
          stack[sp++] = p.x[q]!;
          break;
        case ASSERT:
          if (assertHolds(p.kinds[q]!, at, len, before, here)) stack[sp++] = p.x[q]!;
          break;
        default:
          list[count++] = q;
      }
    }
    return count;
  };
  for (;;) {
    const cur = i < len ? s.codePointAt(i)! : -1;
    gen++;
    // Unanchored, as RegExp.test: a thread starts at every position (the pattern anchors itself).
    for (let k = 0; k < ccount; k++) mark[clist[k]!] = gen;
    ccount = addThread(clist, ccount, p.start, i, prev, cur);
    if (ccount === 0 && i >= len) return false;
    const width = cur > 0xffff ? 2 : 1;
    gen++;
    ncount = 0;
    const nextCp = i + width < len ? s.codePointAt(i + width)! : -1;
    for (let k = 0; k < ccount; k++) {
      const q = clist[k]!;
      if (p.op[q] === MATCH) return true;
      if (cur >= 0 && p.tests[q]!(cur)) ncount = addThread(nlist, ncount, p.x[q]!, i + width, cur, nextCp);
    }
    if (i >= len) return false;
    [clist, nlist] = [nlist, clist];
    ccount = ncount;
    prev = cur;
    i += width;
  }
}

/** A RegExp answering `test` with the linear-time NFA (see the file header). */
export class LinearRegExp extends RegExp {
  readonly #program: Program;
  /** Values up to this length go to the backtracking engine (faster on short values). */
  readonly #backtrackLimit: number;

  constructor(source: string, flags: string, node: Re2Node, backtrackLimit = 0) {
    super(source, flags);
    this.#program = compileProgram(node, flags);
    this.#backtrackLimit = backtrackLimit;
  }

  /** Derived RegExps (`split`, `matchAll`) are plain ones. */
  static override get [Symbol.species](): RegExpConstructor {
    return RegExp;
  }

  override test(s: string): boolean {
    const str = String(s);
    if (str.length <= this.#backtrackLimit) return RegExp.prototype.exec.call(this, str) !== null;
    return run(this.#program, str);
  }

  override exec(s: string): RegExpExecArray | null {
    const str = String(s);
    if (str.length <= this.#backtrackLimit) return RegExp.prototype.exec.call(this, str);
    if (!run(this.#program, str)) {
      this.lastIndex = 0;
      return null;
    }
    return super.exec(str);
  }
}

/**
 * A RegExp for a pattern that is a list of literal strings (`host-1|host-2|…`, as dashboards send
 * for a multi-value variable): a set lookup, where the backtracking engine would try every
 * alternative for every value.
 */
export class LiteralSetRegExp extends RegExp {
  readonly #values: ReadonlySet<string>;

  constructor(source: string, flags: string, values: ReadonlySet<string>) {
    super(source, flags);
    this.#values = values;
  }

  static override get [Symbol.species](): RegExpConstructor {
    return RegExp;
  }

  override test(s: string): boolean {
    return this.#values.has(String(s));
  }

  override exec(s: string): RegExpExecArray | null {
    const str = String(s);
    if (!this.#values.has(str)) {
      this.lastIndex = 0;
      return null;
    }
    return RegExp.prototype.exec.call(this, str);
  }
}
