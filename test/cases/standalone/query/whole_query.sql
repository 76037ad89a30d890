-- Queries of one table read once: with the regions on a datanode the whole query runs there and
-- only its answer comes back (TableRouter.pushdown); the answers must be the ones given here. A
-- result of a type the answer cannot carry (lists, intervals, structs, UUIDs) runs on the frontend.
CREATE TABLE wq (host STRING, dc STRING, ts TIMESTAMP TIME INDEX, v DOUBLE, n BIGINT, PRIMARY KEY (host, dc));

INSERT INTO wq VALUES ('a', 'x', 1000, 1.5, 9223372036854775807), ('a', 'x', 2000, 2.5, 9223372036854775807), ('a', 'y', 3000, NULL, 5), ('b', 'x', 1000, 4, -7), ('b', 'y', 61000, 8, 0), ('c', 'x', 3600000, 0.25, 3);

SELECT host, sum(n), avg(v), count(*), count(v), min(ts), max(ts) FROM wq GROUP BY host ORDER BY host;

SELECT host, CAST(sum(v) AS DECIMAL(12, 3)) AS d, sum(CAST(v AS DECIMAL(10, 2))) AS ds FROM wq GROUP BY host ORDER BY d DESC;

SELECT v, v, host FROM wq WHERE v IS NOT NULL ORDER BY v DESC LIMIT 3;

-- A column and an alias of one name are two names to DataFusion (the alias has no table): allowed.
SELECT v, v AS v, host FROM wq WHERE v IS NOT NULL ORDER BY v DESC LIMIT 3;

SELECT host, list(v ORDER BY ts) AS vs FROM wq GROUP BY host ORDER BY host;

SELECT host, max(ts) - min(ts) AS span FROM wq GROUP BY host ORDER BY host;

SELECT {'h': host, 'v': v} AS s FROM wq WHERE host = 'b' ORDER BY ts;

SELECT CAST('00000000-0000-0000-0000-00000000000' || CAST(count(*) AS VARCHAR) AS UUID) AS u FROM wq;

WITH r AS (SELECT host, v FROM wq WHERE v > 1) SELECT host, max(v) AS m FROM r GROUP BY host ORDER BY host;

WITH region AS (SELECT host, dc FROM wq WHERE v > 1) SELECT dc, count(*) FROM region GROUP BY dc ORDER BY dc;

-- a comment before the query
SELECT DISTINCT ON (host) host, ts, v FROM wq ORDER BY host, ts DESC;

SELECT host, ts FROM wq QUALIFY row_number() OVER (PARTITION BY host ORDER BY ts DESC) = 1 ORDER BY host;

SELECT host FROM wq WHERE dc = 'y' UNION ALL SELECT 'z' ORDER BY 1;

SELECT date_trunc('minute', ts) AS m, count(*) AS c FROM wq GROUP BY m ORDER BY m;

SELECT date_bin(INTERVAL '30 seconds', ts) AS b, to_unixtime(max(ts)) AS u, date_format(max(ts), '%Y-%m-%d %H:%M:%S') AS f FROM wq GROUP BY b ORDER BY b;

SELECT ts, host, dc, max(v) RANGE '1h' AS m FROM wq ALIGN '1h' ORDER BY host, dc, ts;

SELECT count(*) FROM wq WHERE ts < now() AND ts > now() - INTERVAL '100 years';

SELECT NULL AS nothing, 1 + 1, build() LIKE '%commit%' AS tsdb, database() AS db FROM wq LIMIT 1;

SELECT sum(n) + 0 FROM wq WHERE host = 'a';

SELECT CAST(host AS INT) FROM wq;

SELECT nope FROM wq;

SELECT host, v FROM wq WHERE v = (SELECT max(v) FROM wq);

SET time_zone = 'Asia/Kolkata';

SELECT date_trunc('day', ts) AS day, count(*) AS c FROM wq WHERE ts >= '1970-01-01 05:30:01' GROUP BY day ORDER BY day;

SELECT date_format(ts, '%H:%M:%S') AS local, timezone() AS zone FROM wq WHERE host = 'c';

DROP TABLE wq;
