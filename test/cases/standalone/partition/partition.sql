-- Partitioned tables (GreptimeDB tests/cases/standalone/common/partition.sql): a region per
-- expression, rows written to theirs, read together, the rule checked at CREATE.
CREATE TABLE my_table (
  a INT PRIMARY KEY,
  b STRING,
  ts TIMESTAMP TIME INDEX,
)
PARTITION ON COLUMNS (a) (
  a < 1000,
  a >= 1000 AND a < 2000,
  a >= 2000
);

SELECT table_catalog, table_schema, table_name, partition_name, partition_ordinal_position, partition_method, partition_expression, partition_description, tsdb_partition_id % 4294967296 AS region_number FROM information_schema.partitions WHERE table_name = 'my_table' ORDER BY partition_name;

-- peer_id and peer_addr depend on the deployment (0 and empty in standalone; test/integration/cluster.test.ts checks a cluster's).
SELECT region_id % 4294967296 AS region_number, count(peer_id) AS peers, is_leader, status, down_seconds FROM information_schema.region_peers WHERE table_name = 'my_table' GROUP BY ALL ORDER BY region_number;

INSERT INTO my_table VALUES
    (100, 'a', 1),
    (200, 'b', 2),
    (1100, 'c', 3),
    (1200, 'd', 4),
    (2000, 'e', 5),
    (2100, 'f', 6),
    (2200, 'g', 7),
    (2400, 'h', 8);

SELECT * FROM my_table ORDER BY a;

SELECT r.region_number, r.region_rows FROM information_schema.region_statistics r JOIN information_schema.tables t ON r.table_id = t.table_id WHERE t.table_name = 'my_table' ORDER BY r.region_number;

SELECT count(*), sum(a), min(b), max(b) FROM my_table;

SELECT a >= 1000 AS big, count(*), string_agg(b, '' ORDER BY b) FROM my_table GROUP BY big ORDER BY big;

SELECT * FROM my_table WHERE a = 1100;

SELECT * FROM my_table WHERE a IN (100, 2400) ORDER BY a;

SELECT * FROM my_table WHERE a > 1500 AND b < 'g' ORDER BY a;

ADMIN FLUSH_TABLE('my_table');

SELECT r.region_number, r.region_rows, r.sst_num FROM information_schema.region_statistics r JOIN information_schema.tables t ON r.table_id = t.table_id WHERE t.table_name = 'my_table' ORDER BY r.region_number;

DELETE FROM my_table WHERE a < 150;

SELECT * FROM my_table ORDER BY a;

DELETE FROM my_table WHERE a < 2200 AND a > 1500;

SELECT * FROM my_table ORDER BY a;

SHOW CREATE TABLE my_table;

CREATE TABLE like_table LIKE my_table;

SHOW CREATE TABLE like_table;

SELECT partition_name, partition_description FROM information_schema.partitions WHERE table_name = 'like_table' ORDER BY partition_name;

INSERT INTO like_table SELECT * FROM my_table;

SELECT r.region_number, r.region_rows FROM information_schema.region_statistics r JOIN information_schema.tables t ON r.table_id = t.table_id WHERE t.table_name = 'like_table' ORDER BY r.region_number;

DELETE FROM my_table WHERE a < 2500;

SELECT * FROM my_table;

ALTER TABLE my_table DROP COLUMN a;

DROP TABLE my_table, like_table;

-- No expressions: one region, the partition columns still shown.
CREATE TABLE one_region (
  a INT PRIMARY KEY,
  b STRING,
  ts TIMESTAMP TIME INDEX,
)
PARTITION ON COLUMNS (a) ();

SELECT partition_name, partition_expression, partition_description FROM information_schema.partitions WHERE table_name = 'one_region';

SHOW CREATE TABLE one_region;

INSERT INTO one_region VALUES (100, 'a', 1), (2400, 'h', 8);

SELECT count(*) FROM one_region;

DROP TABLE one_region;

-- A table without a rule: one partition, no expression.
CREATE TABLE plain (a INT PRIMARY KEY, ts TIMESTAMP TIME INDEX);

SELECT partition_name, partition_expression, partition_description FROM information_schema.partitions WHERE table_name = 'plain';

SHOW CREATE TABLE plain;

DROP TABLE plain;

-- Two columns, strings; a query naming both reads one region.
CREATE TABLE valid_rule (
  a INT,
  b STRING,
  ts TIMESTAMP TIME INDEX,
  PRIMARY KEY (a, b)
)
PARTITION ON COLUMNS (a, b) (
  a < 10,
  a = 10 AND b < 'a',
  a = 10 AND b >= 'a' AND b < 'o',
  a = 10 AND b >= 'o',
  a > 10,
);

SELECT partition_name, partition_expression, partition_description FROM information_schema.partitions WHERE table_name = 'valid_rule' ORDER BY partition_name;

INSERT INTO valid_rule VALUES (1, 'x', 1), (10, 'A', 2), (10, 'b', 3), (10, 'z', 4), (11, 'x', 5), (10, NULL, 6);

SELECT r.region_number, r.region_rows FROM information_schema.region_statistics r JOIN information_schema.tables t ON r.table_id = t.table_id WHERE t.table_name = 'valid_rule' ORDER BY r.region_number;

SELECT * FROM valid_rule WHERE a = 10 AND b = 'z';

SELECT a, count(*) FROM valid_rule WHERE a = 10 OR b = 'x' GROUP BY a ORDER BY a;

SHOW CREATE TABLE valid_rule;

DROP TABLE valid_rule;

-- A field column, negative literals, quoted names (GreptimeDB issue 4247).
CREATE TABLE `molestiAe` (
  `sImiLiQUE` FLOAT NOT NULL,
  `amEt` TIMESTAMP(6) TIME INDEX,
  `EXpLICaBo` DOUBLE,
  PRIMARY KEY (`sImiLiQUE`)
) PARTITION ON COLUMNS (`sImiLiQUE`) (
  `sImiLiQUE` < -1,
  `sImiLiQUE` >= -1 AND `sImiLiQUE` < -0,
  `sImiLiQUE` >= 0
);

INSERT INTO `molestiAe` VALUES (-2, 0, 0), (-0.5, 0, 0), (1, 0, 0), (-0.0, 1, 0);

SELECT * FROM `molestiAe` ORDER BY `sImiLiQUE`;

SELECT r.region_number, r.region_rows FROM information_schema.region_statistics r JOIN information_schema.tables t ON r.table_id = t.table_id WHERE t.table_name = 'molestiAe' ORDER BY r.region_number;

SHOW CREATE TABLE `molestiAe`;

DROP TABLE `molestiAe`;

CREATE TABLE traces (service STRING PRIMARY KEY, ts TIMESTAMP TIME INDEX, trace_id STRING, d DOUBLE) PARTITION ON COLUMNS (trace_id) (trace_id < '5', trace_id >= '5' AND trace_id < 'a', trace_id >= 'a') WITH (append_mode = 'true');

INSERT INTO traces VALUES ('api', 1, '0af', 1.5), ('api', 2, '7b2', 2.5), ('web', 3, 'c01', 3.5), ('web', 4, NULL, 4.5);

SELECT r.region_number, r.region_rows FROM information_schema.region_statistics r JOIN information_schema.tables t ON r.table_id = t.table_id WHERE t.table_name = 'traces' ORDER BY r.region_number;

SELECT service, ts, d FROM traces WHERE trace_id = 'c01';

SELECT service, sum(d) FROM traces GROUP BY service ORDER BY service;

ALTER TABLE traces MODIFY COLUMN trace_id BIGINT;

ALTER TABLE traces DROP COLUMN trace_id;

DROP TABLE traces;

-- Rules that are not whole, or not rules.
CREATE TABLE invalid_rule (
  a INT PRIMARY KEY,
  b STRING,
  ts TIMESTAMP TIME INDEX,
)
PARTITION ON COLUMNS (a) (
  a < 10,
  a > 10 AND a < 20,
  a >= 20
);

CREATE TABLE invalid_rule2 (
  a INT,
  b STRING PRIMARY KEY,
  ts TIMESTAMP TIME INDEX,
)
PARTITION ON COLUMNS (b) (
  b < 'abc',
  b >= 'abca' AND b < 'o',
  b >= 'o',
);

CREATE TABLE invalid_rule3 (
  a INT,
  b STRING PRIMARY KEY,
  ts TIMESTAMP TIME INDEX,
)
PARTITION ON COLUMNS (b) (
  b >= 'a',
  b <= 'o',
);

CREATE TABLE gap (a INT PRIMARY KEY, ts TIMESTAMP TIME INDEX) PARTITION ON COLUMNS (a) (a <= 10, a > 20);

CREATE TABLE dup (a INT PRIMARY KEY, ts TIMESTAMP TIME INDEX) PARTITION ON COLUMNS (a) (a < 10, 10 > a, a >= 10);

CREATE TABLE bad (a INT PRIMARY KEY, ts TIMESTAMP TIME INDEX) PARTITION ON COLUMNS (x) (x < 10, x >= 10);

CREATE TABLE bad (a INT PRIMARY KEY, b STRING, ts TIMESTAMP TIME INDEX) PARTITION ON COLUMNS (a) (b < 'x', b >= 'x');

CREATE TABLE bad (a INT PRIMARY KEY, b STRING, ts TIMESTAMP TIME INDEX) PARTITION ON COLUMNS (a) (a < 'x', a >= 'x');

CREATE TABLE bad (a INT PRIMARY KEY, b STRING, ts TIMESTAMP TIME INDEX) PARTITION ON COLUMNS (a) (a < 1.5, a >= 1.5);

CREATE TABLE bad (a INT PRIMARY KEY, b STRING, ts TIMESTAMP TIME INDEX) PARTITION ON COLUMNS (a, b) (a < b, a >= b);

CREATE TABLE bad (a INT PRIMARY KEY, b STRING, ts TIMESTAMP TIME INDEX) PARTITION ON COLUMNS (a) (a);

CREATE TABLE bad (a INT PRIMARY KEY, b STRING, ts TIMESTAMP TIME INDEX) PARTITION ON COLUMNS (a) (a + 1 < 10, a + 1 >= 10);

SHOW TABLES LIKE 'bad';

-- A partitioned physical metric table; logical tables repeat its rule or give none.
CREATE TABLE metric_engine_partition (
    ts TIMESTAMP TIME INDEX,
    host STRING,
    cpu DOUBLE,
    PRIMARY KEY (host)
)
PARTITION ON COLUMNS (host) (
    host <= 'host1',
    host > 'host1' AND host <= 'host2',
    host > 'host2'
)
ENGINE = metric
WITH (physical_metric_table = '');

CREATE TABLE logical_table_1 (ts TIMESTAMP TIME INDEX, host STRING PRIMARY KEY, cpu DOUBLE) PARTITION ON COLUMNS (host) () ENGINE = metric WITH (on_physical_table = 'metric_engine_partition');

CREATE TABLE invalid_logical_partition (ts TIMESTAMP TIME INDEX, host STRING PRIMARY KEY, cpu DOUBLE)
PARTITION ON COLUMNS (host) (
    host <= 'host1',
    host > 'host1' AND host <= 'host2',
    host > 'host2' AND host <= 'host3',
    host > 'host3'
)
ENGINE = metric WITH (on_physical_table = 'metric_engine_partition');

CREATE TABLE logical_table_2 (ts TIMESTAMP TIME INDEX, host STRING PRIMARY KEY, cpu DOUBLE)
PARTITION ON COLUMNS (host) (
    host > 'host2',
    host <= 'host1',
    host > 'host1' AND host <= 'host2'
)
ENGINE = metric WITH (on_physical_table = 'metric_engine_partition');

INSERT INTO logical_table_2 (ts, host, cpu) VALUES ('2023-01-01 00:00:00', 'host1', 1.0), ('2023-01-01 00:00:01', 'host2', 2.0), ('2023-01-01 00:00:02', 'host3', 3.0);

INSERT INTO logical_table_1 (ts, host, cpu) VALUES ('2023-01-01 00:00:00', 'host3', 10.0);

SHOW CREATE TABLE logical_table_2;

SHOW CREATE TABLE metric_engine_partition;

SELECT host, count(*), sum(cpu) FROM logical_table_2 GROUP BY host ORDER BY host;

SELECT * FROM logical_table_1 WHERE host = 'host3';

SELECT r.region_number, r.region_rows FROM information_schema.region_statistics r JOIN information_schema.tables t ON r.table_id = t.table_id WHERE t.table_name = 'metric_engine_partition' ORDER BY r.region_number;

SELECT table_name, partition_name, partition_expression, partition_description FROM information_schema.partitions WHERE table_name LIKE 'logical_table_%' ORDER BY table_name, partition_name;

SELECT table_name, count(DISTINCT region_id) FROM information_schema.region_peers WHERE table_name LIKE 'logical_table_%' OR table_name = 'metric_engine_partition' GROUP BY table_name ORDER BY table_name;

DROP TABLE logical_table_1, logical_table_2;

DROP TABLE metric_engine_partition;
