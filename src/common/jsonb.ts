/**
 * JSON documents as GreptimeDB's JSON columns hold them (its `jsonb` encoding, crate jsonb 0.4):
 * parsed with that parser's rules and error messages (`EOF while parsing a value, pos 20`, positions
 * in bytes), and written back as its `to_string` writes them, which is what every protocol shows of a
 * JSON value: objects with their keys sorted (byte order, a repeated key keeping its last value),
 * no spaces, integers as written (signed 64-bit when negative, unsigned 64-bit otherwise, else
 * floats), floats in their shortest form as Rust's `ryu` writes it (`1.0`, `1e100`, `0.001`), strings
 * escaped as Rust's `{:?}` escapes them (`\u2028` for characters that do not print), keys unescaped.
 *
 * tsdb stores a JSON column's values as this canonical text (DESIGN.md D13 keeps column data
 * DuckDB-native), so that a stored value is shown without work; the `json_*` SQL functions
 * (`query/json-functions.ts`) read it with `parseJson` and select inside it with `JsonPath`
 * (jsonb's JSON path: `a.b`, `a:b`, `a["b"]`, `[0]`, `[last - 1]`, `[1 to last]`, `.*`, `[*]`,
 * filters `?(@.x > 1)` and predicates `$.a == 1`).
 */

/** A JSON number: an integer that fits 64 bits (signed when negative), or a float. */
export type JsonNumber = { readonly int: bigint } | { readonly float: number };

export type JsonValue = null | boolean | string | JsonNumber | JsonValue[] | JsonObject;

/** An object's members; written sorted by key. */
export class JsonObject {
  readonly members = new Map<string, JsonValue>();
}

export function isNumber(v: JsonValue): v is JsonNumber {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof JsonObject);
}

/** A document that does not parse: jsonb's message (`expected value, pos 1`). */
export class JsonSyntaxError extends Error {}

const I64_MIN = -(1n << 63n);
const U64_MAX = (1n << 64n) - 1n;

/** Parses JSON text as jsonb's parser does; throws JsonSyntaxError with its message. */
export function parseJson(text: string): JsonValue {
  return new Parser(text).parse();
}

/**
 * jsonb's parser over the UTF-16 text (positions in its errors are converted to bytes of UTF-8, as
 * jsonb's count them, only when an error is thrown).
 */
/** How deep arrays and objects may nest (serde_json's limit): deeper input is refused, never a stack overflow. */
export const MAX_JSON_DEPTH = 128;

class Parser {
  private idx = 0;
  private depth = 0;

  constructor(private readonly s: string) {}

  parse(): JsonValue {
    const v = this.value();
    this.skipUnused();
    if (this.idx < this.s.length) {
      this.idx++;
      throw this.error('trailing characters');
    }
    return v;
  }

  private error(what: string): JsonSyntaxError {
    return new JsonSyntaxError(`${what}, pos ${Buffer.byteLength(this.s.slice(0, this.idx))}`);
  }

  private next(): number {
    if (this.idx >= this.s.length) throw this.error('EOF while parsing a value');
    return this.s.charCodeAt(this.idx);
  }

  private mustBe(c: number): void {
    if (this.idx >= this.s.length) throw this.error('EOF while parsing a value');
    const v = this.s.charCodeAt(this.idx++);
    if (v !== c) throw this.error('expected ident');
  }

  /** Whitespace, and the escaped whitespace jsonb also skips between tokens (`\n`, `\r`, `\t`, `\x0C`). */
  private skipUnused(): void {
    const s = this.s;
    while (this.idx < s.length) {
      const c = s.charCodeAt(this.idx);
      if (c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0c || c === 0x0d) {
        this.idx++;
        continue;
      }
      if (c === 0x5c) {
        const n = s.charCodeAt(this.idx + 1);
        if (this.idx + 1 < s.length && (n === 0x6e || n === 0x72 || n === 0x74)) {
          this.idx += 2;
          continue;
        }
        if (this.idx + 3 < s.length && n === 0x78 && s.charCodeAt(this.idx + 2) === 0x30 && s.charCodeAt(this.idx + 3) === 0x43) {
          this.idx += 4;
          continue;
        }
      }
      break;
    }
  }

