/**
 * PromQL's tokens, scanned as Prometheus 2.42's lexer (`promql/parser/lex.go`) scans them: the
 * same states (inside braces, inside brackets, after a colon), the same keywords (case-insensitive)
 * and the same error messages, so that a bad query fails with Prometheus's words. Tokens are made
 * one at a time on the parser's demand: an error further on must not hide the parser's own.
 */
import { PromqlError } from './errors.js';
import { goQuote, goQuoteRune, isPrintable } from './go-format.js';

export type TokenType =
  | 'EOF'
  | 'IDENTIFIER'
  | 'METRIC_IDENTIFIER'
  | 'NUMBER'
  | 'DURATION'
  | 'STRING'
  | 'LEFT_PAREN'
  | 'RIGHT_PAREN'
  | 'LEFT_BRACE'
  | 'RIGHT_BRACE'
  | 'LEFT_BRACKET'
  | 'RIGHT_BRACKET'
  | 'COMMA'
  | 'EQL'
  | 'COLON'
  // Operators.
  | 'ADD'
  | 'SUB'
  | 'MUL'
  | 'DIV'
  | 'MOD'
  | 'POW'
  | 'EQLC'
  | 'NEQ'
  | 'LTE'
  | 'LSS'
  | 'GTE'
  | 'GTR'
  | 'EQL_REGEX'
  | 'NEQ_REGEX'
  | 'AT'
  | 'LAND'
  | 'LOR'
  | 'LUNLESS'
  | 'ATAN2'
  // Aggregators.
  | 'AVG'
  | 'BOTTOMK'
  | 'COUNT'
  | 'COUNT_VALUES'
  | 'GROUP'
  | 'MAX'
  | 'MIN'
  | 'QUANTILE'
  | 'STDDEV'
  | 'STDVAR'
  | 'SUM'
  | 'TOPK'
  // Keywords.
  | 'BOOL'
  | 'BY'
  | 'GROUP_LEFT'
  | 'GROUP_RIGHT'
  | 'IGNORING'
  | 'OFFSET'
  | 'ON'
  | 'WITHOUT'
  // Preprocessors of `@`.
  | 'START'
  | 'END';

export interface Token {
  readonly type: TokenType;
  /** Offset of the token in the query (UTF-16 units). */
  readonly pos: number;
  /** The token's text as written. */
  readonly val: string;
}

const KEYWORDS: ReadonlyMap<string, TokenType> = new Map<string, TokenType>([
  ['and', 'LAND'],
  ['or', 'LOR'],
  ['unless', 'LUNLESS'],
  ['atan2', 'ATAN2'],
  ['sum', 'SUM'],
  ['avg', 'AVG'],
  ['count', 'COUNT'],
  ['min', 'MIN'],
  ['max', 'MAX'],
  ['group', 'GROUP'],
  ['stddev', 'STDDEV'],
  ['stdvar', 'STDVAR'],
  ['topk', 'TOPK'],
  ['bottomk', 'BOTTOMK'],
  ['count_values', 'COUNT_VALUES'],
  ['quantile', 'QUANTILE'],
  ['offset', 'OFFSET'],
  ['by', 'BY'],
  ['without', 'WITHOUT'],
  ['on', 'ON'],
  ['ignoring', 'IGNORING'],
  ['group_left', 'GROUP_LEFT'],
  ['group_right', 'GROUP_RIGHT'],
  ['bool', 'BOOL'],
  ['start', 'START'],
  ['end', 'END'],
  ['inf', 'NUMBER'],
  ['nan', 'NUMBER'],
]);

const OPERATORS = new Set<TokenType>([
  'ADD', 'SUB', 'MUL', 'DIV', 'MOD', 'POW', 'EQLC', 'NEQ', 'LTE', 'LSS', 'GTE', 'GTR', 'EQL_REGEX', 'NEQ_REGEX', 'AT', 'LAND', 'LOR', 'LUNLESS', 'ATAN2',
]);
export const AGGREGATORS = new Set<TokenType>(['AVG', 'BOTTOMK', 'COUNT', 'COUNT_VALUES', 'GROUP', 'MAX', 'MIN', 'QUANTILE', 'STDDEV', 'STDVAR', 'SUM', 'TOPK']);
const KEYWORD_TYPES = new Set<TokenType>(['BOOL', 'BY', 'GROUP_LEFT', 'GROUP_RIGHT', 'IGNORING', 'OFFSET', 'ON', 'WITHOUT']);
/** Types Prometheus describes by their text alone (its `ItemTypeStr`). */
const PLAIN = new Set<TokenType>(['LEFT_PAREN', 'RIGHT_PAREN', 'LEFT_BRACE', 'RIGHT_BRACE', 'LEFT_BRACKET', 'RIGHT_BRACKET', 'COMMA', 'EQL', 'COLON', 'START', 'END']);
const KIND_NAMES: Partial<Record<TokenType, string>> = {
  IDENTIFIER: 'identifier',
  METRIC_IDENTIFIER: 'metric identifier',
  STRING: 'string',
  NUMBER: 'number',
  DURATION: 'duration',
};

