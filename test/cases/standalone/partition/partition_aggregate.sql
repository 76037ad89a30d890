-- Queries of a partitioned table whose regions answer apart (src/query/query-split.ts): the whole
-- query per region when it has no aggregate or groups by every partition column, else partial
-- aggregates per region and the final step in the frontend; what does not split reads the rows.
-- Every answer is the one the rows read together give. Values are exact in binary (sums of
-- doubles in any order give the same).
CREATE TABLE pa (
  host STRING,
  dc STRING,
  ts TIMESTAMP TIME INDEX,
  v DOUBLE,
  n BIGINT,
  i INT,
  PRIMARY KEY (host, dc)
)
PARTITION ON COLUMNS (host) (
  host < 'h',
  host >= 'h' AND host < 'p',
  host >= 'p'
);

INSERT INTO pa VALUES
  ('a', 'east', 0, 1.5, 10, 1),
  ('a', 'east', 60000, 2.5, 20, 2),
  ('a', 'west', 120000, NULL, 30, 3),
  ('b', 'west', 0, 4, NULL, 4),
  ('k', 'east', 0, 8, 9223372036854775807, 5),
  ('k', 'east', 60000, 0.25, 1, NULL),
  ('m', 'west', 180000, 16, 2, 7),
  (NULL, 'east', 60000, 32, 3, 8),
  ('q', 'west', 0, 64, 9223372036854775807, 9),
  ('z', NULL, 120000, NULL, NULL, NULL);

-- Grouped by the partition column: each region answers its groups.
SELECT host, count(*) AS c, sum(n) AS s, avg(i) AS a, min(v), max(ts) FROM pa GROUP BY host ORDER BY host;

SELECT host, count(*) FROM pa GROUP BY host ORDER BY count(*) DESC, host LIMIT 3;

SELECT host, dc, sum(v) AS s FROM pa GROUP BY host, dc HAVING sum(v) > 2 ORDER BY s DESC LIMIT 2 OFFSET 1;

SELECT host, date_bin(INTERVAL '1 minute', ts) AS minute, count(*) AS c FROM pa GROUP BY host, minute ORDER BY host NULLS FIRST, minute;

-- A filter and projection.
SELECT * FROM pa WHERE v > 2 ORDER BY v DESC;

SELECT host, ts, n FROM pa WHERE n IS NOT NULL ORDER BY n DESC, host LIMIT 4 OFFSET 2;

SELECT host, v * 2 AS w FROM pa ORDER BY w NULLS FIRST, host LIMIT 3;

SELECT count(*) FROM (SELECT host FROM pa WHERE dc = 'east');

-- Grouped otherwise: partial aggregates, then the final step.
SELECT count(*), count(v), count(n), sum(n), sum(i), avg(i), avg(v), min(host), max(host), min(ts), max(v) FROM pa;

SELECT dc, count(*) AS c, sum(v) AS s, avg(n) AS a FROM pa GROUP BY dc ORDER BY dc NULLS FIRST;

SELECT dc, count(*) AS c FROM pa GROUP BY dc HAVING count(*) > 2 ORDER BY c DESC;

SELECT date_bin(INTERVAL '1 minute', ts) AS minute, count(*) AS c, max(v) AS m, avg(v) AS a FROM pa GROUP BY minute ORDER BY minute;

SELECT date_bin(INTERVAL '2 minutes', ts) AS b, dc, sum(i) AS s FROM pa GROUP BY b, dc ORDER BY s DESC NULLS LAST, b, dc LIMIT 3 OFFSET 1;

SELECT i % 2 AS parity, count(*) AS c, sum(v) FILTER (WHERE v < 10) AS small FROM pa GROUP BY 1 ORDER BY parity NULLS FIRST;

SELECT dc, avg(i * 2) AS a FROM pa WHERE ts < 180000 GROUP BY dc ORDER BY max(v) DESC NULLS LAST;

-- Regions with no rows of the query.
SELECT count(*), sum(v), avg(i), max(host) FROM pa WHERE ts > 1000000;

SELECT dc, count(*) FROM pa WHERE ts > 1000000 GROUP BY dc;

SELECT host, count(*) FROM pa WHERE dc = 'none' GROUP BY host ORDER BY host;

-- The regions the partition column's values reach only.
SELECT count(*), sum(n) FROM pa WHERE host IN ('a', 'q');

SELECT host, avg(v) FROM pa WHERE host = 'k' GROUP BY host;

-- What does not split reads the rows: DISTINCT, a window, a sort by a column not selected, median.
SELECT count(DISTINCT dc) FROM pa;

SELECT DISTINCT dc FROM pa ORDER BY dc NULLS FIRST;

SELECT host, ts, row_number() OVER (PARTITION BY dc ORDER BY ts, host) AS r FROM pa ORDER BY host NULLS FIRST, ts;

SELECT host FROM pa ORDER BY ts, host LIMIT 3;

SELECT dc, median(v) FROM pa GROUP BY dc ORDER BY dc NULLS FIRST;

SELECT host FROM pa WHERE v > (SELECT avg(v) FROM pa) ORDER BY host;

-- A partition on an integer column; no aggregate over several regions.
CREATE TABLE pb (
  a INT PRIMARY KEY,
  ts TIMESTAMP TIME INDEX,
  x DOUBLE
)
PARTITION ON COLUMNS (a) (
  a < 10,
  a >= 10 AND a < 20,
  a >= 20
);

INSERT INTO pb VALUES (1, 0, 1), (5, 0, 2), (12, 0, 4), (15, 1000, 8), (25, 0, 16), (NULL, 2000, 32);

SELECT a % 10 AS d, sum(x) AS s, count(a) AS c FROM pb GROUP BY d ORDER BY d NULLS FIRST;

SELECT a, x FROM pb ORDER BY x DESC LIMIT 2 OFFSET 1;

SELECT count(*) AS c, avg(a) AS a FROM pb;

DROP TABLE pa;

DROP TABLE pb;
