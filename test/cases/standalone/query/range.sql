CREATE TABLE host (ts TIMESTAMP(3) TIME INDEX, host STRING PRIMARY KEY, val BIGINT);

INSERT INTO host VALUES (0, 'host1', 0), (5000, 'host1', NULL), (10000, 'host1', 1), (15000, 'host1', NULL), (20000, 'host1', 2), (0, 'host2', 3), (5000, 'host2', NULL), (10000, 'host2', 4), (15000, 'host2', NULL), (20000, 'host2', 5);

SELECT ts, host, min(val) RANGE '10s', max(val) RANGE '10s' FROM host ALIGN '5s' ORDER BY host, ts;

SELECT ts, host, sum(val) RANGE '5s' AS s FROM host ALIGN '10s' ORDER BY host, ts;

SELECT ts, host, min(val) RANGE '5s' FILL PREV FROM host WHERE host = 'host1' ALIGN '5s' ORDER BY ts;

SELECT ts, host, min(val) RANGE '5s' FROM host WHERE host = 'host1' ALIGN '5s' FILL 6 ORDER BY ts;

SELECT ts, host, avg(val) RANGE '5s' FILL LINEAR FROM host WHERE host = 'host2' ALIGN '5s' ORDER BY ts;

SELECT ts, count(val) RANGE '20s' AS n FROM host ALIGN '10s' BY () ORDER BY ts;

SELECT ts, max(val) RANGE (INTERVAL '10' second) AS m FROM host ALIGN '10s' TO '1970-01-01T00:00:05Z' BY () ORDER BY ts LIMIT 2;

SELECT ts, host, min(val) RANGE '10s' FROM host ORDER BY ts;

SELECT ts, host, min(val) FROM host ALIGN '5s';

SELECT ts, host, min(val) RANGE '10s', val FROM host ALIGN '5s';

DROP TABLE host;
