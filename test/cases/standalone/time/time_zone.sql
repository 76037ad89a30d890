-- One session time zone rule (issue 12, item 3): a naive literal is read in the session's zone in
-- INSERT, WHERE, DELETE, casts, DEFAULT, range-query alignment and date_trunc / date_bin /
-- date_format buckets; a literal with an offset means what it says. Daylight-saving edges: a local
-- time that happens twice is its first occurrence, one that never happens moves forward by the gap.
-- Results print instants in UTC.
SET time_zone = 'America/New_York';

CREATE TABLE tz (h STRING PRIMARY KEY, ts TIMESTAMP TIME INDEX, d TIMESTAMP DEFAULT '2024-01-01 00:00:00', v DOUBLE);

INSERT INTO tz (h, ts, v) VALUES ('summer', '2024-07-01 12:00:00', 1), ('winter', '2024-01-15 12:00:00', 2), ('gap', '2024-03-10 02:30:00', 3), ('twice', '2024-11-03 01:30:00', 4), ('offset', '2024-07-01T12:00:00Z', 5), ('late', '2024-07-01 23:30:00', 6);

SELECT h, ts, d FROM tz ORDER BY ts;

SELECT h FROM tz WHERE ts = '2024-07-01 12:00:00';

SELECT h FROM tz WHERE ts BETWEEN '2024-07-01 00:00:00' AND '2024-07-01 23:59:59' ORDER BY h;

SELECT h FROM tz WHERE ts >= '2024-07-01' AND ts < '2024-07-02' ORDER BY h;

SELECT h FROM tz WHERE ts IN ('2024-03-10 03:30:00', '2024-11-03 01:30:00') ORDER BY h;

SELECT h FROM tz WHERE ts = TIMESTAMP '2024-01-15 12:00:00';

SELECT h FROM tz WHERE ts = '2024-01-15 12:00:00'::TIMESTAMP;

SELECT h FROM tz WHERE ts = '2024-11-03 01:30:00-05:00';

SELECT h, date_trunc('day', ts) AS day, date_format(ts, '%Y-%m-%d %H:%M') AS local FROM tz ORDER BY ts;

SELECT date_bin(INTERVAL '1 day', ts) AS day, count(*) AS n FROM tz GROUP BY day ORDER BY day;

SELECT date_trunc('hour', ts) AS hour, count(*) AS n FROM tz WHERE ts >= '2024-11-03 00:00:00' AND ts < '2024-11-04 00:00:00' GROUP BY hour ORDER BY hour;

SELECT to_unixtime('2024-07-01 12:00:00') AS secs;

SELECT ts, count(v) RANGE '1d' FROM tz WHERE ts >= '2024-07-01' ALIGN '1d' BY () ORDER BY ts;

SELECT ts, count(v) RANGE '1h' FROM tz WHERE ts >= '2024-07-01 12:00:00' AND ts < '2024-07-01 14:00:00' ALIGN '1h' BY () ORDER BY ts;

DELETE FROM tz WHERE ts = '2024-11-03 01:30:00';

SELECT h FROM tz ORDER BY h;

SET time_zone = '+05:30';

SELECT h, date_trunc('day', ts) AS day FROM tz ORDER BY ts;

SELECT h FROM tz WHERE ts = '2024-07-01 17:30:00';

SELECT ts, count(v) RANGE '1d' FROM tz WHERE ts >= '2024-07-01' ALIGN '1d' BY () ORDER BY ts;

SET time_zone = 'Asia/Kolkata';

SELECT h FROM tz WHERE ts = '2024-07-01 17:30:00';

SET time_zone = 'UTC';

SELECT h FROM tz WHERE ts = '2024-07-01 12:00:00';

SELECT h, date_trunc('day', ts) AS day FROM tz ORDER BY ts;

DROP TABLE tz;
