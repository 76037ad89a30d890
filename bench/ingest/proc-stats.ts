/**
 * Server resource use from /proc: CPU time (utime + stime, in clock ticks → seconds) of a process
 * and its descendants, and peak resident memory (VmHWM). Linux only.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

/** Clock ticks per second (`getconf CLK_TCK`; 100 on every Linux this runs on). */
export const CLK_TCK: number = (() => {
  const r = spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' });
  const n = Number(r.stdout?.trim());
  return r.status === 0 && Number.isFinite(n) && n > 0 ? n : 100;
})();

interface ProcStat {
  readonly ppid: number;
  /** utime + stime, in ticks. */
  readonly ticks: number;
  /** cutime + cstime: children that exited and were waited for, in ticks. */
  readonly childTicks: number;
}

function procStat(pid: number): ProcStat | null {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return null;
  }
  // After "pid (comm) ": state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime stime cutime cstime …
  const f = text.slice(text.lastIndexOf(')') + 2).split(' ');
  return { ppid: Number(f[1]), ticks: Number(f[11]) + Number(f[12]), childTicks: Number(f[13]) + Number(f[14]) };
}

/** The PIDs of the live descendants of `pid` (scans /proc for parent links). */
export function descendants(pid: number): number[] {
  const children = new Map<number, number[]>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const st = procStat(Number(name));
    if (st === null) continue;
    const list = children.get(st.ppid) ?? [];
    list.push(Number(name));
    children.set(st.ppid, list);
  }
  const out: number[] = [];
  const stack = [...(children.get(pid) ?? [])];
  while (stack.length > 0) {
    const p = stack.pop()!;
    out.push(p);
    stack.push(...(children.get(p) ?? []));
  }
  return out;
}

export interface CpuSample {
  /** CPU seconds of the process, its live descendants and its waited-for dead children. */
  readonly seconds: number;
  /** Live descendant processes counted. */
  readonly descendants: number;
}

/** CPU seconds (user + system) used so far by `pid` and, with `tree`, its child processes. */
export function cpuSeconds(pid: number, tree: boolean): CpuSample {
  const root = procStat(pid);
  if (root === null) return { seconds: Number.NaN, descendants: 0 };
  let ticks = root.ticks;
  let n = 0;
  if (tree) {
    ticks += root.childTicks;
    for (const d of descendants(pid)) {
      const st = procStat(d);
      if (st === null) continue;
      ticks += st.ticks;
      n++;
    }
  }
  return { seconds: ticks / CLK_TCK, descendants: n };
}

function statusKb(pid: number, key: string): number {
  try {
    const m = new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m?.[1] !== undefined ? Number(m[1]) * 1024 : Number.NaN;
  } catch {
    return Number.NaN;
  }
}

/** Peak resident set (VmHWM) in bytes; with `tree`, summed over the live descendants too (an upper bound). */
export function peakRssBytes(pid: number, tree: boolean): number {
  let bytes = statusKb(pid, 'VmHWM');
  if (tree) for (const d of descendants(pid)) bytes += statusKb(d, 'VmHWM') || 0;
  return bytes;
}

export function rssBytes(pid: number): number {
  return statusKb(pid, 'VmRSS');
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Waits until the process (tree) uses < 5% of a core over 2 s (background work done), at most `maxMs`; returns the wait in ms. */
export async function waitIdle(pid: number, tree: boolean, maxMs = 120_000): Promise<number> {
  const t0 = performance.now();
  let prev = cpuSeconds(pid, tree).seconds;
  while (performance.now() - t0 < maxMs) {
    await sleep(2000);
    const now = cpuSeconds(pid, tree).seconds;
    if (!(now - prev >= 0.1)) break;
    prev = now;
  }
  return performance.now() - t0;
}
