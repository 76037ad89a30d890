/**
 * Deterministic TSBS "cpu-only" data: a seeded PRNG, the host tag sets TSBS draws (hostname, region,
 * datacenter, rack, os, arch, team, service, service_version, service_environment) and the ten
 * usage_* fields as clamped random walks in [0, 100] (start uniform in [0, 100), step N(0, 1)), one
 * row per host every 10 s, time-major (every host at t, then every host at t + 10 s), as TSBS emits
 * them. Serializers turn a row range into a tsdb INSERT statement or InfluxDB line protocol.
 */

export const TAGS = ['hostname', 'region', 'datacenter', 'rack', 'os', 'arch', 'team', 'service', 'service_version', 'service_environment'] as const;
export const FIELDS = [
  'usage_user', 'usage_system', 'usage_idle', 'usage_nice', 'usage_iowait',
  'usage_irq', 'usage_softirq', 'usage_steal', 'usage_guest', 'usage_guest_nice',
] as const;
export const INTERVAL_MS = 10_000;
/** TSBS's default start: 2016-01-01T00:00:00Z. */
export const DEFAULT_START_MS = Date.UTC(2016, 0, 1);

/** sfc32 seeded through splitmix32: small, fast and the same on every platform. */
export class Rng {
  private a: number;
  private b: number;
  private c: number;
  private d: number;
  private spare: number | null = null;

  constructor(seed: number) {
    let s = seed >>> 0;
    const next = (): number => {
      s = (s + 0x9e3779b9) >>> 0;
      let z = s;
      z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
      z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
      return (z ^ (z >>> 16)) >>> 0;
    };
    this.a = next();
    this.b = next();
    this.c = next();
    this.d = next();
    for (let i = 0; i < 12; i++) this.u32();
  }

  u32(): number {
    const t = (((this.a + this.b) >>> 0) + this.d) >>> 0;
    this.d = (this.d + 1) >>> 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) >>> 0;
    this.c = ((this.c << 21) | (this.c >>> 11)) >>> 0;
    this.c = (this.c + t) >>> 0;
    return t;
  }

  /** Uniform in [0, 1). */
  float(): number {
    return this.u32() / 4294967296;
  }

  /** Uniform integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.float() * n);
  }

  pick<T>(xs: readonly T[]): T {
    const x = xs[this.int(xs.length)];
    if (x === undefined) throw new Error('pick from an empty list');
    return x;
  }

  /** Standard normal (Box–Muller). */
  normal(): number {
    if (this.spare !== null) {
      const s = this.spare;
      this.spare = null;
      return s;
    }
    let u = 0;
    while (u === 0) u = this.float();
    const v = this.float();
    const r = Math.sqrt(-2 * Math.log(u));
    this.spare = r * Math.sin(2 * Math.PI * v);
    return r * Math.cos(2 * Math.PI * v);
  }
}

/** TSBS's regions and their datacenters. */
const REGIONS: ReadonlyArray<readonly [string, readonly string[]]> = [
  ['us-east-1', ['us-east-1a', 'us-east-1b', 'us-east-1c', 'us-east-1e']],
  ['us-west-1', ['us-west-1a', 'us-west-1b']],
  ['us-west-2', ['us-west-2a', 'us-west-2b', 'us-west-2c']],
  ['eu-west-1', ['eu-west-1a', 'eu-west-1b', 'eu-west-1c']],
  ['eu-central-1', ['eu-central-1a', 'eu-central-1b']],
  ['ap-southeast-1', ['ap-southeast-1a', 'ap-southeast-1b']],
  ['ap-southeast-2', ['ap-southeast-2a', 'ap-southeast-2b']],
  ['ap-northeast-1', ['ap-northeast-1a', 'ap-northeast-1c']],
  ['sa-east-1', ['sa-east-1a', 'sa-east-1b', 'sa-east-1c']],
];
const OSES = ['Ubuntu16.10', 'Ubuntu16.04LTS', 'Ubuntu15.10'];
const ARCHES = ['x64', 'x86'];
const TEAMS = ['SF', 'NYC', 'LON', 'CHI'];
const ENVIRONMENTS = ['production', 'staging', 'test'];

