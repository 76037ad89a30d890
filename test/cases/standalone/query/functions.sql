CREATE TABLE f (host STRING PRIMARY KEY, ts TIMESTAMP TIME INDEX, v DOUBLE);

INSERT INTO f VALUES ('a', '2024-01-01 00:01:00', 1), ('a', '2024-01-01 00:04:59', 2), ('a', '2024-01-01 00:05:00', 3), ('b', '2024-01-01 00:12:00', 4);

SELECT date_bin(INTERVAL '5 minutes', ts) AS bucket, count(*) AS n, sum(v) AS s FROM f GROUP BY bucket ORDER BY bucket;

SELECT date_trunc('hour', ts) AS hour, count(*) AS n FROM f GROUP BY hour;

SELECT to_unixtime(ts) AS secs FROM f WHERE host = 'b';

SELECT to_unixtime('2024-01-01 00:00:00') AS secs;

SELECT date_format(ts, '%Y-%m-%d %H:%M') AS t FROM f WHERE host = 'b';

SELECT database() AS db, timezone() AS tz;

SELECT @@version LIKE '8.4.2-tsdb-%' AS ok, version() NOT LIKE '%tsdb%' AS http_version;

SELECT ts FROM f WHERE ts > 1704067440000 ORDER BY ts;

SELECT count(*) AS n FROM f WHERE ts BETWEEN '2024-01-01 00:04:59' AND '2024-01-01 00:05:00';

DROP TABLE f;

CREATE TABLE units (ts TIMESTAMP(9) TIME INDEX, v DOUBLE);

INSERT INTO units VALUES ('2024-01-01 00:00:30.123456789', 1), ('2024-01-01 00:01:30', 2);

SELECT date_bin(INTERVAL '1 minute', ts) AS m, sum(v) FROM units GROUP BY m ORDER BY m;

SELECT date_trunc('minute', ts), count(*) FROM units GROUP BY date_trunc('minute', ts) ORDER BY 1;

DROP TABLE units;

CREATE TABLE lv (host STRING PRIMARY KEY, ts TIMESTAMP TIME INDEX, v DOUBLE, w DOUBLE);

INSERT INTO lv VALUES ('a', 1000, 1, 10), ('a', 3000, 3, NULL), ('a', 2000, 2, 20), ('b', 1000, 5, 50), ('b', 4000, NULL, 40);

SELECT host, last_value(v ORDER BY ts) AS last_v, first_value(v ORDER BY ts) AS first_v, last_value(w ORDER BY ts DESC) AS w_of_first FROM lv GROUP BY host ORDER BY host;

SELECT host, last_value(ts ORDER BY ts), last_value(v ORDER BY ts) FROM lv GROUP BY host ORDER BY host;

SELECT host, ts, v, last_value(v) OVER (PARTITION BY host ORDER BY ts ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) AS window_last FROM lv ORDER BY host, ts;

DROP TABLE lv;