  private value(): JsonValue {
    this.skipUnused();
    const c = this.next();
    switch (c) {
      case 0x6e: // n
        for (const x of [0x6e, 0x75, 0x6c, 0x6c]) this.mustBe(x);
        return null;
      case 0x74: // t
        for (const x of [0x74, 0x72, 0x75, 0x65]) this.mustBe(x);
        return true;
      case 0x66: // f
        for (const x of [0x66, 0x61, 0x6c, 0x73, 0x65]) this.mustBe(x);
        return false;
      case 0x22:
        return this.string();
      case 0x5b:
      case 0x7b: {
        if (++this.depth > MAX_JSON_DEPTH) {
          this.idx++;
          throw this.error('recursion limit exceeded');
        }
        const v = c === 0x5b ? this.array() : this.object();
        this.depth--;
        return v;
      }
      default:
        if (c === 0x2d || (c >= 0x30 && c <= 0x39)) return this.number();
        this.idx++;
        throw this.error('expected value');
    }
  }

  private isDigit(): boolean {
    const c = this.s.charCodeAt(this.idx);
    return c >= 0x30 && c <= 0x39;
  }

  private digits(): number {
    if (this.idx === this.s.length) throw this.error('EOF while parsing a value');
    const start = this.idx;
    while (this.isDigit()) this.idx++;
    return this.idx - start;
  }

  private invalidNumber(): JsonSyntaxError {
    this.idx++;
    return this.error('invalid number');
  }

  private number(): JsonNumber {
    const s = this.s;
    const start = this.idx;
    let fraction = false;
    let exponent = false;
    const negative = s.charCodeAt(this.idx) === 0x2d;
    if (negative) this.idx++;
    if (s.charCodeAt(this.idx) === 0x30) {
      this.idx++;
      if (this.isDigit()) throw this.invalidNumber();
    } else if (this.digits() === 0) {
      throw this.invalidNumber();
    }
    if (s.charCodeAt(this.idx) === 0x2e) {
      fraction = true;
      this.idx++;
      if (this.digits() === 0) throw this.invalidNumber();
    }
    const e = s.charCodeAt(this.idx);
    if (e === 0x45 || e === 0x65) {
      exponent = true;
      this.idx++;
      const sign = s.charCodeAt(this.idx);
      if (sign === 0x2b || sign === 0x2d) this.idx++;
      if (this.digits() === 0) throw this.invalidNumber();
    }
    const text = s.slice(start, this.idx);
    if (!fraction && !exponent) {
      const v = BigInt(text);
      if (negative ? v >= I64_MIN : v <= U64_MAX) return { int: v };
    }
    return { float: Number(text) };
  }

  private string(): string {
    const s = this.s;
    this.mustBe(0x22);
    const start = this.idx;
    let escaped = false;
    for (;;) {
      const c = this.next();
      if (c === 0x5c) {
        escaped = true;
        this.idx++;
        if (this.next() === 0x75) {
          this.idx++;
          this.idx += this.next() === 0x7b ? 6 : 4;
        } else {
          this.idx++;
        }
        continue;
      }
      this.idx++;
      if (c === 0x22) break;
    }
    const raw = s.slice(start, this.idx - 1);
    return escaped ? this.unescape(raw) : raw;
  }

