/**
 * Golden SQL cases (`test/cases/**\/*.sql` with `.result` beside them, GreptimeDB's sqlness
 * conventions, reference api.md §8): statements are run one by one through `POST /v1/sql`; each is
 * echoed, then its result — `Affected Rows: N`, `Error: <code>(<Name>), <message>`, or an ASCII table
 * (left-aligned, NULL empty, floats with `.0`, timestamps in UTC as `YYYY-MM-DDTHH:MM:SS[.fff]`).
 */
import { statusCodeName, type StatusCode } from '../../src/common/error/status-code.js';

/** The statements of a case file: split after each `;` that ends a line; `--` lines are comments. */
export function splitCase(text: string): string[] {
  const out: string[] = [];
  let current: string[] = [];
  for (const line of text.split('\n')) {
    if (current.length === 0 && (line.trim() === '' || line.trim().startsWith('--'))) continue;
    current.push(line);
    if (line.trimEnd().endsWith(';')) {
      out.push(current.join('\n').trim());
      current = [];
    }
  }
  if (current.join('').trim() !== '') out.push(current.join('\n').trim());
  return out;
}

interface Column {
  readonly name: string;
  readonly data_type: string;
}

const NS_PER: Record<string, bigint> = {
  TimestampSecond: 1_000_000_000n,
  TimestampMillisecond: 1_000_000n,
  TimestampMicrosecond: 1_000n,
  TimestampNanosecond: 1n,
};

/** A timestamp as sqlness prints it: UTC, fraction in groups of 3 digits, none when zero. */
function timestampText(value: number | string, type: string): string {
  const ns = BigInt(value) * NS_PER[type]!;
  let secs = ns / 1_000_000_000n;
  let frac = ns % 1_000_000_000n;
  if (frac < 0n) {
    frac += 1_000_000_000n;
    secs -= 1n;
  }
  const base = new Date(Number(secs) * 1000).toISOString().slice(0, 19);
  if (frac === 0n) return base;
  let digits = frac.toString().padStart(9, '0');
  while (digits.endsWith('000')) digits = digits.slice(0, -3);
  return `${base}.${digits}`;
}

const TIME_NS_PER: Record<string, bigint> = {
  TimeSecond: 1_000_000_000n,
  TimeMillisecond: 1_000_000n,
  TimeMicrosecond: 1_000n,
  TimeNanosecond: 1n,
};

/** A time of day as sqlness prints it: `HH:MM:SS`, fraction in groups of 3 digits, none when zero. */
function timeText(value: number | string, type: string): string {
  return timestampText((BigInt(value) * TIME_NS_PER[type]!).toString(), 'TimestampNanosecond').slice(11);
}

/**
 * A float as sqlness prints it (arrow's display, ryu's shortest digits): positional (`.0` after an
 * integer) while the point is at most 16 digits after the first digit (13 for a Float32) and fewer
 * than 5 zeros (6) follow it, else in exponent form without a `+` (`1e17`, `1.2345678901234568e28`).
 */
export function floatText(v: number, float32 = false): string {
  const [most, least] = float32 ? [13, -6] : [16, -5];
  if (!Number.isFinite(v)) return Number.isNaN(v) ? 'NaN' : v > 0 ? 'inf' : '-inf';
  if (v === 0) return Object.is(v, -0) ? '-0.0' : '0.0';
  const [mantissa, exp] = Math.abs(v).toExponential().split('e') as [string, string];
  const digits = mantissa.replace('.', '');
  const point = Number(exp) + 1; // where the decimal point is, counted from the first digit
  const sign = v < 0 ? '-' : '';
  if (point >= digits.length && point <= most) return `${sign}${digits}${'0'.repeat(point - digits.length)}.0`;
  if (point > 0 && point <= most) return `${sign}${digits.slice(0, point)}.${digits.slice(point)}`;
  if (point > least && point <= 0) return `${sign}0.${'0'.repeat(-point)}${digits}`;
  return `${sign}${digits.length === 1 ? digits : `${digits[0]}.${digits.slice(1)}`}e${point - 1}`;
}

