/**
 * Preloaded into the tsdb server by the load benchmark (`node --import <this file>`): samples the
 * main thread's event-loop delay (perf_hooks.monitorEventLoopDelay, 10 ms resolution) and appends
 * one JSON line per second to the file named by TSDB_BENCH_EL_FILE:
 * `{"t": epoch ms, "p50": ms, "p99": ms, "max": ms}`. The timer is unref'd: it never keeps tsdb alive.
 */
import { appendFileSync } from 'node:fs';
import { monitorEventLoopDelay } from 'node:perf_hooks';

const file = process.env['TSDB_BENCH_EL_FILE'];
if (file !== undefined && file !== '') {
  const h = monitorEventLoopDelay({ resolution: 10 });
  h.enable();
  const timer = setInterval(() => {
    const line = { t: Date.now(), p50: h.percentile(50) / 1e6, p99: h.percentile(99) / 1e6, max: h.max / 1e6 };
    h.reset();
    try {
      appendFileSync(file, `${JSON.stringify(line)}\n`);
    } catch {
      // the benchmark's directory is gone: stop quietly
      clearInterval(timer);
    }
  }, 1000);
  timer.unref();
}
