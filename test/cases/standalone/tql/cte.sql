-- TQL as a CTE (GreptimeDB's tql/tql-cte cases): the TQL is evaluated first, the query reads its rows
create table metric (ts timestamp(3) time index, val double);

create table labels (ts timestamp(3) time index, host string primary key, cpu double);

insert into metric values (0,0), (10000,8), (20000,8), (30000,2), (40000,3);

insert into labels values
    ('1970-01-01 00:00:00', 'host1', 0.1), ('1970-01-01 00:00:10', 'host1', 0.8), ('1970-01-01 00:00:20', 'host1', 0.8), ('1970-01-01 00:00:30', 'host1', 0.2), ('1970-01-01 00:00:40', 'host1', 0.3),
    ('1970-01-01 00:00:00', 'host2', 0.2), ('1970-01-01 00:00:10', 'host2', 0.9), ('1970-01-01 00:00:20', 'host2', 0.7), ('1970-01-01 00:00:30', 'host2', 0.4), ('1970-01-01 00:00:40', 'host2', 0.5);

WITH tql as (
    TQL EVAL (0, 40, '10s') metric
)
SELECT * FROM tql;

WITH tql (the_timestamp, the_value) as (
    TQL EVAL (0, 40, '10s') metric
)
SELECT * FROM tql;

WITH
    tql_data (ts, val) AS (TQL EVAL (0, 40, '10s') metric),
    filtered AS (SELECT * FROM tql_data WHERE val > 5)
SELECT count(*) FROM filtered;

WITH
    tql_data (ts, val) AS (TQL EVAL (0, 40, '10s') rate(metric[20s])),
    filtered (ts, val) AS (SELECT * FROM tql_data WHERE val > 0)
SELECT sum(val) FROM filtered;

WITH host_metrics AS (
    TQL EVAL (0, 40, '10s') labels{host="host1"}
)
SELECT host_metrics.ts, host_metrics.host FROM host_metrics;

WITH
    metric_data(ts, val) AS (TQL EVAL (0, 40, '10s') metric),
    label_data(ts, host, cpu) AS (TQL EVAL (0, 40, '10s') labels{host="host2"})
SELECT m.val as metric_val, l.cpu as label_val
FROM metric_data m, label_data l
WHERE m.ts = l.ts
ORDER BY m.ts
LIMIT 3;

WITH computed(ts, val) AS (
    TQL EVAL (0, 40, '10s') metric * 2 + 1
)
SELECT min(val) as min_computed, max(val) as max_computed FROM computed;

WITH tql_base(ts, val) AS (
    TQL EVAL (0, 40, '10s') metric
)
SELECT ts, val, LAG(val, 1) OVER (ORDER BY ts) as prev_value FROM tql_base ORDER BY ts;

WITH
    host1_data(ts, host, cpu) AS (TQL EVAL (0, 40, '10s') labels{host="host1"}),
    host2_data(ts, host, cpu) AS (TQL EVAL (0, 40, '10s') labels{host="host2"})
SELECT 'host1' as source, ts, cpu FROM host1_data
UNION ALL
SELECT 'host2' as source, ts, cpu FROM host2_data
ORDER BY source, ts;

WITH time_shifted AS (
    TQL EVAL (0, 40, '10s') metric offset 50s
)
SELECT * FROM time_shifted;

WITH tql_summary AS (
    TQL EVAL (0, 40, '10s') avg_over_time(labels[30s]) AS cpu
)
SELECT t.ts, t.cpu as avg_value, l.host
FROM tql_summary t
JOIN labels l ON DATE_TRUNC('second', t.ts) = DATE_TRUNC('second', l.ts)
WHERE l.host = 'host1'
ORDER BY t.ts, l.host, avg_value
LIMIT 5;

-- NaN survives the CTE
WITH n (ts, v) AS (TQL EVAL (0, 0, '1s') metric / 0 - metric / 0) SELECT ts, isnan(v) FROM n;

WITH tql_lookback AS (
    TQL EVAL (0, 40, '10s', '15s') metric
)
SELECT count(*) FROM tql_lookback;

WITH tql_analyze AS (
    TQL ANALYZE (0, 40, '10s') metric
)
SELECT * FROM tql_analyze limit 1;

WITH tql_explain AS (
    TQL EXPLAIN (0, 40, '10s') metric
)
SELECT * FROM tql_explain limit 1;

WITH bad AS (TQL EVAL (0, 40, '10s') sum() SELECT * FROM bad;

drop table metric;

drop table labels;