/** How Prometheus names a token in "unexpected …" messages (`Item.desc()`). */
export function describeToken(t: Token): string {
  if (t.type === 'EOF') return 'end of input';
  // Prometheus's item table lacks `@`: its description shows the internal item number.
  if (t.type === 'AT') return `"<Item 57385>" <op:${t.val}>`;
  if (OPERATORS.has(t.type)) return `<op:${t.val}>`;
  if (AGGREGATORS.has(t.type)) return `<aggr:${t.val}>`;
  if (KEYWORD_TYPES.has(t.type)) return `<${t.val}>`;
  if (PLAIN.has(t.type)) return goQuote(t.val);
  const kind = KIND_NAMES[t.type] ?? 'token';
  if (t.type === 'IDENTIFIER' || t.type === 'METRIC_IDENTIFIER') return `${kind} ${goQuote(t.val)}`;
  const chars = [...t.val];
  return chars.length > 10 ? `${kind} ${goQuote(chars.slice(0, 10).join(''))}...` : `${kind} ${goQuote(t.val)}`;
}

/** The `<line>:<col>: parse error: ` prefix of Prometheus's errors; columns count UTF-8 bytes. */
export function parseError(input: string, pos: number, message: string): PromqlError {
  let line = 1;
  let lastBreak = -1;
  const end = Math.min(Math.max(pos, 0), input.length);
  for (let i = input.indexOf('\n'); i !== -1 && i < end; i = input.indexOf('\n', i + 1)) {
    line++;
    lastBreak = i;
  }
  const col = utf8Length(input, lastBreak + 1, end) + 1;
  return new PromqlError('bad_data', `${line}:${col}: parse error: ${message}`);
}

function utf8Length(s: string, from: number, to: number): number {
  let n = 0;
  for (let i = from; i < to; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < to) {
      n += 4;
      i++;
    } else n += 3;
  }
  return n;
}

/** Go's `%#U` of a rune: `U+0071 'q'`. */
function goRuneU(ch: string): string {
  const cp = ch.codePointAt(0)!;
  const hex = `U+${cp.toString(16).toUpperCase().padStart(4, '0')}`;
  return isPrintable(ch) && cp >= 0x20 ? `${hex} '${ch}'` : hex;
}

const C_0 = 48;
const C_9 = 57;

function isDigit(c: number): boolean {
  return c >= C_0 && c <= C_9;
}
function isAlpha(c: number): boolean {
  return c === 95 || (c >= 97 && c <= 122) || (c >= 65 && c <= 90);
}
function isAlphaNumeric(c: number): boolean {
  return isAlpha(c) || isDigit(c);
}
function isSpace(c: number): boolean {
  return c === 32 || c === 9 || c === 10 || c === 13;
}

/** Whether `s` is a valid label name (`[a-zA-Z_][a-zA-Z0-9_]*`). */
export function isLabelName(s: string): boolean {
  if (s.length === 0 || !isAlpha(s.charCodeAt(0))) return false;
  for (let i = 1; i < s.length; i++) if (!isAlphaNumeric(s.charCodeAt(i))) return false;
  return true;
}

export class Lexer {
  private pos = 0;
  private start = 0;
  private parenDepth = 0;
  private braceOpen = false;
  private bracketOpen = false;
  private gotColon = false;
  /** The token after `[` is a duration. */
  private durationNext = false;
  private done = false;

  constructor(private readonly input: string) {}

  /** The next token; lexical errors throw with Prometheus's message. */
  next(): Token {
    if (this.done) return { type: 'EOF', pos: this.input.length, val: '' };
    for (;;) {
      const t = this.braceOpen ? this.insideBraces() : this.durationNext ? this.duration() : this.statements();
      if (t !== undefined) {
        if (t.type === 'EOF') this.done = true;
        return t;
      }
    }
  }