export interface Dataset {
  readonly hosts: number;
  readonly steps: number;
  readonly rows: number;
  readonly startMs: number;
  /** Exclusive end: startMs + steps × 10 s. */
  readonly endMs: number;
  /** tagValues[h][k]: value of TAGS[k] for host h. */
  readonly tagValues: readonly (readonly string[])[];
  /** values[row × 10 + f]; row = step × hosts + host. */
  readonly values: Float64Array;
}

export function rowTime(ds: Dataset, row: number): number {
  return ds.startMs + Math.floor(row / ds.hosts) * INTERVAL_MS;
}

export function rowHost(ds: Dataset, row: number): number {
  return row % ds.hosts;
}

/** Generates the whole data set in memory (864,000 rows × 10 doubles ≈ 69 MB at the default size). */
export function generate(hosts: number, hours: number, seed: number, startMs = DEFAULT_START_MS): Dataset {
  const rng = new Rng(seed);
  const tagValues: string[][] = [];
  for (let h = 0; h < hosts; h++) {
    const [region, dcs] = rng.pick(REGIONS);
    tagValues.push([
      `host_${h}`, region, rng.pick(dcs), String(rng.int(100)), rng.pick(OSES), rng.pick(ARCHES),
      rng.pick(TEAMS), String(rng.int(20)), String(rng.int(2)), rng.pick(ENVIRONMENTS),
    ]);
  }
  const steps = Math.round((hours * 3600_000) / INTERVAL_MS);
  const rows = steps * hosts;
  const values = new Float64Array(rows * FIELDS.length);
  const state = new Float64Array(hosts * FIELDS.length);
  for (let i = 0; i < state.length; i++) state[i] = rng.float() * 100;
  for (let s = 0; s < steps; s++) {
    for (let h = 0; h < hosts; h++) {
      const base = (s * hosts + h) * FIELDS.length;
      for (let f = 0; f < FIELDS.length; f++) {
        const k = h * FIELDS.length + f;
        if (s > 0) {
          const v = (state[k] ?? 0) + rng.normal();
          state[k] = v < 0 ? 0 : v > 100 ? 100 : v;
        }
        values[base + f] = state[k] ?? 0;
      }
    }
  }
  return { hosts, steps, rows, startMs, endMs: startMs + steps * INTERVAL_MS, tagValues, values };
}

/** Shortest round-trip decimal of a double (what both SQL and line protocol parse back exactly). */
function num(v: number): string {
  return Number.isInteger(v) ? `${v}.0` : String(v);
}

function sqlString(s: string): string {
  return `'${s.replaceAll("'", "''")}'`;
}

export const TSDB_CREATE_TABLE = (table: string): string =>
  `CREATE TABLE IF NOT EXISTS ${table} (${TAGS.map((t) => `${t} STRING`).join(', ')}, ts TIMESTAMP(3) NOT NULL, ` +
  `${FIELDS.map((f) => `${f} DOUBLE`).join(', ')}, TIME INDEX (ts), PRIMARY KEY (${TAGS.join(', ')}))`;

/** One tuple `('host_0', …, 1451606400000, 58.1, …)` of a VALUES list. */
export function sqlTuple(ds: Dataset, row: number, timeMs = rowTime(ds, row)): string {
  const tags = ds.tagValues[rowHost(ds, row)] ?? [];
  const parts = tags.map(sqlString);
  parts.push(String(timeMs));
  const base = row * FIELDS.length;
  for (let f = 0; f < FIELDS.length; f++) parts.push(num(ds.values[base + f] ?? 0));
  return `(${parts.join(',')})`;
}

export function sqlInsert(ds: Dataset, table: string, from: number, to: number): string {
  const tuples: string[] = [];
  for (let r = from; r < to; r++) tuples.push(sqlTuple(ds, r));
  return `INSERT INTO ${table} (${TAGS.join(',')},ts,${FIELDS.join(',')}) VALUES ${tuples.join(',')}`;
}

