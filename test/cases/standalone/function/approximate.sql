CREATE TABLE test_hll (`id` INT PRIMARY KEY, `value` STRING, `ts` TIMESTAMP TIME INDEX DEFAULT 0);

INSERT INTO test_hll (`id`, `value`) VALUES (1, 'a'), (2, 'b'), (5, 'e'), (6, 'f'), (7, 'g'), (8, 'h'), (9, 'i'), (10, 'j'), (11, 'i'), (12, 'j'), (13, 'i'), (14, 'n'), (15, 'o'), (16, NULL);

SELECT hll_count(hll(`value`)) FROM test_hll;

INSERT INTO test_hll (`id`, `value`) VALUES (17, 'b'), (18, 'i'), (19, 'j'), (20, 's'), (21, 't');

SELECT hll_count(hll(`value`)) FROM test_hll;

CREATE TABLE test_hll_merge (`id` INT PRIMARY KEY, `state` BINARY, `ts` TIMESTAMP TIME INDEX DEFAULT 0);

INSERT INTO test_hll_merge (`id`, `state`) SELECT 1, hll(`value`) FROM test_hll WHERE id < 10;

INSERT INTO test_hll_merge (`id`, `state`) SELECT 2, hll(`value`) FROM test_hll WHERE id >= 10;

SELECT id, hll_count(state) FROM test_hll_merge ORDER BY id;

SELECT hll_count(hll_merge(`state`)) FROM test_hll_merge;

SELECT hll_count(NULL), hll_count('not a state'::BLOB);

SELECT APPROX_DISTINCT(1);

SELECT APPROX_DISTINCT('hello');

SELECT APPROX_DISTINCT(`value`) FROM test_hll;

SELECT APPROX_DISTINCT(`value`) FROM test_hll WHERE 1 = 0;

DROP TABLE test_hll;

DROP TABLE test_hll_merge;

CREATE TABLE large_test(a INTEGER, b INTEGER, ts TIMESTAMP TIME INDEX);

INSERT INTO large_test SELECT range, range % 10, range * 1000 FROM range(2000);

SELECT APPROX_DISTINCT(a) BETWEEN 1960 AND 2040 AS within_2_percent, APPROX_DISTINCT(b) FROM large_test;

SELECT b, APPROX_DISTINCT(a) BETWEEN 190 AND 210 AS within_5_percent FROM large_test GROUP BY b ORDER BY b;

SELECT approx_median(a) FROM large_test;

SELECT approx_percentile_cont(0.5) WITHIN GROUP (ORDER BY a) AS p50, approx_percentile_cont(0.25) WITHIN GROUP (ORDER BY a) AS p25, approx_percentile_cont(0.95) WITHIN GROUP (ORDER BY a DESC) AS p05 FROM large_test WHERE a < 1000;

SELECT approx_percentile_cont(a, 0.0) AS lo, approx_percentile_cont(a, 1.0) AS hi FROM large_test;

SELECT approx_percentile_cont(a, 1.5) FROM large_test;

DROP TABLE large_test;

CREATE TABLE median_test(i INTEGER, d DOUBLE, ts TIMESTAMP TIME INDEX);

INSERT INTO median_test VALUES (1, 1.1, 1000), (2, 2.2, 2000), (4, 3.3, 3000), (5, 4.4, 4000), (NULL, 5.5, 5000);

SELECT approx_median(i), approx_median(d) FROM median_test;

SELECT approx_median(i) FROM median_test WHERE i > 100;

CREATE TABLE approx_double(d DOUBLE, ts TIMESTAMP TIME INDEX);

INSERT INTO approx_double SELECT range * 1.5, range * 1000 FROM range(1000);

SELECT approx_percentile_cont(0.5) WITHIN GROUP (ORDER BY d) FROM approx_double;

SELECT approx_percentile_cont(0.9) WITHIN GROUP (ORDER BY d) FROM approx_double;

DROP TABLE approx_double;

DROP TABLE median_test;

CREATE TABLE test_uddsketch (`id` INT PRIMARY KEY, `value` DOUBLE, `ts` TIMESTAMP TIME INDEX DEFAULT 0);

INSERT INTO test_uddsketch (`id`, `value`) VALUES (1, 10.0), (2, 20.0), (3, 30.0), (4, 40.0), (5, 50.0), (6, 60.0), (7, 70.0), (8, 80.0), (9, 90.0), (10, 100.0);