  private fail(message: string): never {
    throw parseError(this.input, this.start, message);
  }

  private emit(type: TokenType): Token {
    const t = { type, pos: this.start, val: this.input.slice(this.start, this.pos) };
    this.start = this.pos;
    return t;
  }

  private code(at = this.pos): number {
    return at < this.input.length ? this.input.charCodeAt(at) : -1;
  }

  /** The character at `pos` as a string (a whole surrogate pair). */
  private charAt(at: number): string {
    const cp = this.input.codePointAt(at);
    return cp === undefined ? '\ufffd' : String.fromCodePoint(cp);
  }

  private skipComment(): void {
    while (this.pos < this.input.length && this.code() !== 10 && this.code() !== 13) this.pos++;
    this.start = this.pos;
  }

  private skipSpaces(): void {
    while (isSpace(this.code())) this.pos++;
    this.start = this.pos;
  }

  /** `lexStatements`: undefined when only space or a comment was consumed. */
  private statements(): Token | undefined {
    const input = this.input;
    if (input.charCodeAt(this.pos) === 35 /* # */) {
      this.skipComment();
      return undefined;
    }
    if (this.pos >= input.length) {
      if (this.parenDepth !== 0) this.fail('unclosed left parenthesis');
      if (this.bracketOpen) this.fail('unclosed left bracket');
      return this.emit('EOF');
    }
    const c = input.charCodeAt(this.pos);
    const ch = this.charAt(this.pos);
    this.pos += ch.length;
    switch (ch) {
      case ',':
        return this.emit('COMMA');
      case '*':
        return this.emit('MUL');
      case '/':
        return this.emit('DIV');
      case '%':
        return this.emit('MOD');
      case '+':
        return this.emit('ADD');
      case '-':
        return this.emit('SUB');
      case '^':
        return this.emit('POW');
      case '@':
        return this.emit('AT');
      case '=': {
        const n = this.code();
        if (n === 61) {
          this.pos++;
          return this.emit('EQLC');
        }
        if (n === 126) this.fail(`unexpected character after '=': '~'`);
        return this.emit('EQL');
      }
      case '!': {
        if (this.code() === 61) {
          this.pos++;
          return this.emit('NEQ');
        }
        this.fail(`unexpected character after '!': ${goQuoteRune(this.pos < input.length ? this.charAt(this.pos) : '\ufffd')}`);
      }
      // falls through (fail never returns)
      case '<':
        if (this.code() === 61) {
          this.pos++;
          return this.emit('LTE');
        }
        return this.emit('LSS');
      case '>':
        if (this.code() === 61) {
          this.pos++;
          return this.emit('GTE');
        }
        return this.emit('GTR');
      case '"':
      case "'":
        return this.string(c);
      case '`':
        return this.rawString();
      case '(':
        this.parenDepth++;
        return this.emit('LEFT_PAREN');
      case ')': {
        const t = this.emit('RIGHT_PAREN');
        if (--this.parenDepth < 0) this.fail(`unexpected right parenthesis ')'`);
        return t;
      }
      case '{':
        this.braceOpen = true;
        return this.emit('LEFT_BRACE');
      case '[': {
        if (this.bracketOpen) this.fail(`unexpected left bracket '['`);
        this.gotColon = false;
        const t = this.emit('LEFT_BRACKET');
        this.skipSpaces();
        this.bracketOpen = true;
        this.durationNext = true;
        return t;
      }
      case ']':
        if (!this.bracketOpen) this.fail(`unexpected right bracket ']'`);
        this.bracketOpen = false;
        return this.emit('RIGHT_BRACKET');
    }
    if (isSpace(c)) {
      this.skipSpaces();
      return undefined;
    }
    if (isDigit(c) || (c === 46 && isDigit(this.code()))) {
      this.pos--;
      return this.numberOrDuration();
    }
    if (isAlpha(c) || c === 58 /* : */) {
      if (!this.bracketOpen) {
        this.pos--;
        return this.keywordOrIdentifier();
      }
      // Inside brackets Prometheus's lexer reads any letter or colon as the subquery colon.
      if (this.gotColon) this.fail(`unexpected colon ${goQuoteRune(ch)}`);
      this.gotColon = true;
      return this.emit('COLON');
    }
    this.fail(`unexpected character: ${goQuoteRune(ch)}`);
  }

