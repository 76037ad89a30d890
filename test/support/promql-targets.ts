/**
 * The servers PromQL test scripts run against — a real Prometheus 2.42 (the oracle the case files
 * are validated with) and a tsdb standalone — and the driver that runs a parsed script on one:
 * `load` data goes in through Prometheus remote write, every `eval` through the HTTP query API.
 * Each `clear` (and each script) gets a fresh server with its own data directory, so no data of an
 * earlier block is visible.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import { snappyCompress } from '../../src/servers/prometheus/snappy-block.js';
import { startPrometheus } from './peers.js';
import { compareAnswer, decodeAnswer, formatAnswer, formatExpected, parseScript, STALE, type EvalCommand, type QueryAnswer, type ScriptCommand, type SeriesDesc } from './promql-script.js';
import { tempDir } from './temp.js';
import { startTsdb } from './tsdb-process.js';

/** A running server that takes remote write and answers the Prometheus query API. */
export interface PromTarget {
  /** Remote-write URL. */
  readonly writeUrl: string;
  /** The API root, ending in `/api/v1`. */
  readonly apiUrl: string;
  /** Stops the server (by PID). */
  stop(): Promise<void>;
}

export type TargetKind = 'prometheus' | 'tsdb';

/** Starts a fresh server of `kind` with its own temporary data directory; stopped when `t` ends at the latest. */
export async function startTarget(t: TestContext, kind: TargetKind): Promise<PromTarget> {
  if (kind === 'tsdb') {
    const s = await startTsdb(t, ['standalone', 'start', '--http-addr', '127.0.0.1:0', '--data-home', tempDir(t, 'tsdb-promql-')]);
    return { writeUrl: `${s.baseUrl}/v1/prometheus/write`, apiUrl: `${s.baseUrl}/v1/prometheus/api/v1`, stop: async () => void (await s.proc.stop('SIGKILL')) };
  }
  // Scripts load old (epoch-relative) samples, several series each from time 0, and later `load`
  // blocks may go back in time: the out-of-order window lets the head take all of them.
  const { peer, url } = await startPrometheus(t, tempDir(t, 'tsdb-promql-prometheus-'), 'storage:\n  tsdb:\n    out_of_order_time_window: 100y\n');
  return { writeUrl: `${url}/api/v1/write`, apiUrl: `${url}/api/v1`, stop: () => peer.stop() };
}

// ---------------------------------------------------------------------------------------------
// Remote write. A hand-rolled WriteRequest encoder, so that the stale marker is written from its
// bit pattern (NaN with payload 0x7ff0000000000002) and arrives as that exact NaN.

const STALE_NAN_BITS = 0x7ff0000000000002n;

class PbWriter {
  private chunks: Buffer[] = [];
  varint(n: number | bigint): this {
    let v = BigInt(n);
    const out: number[] = [];
    while (v >= 0x80n) {
      out.push(Number(v & 0x7fn) | 0x80);
      v >>= 7n;
    }
    out.push(Number(v));
    this.chunks.push(Buffer.from(out));
    return this;
  }
  tag(field: number, wire: number): this {
    return this.varint((field << 3) | wire);
  }
  bytes(field: number, b: Buffer): this {
    this.tag(field, 2).varint(b.length);
    this.chunks.push(b);
    return this;
  }
  double(field: number, v: number | typeof STALE): this {
    this.tag(field, 1);
    const b = Buffer.alloc(8);
    const view = new DataView(b.buffer, b.byteOffset, 8);
    if (v === STALE) view.setBigUint64(0, STALE_NAN_BITS, true);
    else view.setFloat64(0, v, true);
    this.chunks.push(b);
    return this;
  }
  int64(field: number, v: number): this {
    return this.tag(field, 0).varint(BigInt.asUintN(64, BigInt(v)));
  }
  finish(): Buffer {
    return Buffer.concat(this.chunks);
  }
}

export interface WriteSeries {
  readonly labels: Readonly<Record<string, string>>;
  /** Values; `STALE` is written as Prometheus's stale marker. */
  readonly samples: ReadonlyArray<{ readonly t: number; readonly v: number | typeof STALE }>;
}

/** A snappy-compressed prometheus.WriteRequest of `series` (labels sorted by name, as Prometheus sends them). */
export function encodeWrite(series: readonly WriteSeries[]): Buffer {
  const req = new PbWriter();
  for (const s of series) {
    const ts = new PbWriter();
    for (const [name, value] of Object.entries(s.labels).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
      ts.bytes(1, new PbWriter().bytes(1, Buffer.from(name)).bytes(2, Buffer.from(value)).finish());
    }
    for (const p of s.samples) ts.bytes(2, new PbWriter().double(1, p.v).int64(2, p.t).finish());
    req.bytes(1, ts.finish());
  }
  return snappyCompress(req.finish());
}

/** Remote-writes `series` to `target`; throws unless it answers 2xx. */
export async function remoteWrite(target: PromTarget, series: readonly WriteSeries[]): Promise<void> {
  const res = await fetch(target.writeUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/x-protobuf', 'content-encoding': 'snappy', 'x-prometheus-remote-write-version': '0.1.0' },
    body: encodeWrite(series),
    signal: AbortSignal.timeout(60_000),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`remote write to ${target.writeUrl}: HTTP ${res.status} ${text}`);
}

