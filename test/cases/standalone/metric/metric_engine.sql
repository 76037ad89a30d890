-- The metric engine: logical tables stored in one physical table's region.
CREATE TABLE phy (ts TIMESTAMP TIME INDEX, val DOUBLE) ENGINE=metric WITH ('physical_metric_table' = '');

CREATE TABLE t1 (ts TIMESTAMP TIME INDEX, val DOUBLE, host STRING PRIMARY KEY) ENGINE=metric WITH ('on_physical_table' = 'phy');

CREATE TABLE t2 (ts TIMESTAMP TIME INDEX, job STRING, val DOUBLE, instance STRING, PRIMARY KEY (job, instance)) ENGINE = metric WITH ('on_physical_table' = 'phy');

CREATE TABLE IF NOT EXISTS t1 (ts TIMESTAMP TIME INDEX, val DOUBLE, host STRING PRIMARY KEY) ENGINE=metric WITH ('on_physical_table' = 'phy');

DESC TABLE phy;

DESC TABLE t1;

SHOW CREATE TABLE phy;

SHOW CREATE TABLE t2;

INSERT INTO t1 (host, ts, val) VALUES ('a', 0, 1.0), ('b', 1000, 2.0), ('a', 2000, 3.0);

INSERT INTO t2 VALUES (0, 'api', 10.0, 'i1'), (0, 'db', 20.0, 'i2');

SELECT * FROM t1 ORDER BY host, ts;

SELECT * FROM t2 ORDER BY job;

SELECT ts, val, __table_id > 0 AS logical, host, job, instance FROM phy ORDER BY val;

-- Rows with the same series and time replace each other, per logical table.
INSERT INTO t1 VALUES (0, 5.0, 'a');

SELECT host, ts, val FROM t1 ORDER BY host, ts;

ADMIN FLUSH_TABLE('t1');

SELECT count(*), sum(val) FROM t1;

DELETE FROM t1 WHERE host = 'b';

SELECT host, ts, val FROM t1 ORDER BY host, ts;

ALTER TABLE t1 ADD COLUMN dc STRING PRIMARY KEY;

INSERT INTO t1 (host, dc, ts, val) VALUES ('a', 'x', 3000, 4.0);

SELECT host, dc, ts, val FROM t1 ORDER BY ts;

DESC TABLE phy;

ALTER TABLE t1 ADD COLUMN extra DOUBLE;

ALTER TABLE t1 DROP COLUMN val;

ALTER TABLE phy ADD COLUMN other STRING;

TRUNCATE TABLE t2;

SELECT count(*) FROM t2;

SELECT count(*) FROM t1;

SELECT table_name, engine FROM information_schema.tables WHERE table_schema = 'public' AND table_name IN ('phy', 't1', 't2') ORDER BY table_name;

DROP TABLE phy;

CREATE TABLE bad (ts TIMESTAMP(6) TIME INDEX, val DOUBLE) ENGINE=metric WITH ('on_physical_table' = 'phy');

CREATE TABLE bad (ts TIMESTAMP TIME INDEX, other DOUBLE) ENGINE=metric WITH ('on_physical_table' = 'phy');

CREATE TABLE bad (ts TIMESTAMP TIME INDEX, val DOUBLE, n INT PRIMARY KEY) ENGINE=metric WITH ('on_physical_table' = 'phy');

CREATE TABLE bad (ts TIMESTAMP TIME INDEX, val DOUBLE) ENGINE=metric WITH ('on_physical_table' = 'nope');

CREATE TABLE bad (ts TIMESTAMP TIME INDEX, val DOUBLE) ENGINE=metric WITH ('on_physical_table' = 't1');

CREATE TABLE bad (ts TIMESTAMP TIME INDEX, val DOUBLE) ENGINE=metric;

CREATE TABLE bad (ts TIMESTAMP TIME INDEX, val DOUBLE) ENGINE=metric WITH ('physical_metric_table' = '', 'on_physical_table' = 'phy');

CREATE TABLE bad (ts TIMESTAMP TIME INDEX, __tsid DOUBLE) ENGINE=metric WITH ('physical_metric_table' = '');

DROP TABLE t1, t2;

DROP TABLE phy;
