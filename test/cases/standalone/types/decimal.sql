CREATE TABLE prices (sym DECIMAL(20,0) PRIMARY KEY, ts TIMESTAMP TIME INDEX, p DECIMAL(10,2), q DECIMAL, r DECIMAL(5));

INSERT INTO prices VALUES (123456.987654431, 1000, 1.5, 2, 3.5), (7, 2000, '3.14159', -0.5, -2.5), (7, 3000, 999999.994, 0.1, 0);

INSERT INTO prices VALUES (8, 4000, 100000000, 0, 0);

INSERT INTO prices VALUES (8, 4000, 'abc', 0, 0);

SELECT * FROM prices ORDER BY ts;

DESC prices;

SHOW CREATE TABLE prices;

SELECT column_name, data_type, numeric_precision, numeric_scale, column_type FROM information_schema.columns WHERE table_name = 'prices' ORDER BY ordinal_position;

SELECT sym, ts FROM prices WHERE p > 3.14 ORDER BY ts;

SELECT ts FROM prices WHERE p = 1.50 ORDER BY ts;

SELECT ts FROM prices WHERE sym = 7 ORDER BY ts;

SELECT p + 1 AS a, p * p AS b, p - q AS c, -p AS d FROM prices ORDER BY ts;

-- A number written with a point is a Float64, and a decimal plus a Float64 is a Float64 (as in GreptimeDB).
SELECT q + 0.1 + 0.2 AS f FROM prices WHERE ts = 1000;

SELECT sym, sum(p) AS s, min(p) AS lo, max(q) AS hi, count(p) AS n FROM prices GROUP BY sym ORDER BY sym;

SELECT p::DOUBLE AS f, p::VARCHAR AS s, p::BIGINT AS i, p::DECIMAL(12,4) AS w FROM prices ORDER BY ts;

INSERT INTO prices SELECT sym, ts + INTERVAL '10 seconds', p * 2, q, r FROM prices WHERE sym = 7;

ADMIN FLUSH_TABLE('prices');

SELECT * FROM prices ORDER BY ts;

SELECT sym, sum(p) AS s FROM prices GROUP BY sym ORDER BY sym;

CREATE TABLE bad_decimal (ts TIMESTAMP TIME INDEX, d DECIMAL(39, 2));

CREATE TABLE bad_scale (ts TIMESTAMP TIME INDEX, d DECIMAL(5, 6));

SELECT 1.5::DECIMAL(10,2) AS a, '0.1'::DECIMAL AS b, 123::DECIMAL(5) AS c;

DROP TABLE prices;

CREATE TABLE with_default (ts TIMESTAMP TIME INDEX, a DECIMAL(6,2) DEFAULT 1.5);

INSERT INTO with_default (ts) VALUES (1);

ALTER TABLE with_default ADD COLUMN b DECIMAL(4,1) DEFAULT '2.25';

INSERT INTO with_default (ts, a) VALUES (2, 3);

SHOW CREATE TABLE with_default;

ADMIN FLUSH_TABLE('with_default');

INSERT INTO with_default VALUES (3, -0.5, 0.25);

ADMIN FLUSH_TABLE('with_default');

ADMIN COMPACT_TABLE('with_default');

SELECT * FROM with_default ORDER BY ts;

SELECT ts FROM with_default WHERE a < b ORDER BY ts;

DROP TABLE with_default;

-- Decimal division as Arrow's: scale s1 + 4, truncated; a zero divisor is an error.
SELECT CAST(1 AS DECIMAL(10,2)) / CAST(3 AS DECIMAL(10,2)) AS a, CAST(-7 AS DECIMAL(10,2)) / 2 AS b, 2 / CAST(3 AS DECIMAL(5,1)) AS c, arrow_typeof(CAST(1 AS DECIMAL(10,2)) / CAST(3 AS DECIMAL(10,2))) AS t;

SELECT CAST(1 AS DECIMAL(10,2)) / CAST(0 AS DECIMAL(10,2));
