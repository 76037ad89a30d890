/**
 * Reads V8 `.cpuprofile` files (what `node --cpu-prof` writes: `nodes` with call frames and
 * children, `samples` naming the node on top of the stack, `timeDeltas` in µs between samples) and
 * ranks functions by self time (the time they were on top of the stack), by total time (on the
 * stack at all, each function once per sample) and self time by area (package, Node internals,
 * tsdb directory).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

interface CallFrame {
  readonly functionName: string;
  readonly url: string;
  readonly lineNumber: number;
  readonly columnNumber: number;
}
interface ProfileNode {
  readonly id: number;
  readonly callFrame: CallFrame;
  readonly children?: readonly number[];
}
interface CpuProfile {
  readonly nodes: readonly ProfileNode[];
  readonly startTime: number;
  readonly endTime: number;
  readonly samples: readonly number[];
  readonly timeDeltas: readonly number[];
}

export interface FunctionTime {
  readonly name: string;
  /** file:line (1-based), relative to the repository when inside it. */
  readonly location: string;
  readonly selfMs: number;
  readonly totalMs: number;
}

export interface ProfileSummary {
  readonly files: readonly string[];
  /** Wall time summarized: the window's, or the profiles' whole span. */
  readonly spanMs: number;
  /** Whether only the samples inside a time window were counted. */
  readonly windowed: boolean;
  /** Sampled time, without (idle). */
  readonly busyMs: number;
  readonly idleMs: number;
  readonly functions: readonly FunctionTime[];
  readonly areas: readonly { readonly area: string; readonly selfMs: number }[];
}

/** Pseudo-frames V8 puts in profiles. */
const META = new Set(['(idle)', '(program)', '(garbage collector)', '(root)']);

function location(frame: CallFrame, repoUrl: string): string {
  let url = frame.url;
  if (url === '') return META.has(frame.functionName) ? '' : '(native)';
  if (url.startsWith(repoUrl)) url = url.slice(repoUrl.length);
  return frame.lineNumber >= 0 ? `${url}:${frame.lineNumber + 1}` : url;
}

function area(frame: CallFrame, repoUrl: string): string {
  const url = frame.url;
  if (url === '') return META.has(frame.functionName) ? frame.functionName : '(native: V8 builtins, C++ bindings)';
  if (url.startsWith('node:')) return 'node: internals';
  const rel = url.startsWith(repoUrl) ? url.slice(repoUrl.length) : url;
  const nm = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(rel);
  if (nm?.[1] !== undefined) return `node_modules/${nm[1]}`;
  const src = /^dist\/(src\/[^/]+(?:\/[^/]+)?)\//.exec(rel) ?? /^dist\/(src)\/[^/]+$/.exec(rel);
  if (src?.[1] !== undefined) return `tsdb ${src[1]}`;
  return rel;
}

/**
 * A time window in µs of CLOCK_MONOTONIC: the clock of V8's profile timestamps, and of
 * `process.hrtime` in any process on the machine, so a client can mark the server's load window.
 */
export interface ProfileWindow {
  readonly fromUs: number;
  readonly toUs: number;
}

/** Microseconds of CLOCK_MONOTONIC now (comparable with profile timestamps of other processes). */
export function monotonicUs(): number {
  return Number(process.hrtime.bigint() / 1000n);
}

/**
 * Summarizes every `.cpuprofile` in `dir` together (one per thread and process run); with a window,
 * only the samples taken inside it.
 */
