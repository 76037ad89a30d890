CREATE TABLE cpu (host STRING, dc STRING, ts TIMESTAMP TIME INDEX, usage DOUBLE, PRIMARY KEY (host, dc));

INSERT INTO cpu VALUES ('a', 'x', 0, 10), ('a', 'x', 1000, 20), ('b', 'y', 0, 30), ('b', 'y', 1000, 40), ('c', 'x', 2000, NULL);

SELECT host, avg(usage) AS avg_usage, max(usage) AS max_usage FROM cpu GROUP BY host ORDER BY host;

SELECT dc, count(usage) AS n FROM public.cpu GROUP BY dc ORDER BY dc;

SELECT cpu.host, cpu.usage FROM cpu WHERE cpu.usage > 15 ORDER BY cpu.usage DESC LIMIT 2;

WITH t AS (SELECT host, usage FROM cpu WHERE usage IS NOT NULL) SELECT host, sum(usage) AS s FROM t GROUP BY host ORDER BY s;

SELECT DISTINCT a.host, b.host AS other FROM cpu a JOIN cpu b ON a.dc = b.dc AND a.host < b.host ORDER BY 1, 2;

SELECT host, ts, usage, lag(usage) OVER (PARTITION BY host ORDER BY ts) AS prev FROM cpu ORDER BY host, ts;

SELECT host FROM cpu WHERE ts >= '1970-01-01 00:00:01' ORDER BY host;

SELECT 1 + 1 AS two, 'x' AS s;

SELECT * FROM cpu WHERE host IN (SELECT host FROM cpu WHERE usage = 40) ORDER BY ts;

SELECT nope FROM cpu;

SELECT * FROM missing;

SELECT * FROM other_db.cpu;

DROP TABLE cpu;

SELECT 7 / 2 AS int_div, 7.0 / 2 AS float_div, 7 % 2 AS rem, -7 / 2 AS neg;

CREATE TABLE lp (host STRING PRIMARY KEY, ts TIMESTAMP TIME INDEX, v DOUBLE);

INSERT INTO lp VALUES ('a', 0, 1), ('a', 2000, 3), ('a', 1000, 2), ('b', 500, 9), ('c', 100, NULL), ('c', 50, 7);

SELECT DISTINCT ON (host) host, ts, v FROM lp ORDER BY host, ts DESC;

SELECT DISTINCT ON (host) * FROM lp ORDER BY host, v DESC NULLS LAST;

SELECT DISTINCT ON (1) host, v FROM lp ORDER BY 1, 2;

SELECT DISTINCT host FROM lp ORDER BY host;

DROP TABLE lp;
