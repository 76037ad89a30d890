/**
 * The output formats of `/v1/sql` (reference api.md §1.2): `greptimedb_v1` (default), `json`,
 * `csv`, `csvWithNames`, `csvWithNamesAndTypes`, `table`, `influxdb_v1`, `null`; any other name is
 * refused. JSON is written by hand so that 64-bit integers keep every digit.
 */
import { StatusCode } from '../../common/error/status-code.js';
import { TsdbError } from '../../common/error/tsdb-error.js';
import type { Cell, Output } from '../../query/output.js';

export const FORMATS = ['greptimedb_v1', 'json', 'csv', 'csvwithnames', 'csvwithnamesandtypes', 'table', 'influxdb_v1', 'null'] as const;
export type SqlFormat = (typeof FORMATS)[number];

/** The names of the formats as the README and the error messages write them. */
const FORMAT_NAMES = ['greptimedb_v1', 'json', 'csv', 'csvWithNames', 'csvWithNamesAndTypes', 'table', 'influxdb_v1', 'null'];

/**
 * The format asked for (case-insensitive; absent or empty: greptimedb_v1). An unknown name is
 * refused (InvalidArguments, listing the formats) rather than answered in the default format, which
 * a client asking for csv would misread; GreptimeDB's `arrow` is not implemented (Unsupported).
 */
export function formatOf(name: string | undefined): SqlFormat {
  const f = (name ?? '').toLowerCase();
  if (f === '') return 'greptimedb_v1';
  if ((FORMATS as readonly string[]).includes(f)) return f as SqlFormat;
  const valid = `valid formats: ${FORMAT_NAMES.join(', ')}`;
  if (f === 'arrow') throw new TsdbError(StatusCode.Unsupported, `Unsupported format: ${name} is not implemented; ${valid}`);
  throw new TsdbError(StatusCode.InvalidArguments, `Invalid format: ${name}; ${valid}`);
}

/**
 * JSON text of a value; bigints are written as plain integers. The native JSON.stringify serves
 * values without bigints (it refuses them), which is most results and several times faster.
 */
export function toJson(v: unknown): string {
  try {
    return JSON.stringify(v) ?? 'null';
  } catch {
    return toJsonSlow(v);
  }
}

function toJsonSlow(v: unknown): string {
  if (typeof v === 'bigint') return v.toString();
  if (v === null || v === undefined) return 'null';
  if (typeof v === 'number') return Number.isFinite(v) ? String(v) : 'null';
  if (typeof v === 'string' || typeof v === 'boolean') return JSON.stringify(v);
  if (Array.isArray(v)) return `[${v.map(toJsonSlow).join(',')}]`;
  if (typeof v === 'object') {
    return `{${Object.entries(v as Record<string, unknown>)
      .filter(([, x]) => x !== undefined)
      .map(([k, x]) => `${JSON.stringify(k)}:${toJsonSlow(x)}`)
      .join(',')}}`;
  }
  return JSON.stringify(String(v));
}

/**
 * The rows of a result as JSON; the values of a JSON column (its canonical text, `common/jsonb.ts`)
 * are written as the JSON they are, as GreptimeDB writes them (objects, arrays, numbers…).
 */
function rowsJson(o: Extract<Output, { kind: 'records' }>): string {
  const json = o.columns.map((c) => c.data_type === 'Json');
  if (!json.includes(true)) return toJson(o.rows);
  const cell = (c: Cell, i: number) => (json[i] && typeof c === 'string' && isJsonText(c) ? c : toJson(c));
  return `[${o.rows.map((r) => `[${r.map(cell).join(',')}]`).join(',')}]`;
}

function isJsonText(s: string): boolean {
  try {
    JSON.parse(s);
    return true;
  } catch {
    return false;
  }
}

function limited(o: Output, limit: number | undefined): Output {
  if (o.kind !== 'records' || limit === undefined || o.rows.length <= limit) return o;
  return { ...o, rows: o.rows.slice(0, limit) };
}

