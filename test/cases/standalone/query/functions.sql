CREATE TABLE f (host STRING PRIMARY KEY, ts TIMESTAMP TIME INDEX, v DOUBLE);

INSERT INTO f VALUES ('a', '2024-01-01 00:01:00', 1), ('a', '2024-01-01 00:04:59', 2), ('a', '2024-01-01 00:05:00', 3), ('b', '2024-01-01 00:12:00', 4);

SELECT date_bin(INTERVAL '5 minutes', ts) AS bucket, count(*) AS n, sum(v) AS s FROM f GROUP BY bucket ORDER BY bucket;

SELECT date_trunc('hour', ts) AS hour, count(*) AS n FROM f GROUP BY hour;

SELECT to_unixtime(ts) AS secs FROM f WHERE host = 'b';

SELECT to_unixtime('2024-01-01 00:00:00') AS secs;

SELECT date_format(ts, '%Y-%m-%d %H:%M') AS t FROM f WHERE host = 'b';

SELECT database() AS db, timezone() AS tz;

SELECT version() LIKE '8.4.2-tsdb-%' AS ok;

SELECT ts FROM f WHERE ts > 1704067440000 ORDER BY ts;

SELECT count(*) AS n FROM f WHERE ts BETWEEN '2024-01-01 00:04:59' AND '2024-01-01 00:05:00';

DROP TABLE f;

CREATE TABLE units (ts TIMESTAMP(9) TIME INDEX, v DOUBLE);

INSERT INTO units VALUES ('2024-01-01 00:00:30.123456789', 1), ('2024-01-01 00:01:30', 2);

SELECT date_bin(INTERVAL '1 minute', ts) AS m, sum(v) FROM units GROUP BY m ORDER BY m;

SELECT date_trunc('minute', ts), count(*) FROM units GROUP BY date_trunc('minute', ts) ORDER BY 1;

DROP TABLE units;
