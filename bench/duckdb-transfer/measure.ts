/**
 * Timing of one phase: wall time, and how late the event loop's timers ran meanwhile
 * (`monitorEventLoopDelay`): the worst delay says whether the JS thread stayed free.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';

/** Sampling period of the event-loop monitor, milliseconds. */
const LOOP_RESOLUTION_MS = 2;

export interface PhaseSample {
  readonly ms: number;
  /** Worst lateness of a timer beyond its period, ms; undefined when the phase was too short to sample. */
  readonly loopDelayMaxMs: number | undefined;
}

export async function timePhase<T>(fn: () => Promise<T>): Promise<{ sample: PhaseSample; value: T }> {
  const loop = monitorEventLoopDelay({ resolution: LOOP_RESOLUTION_MS });
  loop.enable();
  const start = performance.now();
  const value = await fn();
  const ms = performance.now() - start;
  loop.disable();
  const loopDelayMaxMs = loop.count > 0 ? Math.max(0, loop.max / 1e6 - LOOP_RESOLUTION_MS) : undefined;
  return { sample: { ms, loopDelayMaxMs }, value };
}

export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** Lets timers and I/O run: a long JS loop calls this between slices of work. */
export function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