  /** `lexInsideBraces`. */
  private insideBraces(): Token | undefined {
    const input = this.input;
    if (input.charCodeAt(this.pos) === 35) {
      this.skipComment();
      return undefined;
    }
    if (this.pos >= input.length) this.fail('unexpected end of input inside braces');
    const c = input.charCodeAt(this.pos);
    const ch = this.charAt(this.pos);
    if (isSpace(c)) {
      this.skipSpaces();
      return undefined;
    }
    if (isAlpha(c)) {
      while (isAlphaNumeric(this.code())) this.pos++;
      return this.emit('IDENTIFIER');
    }
    this.pos += ch.length;
    switch (ch) {
      case ',':
        return this.emit('COMMA');
      case '"':
      case "'":
        return this.string(c);
      case '`':
        return this.rawString();
      case '=':
        if (this.code() === 126) {
          this.pos++;
          return this.emit('EQL_REGEX');
        }
        return this.emit('EQL');
      case '!': {
        const n = this.code();
        if (n === 126) {
          this.pos++;
          return this.emit('NEQ_REGEX');
        }
        if (n === 61) {
          this.pos++;
          return this.emit('NEQ');
        }
        this.fail(`unexpected character after '!' inside braces: ${goQuoteRune(this.pos < input.length ? this.charAt(this.pos) : '\ufffd')}`);
      }
      // falls through (fail never returns)
      case '{':
        this.fail(`unexpected left brace '{'`);
      // falls through
      case '}':
        this.braceOpen = false;
        return this.emit('RIGHT_BRACE');
    }
    this.fail(`unexpected character inside braces: ${goQuoteRune(ch)}`);
  }

  /** `lexDuration`: the token right after `[`. */
  private duration(): Token {
    this.durationNext = false;
    if (this.scanNumber()) this.fail('missing unit character in duration');
    if (!this.acceptRemainingDuration()) this.fail(`bad duration syntax: ${goQuote(this.input.slice(this.start, this.pos))}`);
    this.pos--;
    return this.emit('DURATION');
  }

  private numberOrDuration(): Token {
    if (this.scanNumber()) return this.emit('NUMBER');
    if (this.acceptRemainingDuration()) {
      this.pos--;
      return this.emit('DURATION');
    }
    this.fail(`bad number or duration syntax: ${goQuote(this.input.slice(this.start, this.pos))}`);
  }

  private accept(valid: string): boolean {
    if (this.pos < this.input.length && valid.includes(this.input[this.pos]!)) {
      this.pos++;
      return true;
    }
    return false;
  }

  private acceptRun(valid: string): void {
    while (this.accept(valid)) {
      // consume
    }
  }

  /** Prometheus's `scanNumber`: true when what was scanned is followed by no letter or digit. */
  private scanNumber(): boolean {
    let digits = '0123456789';
    if (this.accept('0') && this.accept('xX')) digits = '0123456789abcdefABCDEF';
    this.acceptRun(digits);
    if (this.accept('.')) this.acceptRun(digits);
    if (this.accept('eE')) {
      this.accept('+-');
      this.acceptRun('0123456789');
    }
    return !isAlphaNumeric(this.code());
  }

  /**
   * Prometheus's `acceptRemainingDuration`; like Go's it consumes one character past the
   * duration (the caller steps back).
   */
  private acceptRemainingDuration(): boolean {
    if (!this.accept('smhdwy')) return false;
    this.accept('s');
    while (this.accept('0123456789')) {
      this.acceptRun('0123456789');
      if (!this.accept('smhdw')) return false;
      this.accept('s');
    }
    const c = this.code();
    this.pos++;
    return !isAlphaNumeric(c);
  }

  private keywordOrIdentifier(): Token {
    while (isAlphaNumeric(this.code()) || this.code() === 58) this.pos++;
    const word = this.input.slice(this.start, this.pos);
    const kw = KEYWORDS.get(word.toLowerCase());
    if (kw !== undefined) return this.emit(kw);
    return this.emit(word.includes(':') ? 'METRIC_IDENTIFIER' : 'IDENTIFIER');
  }

