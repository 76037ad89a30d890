/**
 * What the benchmark reports say about the machine they ran on, and how they print numbers.
 */
import { readFileSync } from 'node:fs';
import { cpus, loadavg, release, totalmem } from 'node:os';

/** The 1/5/15-minute load averages, e.g. `0.52 0.61 0.70`. */
export function loadAverages(): string {
  return loadavg().map((x) => x.toFixed(2)).join(' ');
}

/** CPU, cores, memory, OS, kernel, Node, and the load average at the start and now. */
export function machine(loadAtStart: string): string {
  let os: string = process.platform;
  try {
    const m = /PRETTY_NAME="([^"]*)"/.exec(readFileSync('/etc/os-release', 'utf8'));
    if (m?.[1] !== undefined) os = m[1];
  } catch {
    // keep the platform
  }
  return `${cpus()[0]?.model ?? 'unknown CPU'}, ${cpus().length} cores, ${(totalmem() / 2 ** 30).toFixed(0)} GiB RAM, ${os}, Linux ${release()}, Node ${process.version}; load average (1/5/15 min) ${loadAtStart} at start, ${loadAverages()} at end`;
}

/** `n` with `digits` decimals; `–` when missing or not finite. */
export function fmt(n: number | undefined, digits: number): string {
  return n === undefined || !Number.isFinite(n) ? '–' : n.toFixed(digits);
}
