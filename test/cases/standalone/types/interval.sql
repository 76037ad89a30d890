SELECT INTERVAL '1 year 2 months 3 days 4 hours 5 minutes 6 seconds 100 microseconds' AS v;

SELECT INTERVAL '1.5 year' AS v;

SELECT INTERVAL '-2 months' AS v;

SELECT '3 hours'::INTERVAL AS v;

SELECT INTERVAL '1 year 2 months 3 days 4 hours' + INTERVAL '1 year' AS v;

SELECT INTERVAL '1 year 2 months 3 days 4 hours' - INTERVAL '1 year' AS v;

SELECT INTERVAL '6 years' = INTERVAL '72 months' AS v;

SELECT INTERVAL '2 hours' > INTERVAL '90 minutes' AS v;

SELECT INTERVAL '-1 hour -5 minutes' AS v;

SELECT INTERVAL '7 days' - INTERVAL '1 day' AS v;

SELECT INTERVAL '1.5 seconds' AS v;

SELECT '2022-01-01T00:00:01'::TIMESTAMP + '1 month'::INTERVAL AS v;

CREATE TABLE intervals (ts TIMESTAMP TIME INDEX, interval_value INTERVAL);

CREATE TABLE with_interval (ts TIMESTAMP TIME INDEX, v DOUBLE);

ALTER TABLE with_interval ADD COLUMN i INTERVAL;

INSERT INTO with_interval VALUES (1000, 1.0), (61000, 2.0);

SELECT max(ts) - min(ts) AS span FROM with_interval;

DROP TABLE with_interval;