export function summarizeProfiles(dir: string, repoRoot: string, window?: ProfileWindow): ProfileSummary {
  const files = readdirSync(dir).filter((f) => f.endsWith('.cpuprofile')).sort();
  const repoUrl = `${pathToFileURL(repoRoot).href}/`;
  const self = new Map<string, { name: string; location: string; selfUs: number; totalUs: number }>();
  const areas = new Map<string, number>();
  let spanUs = 0;
  let idleUs = 0;
  let busyUs = 0;
  for (const file of files) {
    const prof = JSON.parse(readFileSync(join(dir, file), 'utf8')) as CpuProfile;
    spanUs += window === undefined ? prof.endTime - prof.startTime : Math.min(window.toUs, prof.endTime) - Math.max(window.fromUs, prof.startTime);
    const byId = new Map<number, ProfileNode>();
    const parent = new Map<number, number>();
    for (const n of prof.nodes) {
      byId.set(n.id, n);
      for (const c of n.children ?? []) parent.set(c, n.id);
    }
    // A sample lasts until the next one (the last one until endTime).
    const nodeUs = new Map<number, number>();
    let t = prof.startTime;
    const stamps: number[] = [];
    for (const d of prof.timeDeltas) stamps.push((t += d));
    for (let i = 0; i < prof.samples.length; i++) {
      const id = prof.samples[i]!;
      if (window !== undefined && (stamps[i]! < window.fromUs || stamps[i]! >= window.toUs)) continue;
      const dt = (i + 1 < stamps.length ? stamps[i + 1]! : prof.endTime) - stamps[i]!;
      if (dt > 0) nodeUs.set(id, (nodeUs.get(id) ?? 0) + dt);
    }
    const keyOf = (n: ProfileNode): string => `${n.callFrame.functionName}\u0000${n.callFrame.url}\u0000${n.callFrame.lineNumber}\u0000${n.callFrame.columnNumber}`;
    const entry = (n: ProfileNode) => {
      const k = keyOf(n);
      let e = self.get(k);
      if (e === undefined) {
        e = { name: n.callFrame.functionName === '' ? '(anonymous)' : n.callFrame.functionName, location: location(n.callFrame, repoUrl), selfUs: 0, totalUs: 0 };
        self.set(k, e);
      }
      return e;
    };
    for (const [id, us] of nodeUs) {
      const n = byId.get(id);
      if (n === undefined) continue;
      if (n.callFrame.functionName === '(idle)') {
        idleUs += us;
        continue;
      }
      busyUs += us;
      entry(n).selfUs += us;
      const a = area(n.callFrame, repoUrl);
      areas.set(a, (areas.get(a) ?? 0) + us);
      // Total time: every distinct function on the stack, once.
      const seen = new Set<string>();
      for (let cur: ProfileNode | undefined = n; cur !== undefined; cur = byId.get(parent.get(cur.id) ?? -1)) {
        const k = keyOf(cur);
        if (seen.has(k)) continue;
        seen.add(k);
        if (cur.callFrame.functionName !== '(root)') entry(cur).totalUs += us;
      }
    }
  }
  const functions = [...self.values()].map((e) => ({ name: e.name, location: e.location, selfMs: e.selfUs / 1000, totalMs: e.totalUs / 1000 }));
  return {
    files,
    spanMs: spanUs / 1000,
    windowed: window !== undefined,
    busyMs: busyUs / 1000,
    idleMs: idleUs / 1000,
    functions,
    areas: [...areas.entries()].map(([a, us]) => ({ area: a, selfMs: us / 1000 })).sort((x, y) => y.selfMs - x.selfMs),
  };
}

function pct(ms: number, of: number): string {
  return of > 0 ? `${((100 * ms) / of).toFixed(1)}%` : '–';
}

/** Markdown: top `n` functions by self time, self time by area, and tsdb's own functions by total time. */
export function profileMarkdown(title: string, s: ProfileSummary, n = 25): string {
  const out: string[] = [];
  out.push(`#### ${title}`);
  out.push('');
  const span = s.windowed ? 'of the load (first request to last response)' : 'profiled (server start to stop)';
  out.push(`${s.files.length} profile file(s), ${(s.spanMs / 1000).toFixed(1)} s ${span}: ${(s.busyMs / 1000).toFixed(1)} s busy on the main thread, ${(s.idleMs / 1000).toFixed(1)} s idle. Percentages are of busy time.`);
  out.push('');
  out.push(`| # | function | self ms | self % | total % | location |`);
  out.push('|---:|---|---:|---:|---:|---|');
  const bySelf = [...s.functions].sort((a, b) => b.selfMs - a.selfMs).slice(0, n);
  bySelf.forEach((f, i) => out.push(`| ${i + 1} | \`${f.name}\` | ${f.selfMs.toFixed(0)} | ${pct(f.selfMs, s.busyMs)} | ${pct(f.totalMs, s.busyMs)} | ${f.location} |`));
  out.push('');
  out.push('Self time by area:');
  out.push('');
  out.push('| area | self ms | % |');
  out.push('|---|---:|---:|');
  for (const a of s.areas.slice(0, 12)) out.push(`| ${a.area} | ${a.selfMs.toFixed(0)} | ${pct(a.selfMs, s.busyMs)} |`);
  out.push('');
  out.push('tsdb functions by total time (self + callees):');
  out.push('');
  out.push('| function | total ms | total % | location |');
  out.push('|---|---:|---:|---|');
  const own = s.functions.filter((f) => f.location.startsWith('dist/src/')).sort((a, b) => b.totalMs - a.totalMs).slice(0, 15);
  for (const f of own) out.push(`| \`${f.name}\` | ${f.totalMs.toFixed(0)} | ${pct(f.totalMs, s.busyMs)} | ${f.location} |`);
  return out.join('\n');
}