/** A cell as csv and table write it: NaN and the infinities as Rust prints them (`NaN`, `inf`, `-inf`). */
function cellText(c: Cell): string {
  if (c === null) return '';
  if (typeof c === 'object') return toJson(c);
  if (typeof c === 'number' && !Number.isFinite(c)) return Number.isNaN(c) ? 'NaN' : c > 0 ? 'inf' : '-inf';
  return String(c);
}

function csvField(text: string): string {
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** The box-drawn table of the `table` format. */
function boxTable(o: Extract<Output, { kind: 'records' }>): string {
  const header = o.columns.map((c) => c.name);
  const body = o.rows.map((r) => r.map(cellText));
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((r) => r[i]!.length)));
  const line = (l: string, m: string, r: string) => `${l}${widths.map((w) => '─'.repeat(w + 2)).join(m)}${r}\n`;
  const row = (cells: string[]) => `│${cells.map((c, i) => ` ${c.padEnd(widths[i]!)} `).join('│')}│\n`;
  return line('┌', '┬', '┐') + row(header) + line('├', '┼', '┤') + body.map(row).join('') + line('└', '┴', '┘');
}

export interface Rendered {
  readonly contentType: string;
  readonly body: string;
}

/**
 * Renders outputs. Formats other than greptimedb_v1 and influxdb_v1 take one statement's output;
 * the caller refuses several.
 */
export function render(format: SqlFormat, outputs: readonly Output[], executionTimeMs: number, limit?: number): Rendered {
  const outs = outputs.map((o) => limited(o, limit));
  const json = (body: string): Rendered => ({ contentType: 'application/json', body });
  switch (format) {
    case 'greptimedb_v1':
      return json(
        `{"code":0,"output":[${outs
          .map((o) =>
            o.kind === 'affected'
              ? `{"affectedrows":${o.rows}}`
              : `{"records":{"schema":{"column_schemas":${toJson(o.columns.map((c) => ({ name: c.name, data_type: c.data_type })))}},"rows":${rowsJson(o)},"total_rows":${o.rows.length}}}`,
          )
          .join(',')}],"execution_time_ms":${executionTimeMs}}`,
      );
    case 'influxdb_v1':
      return json(
        `{"results":[${outs
          .map((o, i) =>
            o.kind === 'affected'
              ? `{"statement_id":${i},"series":[]}`
              : `{"statement_id":${i},"series":[{"name":"","columns":${toJson(o.columns.map((c) => c.name))},"values":${toJson(o.rows)}}]}`,
          )
          .join(',')}],"execution_time_ms":${executionTimeMs}}`,
      );
    case 'json': {
      const o = outs[0]!;
      if (o.kind === 'affected') return json(`{"data":[],"affected_rows":${o.rows},"execution_time_ms":${executionTimeMs}}`);
      const data = o.rows.map((r) => Object.fromEntries(o.columns.map((c, i) => [c.name, r[i]])));
      return json(`{"data":${toJson(data)},"execution_time_ms":${executionTimeMs}}`);
    }
    case 'csv':
    case 'csvwithnames':
    case 'csvwithnamesandtypes': {
      const o = outs[0]!;
      const contentType = 'text/csv; charset=utf-8';
      if (o.kind === 'affected') return { contentType, body: `${o.rows}\n` };
      const lines: string[] = [];
      if (format !== 'csv') lines.push(o.columns.map((c) => csvField(c.name)).join(','));
      if (format === 'csvwithnamesandtypes') lines.push(o.columns.map((c) => csvField(c.data_type)).join(','));
      for (const r of o.rows) lines.push(r.map((c) => csvField(cellText(c))).join(','));
      return { contentType, body: lines.map((l) => `${l}\r\n`).join('') };
    }
    case 'table': {
      const o = outs[0]!;
      return { contentType: 'text/plain; charset=utf-8', body: o.kind === 'affected' ? `${o.rows} rows affected.\n` : boxTable(o) };
    }
    case 'null': {
      const o = outs[0]!;
      const elapsed = `Elapsed: ${(executionTimeMs / 1000).toFixed(3)} sec.\n`;
      return { contentType: 'text/plain; charset=utf-8', body: o.kind === 'affected' ? `${o.rows} rows affected.\n${elapsed}` : `${o.rows.length} rows in set.\n${elapsed}` };
    }
  }
}
