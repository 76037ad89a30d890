/**
 * The PromQL case files (test/promql-cases/*.test) run on a real Prometheus 2.42 (Debian package
 * `prometheus`, started on loopback with its own data directory): every expectation in them must
 * be what Prometheus answers, so a wrong case fails here rather than misleading the tsdb run
 * (promql-scripts.test.ts).
 */
import { registerScriptTests } from '../support/promql-targets.js';

// after-2.42.test holds the functions Prometheus 2.42 does not have; its header says how its
// expectations are anchored instead.
registerScriptTests('prometheus', { exclude: ['after-2.42.test'] });
