/**
 * The queries of the PromQL oracle test, generated from templates over every function family,
 * aggregation, binary operator and modifier, on the metrics of `promql-oracle-data.ts`. Each has a
 * family (for the report) and says whether the order of an instant answer is defined
 * (sort/sort_desc/topk/bottomk at the top).
 */

export interface OracleQuery {
  readonly family: string;
  readonly expr: string;
  /** The instant answer's order is part of the result (sort, sort_desc, topk, bottomk). */
  readonly ordered?: boolean;
}

const COUNTER = 'http_requests_total';
const GAUGE = 'node_temperature_celsius';
const QUEUE = 'queue_depth';
const BUCKET = 'request_duration_seconds_bucket';

/** Every query; `atMs` is a time inside the data for `@` modifiers (whole seconds). */
export function oracleQueries(atMs: number): OracleQuery[] {
  const at = (atMs / 1000).toFixed(3);
  const q: OracleQuery[] = [];
  const add = (family: string, expr: string, extra: Partial<OracleQuery> = {}) => q.push({ family, expr, ...extra });

  // Selectors: matchers, regexes (anchored, case-insensitive flag), __name__ matchers, offsets, @.
  for (const sel of [
    COUNTER,
    `${COUNTER}{code="500"}`,
    `${COUNTER}{code=~"5.."}`,
    `${COUNTER}{method!="GET",job="web"}`,
    `${COUNTER}{job!~"a.*"}`,
    `${COUNTER}{instance=~"i1"}`,
    `${COUNTER}{instance=~"i1.*|i2:80",code!~"2.*"}`,
    `${COUNTER}{method=~"(?i)get"}`,
    `{__name__=~"node_.*"}`,
    `{__name__=~"request_duration_seconds_(sum|count)",job="api"}`,
    `{job="web",__name__!~"request.*|queue.*"}`,
    GAUGE,
    QUEUE,
    `${QUEUE}{job="web"}`,
    `${GAUGE} offset 5m`,
    `${QUEUE} offset 17m`,
    `${COUNTER}{job="api"} @ ${at}`,
    `${QUEUE} @ ${at} offset 3m`,
    `${GAUGE} @ start()`,
    `${GAUGE} @ end()`,
    `up`,
    `nonexistent_metric`,
    `${COUNTER}{job=""}`,
    `${COUNTER}{nolabel=""}`,
    `${COUNTER}{nolabel!=""}`,
    `${COUNTER}{code=""}`,
    `${COUNTER}{code!=""}`,
    `${COUNTER}{code=~""}`,
    `${COUNTER}{code=~"|500"}`,
    `build_info`,
    `build_info{note=~".*ü.*"}`,
    `build_info{note="say \\"hi\\" \\\\ ünïcode"}`,
  ]) add('selector', sel);
  add('label', `label_replace(build_info, "first", "$1", "note", "(\\\\S+).*")`);
  add('label', `label_join(build_info, "all", "|", "version", "note")`);
  add('aggregation', `count by (code) (${COUNTER})`);
  add('aggregation', `sum without (method, code) (rate(${COUNTER}[5m]))`);
  // Range vectors: raw samples as an instant query's answer (query_range refuses them, both must).
  for (const sel of [`${QUEUE}[5m]`, `${GAUGE}{zone="cpu"}[2m]`, `${COUNTER}{job="api",method="GET"}[3m] offset 10m`, `${QUEUE}{job="api"}[10m] @ ${at}`]) {
    add('selector', sel);
  }

  // Range-vector functions over each kind of series, at a few window lengths (not multiples of the
  // sample spacing, so that extrapolation and window ends matter).
  const rangeFns = [
    'rate', 'irate', 'increase', 'delta', 'idelta', 'deriv', 'changes', 'resets',
    'avg_over_time', 'min_over_time', 'max_over_time', 'sum_over_time', 'count_over_time',
    'last_over_time', 'present_over_time', 'stddev_over_time', 'stdvar_over_time',
  ];
  for (const fn of rangeFns) {
    const family = ['rate', 'irate', 'increase', 'delta', 'idelta', 'deriv', 'changes', 'resets'].includes(fn) ? fn : 'over_time';
    add(family, `${fn}(${COUNTER}[5m])`);
    add(family, `${fn}(${COUNTER}{job="web"}[1m])`);
    add(family, `${fn}(${GAUGE}[7m])`);
    add(family, `${fn}(${QUEUE}[3m])`);
    add(family, `${fn}(${QUEUE}[13m] offset 2m)`);
  }
  add('rate', `rate(${COUNTER}[30s])`);
  add('rate', `rate(${COUNTER}[1h])`);
  add('rate', `rate(${BUCKET}[5m])`);
  add('increase', `increase(${BUCKET}{le="+Inf"}[10m])`);
  add('rate', `rate(${COUNTER}[5m] @ ${at})`);
  add('rate', `rate(${COUNTER}{code="500"}[90s] offset 1m)`);
  for (const phi of ['0', '0.25', '0.5', '0.9', '1', '-0.5', '1.5']) add('over_time', `quantile_over_time(${phi}, ${GAUGE}[10m])`);
  add('over_time', `quantile_over_time(0.75, ${QUEUE}[6m])`);
  add('over_time', `absent_over_time(${QUEUE}{job="web",queue="a"}[5m])`);
  add('over_time', `absent_over_time(${QUEUE}{job="api"}[2m])`);
  add('over_time', `absent_over_time(nonexistent_metric{job="x"}[5m])`);
  add('predict_linear', `predict_linear(${GAUGE}[10m], 600)`);
  add('predict_linear', `predict_linear(${COUNTER}{job="api"}[5m], 3600)`);
  add('predict_linear', `predict_linear(${QUEUE}[15m], -300)`);
  add('holt_winters', `holt_winters(${GAUGE}[10m], 0.5, 0.3)`);
  add('holt_winters', `holt_winters(${QUEUE}[20m], 0.1, 0.9)`);
  add('holt_winters', `holt_winters(${COUNTER}{code="200"}[5m], 0.8, 0.2)`);
  add('deriv', `deriv(${COUNTER}{job="api"}[10m])`);
  // Compound durations.
  add('rate', `rate(${COUNTER}[1h30m])`);
  add('over_time', `max_over_time(${GAUGE}[2m30s] offset 1h5m)`);
  add('subquery', `avg_over_time(${QUEUE}[1h2m:1m30s])`);
  // Native-histogram functions (2.42 has them): on float series they answer nothing.
  add('histogram_quantile', `histogram_count(rate(${BUCKET}[5m]))`);
  add('histogram_quantile', `histogram_sum(${BUCKET})`);
  add('histogram_quantile', `histogram_fraction(0, 0.25, rate(${BUCKET}[5m]))`);
  // Not asked: functions later Prometheus versions added, which 2.42 refuses as unknown
  // (double_exponential_smoothing, mad_over_time, sort_by_label, sort_by_label_desc…). tsdb knows
  // them on purpose (src/promql/functions/signatures.ts: "2.42 plus the later functions that need
  // no native histograms"), a deliberate difference.
  // Label sets that collide once a function changes them.
  add('error', `label_replace(${COUNTER}, "code", "x", "code", ".*")`);
  add('error', `label_join(${GAUGE}, "instance", "", "zone")`);

  // Absent.
  add('absent', `absent(${COUNTER})`);
  add('absent', `absent(nonexistent_metric)`);
  add('absent', `absent(nonexistent_metric{job="x",instance=~"i.*",code="200"})`);
  add('absent', `absent(${QUEUE}{job="web",queue="a"})`);
  add('absent', `absent(sum(nonexistent_metric))`);

  // Histograms.
  for (const phi of ['0', '0.5', '0.9', '0.99', '1', '-1', '2', 'NaN']) add('histogram_quantile', `histogram_quantile(${phi}, rate(${BUCKET}[5m]))`);
  add('histogram_quantile', `histogram_quantile(0.9, sum by (le) (rate(${BUCKET}[10m])))`);
  add('histogram_quantile', `histogram_quantile(0.5, sum by (job, le) (increase(${BUCKET}[3m])))`);
  add('histogram_quantile', `histogram_quantile(0.75, ${BUCKET})`);
  add('histogram_quantile', `histogram_quantile(0.5, ${BUCKET}{le!="+Inf"})`);
  add('histogram_quantile', `histogram_quantile(0.5, sum without (job) (${BUCKET}))`);
  add('histogram_quantile', `rate(request_duration_seconds_sum[5m]) / rate(request_duration_seconds_count[5m])`);

  // Labels.
  add('label', `label_replace(${COUNTER}, "host", "$1", "instance", "(.*):.*")`);
  add('label', `label_replace(${COUNTER}, "job", "", "job", "api")`);
  add('label', `label_replace(${COUNTER}, "code_class", "\${1}xx", "code", "(\\\\d)\\\\d\\\\d")`);
  add('label', `label_replace(${GAUGE}, "zone", "z-$1", "zone", "nomatch(.*)")`);
  add('label', `label_replace(${GAUGE}, "__name__", "renamed", "zone", "cpu")`);
  add('label', `label_join(${COUNTER}, "key", "/", "job", "instance", "method")`);
  add('label', `label_join(${GAUGE}, "zone", "-", "zone", "missing", "instance")`);
  add('label', `label_join(up, "empty", ",")`);

  // Time functions (of the evaluation time, and of sample values and timestamps).
  for (const fn of ['minute', 'hour', 'day_of_week', 'day_of_month', 'day_of_year', 'days_in_month', 'month', 'year']) {
    add('time', `${fn}()`);
    add('time', `${fn}(timestamp(${QUEUE}))`);
  }
  add('time', `time()`);
  add('time', `timestamp(${GAUGE})`);
  add('time', `timestamp(${QUEUE} offset 5m)`);
  add('time', `time() - timestamp(${COUNTER})`);
  add('time', `hour(vector(1e9))`);
  add('time', `day_of_month(vector(-86400 * 365.25 * 2))`);

  // Math.
  for (const fn of ['abs', 'ceil', 'floor', 'exp', 'ln', 'log2', 'log10', 'sqrt', 'sgn', 'round', 'sin', 'cos', 'tan', 'asin', 'acos', 'atan', 'sinh', 'cosh', 'tanh', 'asinh', 'acosh', 'atanh', 'deg', 'rad']) {
    add('math', `${fn}(${GAUGE})`);
  }
  add('math', `exp(${GAUGE}{zone="cpu"})`);
  add('math', `round(${GAUGE}, 0.5)`);
  add('math', `round(${GAUGE}, 3)`);
  add('math', `round(${GAUGE} * 10, -7)`);
  add('math', `round(vector(2.5))`);
  add('math', `round(vector(-2.5))`);
  add('math', `clamp(${GAUGE}, -1, 50)`);
  add('math', `clamp(${GAUGE}, 5, 1)`);
  add('math', `clamp_min(${GAUGE}, 0)`);
  add('math', `clamp_max(${QUEUE}, 10)`);
  add('math', `pi()`);
  add('math', `scalar(${COUNTER})`);
  add('math', `scalar(sum(${COUNTER}))`);
  add('math', `vector(time())`);
  add('math', `-${GAUGE}`);
  add('math', `+${GAUGE}`);
  add('math', `sum(${GAUGE}) / 0`);

  // Sorting.
  add('sort', `sort(${COUNTER})`, { ordered: true });
  add('sort', `sort_desc(${COUNTER})`, { ordered: true });
  add('sort', `sort(${GAUGE})`, { ordered: true });
  add('sort', `sort_desc(rate(${COUNTER}[5m]))`, { ordered: true });

  // Aggregations, each without grouping, by, without.
  const groupings = ['', ' by (job)', ' without (instance)', ' by (job, code)', ' by ()', ' without ()'];
  for (const op of ['sum', 'avg', 'min', 'max', 'count', 'stddev', 'stdvar', 'group']) {
    for (const g of groupings.slice(0, 3)) add('aggregation', `${op}${g} (rate(${COUNTER}[5m]))`);
    add('aggregation', `${op} by (instance) (${GAUGE})`);
    add('aggregation', `${op} (${QUEUE})`);
  }
  for (const g of groupings) add('aggregation', `sum${g} (${COUNTER})`);
  add('aggregation', `sum(${COUNTER}) by (method)`);
  add('aggregation', `avg by (zone) (${GAUGE}{zone="cpu"} > 0)`);
  add('aggregation', `count by (__name__) ({__name__=~"request_duration_seconds_.*"})`);
  add('aggregation', `sum by (le) (${BUCKET})`);
  for (const [k, g] of [['3', ''], ['1', ' by (job)'], ['2', ' without (code)'], ['100', ''], ['0', '']] as const) {
    add('topk', `topk${g} (${k}, ${COUNTER})`, { ordered: g === '' });
    add('topk', `bottomk${g} (${k}, ${COUNTER})`, { ordered: g === '' });
  }
  add('topk', `topk(2, ${GAUGE})`, { ordered: true });
  add('topk', `bottomk(2, ${GAUGE})`, { ordered: true });
  add('topk', `topk(5, rate(${COUNTER}[5m]))`, { ordered: true });
  add('topk', `topk by (job) (1, ${QUEUE})`);
  add('topk', `topk(scalar(count(up)), ${COUNTER})`, { ordered: true });
  for (const [phi, g] of [['0.5', ''], ['0.9', ' by (job)'], ['0', ' without (instance)'], ['1', ''], ['-1', ''], ['2', ''], ['0.3', ' by (instance)']] as const) {
    add('quantile', `quantile${g} (${phi}, ${COUNTER})`);
  }
  add('quantile', `quantile by (instance) (0.5, ${GAUGE})`);
  add('count_values', `count_values("value", ${QUEUE})`);
  add('count_values', `count_values by (job) ("v", up)`);
  add('count_values', `count_values("code", up)`);
  add('count_values', `count_values without (instance) ("t", ${GAUGE})`);

  // Binary operators: arithmetic and comparisons with scalars and between vectors, bool, vector
  // matching (one-to-one, on/ignoring, group_left/group_right), set operators, precedence.
  for (const op of ['+', '-', '*', '/', '%', '^', 'atan2']) {
    add('binary', `${GAUGE} ${op} 3`);
    add('binary', `2 ${op} ${QUEUE}`);
  }
  for (const op of ['==', '!=', '>', '<', '>=', '<=']) {
    add('comparison', `${QUEUE} ${op} 5`);
    add('comparison', `${QUEUE} ${op} bool 5`);
    add('comparison', `5 ${op} bool 3`);
  }
  add('comparison', `${GAUGE} > ${GAUGE} offset 1m`);
  add('comparison', `${GAUGE} == bool ${GAUGE}`);
  add('comparison', `${GAUGE} != ${GAUGE}`);
  add('binary', `1 + 2 * 3 ^ 2 ^ 0.5 - 4 % 3`);
  add('binary', `-2 ^ 2`);
  add('binary', `2 ^ -1`);
  add('binary', `(1 + 2) * 3`);
  add('binary', `1 / 0`);
  add('binary', `0 / 0`);
  add('binary', `-1 % 0`);
  add('binary', `${COUNTER} - ${COUNTER} offset 5m`);
  add('binary', `${COUNTER}{job="api"} / on(instance, method, code) ${COUNTER}{job="web"}`);
  add('binary', `${COUNTER}{job="api"} / ignoring(job) ${COUNTER}{job="web"}`);
  add('binary', `sum by (job, instance) (rate(${COUNTER}[5m])) / on(job, instance) group_left up`);
  add('binary', `rate(${COUNTER}[5m]) * on(job, instance) group_left up`);
  add('binary', `up * on(job, instance) group_right rate(${COUNTER}[5m])`);
  add('binary', `${COUNTER} * on(instance) group_left(zone) ${GAUGE}{zone="cpu"}`);
  add('binary', `${COUNTER} / ignoring(code) group_left sum without (code) (${COUNTER})`);
  add('binary', `${BUCKET} / ignoring(le) group_left request_duration_seconds_count`);
  add('binary', `${COUNTER} + on(job) ${COUNTER}`);
  add('binary', `${COUNTER} * on(job, instance) group_left ${COUNTER}`);
  add('binary', `sum by (job) (${COUNTER}) > bool on(job) sum by (job) (${COUNTER} offset 10m)`);
  add('binary', `${QUEUE} + ${QUEUE}`);
  add('binary', `${QUEUE} / scalar(count(${QUEUE}))`);
  add('binary', `scalar(up) * 2`);
  for (const op of ['and', 'or', 'unless']) {
    add('set', `${COUNTER} ${op} ${COUNTER}{code="200"}`);
    add('set', `${COUNTER} ${op} on(job) up == 1`);
    add('set', `${QUEUE} ${op} ${QUEUE} offset 10m`);
    add('set', `up ${op} ignoring(instance) ${QUEUE}`);
    add('set', `up ${op} on(job) ${QUEUE}`);
  }
  add('set', `${COUNTER} and ${GAUGE}`);
  add('set', `${COUNTER}{job="api"} or ${COUNTER}{job="web"} or vector(1)`);

  // Subqueries.
  add('subquery', `max_over_time(rate(${COUNTER}[1m])[10m:1m])`);
  add('subquery', `avg_over_time(${GAUGE}[30m:])`);
  add('subquery', `sum_over_time(${QUEUE}[20m:45s])`);
  add('subquery', `deriv(sum(${COUNTER})[15m:2m])`);
  add('subquery', `min_over_time(rate(${COUNTER}[5m])[30m:1m] offset 10m)`);
  add('subquery', `count_over_time(${QUEUE}[15m:1m] @ ${at})`);
  add('subquery', `rate(sum by (job) (${COUNTER})[10m:30s])`);
  add('subquery', `max_over_time(max_over_time(${GAUGE}[2m])[7m:1m])`);
  add('subquery', `last_over_time(${QUEUE}[11m:3m])`);
  add('subquery', `${GAUGE}[5m:1m]`);
  add('subquery', `rate(${COUNTER}{job="api"}[5m])[10m:2m]`);

  // Staleness and lookback: the stopped and gappy series of queue_depth, with offsets.
  add('staleness', `${QUEUE}{job="web",queue="a"}`);
  add('staleness', `${QUEUE}{job="web",queue="b"}`);
  add('staleness', `${QUEUE}{job="api",queue=~"b|c"}`);
  add('staleness', `${QUEUE}{queue="c"} offset 4m`);
  add('staleness', `count(${QUEUE})`);
  add('staleness', `last_over_time(${QUEUE}{job="web"}[10m])`);
  add('staleness', `count_over_time(${QUEUE}{job="api",queue="c"}[25m])`);
  add('staleness', `timestamp(${QUEUE}{job="web",queue="b"})`);

  // Errors: the parser's, type checks, execution errors.
  for (const bad of [
    `rate(${COUNTER})`,
    `sum(${COUNTER}) by`,
    `${COUNTER}{code=~"("}`,
    `${COUNTER}[5m] + 1`,
    `unknown_function(${COUNTER})`,
    `${COUNTER} offset -5m`,
    `histogram_quantile(${BUCKET})`,
    `label_replace(${COUNTER}, "a-b", "x", "job", ".*")`,
    `label_replace(${COUNTER}, "x", "y", "job", "(")`,
    `${COUNTER}{}`,
    `{job="api"}`,
    `topk("a", ${COUNTER})`,
    `1 and 2`,
    `"a" + 1`,
    `${COUNTER}[5m:1m:1m]`,
    `sum without (job) by (code) (${COUNTER})`,
    `${COUNTER} == on(job) group_left(job) ${COUNTER}`,
    `quantile_over_time(${GAUGE}[5m])`,
    `abs(${COUNTER}, 1)`,
    `rate(${COUNTER}[0s])`,
    `count_values("a b", up)`,
    `sum_over_time({__name__=~"request_duration_seconds_(sum|count)"}[5m])`,
    `abs({__name__=~"request_duration_seconds_(sum|count)"})`,
    `abs({__name__=~"http_requests_total|up"})`,
    `${COUNTER} + ${COUNTER}{job="api"} * on() group_left ${COUNTER}`,
  ]) add('error', bad);

  // Literals.
  add('literal', `42`);
  add('literal', `-1.5e3`);
  add('literal', `0x1F`);
  add('literal', `Inf`);
  add('literal', `-inf`);
  add('literal', `NaN`);
  add('literal', `"a string"`);
  add('literal', `vector(1) + vector(2)`);

  return q;
}
