-- Queries through views: filters, aggregates, joins, views of views, other databases, dropped tables
CREATE TABLE view_cpu (host STRING PRIMARY KEY, usage DOUBLE, ts TIMESTAMP TIME INDEX);

INSERT INTO view_cpu VALUES ('a', 10, 1000), ('a', 20, 2000), ('b', 30, 1000), ('b', 50, 2000), ('c', 5, 1000);

CREATE TABLE view_hosts (host STRING PRIMARY KEY, region STRING, ts TIMESTAMP TIME INDEX);

INSERT INTO view_hosts VALUES ('a', 'eu', 0), ('b', 'us', 0), ('c', 'eu', 0);

CREATE VIEW view_busy AS SELECT host, usage, ts FROM view_cpu WHERE usage >= 10;

CREATE VIEW view_by_region AS SELECT h.region, c.usage FROM view_busy c JOIN view_hosts h ON c.host = h.host;

SELECT host, max(usage) AS peak FROM view_busy GROUP BY host ORDER BY host;

SELECT region, sum(usage) AS total FROM view_by_region GROUP BY region ORDER BY region;

SELECT * FROM view_busy WHERE ts > '1970-01-01 00:00:01' ORDER BY host;

SELECT b.host, h.region FROM view_busy b, view_hosts h WHERE b.host = h.host AND b.usage > 25 ORDER BY 1;

WITH view_busy AS (SELECT 'cte' AS host) SELECT * FROM view_busy;

SELECT * FROM (SELECT host FROM view_busy WHERE usage > 40) AS x;

CREATE DATABASE view_other;

CREATE VIEW view_other.remote AS SELECT host, usage FROM view_cpu WHERE host = 'c';

SELECT * FROM view_other.remote;

USE view_other;

SELECT * FROM remote;

SHOW VIEWS;

USE public;

SHOW VIEWS FROM view_other;

CREATE VIEW view_other.qualified AS SELECT usage FROM public.view_cpu WHERE host = 'a';

SELECT * FROM view_other.qualified ORDER BY usage;

DROP DATABASE view_other;

SHOW VIEWS;

DROP TABLE view_hosts;

SELECT * FROM view_by_region;

DROP VIEW view_by_region;

DROP VIEW view_busy;

DROP TABLE view_cpu;
