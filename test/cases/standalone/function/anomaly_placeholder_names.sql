CREATE TABLE anomaly_names(__v STRING, __k BIGINT, val DOUBLE, ts TIMESTAMP TIME INDEX, PRIMARY KEY (__v));

INSERT INTO anomaly_names VALUES ('host-a', 0, 48.0, '2025-01-01 00:00:00'), ('host-a', 1, 49.0, '2025-01-01 00:01:00'), ('host-a', 2, 50.0, '2025-01-01 00:02:00'), ('host-a', 3, 51.0, '2025-01-01 00:03:00'), ('host-a', 4, 52.0, '2025-01-01 00:04:00'), ('host-a', 5, 200.0, '2025-01-01 00:05:00'), ('host-a', 6, 50.0, '2025-01-01 00:06:00');

INSERT INTO anomaly_names VALUES ('host-b', 0, 10.0, '2025-01-01 00:00:00'), ('host-b', 1, 10.0, '2025-01-01 00:01:00'), ('host-b', 2, 10.0, '2025-01-01 00:02:00'), ('host-b', 3, 10.0, '2025-01-01 00:03:00'), ('host-b', 4, 10.0, '2025-01-01 00:04:00');

SELECT __v, ts, val, ROUND(anomaly_score_zscore(val) OVER (PARTITION BY __v ORDER BY __k), 2) AS zscore, ROUND(anomaly_score_mad(val) OVER (PARTITION BY __v ORDER BY __k), 2) AS mad, ROUND(anomaly_score_iqr(val, 1.5) OVER (PARTITION BY __v ORDER BY __k), 2) AS iqr FROM anomaly_names ORDER BY __v, ts;

SELECT __v, ts, ROUND(anomaly_score_zscore(__k) OVER (PARTITION BY __v ORDER BY ts), 2) AS zscore_k, ROUND(anomaly_score_iqr(val, __k) OVER (PARTITION BY __v ORDER BY ts), 2) AS iqr_k FROM anomaly_names WHERE __v = 'host-a' ORDER BY ts;

DROP TABLE anomaly_names;
