CREATE TABLE IF NOT EXISTS system_metrics (
    host STRING,
    idc STRING INVERTED INDEX,
    cpu_util DOUBLE,
    memory_util DOUBLE,
    ts TIMESTAMP DEFAULT CURRENT_TIMESTAMP,
    PRIMARY KEY(host, idc),
    TIME INDEX(ts)
);

CREATE TABLE IF NOT EXISTS test (
    a STRING,
    b STRING,
    c DOUBLE,
    ts TIMESTAMP DEFAULT CURRENT_TIMESTAMP,
    PRIMARY KEY(a, b),
    TIME INDEX(ts)
);

SHOW INDEX;

SHOW INDEX FROM test;

SHOW INDEX FROM system_metrics;

SHOW INDEX FROM system_metrics in public;

SHOW KEYS FROM test;

SHOW INDEX FROM system_metrics like '%util%';

SHOW INDEX FROM system_metrics WHERE Key_name = 'TIME INDEX';

SHOW INDEX FROM numbers;

SHOW INDEX FROM nope;

SELECT table_schema, table_name, non_unique, index_name, seq_in_index, column_name, index_type, tsdb_index_type
FROM information_schema.statistics
WHERE table_schema = 'public'
  AND table_name IN ('system_metrics', 'test')
ORDER BY table_name, index_name, seq_in_index, column_name;

DROP TABLE system_metrics;

DROP TABLE test;
