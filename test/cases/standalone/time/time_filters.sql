-- Time filters on time indexes of every unit and on other timestamp columns (issue 12, item 2):
-- now(), current_timestamp, INTERVAL arithmetic in SQL and MySQL spellings, date_add/date_sub,
-- strings, BETWEEN, IN, casts, and inside a range query. Rows are placed relative to now() so that
-- the answers are the same whenever the case runs.
CREATE TABLE tf_ms (h STRING PRIMARY KEY, ts TIMESTAMP(3) TIME INDEX, other TIMESTAMP(3), v DOUBLE);

INSERT INTO tf_ms VALUES ('recent', now() - INTERVAL '1 minute', now(), 1), ('old', now() - INTERVAL '2 hours', '2024-01-01 00:00:00', 2), ('older', '2024-01-01 00:00:00', now() - INTERVAL 1 DAY, 3);

SELECT h FROM tf_ms WHERE ts > now() - INTERVAL '5 minutes' ORDER BY h;

SELECT h FROM tf_ms WHERE ts > now() - INTERVAL 5 MINUTE ORDER BY h;

SELECT h FROM tf_ms WHERE ts >= current_timestamp - INTERVAL '3 hours' ORDER BY h;

SELECT h FROM tf_ms WHERE ts > CURRENT_TIMESTAMP() - INTERVAL '3' HOUR ORDER BY h;

SELECT h FROM tf_ms WHERE ts > date_sub(now(), INTERVAL 3 HOUR) ORDER BY h;

SELECT h FROM tf_ms WHERE ts > DATE_ADD(NOW(), INTERVAL -3 HOUR) ORDER BY h;

SELECT h FROM tf_ms WHERE ts BETWEEN now() - INTERVAL '3 hours' AND now() ORDER BY h;

SELECT count(*) FROM tf_ms WHERE ts < now();

SELECT count(*) FROM tf_ms WHERE ts > now();

SELECT h FROM tf_ms WHERE ts BETWEEN '2023-12-31' AND '2024-01-02' ORDER BY h;

SELECT h FROM tf_ms WHERE ts IN ('2024-01-01 00:00:00', 1704067200001) ORDER BY h;

SELECT h FROM tf_ms WHERE ts = TIMESTAMP '2024-01-01 00:00:00';

SELECT h FROM tf_ms WHERE ts = '2024-01-01'::TIMESTAMP;

SELECT h FROM tf_ms WHERE ts = CAST('2024-01-01T00:00:00Z' AS TIMESTAMP);

SELECT h FROM tf_ms WHERE ts = 1704067200000;

SELECT h FROM tf_ms WHERE ts < to_timestamp(1704067201);

SELECT h FROM tf_ms WHERE ts < '2024-01-01T01:00:00+01:00' OR ts = '2024-01-01T01:00:00+01:00';

SELECT h FROM tf_ms WHERE other > now() - INTERVAL '5 minutes' ORDER BY h;

SELECT h FROM tf_ms WHERE other < now() - INTERVAL '12 hours' ORDER BY h;

SELECT h FROM tf_ms WHERE other = '2024-01-01 00:00:00';

SELECT h FROM tf_ms WHERE date_trunc('day', ts) = '2024-01-01';

SELECT h, count(v) RANGE '1h' FROM tf_ms WHERE ts > now() - INTERVAL '1 day' ALIGN '1h' BY (h) ORDER BY h;

SELECT h FROM tf_ms WHERE ts > (SELECT min(ts) FROM tf_ms) ORDER BY h;

CREATE TABLE tf_s (h STRING PRIMARY KEY, ts TIMESTAMP(0) TIME INDEX, v DOUBLE);

INSERT INTO tf_s SELECT h, ts, v FROM tf_ms;

SELECT h FROM tf_s WHERE ts > now() - INTERVAL '5 minutes' ORDER BY h;

SELECT h FROM tf_s WHERE ts > date_sub(now(), INTERVAL 3 HOUR) ORDER BY h;

SELECT h FROM tf_s WHERE ts IN ('2024-01-01 00:00:00', 1704067200) ORDER BY h;

SELECT h FROM tf_s WHERE ts = '2024-01-01T02:00:00+02:00';

CREATE TABLE tf_us (h STRING PRIMARY KEY, ts TIMESTAMP(6) TIME INDEX, v DOUBLE);

INSERT INTO tf_us SELECT h, ts, v FROM tf_ms;

SELECT h FROM tf_us WHERE ts > now() - INTERVAL '5 minutes' ORDER BY h;

SELECT h FROM tf_us WHERE ts BETWEEN '2024-01-01' AND now() - INTERVAL 1 HOUR ORDER BY h;

CREATE TABLE tf_ns (h STRING PRIMARY KEY, ts TIMESTAMP(9) TIME INDEX, v DOUBLE);

INSERT INTO tf_ns SELECT h, ts, v FROM tf_ms;

SELECT h FROM tf_ns WHERE ts > now() - INTERVAL '5 minutes' ORDER BY h;

SELECT h FROM tf_ns WHERE ts > current_timestamp - INTERVAL 3 HOUR AND ts <= now() ORDER BY h;

SELECT h FROM tf_ns WHERE ts = 1704067200000000000;

SELECT h FROM tf_ns WHERE ts = '2024-01-01 00:00:00.000000000';

SELECT h FROM tf_ns t JOIN tf_ms m USING (h) WHERE t.ts > now() - INTERVAL '5 minutes' AND m.ts = t.ts;

DROP TABLE tf_ms;

DROP TABLE tf_s;

DROP TABLE tf_us;

DROP TABLE tf_ns;