/** East Asian wide and fullwidth characters: two columns in a terminal, as sqlness's tables count them. */
const WIDE = /[\u1100-\u115F\u2E80-\u303E\u3041-\u33FF\u3400-\u4DBF\u4E00-\u9FFF\uA000-\uA4CF\uAC00-\uD7A3\uF900-\uFAFF\uFE30-\uFE4F\uFF00-\uFF60\uFFE0-\uFFE6\u{1F300}-\u{1F64F}\u{1F680}-\u{1F6FF}\u{1F900}-\u{1FAFF}\u{20000}-\u{3FFFD}]/u;

/** The columns `text` takes in a table: one a character, two a wide one. */
function displayWidth(text: string): number {
  let n = 0;
  for (const c of text) n += WIDE.test(c) ? 2 : 1;
  return n;
}

function cellText(v: unknown, type: string): string {
  if (v === null || v === undefined) return '';
  if (type in TIME_NS_PER && (typeof v === 'number' || typeof v === 'string')) return timeText(v, type);
  if (type in NS_PER && (typeof v === 'number' || typeof v === 'string')) return timestampText(v, type);
  if (type === 'Date' && typeof v === 'number') return new Date(v * 86_400_000).toISOString().slice(0, 10);
  // (A float of 16 or more digits was kept as its text by parseJsonExact.)
  if ((type === 'Float64' || type === 'Float32') && (typeof v === 'number' || (typeof v === 'string' && /^-?\d+$/.test(v)))) return floatText(Number(v), type === 'Float32');
  // An integer list's elements beyond 2^53 were kept as strings by parseJsonExact: printed as the numbers they are.
  if (typeof v === 'object' && /^List<U?Int\d+>$/.test(type)) return JSON.stringify(v).replace(/"(-?\d{16,})"/g, '$1');
  if (typeof v === 'object') return JSON.stringify(v);
  return String(v);
}

/** An ASCII table of columns and rows; a cell with line breaks spans several lines of its row. */
export function asciiTable(columns: readonly Column[], rows: ReadonlyArray<readonly unknown[]>): string {
  const header = columns.map((c) => [c.name]);
  const body = rows.map((r) => r.map((v, i) => cellText(v, columns[i]!.data_type).split('\n')));
  const widths = header.map((h, i) => Math.max(displayWidth(h[0]!), ...body.map((r) => Math.max(...r[i]!.map(displayWidth)))));
  const rule = `+${widths.map((w) => '-'.repeat(w + 2)).join('+')}+`;
  const line = (cells: string[][]) => {
    const height = Math.max(...cells.map((c) => c.length));
    return Array.from({ length: height }, (_, k) => `|${cells.map((c, i) => ` ${c[k] ?? ''}${' '.repeat(widths[i]! - displayWidth(c[k] ?? ''))} `).join('|')}|`).join('\n');
  };
  return [rule, line(header), rule, ...(body.length > 0 ? [...body.map(line), rule] : [])].join('\n');
}

/** The rendered result of one statement, from `/v1/sql`'s JSON. */
export function renderResponse(json: Record<string, unknown>): string {
  if (json['code'] !== 0) return `Error: ${String(json['code'])}(${statusCodeName(json['code'] as StatusCode)}), ${String(json['error'])}`;
  const outputs = json['output'] as Array<Record<string, unknown>>;
  return outputs
    .map((o) => {
      if ('affectedrows' in o) return `Affected Rows: ${String(o['affectedrows'])}`;
      const rec = o['records'] as { schema: { column_schemas: Column[] }; rows: unknown[][] };
      return asciiTable(rec.schema.column_schemas, rec.rows);
    })
    .join('\n\n');
}

/** Parses `/v1/sql`'s JSON keeping integers beyond 2^53 exact (as strings). */
export function parseJsonExact(text: string): Record<string, unknown> {
  // Strings are matched first and kept: their digits are text already.
  return JSON.parse(text.replace(/"(?:[^"\\]|\\.)*"|([:,[]\s*)(-?\d{16,})(?=\s*[,\]}])/g, (m: string, pre?: string, digits?: string) => (digits === undefined ? m : `${pre}"${digits}"`))) as Record<string, unknown>;
}
