-- Result column names of unaliased select items are DataFusion's display names, as GreptimeDB gives them.
CREATE TABLE t (host STRING PRIMARY KEY, ts TIMESTAMP TIME INDEX, a INT, v DOUBLE, s STRING);

INSERT INTO t VALUES ('h1', 1000, 1, 1.5, 'x'), ('h2', 2000, 2, 2.5, NULL);

-- Literals: integers are Int64, decimals Float64, strings Utf8.
SELECT 1;

SELECT -1, 1.5, 'x', NULL, true, false;

SELECT 0::BOOLEAN, '5'::INT, 1e3;

SELECT IFNULL(NULL, 'default'), COALESCE(NULL, NULL, 'third');

SELECT 2147483647 + 1, 1 + 2 * 3, 7 % 3;

-- Columns in expressions are qualified by their table.
SELECT a + 1, v * 2, -a, a % 2 FROM t ORDER BY ts;

SELECT avg(v), abs(min(a)), count(*), count(1), count(DISTINCT host), sum(a) + 1 FROM t;

SELECT upper(s), length(s), concat(s, 'y'), s || 'z', round(v, 1) FROM t ORDER BY ts;

-- A cast shows what it casts.
SELECT CAST(a AS DOUBLE), v::STRING, CAST(a AS BIGINT) + 1 FROM t ORDER BY ts;

-- A cast to a timestamp type or to one of GreptimeDB's type aliases is named as the arrow_cast GreptimeDB plans.
SELECT a::Int8, a::bool, ts::TIMESTAMP_MS FROM t ORDER BY ts;

SELECT ts + INTERVAL '1 hour', IF(a > 1, 'big', 'small') FROM t ORDER BY ts;

SELECT a IS NULL, s IS NOT NULL, a BETWEEN 1 AND 2, a NOT BETWEEN 1 AND 2 FROM t ORDER BY ts;

SELECT a IN (1, 3), host NOT IN ('h1') FROM t ORDER BY ts;

SELECT s LIKE 'x%', s NOT LIKE 'x%', a > 1 AND v < 3, a = 1 OR a <> 2 FROM t ORDER BY ts;

SELECT CASE WHEN a > 1 THEN 'big' ELSE 'small' END, CASE a WHEN 1 THEN 'one' END FROM t ORDER BY ts;

-- Special syntax is named by the function DataFusion plans it as.
SELECT TRIM(s), substring(host, 1, 1), EXTRACT(year FROM ts), date_part('year', ts) FROM t ORDER BY ts;

SELECT row_number() OVER (PARTITION BY host ORDER BY ts), sum(a) OVER () FROM t ORDER BY ts;

-- Aliases are kept.
SELECT a + 1 AS b, count(*) AS c FROM t GROUP BY a ORDER BY b;

-- A table's alias qualifies its columns.
SELECT x.a + 1, max(x.v) FROM t AS x GROUP BY x.a ORDER BY x.a;

SELECT l.a + r.a, l.host FROM t l JOIN t r ON l.ts = r.ts ORDER BY l.ts;

-- A subquery's alias qualifies its columns; an unaliased one keeps theirs.
SELECT sum(x) FROM (SELECT a AS x FROM t) sq;

SELECT a + 1 FROM (SELECT a FROM t) ORDER BY 1;

SELECT * FROM (SELECT a, a * 2 FROM t) ORDER BY 1;

WITH c AS (SELECT a, v FROM t) SELECT max(a), min(v) + 1 FROM c;

SELECT (SELECT max(a) FROM t);

SELECT 1 UNION ALL SELECT 2 ORDER BY 1;

-- A star is unaffected.
SELECT * FROM t ORDER BY ts;

SELECT *, a + 1 FROM t ORDER BY ts;

-- Two items of one name: DataFusion refuses the projection.
SELECT 1, 1;

SELECT a, a FROM t;

SELECT 1 AS x, 2 AS x;

SELECT a, a AS a2, t.a + 0 FROM t ORDER BY ts;

SELECT table_name, length(table_name) FROM information_schema.tables WHERE table_name = 't';

DROP TABLE t;