  /** A string's escapes (`\n`, `\uXXXX` with surrogate pairs, jsonb's `\u{XXXX}`). */
  private unescape(raw: string): string {
    const out: string[] = [];
    const hex4 = (at: number): [number, number] => {
      const braced = raw.charCodeAt(at) === 0x7b;
      const from = braced ? at + 1 : at;
      const text = raw.slice(from, from + 4);
      if (!/^[0-9a-fA-F]{4}$/.test(text)) throw this.error(`invalid hex '${text}'`);
      if (braced && raw.charCodeAt(from + 4) !== 0x7d) throw this.error('unexpected end of hex escape');
      return [parseInt(text, 16), braced ? 6 : 4];
    };
    let plain = 0;
    for (let i = 0; i < raw.length; ) {
      if (raw.charCodeAt(i) !== 0x5c) {
        i++;
        continue;
      }
      out.push(raw.slice(plain, i));
      const e = raw.charAt(i + 1);
      i += 2;
      const simple = SIMPLE_ESCAPES[e];
      if (simple !== undefined) {
        out.push(simple);
      } else if (e !== 'u') {
        throw this.error(`invalid escaped '${e.charCodeAt(0).toString(16).toUpperCase()}'`);
      } else {
        const [hi, n] = hex4(i);
        i += n;
        let cp = hi >= 0xd800 && hi <= 0xdfff ? 0xfffd : hi;
        if (hi >= 0xd800 && hi <= 0xdbff && raw.charCodeAt(i) === 0x5c && raw.charCodeAt(i + 1) === 0x75) {
          const [lo, m] = hex4(i + 2);
          if (lo >= 0xdc00 && lo <= 0xdfff) {
            cp = 0x10000 + ((hi - 0xd800) << 10) + (lo - 0xdc00);
            i += 2 + m;
          }
        }
        out.push(String.fromCodePoint(cp));
      }
      plain = i;
    }
    out.push(raw.slice(plain));
    return out.join('');
  }

  private array(): JsonValue[] {
    this.mustBe(0x5b);
    const values: JsonValue[] = [];
    for (let first = true; ; first = false) {
      this.skipUnused();
      const c = this.next();
      if (c === 0x5d) {
        this.idx++;
        return values;
      }
      if (!first) {
        if (c !== 0x2c) throw this.error('expected `,` or `]`');
        this.idx++;
      }
      values.push(this.value());
    }
  }

  private object(): JsonObject {
    this.mustBe(0x7b);
    const obj = new JsonObject();
    for (let first = true; ; first = false) {
      this.skipUnused();
      const c = this.next();
      if (c === 0x7d) {
        this.idx++;
        return obj;
      }
      if (!first) {
        if (c !== 0x2c) throw this.error('expected `,` or `}`');
        this.idx++;
      }
      const key = this.value();
      if (typeof key !== 'string') throw this.error('key must be a string');
      this.skipUnused();
      if (this.next() !== 0x3a) throw this.error('expected `:`');
      this.idx++;
      obj.members.set(key, this.value());
    }
  }
}

const SIMPLE_ESCAPES: Record<string, string> = { '\\': '\\', '"': '"', '/': '/', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' };

/** Keys in byte order of their UTF-8 (code point order; UTF-16 order differs past U+FFFF). */
function compareKeys(a: string, b: string): number {
  if (a === b) return 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.codePointAt(i)!;
    const y = b.codePointAt(i)!;
    if (x !== y) return x < y ? -1 : 1;
    if (x > 0xffff) i++;
  }
  return a.length - b.length;
}

/** An object's members in the order jsonb writes them. */
export function sortedMembers(o: JsonObject): Array<[string, JsonValue]> {
  return [...o.members].sort((x, y) => compareKeys(x[0], y[0]));
}

/** A float as Rust's `ryu` writes it: shortest digits, `.0` on integers, an exponent past 16 digits. */
export function floatText(v: number): string {
  if (Number.isNaN(v)) return 'NaN';
  if (!Number.isFinite(v)) return v > 0 ? 'inf' : '-inf';
  if (v === 0) return Object.is(v, -0) ? '-0.0' : '0.0';
  const sign = v < 0 ? '-' : '';
  const [mantissa, exp] = Math.abs(v).toExponential().split('e') as [string, string];
  const digits = mantissa.replace('.', '');
  const n = digits.length;
  const kk = Number(exp) + 1; // 10^(kk-1) <= |v| < 10^kk
  const k = kk - n; // |v| = digits × 10^k
  let body: string;
  if (k >= 0 && kk <= 16) body = `${digits}${'0'.repeat(k)}.0`;
  else if (kk > 0 && kk <= 16) body = `${digits.slice(0, kk)}.${digits.slice(kk)}`;
  else if (kk > -5 && kk <= 0) body = `0.${'0'.repeat(-kk)}${digits}`;
  else if (n === 1) body = `${digits}e${kk - 1}`;
  else body = `${digits[0]}.${digits.slice(1)}e${kk - 1}`;
  return sign + body;
}

