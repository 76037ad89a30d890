/**
 * The team's PromQL case files (test/promql-cases/*.test, Prometheus's test-script format) run on
 * a tsdb standalone: `load` data remote-written, every `eval` asked through
 * /v1/prometheus/api/v1/query or query_range and compared as Prometheus's own test compares.
 * The same files run on a real Prometheus 2.42 in promql-scripts-prometheus.test.ts, which keeps
 * their expectations honest. One test per file, one subtest per eval.
 */
import { registerScriptTests } from '../support/promql-targets.js';

registerScriptTests('tsdb');
