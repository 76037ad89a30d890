-- Integer division and remainder as DataFusion's: truncating, and an integer divided by zero is an error (3001).
SELECT MOD(18, 4);

SELECT MOD(-18, 4);

SELECT MOD(18.0, 4.0);

SELECT MOD(18, 0);

SELECT 7 / 2, -7 / 2, 7 % 2, -7 % 2;

SELECT 7 / 0;

SELECT 7 % 0;

SELECT 1.0 / 2, 7 / 2.0;

SELECT POW (2, 5);

SELECT POW (1.01, 365);

SELECT POW (0.99, 365);

CREATE TABLE division_test(i INT, b BIGINT, d DOUBLE, f FLOAT, ts TIMESTAMP TIME INDEX);

INSERT INTO division_test VALUES (7, 2, 7.5, 1.5, 1), (-7, 3, -7.5, 0, 2), (9, 0, 0, 0, 3), (NULL, 1, NULL, NULL, 4);

SELECT ts, i / 2, i % 2, b / 2, i / b FROM division_test WHERE b != 0 ORDER BY ts;

SELECT ts, i / b FROM division_test ORDER BY ts;

SELECT ts, i % b FROM division_test ORDER BY ts;

SELECT ts, MOD(i, b) FROM division_test ORDER BY ts;

-- A floating-point division by zero: NULL (GreptimeDB's inf and NaN are null in its HTTP JSON too).
SELECT ts, d / f, d / 0, i / f, d % 0 FROM division_test ORDER BY ts;

SELECT ts, i / b FROM division_test WHERE ts != 3 ORDER BY ts;

SELECT count(*) / sum(b), sum(i) / count(i), avg(i) / 2 FROM division_test;

SELECT ts, i / 2 AS half FROM division_test WHERE i / 2 > 0 ORDER BY ts;

SELECT i / 2 AS h, count(*) AS n FROM division_test GROUP BY i / 2 ORDER BY h;

SELECT ts, '10' / 2, (SELECT max(b) FROM division_test) / 2 AS m FROM division_test WHERE ts = 1;

DROP TABLE division_test;