  /** `lexString` with `lexEscape`: the escapes are checked here, decoded by the parser. */
  private string(quote: number): Token {
    const input = this.input;
    for (;;) {
      if (this.pos >= input.length) this.fail('unterminated quoted string');
      const c = input.charCodeAt(this.pos);
      if (c === 10) this.fail('unterminated quoted string');
      this.pos++;
      if (c === quote) return this.emit('STRING');
      if (c === 92 /* \ */) this.escape(quote);
    }
  }

  private escape(quote: number): void {
    if (this.pos >= this.input.length) this.fail('escape sequence not terminated');
    const ch = this.charAt(this.pos);
    this.pos += ch.length;
    let n: number;
    let base: number;
    let max: number;
    switch (ch) {
      case 'a':
      case 'b':
      case 'f':
      case 'n':
      case 'r':
      case 't':
      case 'v':
      case '\\':
        return;
      case '0':
      case '1':
      case '2':
      case '3':
      case '4':
      case '5':
      case '6':
      case '7':
        [n, base, max] = [3, 8, 255];
        this.pos--;
        break;
      case 'x':
        [n, base, max] = [2, 16, 255];
        break;
      case 'u':
        [n, base, max] = [4, 16, 0x10ffff];
        break;
      case 'U':
        [n, base, max] = [8, 16, 0x10ffff];
        break;
      default:
        if (ch.codePointAt(0) === quote) return;
        this.fail(`unknown escape sequence ${goRuneU(ch)}`);
    }
    let x = 0;
    for (; n > 0; n--) {
      if (this.pos >= this.input.length) this.fail('escape sequence not terminated');
      const d = digitVal(this.input.charCodeAt(this.pos));
      if (d >= base) this.fail(`illegal character ${goRuneU(this.charAt(this.pos))} in escape sequence`);
      x = x * base + d;
      this.pos++;
    }
    if (x > max || (x >= 0xd800 && x < 0xe000)) this.fail('escape sequence is an invalid Unicode code point');
  }

  private rawString(): Token {
    const end = this.input.indexOf('`', this.pos);
    if (end === -1) this.fail('unterminated raw string');
    this.pos = end + 1;
    return this.emit('STRING');
  }
}

function digitVal(c: number): number {
  if (c >= 48 && c <= 57) return c - 48;
  if (c >= 97 && c <= 102) return c - 97 + 10;
  if (c >= 65 && c <= 70) return c - 65 + 10;
  return 16;
}

/** The value of a STRING token (Prometheus's `strutil.Unquote`, after the lexer's checks). */
export function unquoteString(raw: string): string {
  const quote = raw[0];
  const body = raw.slice(1, -1);
  if (quote === '`') return body;
  if (!body.includes('\\')) return body;
  // Go strings are bytes: `\xNN` and octal escapes are bytes, decoded as UTF-8 at the end.
  const bytes: number[] = [];
  const pushCodePoint = (cp: number): void => {
    for (const b of Buffer.from(String.fromCodePoint(cp), 'utf8')) bytes.push(b);
  };
  for (let i = 0; i < body.length; ) {
    const c = body.charCodeAt(i);
    if (c !== 92) {
      const cp = body.codePointAt(i)!;
      if (cp < 0x80) bytes.push(cp);
      else pushCodePoint(cp);
      i += cp > 0xffff ? 2 : 1;
      continue;
    }
    const e = body[i + 1]!;
    i += 2;
    switch (e) {
      case 'a':
        bytes.push(7);
        break;
      case 'b':
        bytes.push(8);
        break;
      case 'f':
        bytes.push(12);
        break;
      case 'n':
        bytes.push(10);
        break;
      case 'r':
        bytes.push(13);
        break;
      case 't':
        bytes.push(9);
        break;
      case 'v':
        bytes.push(11);
        break;
      case 'x':
        bytes.push(parseInt(body.slice(i, i + 2), 16));
        i += 2;
        break;
      case 'u':
        pushCodePoint(parseInt(body.slice(i, i + 4), 16));
        i += 4;
        break;
      case 'U':
        pushCodePoint(parseInt(body.slice(i, i + 8), 16));
        i += 8;
        break;
      default:
        if (e >= '0' && e <= '7') {
          bytes.push(parseInt(body.slice(i - 1, i + 2), 8));
          i += 2;
        } else {
          // `\\`, `\"`, `\'`.
          bytes.push(e.charCodeAt(0));
        }
    }
  }
  return Buffer.from(bytes).toString('utf8');
}