SELECT uddsketch_calc(0.1, uddsketch_state(128, 0.01, `value`)) FROM test_uddsketch;

SELECT uddsketch_calc(0.5, uddsketch_state(128, 0.01, `value`)) FROM test_uddsketch;

SELECT uddsketch_calc(0.75, uddsketch_state(128, 0.01, `value`)) FROM test_uddsketch;

SELECT uddsketch_calc(0.95, uddsketch_state(128, 0.01, `value`)) FROM test_uddsketch;

SELECT uddsketch_calc(0.5, uddsketch_state(8, 0.01, `value`)) BETWEEN 50 AND 70 AS collapsed_within_bounds FROM test_uddsketch;

CREATE TABLE grouped_uddsketch (`state` BINARY, id_group INT PRIMARY KEY, `ts` TIMESTAMP TIME INDEX DEFAULT 0);

INSERT INTO grouped_uddsketch (`state`, id_group) SELECT uddsketch_state(128, 0.01, `value`), `id` / 5 * 5 AS id_group FROM test_uddsketch GROUP BY id_group;

SELECT uddsketch_calc(0.1, uddsketch_merge(128, 0.01, `state`)) FROM grouped_uddsketch;

SELECT uddsketch_calc(0.1, uddsketch_merge(128, 0.1, `state`)) FROM grouped_uddsketch;

SELECT uddsketch_calc(0.1, uddsketch_merge(64, 0.01, `state`)) FROM grouped_uddsketch;

SELECT uddsketch_calc(0.5, NULL), uddsketch_calc(0.5, 'not a state'::BLOB);

DROP TABLE test_uddsketch;

DROP TABLE grouped_uddsketch;

CREATE TABLE weight_test("value" INTEGER, weight INTEGER, grp INTEGER, ts TIMESTAMP TIME INDEX);

INSERT INTO weight_test VALUES (10, 1, 1, 1000), (20, 2, 1, 2000), (30, 3, 1, 3000), (40, 4, 2, 4000), (50, 1, 2, 5000), (NULL, 1, 2, 6000), (60, NULL, 2, 7000);

SELECT approx_percentile_cont_with_weight(weight, 0.5) WITHIN GROUP (ORDER BY "value") AS p50, approx_percentile_cont_with_weight(weight, 0.25) WITHIN GROUP (ORDER BY "value") AS p25, approx_percentile_cont_with_weight(weight, 0.75) WITHIN GROUP (ORDER BY "value") AS p75 FROM weight_test;

SELECT approx_percentile_cont_with_weight("value", weight, 0.0) AS lo, approx_percentile_cont_with_weight("value", weight, 1.0) AS hi, approx_percentile_cont_with_weight(CAST("value" AS DOUBLE), weight / 2.0, 0.5) AS half FROM weight_test;

SELECT grp, approx_percentile_cont_with_weight(weight, 0.5) WITHIN GROUP (ORDER BY "value") AS p50 FROM weight_test GROUP BY grp ORDER BY grp;

SELECT approx_percentile_cont_with_weight(weight, 0.5) WITHIN GROUP (ORDER BY "value") FROM weight_test WHERE "value" > 1000;

DROP TABLE weight_test;

CREATE TABLE sketch_parts (host STRING, ts TIMESTAMP TIME INDEX, v DOUBLE, PRIMARY KEY (host)) PARTITION ON COLUMNS (host) (host < 'h', host >= 'h' AND host < 'p', host >= 'p');

INSERT INTO sketch_parts SELECT CASE x % 3 WHEN 0 THEN 'a' WHEN 1 THEN 'k' ELSE 'z' END, x * 1000, x FROM generate_series(0, 299) AS t(x);

SELECT hll_count(hll(v)) AS distinct_v, approx_distinct(host) AS hosts, approx_median(v) AS median, approx_percentile_cont(0.9) WITHIN GROUP (ORDER BY v) AS p90, uddsketch_calc(0.5, uddsketch_state(128, 0.01, v + 1)) AS udd_median FROM sketch_parts;

SELECT host, approx_distinct(v) AS n, approx_median(v) AS median FROM sketch_parts GROUP BY host ORDER BY host;

DROP TABLE sketch_parts;
