CREATE TABLE anomaly_test(host STRING, val DOUBLE, ts TIMESTAMP TIME INDEX, PRIMARY KEY (host));

INSERT INTO anomaly_test VALUES ('host-a', 48.0, '2025-01-01 00:00:00'), ('host-a', 49.0, '2025-01-01 00:01:00'), ('host-a', 50.0, '2025-01-01 00:02:00'), ('host-a', 51.0, '2025-01-01 00:03:00'), ('host-a', 52.0, '2025-01-01 00:04:00'), ('host-a', 200.0, '2025-01-01 00:05:00'), ('host-a', 50.0, '2025-01-01 00:06:00');

INSERT INTO anomaly_test VALUES ('host-b', 10.0, '2025-01-01 00:00:00'), ('host-b', 10.0, '2025-01-01 00:01:00'), ('host-b', 10.0, '2025-01-01 00:02:00'), ('host-b', 10.0, '2025-01-01 00:03:00'), ('host-b', 10.0, '2025-01-01 00:04:00');

SELECT host, ts, val, ROUND(anomaly_score_zscore(val) OVER (PARTITION BY host ORDER BY ts), 2) AS zscore, ROUND(anomaly_score_mad(val) OVER (PARTITION BY host ORDER BY ts), 2) AS mad, ROUND(anomaly_score_iqr(val, 1.5) OVER (PARTITION BY host ORDER BY ts), 2) AS iqr FROM anomaly_test ORDER BY host, ts;

SELECT host, ts, ROUND(anomaly_score_zscore(val) OVER (PARTITION BY host ORDER BY ts RANGE INTERVAL '5 minutes' PRECEDING), 2) AS zscore_range, ROUND(anomaly_score_mad(val) OVER (PARTITION BY host ORDER BY ts RANGE INTERVAL '5 minutes' PRECEDING), 2) AS mad_range FROM anomaly_test ORDER BY host, ts;

SELECT ts, val, ROUND(anomaly_score_zscore(val) OVER (PARTITION BY host ORDER BY ts ROWS 4 PRECEDING), 2) AS zscore_rows FROM anomaly_test WHERE host = 'host-a' ORDER BY ts;

SELECT ts, ROUND(anomaly_score_zscore(val) OVER (PARTITION BY host ORDER BY ts ROWS BETWEEN 2 PRECEDING AND 2 FOLLOWING), 2) AS zscore_centered, ROUND(anomaly_score_iqr(val, 1.5) OVER (PARTITION BY host ORDER BY ts ROWS BETWEEN 2 PRECEDING AND 2 FOLLOWING), 2) AS iqr_centered FROM anomaly_test WHERE host = 'host-a' ORDER BY ts;

SELECT ts, ROUND(anomaly_score_iqr(val, 1.5) OVER w, 2) AS iqr_k15, ROUND(anomaly_score_iqr(val, 3.0) OVER w, 2) AS iqr_k30, anomaly_score_iqr(val, -1) OVER w AS negative_k FROM anomaly_test WHERE host = 'host-a' WINDOW w AS (ORDER BY ts) ORDER BY ts;

SELECT * FROM (SELECT host, ts, val, ROUND(anomaly_score_mad(val) OVER (PARTITION BY host ORDER BY ts), 2) AS mad FROM anomaly_test) WHERE mad > 3.0 ORDER BY host, ts;

CREATE TABLE anomaly_null_test(host STRING, val DOUBLE, ts TIMESTAMP TIME INDEX, PRIMARY KEY (host));

INSERT INTO anomaly_null_test VALUES ('n', 10.0, '2025-01-01 00:00:00'), ('n', 20.0, '2025-01-01 00:01:00'), ('n', NULL, '2025-01-01 00:02:00'), ('n', 30.0, '2025-01-01 00:03:00'), ('n', 15.0, '2025-01-01 00:04:00');

SELECT ts, val, ROUND(anomaly_score_zscore(val) OVER (ORDER BY ts), 2) AS zscore, ROUND(anomaly_score_mad(val) OVER (ORDER BY ts), 2) AS mad, ROUND(anomaly_score_iqr(val, 1.5) OVER (ORDER BY ts), 2) AS iqr FROM anomaly_null_test ORDER BY ts;

SELECT ts, val, anomaly_score_zscore(val) OVER (ORDER BY ts ROWS 1 PRECEDING) AS zscore_insuf, anomaly_score_mad(val) OVER (ORDER BY ts ROWS 1 PRECEDING) AS mad_insuf FROM anomaly_null_test ORDER BY ts;

INSERT INTO anomaly_test VALUES ('host-b', 11.0, '2025-01-01 00:05:00');

SELECT ts, val, ROUND(anomaly_score_zscore(val) OVER (ORDER BY ts), 2) AS zscore, anomaly_score_mad(val) OVER (ORDER BY ts) > 1e308 AS mad_infinite, anomaly_score_iqr(val, 1.5) OVER (ORDER BY ts) > 1e308 AS iqr_infinite FROM anomaly_test WHERE host = 'host-b' ORDER BY ts;

DROP TABLE anomaly_test;

DROP TABLE anomaly_null_test;