function lpEscape(s: string): string {
  return s.replace(/[ ,=]/g, (c) => `\\${c}`);
}

/** One line of InfluxDB line protocol, timestamp in ms (write with precision=ms). */
export function lineProtocol(ds: Dataset, row: number, measurement = 'cpu', timeMs = rowTime(ds, row)): string {
  const tags = ds.tagValues[rowHost(ds, row)] ?? [];
  let line = measurement;
  for (let k = 0; k < TAGS.length; k++) line += `,${TAGS[k]}=${lpEscape(tags[k] ?? '')}`;
  const base = row * FIELDS.length;
  const fields: string[] = [];
  for (let f = 0; f < FIELDS.length; f++) fields.push(`${FIELDS[f]}=${num(ds.values[base + f] ?? 0)}`);
  return `${line} ${fields.join(',')} ${timeMs}`;
}

export function lineProtocolBatch(ds: Dataset, from: number, to: number): string {
  const lines: string[] = [];
  for (let r = from; r < to; r++) lines.push(lineProtocol(ds, r));
  return lines.join('\n') + '\n';
}

/**
 * ClickHouse 18's table: DateTime has second precision, which TSBS's 10 s steps fit; sorted by
 * (hostname, ts) as TSBS's ClickHouse schema sorts by (tags_id, created_at), a partition per day.
 */
export const CLICKHOUSE_CREATE_TABLE = (table: string): string =>
  `CREATE TABLE ${table} (${TAGS.map((t) => `${t} String`).join(', ')}, ts DateTime, ${FIELDS.map((f) => `${f} Float64`).join(', ')}) ` +
  'ENGINE = MergeTree() PARTITION BY toDate(ts) ORDER BY (hostname, ts)';

/** PostgreSQL's table and TSBS's TimescaleDB indexes (by host and time, by time), created before the load as TSBS does. */
export const POSTGRES_CREATE_TABLE = (table: string): readonly string[] => [
  `CREATE TABLE ${table} (${TAGS.map((t) => `${t} text`).join(', ')}, ts timestamptz NOT NULL, ${FIELDS.map((f) => `${f} double precision`).join(', ')})`,
  `CREATE INDEX ON ${table} (hostname, ts DESC)`,
  `CREATE INDEX ON ${table} (ts DESC)`,
];

/** The column list of the TSV rows below (tags, ts, fields). */
export const TSV_COLUMNS: readonly string[] = [...TAGS, 'ts', ...FIELDS];

/**
 * Rows [from, to) as tab-separated text in TSV_COLUMNS order (ClickHouse `FORMAT TabSeparated`,
 * PostgreSQL `COPY … FROM STDIN`); `timeText` writes a row's time as the server parses it. TSBS's
 * tag values hold no tab, newline or backslash, so nothing needs escaping.
 */
export function tsvBatch(ds: Dataset, from: number, to: number, timeText: (ms: number) => string): string {
  const tagText = ds.tagValues.map((tags) => tags.join('\t'));
  const parts: string[] = [];
  let lastMs = Number.NaN;
  let lastTime = '';
  for (let r = from; r < to; r++) {
    const ms = rowTime(ds, r);
    if (ms !== lastMs) {
      lastMs = ms;
      lastTime = timeText(ms);
    }
    let line = `${tagText[rowHost(ds, r)] ?? ''}\t${lastTime}`;
    const base = r * FIELDS.length;
    for (let f = 0; f < FIELDS.length; f++) line += `\t${num(ds.values[base + f] ?? 0)}`;
    parts.push(line);
  }
  return parts.join('\n') + '\n';
}

/** `2016-01-01 00:00:10`: the text form of a ClickHouse DateTime in a UTC server. */
export function clickhouseTime(ms: number): string {
  return new Date(ms).toISOString().slice(0, 19).replace('T', ' ');
}

/** `2016-01-01 00:00:10+00`: a PostgreSQL timestamptz. */
export function postgresTime(ms: number): string {
  return `${clickhouseTime(ms)}+00`;
}