/** Characters Rust's `{:?}` escapes as `\u{…}` (not printable: controls, formats, separators but space, …). */
const UNPRINTABLE = /[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}\p{Zl}\p{Zp}\p{Zs}]/u;
const NEEDS_ESCAPE = /["\\\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}\p{Zl}\p{Zp}]|(?! )\p{Zs}/u;

function hex4(n: number): string {
  return `\\u${n.toString(16).toUpperCase().padStart(4, '0')}`;
}

/** A string as jsonb writes it (Rust's `{:?}`, then `\u{…}` as JSON's `\uXXXX`). */
export function stringText(s: string): string {
  if (!NEEDS_ESCAPE.test(s)) return `"${s}"`;
  let out = '"';
  for (const ch of s) {
    const cp = ch.codePointAt(0)!;
    if (ch === '"') out += '\\"';
    else if (ch === '\\') out += '\\\\';
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (ch === '\t') out += '\\t';
    else if (cp === 0) out += '\\0';
    else if (ch !== ' ' && UNPRINTABLE.test(ch)) {
      if (cp <= 0xffff) out += hex4(cp);
      else out += hex4(0xd800 + ((cp - 0x10000) >> 10)) + hex4(0xdc00 + ((cp - 0x10000) & 0x3ff));
    } else out += ch;
  }
  return `${out}"`;
}

export function numberText(n: JsonNumber): string {
  return 'int' in n ? n.int.toString() : floatText(n.float);
}

/** A value as jsonb's `to_string` writes it (the canonical text of a JSON column's value). */
export function jsonText(v: JsonValue): string {
  if (v === null) return 'null';
  if (v === true) return 'true';
  if (v === false) return 'false';
  if (typeof v === 'string') return stringText(v);
  if (Array.isArray(v)) return `[${v.map(jsonText).join(',')}]`;
  if (v instanceof JsonObject) return `{${sortedMembers(v).map(([k, x]) => `"${k}":${jsonText(x)}`).join(',')}}`;
  return numberText(v);
}

/** The canonical text of a JSON document; throws JsonSyntaxError. */
export function canonicalJson(text: string): string {
  return jsonText(parseJson(text));
}

// ---- JSON path (jsonb's jsonpath) ----

type Index = { readonly last: boolean; readonly n: number };
type ArrayIndex = { readonly at: Index } | { readonly from: Index; readonly to: Index };
type Step =
  | { readonly kind: 'root' | 'current' | 'dot-wildcard' | 'bracket-wildcard' }
  | { readonly kind: 'field'; readonly name: string }
  | { readonly kind: 'indices'; readonly indices: readonly ArrayIndex[] }
  | { readonly kind: 'filter'; readonly expr: Expr };
type Literal = null | boolean | string | JsonNumber;
type Expr =
  | { readonly kind: 'and' | 'or'; readonly left: Expr; readonly right: Expr }
  | { readonly kind: 'cmp'; readonly op: string; readonly left: Operand; readonly right: Operand }
  | { readonly kind: 'exists'; readonly steps: readonly Step[] };
type Operand = { readonly steps: readonly Step[] } | { readonly value: Literal };

/** A JSON path that does not parse (jsonb's `InvalidJsonPath`). */
export class JsonPathError extends Error {
  constructor() {
    super('InvalidJsonPath');
  }
}

const RAW_STOP = new Set(' ,.:{}[]()?@$|<>!=+-*/%"\''.split(''));

/** A parsed JSON path: either steps selecting values, or a predicate over the document. */
export class JsonPath {
  constructor(
    readonly steps: readonly Step[],
    readonly predicate: Expr | undefined,
  ) {}

  static parse(text: string): JsonPath {
    const p = new PathParser(text);
    const path = p.path();
    if (!p.atEnd()) throw new JsonPathError();
    return path;
  }

  /** The values the path selects in `doc` (a predicate path selects the document when it holds). */
  select(doc: JsonValue): JsonValue[] {
    if (this.predicate !== undefined) return evalExpr(this.predicate, doc, doc) ? [doc] : [];
    return selectSteps(this.steps, doc, doc);
  }

  /** jsonb's `get_by_path` (mode Mixed): one value, several as an array, none as undefined. */
  get(doc: JsonValue): JsonValue | undefined {
    if (this.predicate !== undefined) return evalExpr(this.predicate, doc, doc);
    const found = this.select(doc);
    return found.length === 0 ? undefined : found.length === 1 ? found[0] : found;
  }
}

function selectSteps(steps: readonly Step[], root: JsonValue, current: JsonValue): JsonValue[] {
  let poses: JsonValue[] = [steps[0]?.kind === 'current' ? current : root];
  for (const s of steps) {
    if (s.kind === 'root' || s.kind === 'current') continue;
    const next: JsonValue[] = [];
    for (const v of poses) {
      if (s.kind === 'filter') {
        if (evalExpr(s.expr, root, v)) next.push(v);
        continue;
      }
      const container = Array.isArray(v) || v instanceof JsonObject;
      if (!container) {
        if (s.kind === 'bracket-wildcard') next.push(v);
        continue;
      }
      switch (s.kind) {
        case 'dot-wildcard':
          if (v instanceof JsonObject) next.push(...sortedMembers(v).map((m) => m[1]));
          break;
        case 'bracket-wildcard':
          if (Array.isArray(v)) next.push(...v);
          else next.push(v);
          break;
        case 'field':
          if (v instanceof JsonObject && v.members.has(s.name)) next.push(v.members.get(s.name)!);
          break;
        case 'indices':
          if (Array.isArray(v)) for (const i of arrayIndices(s.indices, v.length)) next.push(v[i]!);
          break;
      }
    }
    poses = next;
  }
  return poses;
}

function indexOf(i: Index, length: number): number {
  return i.last ? length + i.n - 1 : i.n;
}

function arrayIndices(indices: readonly ArrayIndex[], length: number): number[] {
  const out: number[] = [];
  if (length === 0) return out;
  for (const x of indices) {
    if ('at' in x) {
      const i = indexOf(x.at, length);
      if (i >= 0 && i < length) out.push(i);
    } else {
      const from = indexOf(x.from, length);
      const to = indexOf(x.to, length);
      if (from > to || from >= length || to < 0) continue;
      for (let i = Math.max(from, 0); i <= Math.min(to, length - 1); i++) out.push(i);
    }
  }
  return out;
}

function operandValues(o: Operand, root: JsonValue, current: JsonValue): Literal[] {
  if ('value' in o) return [o.value];
  // Only scalars take part in comparisons.
  return selectSteps(o.steps, root, current).filter((v): v is Literal => !Array.isArray(v) && !(v instanceof JsonObject));
}

function compareLiterals(op: string, a: Literal, b: Literal): boolean {
  let c: number;
  if (a === null || b === null) {
    if (a !== b) return op === '!=' ? false : false;
    c = 0;
  } else if (typeof a === 'boolean' && typeof b === 'boolean') {
    c = Number(a) - Number(b);
  } else if (typeof a === 'string' && typeof b === 'string') {
    c = compareKeys(a, b);
  } else if (typeof a === 'object' && typeof b === 'object') {
    c = compareNumbers(a, b);
  } else {
    return false;
  }
  switch (op) {
    case '==':
      return c === 0;
    case '!=':
      return c !== 0;
    case '<':
      return c < 0;
    case '<=':
      return c <= 0;
    case '>':
      return c > 0;
    default:
      return c >= 0;
  }
}

function compareNumbers(a: JsonNumber, b: JsonNumber): number {
  if ('int' in a && 'int' in b) return a.int < b.int ? -1 : a.int > b.int ? 1 : 0;
  const x = 'int' in a ? Number(a.int) : a.float;
  const y = 'int' in b ? Number(b.int) : b.float;
  return x < y ? -1 : x > y ? 1 : 0;
}

function evalExpr(e: Expr, root: JsonValue, current: JsonValue): boolean {
  switch (e.kind) {
    case 'and':
      return evalExpr(e.left, root, current) && evalExpr(e.right, root, current);
    case 'or':
      return evalExpr(e.left, root, current) || evalExpr(e.right, root, current);
    case 'exists':
      return selectSteps(e.steps, root, current).length > 0;
    case 'cmp': {
      const ls = operandValues(e.left, root, current);
      const rs = operandValues(e.right, root, current);
      return ls.some((l) => rs.some((r) => compareLiterals(e.op, l, r)));
    }
  }
}

/** jsonb's path grammar, recursive descent over the text (its parser is nom's `alt` of these forms). */
class PathParser {
  private i = 0;

  constructor(private readonly s: string) {}

  atEnd(): boolean {
    this.ws();
    return this.i >= this.s.length;
  }

  private ws(): void {
    while (this.i < this.s.length && /\s/.test(this.s[this.i]!)) this.i++;
  }

  private peek(text: string): boolean {
    return this.s.startsWith(text, this.i);
  }

  private eat(text: string): boolean {
    if (!this.peek(text)) return false;
    this.i += text.length;
    return true;
  }

  private attempt<T>(f: () => T): T | undefined {
    const at = this.i;
    try {
      return f();
    } catch (e) {
      if (!(e instanceof JsonPathError)) throw e;
      this.i = at;
      return undefined;
    }
  }

  path(): JsonPath {
    this.ws();
    const predicate = this.attempt(() => {
      const e = this.exprOr(true);
      if (!this.atEnd()) throw new JsonPathError();
      return e;
    });
    if (predicate !== undefined) return new JsonPath([], predicate);
    const steps: Step[] = [];
    if (this.eat('$')) steps.push({ kind: 'root' });
    else {
      this.ws();
      const name = this.attempt(() => this.rawString());
      if (name !== undefined) {
        steps.push({ kind: 'field', name });
        this.ws();
      }
    }
    for (;;) {
      this.ws();
      const step = this.attempt(() => this.innerStep()) ?? this.attempt(() => this.filter());
      if (step === undefined) break;
      steps.push(step);
    }
    return new JsonPath(steps, undefined);
  }

  private innerStep(): Step {
    if (this.eat('.*')) return { kind: 'dot-wildcard' };
    const at = this.i;
    if (this.eat('[')) {
      this.ws();
      if (this.eat('*')) {
        this.ws();
        if (this.eat(']')) return { kind: 'bracket-wildcard' };
      }
      this.i = at;
    }
    if (this.eat(':') || this.eat('.')) return { kind: 'field', name: this.peek('"') ? this.quoted() : this.rawString() };
    if (this.eat('[')) {
      this.ws();
      if (this.peek('"')) {
        const name = this.quoted();
        this.ws();
        if (!this.eat(']')) throw new JsonPathError();
        return { kind: 'field', name };
      }
      const indices: ArrayIndex[] = [];
      for (;;) {
        this.ws();
        const from = this.index();
        const save = this.i;
        this.ws();
        if (/^to/i.test(this.s.slice(this.i, this.i + 2))) {
          this.i += 2;
          this.ws();
          indices.push({ from, to: this.index() });
        } else {
          this.i = save;
          indices.push({ at: from });
        }
        this.ws();
        if (this.eat(']')) return { kind: 'indices', indices };
        if (!this.eat(',')) throw new JsonPathError();
      }
    }
    throw new JsonPathError();
  }

  private index(): Index {
    const m = /^[+-]?\d+/.exec(this.s.slice(this.i));
    if (m !== null) {
      this.i += m[0].length;
      return { last: false, n: Number(m[0]) };
    }
    if (!/^last/i.test(this.s.slice(this.i, this.i + 4))) throw new JsonPathError();
    this.i += 4;
    const save = this.i;
    this.ws();
    const sign = this.eat('-') ? -1 : this.eat('+') ? 1 : 0;
    if (sign !== 0) {
      this.ws();
      const d = /^[+-]?\d+/.exec(this.s.slice(this.i));
      if (d !== null) {
        this.i += d[0].length;
        return { last: true, n: sign * Number(d[0]) };
      }
    }
    this.i = save;
    return { last: true, n: 0 };
  }

  private rawString(): string {
    const start = this.i;
    while (this.i < this.s.length && !RAW_STOP.has(this.s[this.i]!)) {
      if (this.s[this.i] === '\\') this.i++;
      this.i++;
    }
    if (this.i === start) throw new JsonPathError();
    return unescapeName(this.s.slice(start, this.i));
  }

  private quoted(): string {
    if (!this.eat('"')) throw new JsonPathError();
    const start = this.i;
    while (this.i < this.s.length && this.s[this.i] !== '"') {
      if (this.s[this.i] === '\\') this.i++;
      this.i++;
    }
    if (this.i >= this.s.length || this.i === start) throw new JsonPathError();
    const name = unescapeName(this.s.slice(start, this.i));
    this.i++;
    return name;
  }

  private filter(): Step {
    if (!this.eat('?')) throw new JsonPathError();
    this.ws();
    if (!this.eat('(')) throw new JsonPathError();
    this.ws();
    const expr = this.exprOr(false);
    this.ws();
    if (!this.eat(')')) throw new JsonPathError();
    return { kind: 'filter', expr };
  }

  private exprOr(root: boolean): Expr {
    let e = this.exprAnd(root);
    for (;;) {
      const save = this.i;
      this.ws();
      if (!this.eat('||')) {
        this.i = save;
        return e;
      }
      this.ws();
      e = { kind: 'or', left: e, right: this.exprAnd(root) };
    }
  }

  private exprAnd(root: boolean): Expr {
    let e = this.atom(root);
    for (;;) {
      const save = this.i;
      this.ws();
      if (!this.eat('&&')) {
        this.i = save;
        return e;
      }
      this.ws();
      e = { kind: 'and', left: e, right: this.atom(root) };
    }
  }

  private atom(root: boolean): Expr {
    const cmp = this.attempt((): Expr => {
      this.ws();
      const left = this.operand(root);
      this.ws();
      const op = ['==', '!=', '<>', '<=', '<', '>=', '>'].find((o) => this.eat(o));
      if (op === undefined) throw new JsonPathError();
      this.ws();
      const right = this.operand(root);
      this.ws();
      return { kind: 'cmp', op: op === '<>' ? '!=' : op, left, right };
    });
    if (cmp !== undefined) return cmp;
    if (this.eat('(')) {
      this.ws();
      const e = this.exprOr(root);
      this.ws();
      if (!this.eat(')')) throw new JsonPathError();
      return e;
    }
    if (this.eat('exists')) {
      this.ws();
      if (!this.eat('(')) throw new JsonPathError();
      this.ws();
      const steps: Step[] = [];
      if (this.eat('$')) steps.push({ kind: 'root' });
      else if (this.eat('@')) steps.push({ kind: 'current' });
      else throw new JsonPathError();
      for (;;) {
        this.ws();
        const step = this.attempt(() => this.innerStep()) ?? this.attempt(() => this.filter());
        if (step === undefined) break;
        steps.push(step);
      }
      this.ws();
      if (!this.eat(')')) throw new JsonPathError();
      return { kind: 'exists', steps };
    }
    throw new JsonPathError();
  }

  private operand(root: boolean): Operand {
    const steps: Step[] = [];
    if (this.eat('$')) steps.push({ kind: 'root' });
    else if (!root && this.eat('@')) steps.push({ kind: 'current' });
    if (steps.length > 0) {
      for (;;) {
        this.ws();
        const step = this.attempt(() => this.innerStep());
        if (step === undefined) break;
        steps.push(step);
      }
      return { steps };
    }
    for (const [text, value] of [['null', null], ['true', true], ['false', false]] as const) if (this.eat(text)) return { value };
    const num = /^-?(?:\d+\.?\d*(?:[eE][+-]?\d+)?|\.\d+(?:[eE][+-]?\d+)?)/.exec(this.s.slice(this.i));
    if (num !== null) {
      this.i += num[0].length;
      const t = num[0];
      if (/^-?\d+$/.test(t)) {
        const v = BigInt(t);
        if (v >= I64_MIN && v <= U64_MAX) return { value: { int: v } };
      }
      return { value: { float: Number(t) } };
    }
    if (this.peek('"')) return { value: this.quoted() };
    throw new JsonPathError();
  }
}

function unescapeName(s: string): string {
  if (!s.includes('\\')) return s;
  try {
    const v = parseJson(`"${s}"`);
    if (typeof v === 'string') return v;
  } catch {
    // fall through
  }
  throw new JsonPathError();
}