/** The samples of a `load` block: value i of a series at `i * interval` (ms since the epoch), `_` left out. */
export function loadSeries(series: readonly SeriesDesc[], intervalMs: number): WriteSeries[] {
  return series.map((s) => {
    const samples: Array<{ t: number; v: number | typeof STALE }> = [];
    s.values.forEach((v, i) => {
      if (v !== undefined) samples.push({ t: i * intervalMs, v });
    });
    return { labels: s.labels, samples };
  });
}

// ---------------------------------------------------------------------------------------------
// Queries

/** Runs an eval's query (instant or range) with GET; a 30 s client timeout bounds it. */
export async function runQuery(target: PromTarget, cmd: EvalCommand): Promise<QueryAnswer> {
  const sec = (ms: number) => String(ms / 1000);
  const params = cmd.range
    ? new URLSearchParams({ query: cmd.expr, start: sec(cmd.startMs), end: sec(cmd.endMs), step: String(cmd.stepMs / 1000) })
    : new URLSearchParams({ query: cmd.expr, time: sec(cmd.startMs) });
  const url = `${target.apiUrl}/${cmd.range ? 'query_range' : 'query'}?${params.toString()}`;
  const res = await fetch(url, { signal: AbortSignal.timeout(30_000) });
  return decodeAnswer(res.status, await res.text());
}

/** The outcome of one eval. */
export interface EvalOutcome {
  readonly cmd: EvalCommand;
  readonly answer: QueryAnswer;
  readonly problems: readonly string[];
}

/** A failure message: the query, what was expected and what came back. */
export function describeFailure(file: string, o: EvalOutcome): string {
  return [
    `${file}:${o.cmd.line}: ${o.cmd.range ? `range ${o.cmd.startMs / 1000}s..${o.cmd.endMs / 1000}s step ${o.cmd.stepMs / 1000}s` : `instant at ${o.cmd.startMs / 1000}s`}: ${o.cmd.expr}`,
    ...o.problems.map((p) => `  - ${p}`),
    'expected:',
    formatExpected(o.cmd),
    'got:',
    formatAnswer(o.answer, o.cmd),
  ].join('\n');
}

/**
 * Runs a script's commands on fresh servers of `kind` (a new one at the start and after each
 * `clear`), calling `onEval` for each eval with its outcome (the caller asserts). Times stay
 * epoch-relative, as in Prometheus's own tests: a fresh Prometheus takes samples from 1970 (its head
 * is empty, and the out-of-order window covers later `load` blocks that go back in time), and so
 * does tsdb, so no shift to a recent base time is needed and time() answers read as written.
 */
export async function runScript(
  t: TestContext,
  kind: TargetKind,
  cmds: readonly ScriptCommand[],
  onEval: (o: EvalOutcome) => Promise<void>,
): Promise<void> {
  let target: PromTarget | undefined;
  const fresh = async () => {
    if (target !== undefined) await target.stop();
    target = await startTarget(t, kind);
    return target;
  };
  try {
    for (const cmd of cmds) {
      if (cmd.kind === 'clear') {
        if (target !== undefined) await target.stop();
        target = undefined;
      } else if (cmd.kind === 'load') {
        await remoteWrite(target ?? (await fresh()), loadSeries(cmd.series, cmd.intervalMs));
      } else {
        const on = target ?? (await fresh());
        let answer: QueryAnswer;
        try {
          answer = await runQuery(on, cmd);
        } catch (err) {
          // No envelope at all (a 404, a timeout, a closed connection): the eval fails with why.
          answer = { ok: false, status: 0, errorType: 'no answer', error: err instanceof Error ? err.message : String(err) };
        }
        await onEval({ cmd, answer, problems: compareAnswer(cmd, answer) });
      }
    }
  } finally {
    if (target !== undefined) await target.stop();
  }
}

/** The case files' directory (test/promql-cases, read from the source tree). */
export const PROMQL_CASES_DIR = new URL('../../../test/promql-cases/', import.meta.url);

/**
 * Registers one node:test per case file in test/promql-cases (only those whose name contains
 * $PROMQL_CASES_FILTER when it is set; none of `exclude`), each running its script on `kind` with one subtest per eval; a failing eval
 * lists the query, the expectation and the answer.
 */
export function registerScriptTests(kind: TargetKind, opts: { exclude?: readonly string[] } = {}): void {
  const filter = process.env['PROMQL_CASES_FILTER'] ?? '';
  const files = readdirSync(PROMQL_CASES_DIR)
    .filter((f) => f.endsWith('.test') && f.includes(filter) && !(opts.exclude ?? []).includes(f))
    .sort();
  if (files.length === 0) {
    test(`promql cases on ${kind}: the case files`, () => assert.fail(`no *.test files matching ${JSON.stringify(filter)} in ${PROMQL_CASES_DIR.pathname}`));
  }
  for (const file of files) {
    test(`promql cases on ${kind}: ${file}`, async (t) => {
      const cmds = parseScript(readFileSync(new URL(file, PROMQL_CASES_DIR), 'utf8'), file);
      assert.ok(cmds.some((c) => c.kind === 'eval'), `${file} has no eval`);
      await runScript(t, kind, cmds, async (o) => {
        await t.test(`line ${o.cmd.line}: ${o.cmd.expr}`, () => {
          if (o.problems.length > 0) assert.fail(describeFailure(file, o));
        });
      });
    });
  }
}
