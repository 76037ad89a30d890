CREATE TABLE dec_agg(sym STRING PRIMARY KEY, p DECIMAL(10, 2), q DECIMAL(38, 10), ts TIMESTAMP TIME INDEX);

INSERT INTO dec_agg VALUES ('a', 1.10, 0.1, 1), ('a', 2.20, 0.2, 2), ('a', 3.35, 1234567890123456789.0123456789, 3), ('b', -1.01, NULL, 4), ('b', NULL, NULL, 5), ('c', 10.00, 1, 6);

SELECT sym, avg(p) AS a, sum(p) AS s, avg(q) AS aq FROM dec_agg GROUP BY sym ORDER BY sym;

SELECT avg(p), sum(p), count(p) FROM dec_agg;

SELECT avg(p) FILTER (WHERE sym = 'a') AS fa, avg(DISTINCT p) AS da, sum(p) FILTER (WHERE p < 0) AS neg FROM dec_agg;

SELECT avg(p) AS none FROM dec_agg WHERE sym = 'zzz';

SELECT sym, avg(p) OVER (PARTITION BY sym ORDER BY ts) AS running FROM dec_agg ORDER BY ts;

SELECT avg(p * 2) AS doubled, avg(CAST(p AS DOUBLE)) AS as_double FROM dec_agg WHERE sym = 'a';

DROP TABLE dec_agg;
