CREATE TABLE IF NOT EXISTS system_metrics (
    host STRING,
    idc STRING FULLTEXT INDEX INVERTED INDEX,
    cpu_util DOUBLE,
    memory_util DOUBLE,
    desc2 STRING FULLTEXT INDEX,
    desc3 STRING FULLTEXT INDEX WITH (backend = 'tantivy', analyzer = 'chinese'),
    ts TIMESTAMP DEFAULT CURRENT_TIMESTAMP,
    PRIMARY KEY(host, idc),
    TIME INDEX(ts)
);

CREATE TABLE IF NOT EXISTS test (
    a STRING,
    b STRING SKIPPING INDEX,
    c DOUBLE,
    ts TIMESTAMP DEFAULT CURRENT_TIMESTAMP,
    PRIMARY KEY(a, b),
    TIME INDEX(ts)
);

SHOW CREATE TABLE test;

SHOW CREATE TABLE system_metrics;

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

ALTER TABLE test MODIFY COLUMN c SET SKIPPING INDEX WITH (granularity = 8192);

ALTER TABLE test MODIFY COLUMN b UNSET SKIPPING INDEX;

ALTER TABLE test MODIFY COLUMN a SET FULLTEXT INDEX WITH (case_sensitive = 'true');

SHOW INDEX FROM test;

SHOW CREATE TABLE test;

CREATE TABLE bad_index (ts TIMESTAMP TIME INDEX, s STRING SKIPPING INDEX WITH (granularity = 0));

CREATE TABLE bad_index (ts TIMESTAMP TIME INDEX, s STRING FULLTEXT INDEX WITH (analyzer = 'klingon'));

DROP TABLE system_metrics;

DROP TABLE test;
