CREATE TABLE monitor (
  host STRING,
  dc STRING DEFAULT 'dc1' COMMENT 'data center',
  ts TIMESTAMP(3) NOT NULL DEFAULT current_timestamp(),
  cpu DOUBLE DEFAULT 0,
  memory BIGINT,
  up BOOLEAN,
  TIME INDEX (ts),
  PRIMARY KEY (host, dc)
) ENGINE=mito WITH (ttl = '7d', append_mode = 'false');

CREATE TABLE monitor (ts TIMESTAMP TIME INDEX);

CREATE TABLE IF NOT EXISTS monitor (ts TIMESTAMP TIME INDEX);

DESC TABLE monitor;

SHOW CREATE TABLE monitor;

CREATE TABLE AbC (CoLA STRING PRIMARY KEY, "Ts" TIMESTAMP(9) TIME INDEX, v INT UNSIGNED);

DESC abc;

CREATE TABLE types (
  ts TIMESTAMP(0) TIME INDEX,
  a TINYINT, b SMALLINT, c INT, d BIGINT, e INT8,
  f TINYINT UNSIGNED, g SMALLINT UNSIGNED, h BIGINT UNSIGNED,
  i FLOAT, j DOUBLE, k VARCHAR, l TEXT, m BOOLEAN, n VARBINARY, o DATE
);

DESC types;

CREATE TABLE like_monitor LIKE monitor;

SHOW TABLES;

CREATE TABLE no_time (a INT);

CREATE TABLE bad_time (ts INT TIME INDEX);

CREATE TABLE null_time (ts TIMESTAMP NULL TIME INDEX);

CREATE TABLE two_keys (a STRING PRIMARY KEY, ts TIMESTAMP TIME INDEX, PRIMARY KEY (a));

CREATE TABLE bad_option (ts TIMESTAMP TIME INDEX) WITH (foo = 'bar');

CREATE TABLE bad_ttl (ts TIMESTAMP TIME INDEX) WITH (ttl = 'soon');

CREATE TABLE bad_engine (ts TIMESTAMP TIME INDEX) ENGINE = nope;

DROP TABLE monitor, abc, types, like_monitor;

DROP TABLE monitor;

DROP TABLE IF EXISTS monitor;

SHOW TABLES;

CREATE TABLE stored (ts TIMESTAMP TIME INDEX) WITH (storage = 'File', ttl = '1 day');

SHOW CREATE TABLE stored;

CREATE TABLE not_stored (ts TIMESTAMP TIME INDEX) WITH (storage = 'S3');

CREATE TABLE week (ts TIMESTAMP TIME INDEX) WITH (ttl = '7d', 'compaction.twcs.time_window' = '1h', 'memtable.type' = 'partition_tree');

SHOW CREATE TABLE week;

-- The memtable options of a table take effect on its regions (partition_tree with 2 keys per shard).
CREATE TABLE tree (host STRING PRIMARY KEY, ts TIMESTAMP TIME INDEX, v DOUBLE) WITH ('memtable.type' = 'partition_tree', 'memtable.partition_tree.index_max_keys_per_shard' = '2', 'memtable.partition_tree.data_freeze_threshold' = '3', 'memtable.partition_tree.fork_dictionary_bytes' = '1MiB');

INSERT INTO tree VALUES ('c', 1, 1), ('a', 2, 2), ('b', 3, 3), ('a', 1, 4), ('c', 2, 5), ('b', 1, 6), ('a', 2, 7);

SELECT * FROM tree ORDER BY host, ts;

SHOW CREATE TABLE tree;

CREATE TABLE bad_tree (ts TIMESTAMP TIME INDEX) WITH ('memtable.partition_tree.index_max_keys_per_shard' = 'many');

CREATE TABLE bad_tree (ts TIMESTAMP TIME INDEX) WITH ('memtable.partition_tree.fork_dictionary_bytes' = '1 apple');

CREATE TABLE bad_tree (ts TIMESTAMP TIME INDEX) WITH ('memtable.partition_tree.no_such_key' = '1');

DROP TABLE stored, week, tree;
