-- A view's column names: given, checked against its query's, and what its readers see
CREATE TABLE view_t1 (n INT, ts TIMESTAMP TIME INDEX);

INSERT INTO view_t1 VALUES (1, 1), (2, 2), (3, 3), (4, 4), (5, 5), (6, 6);

CREATE VIEW IF NOT EXISTS view_v1 (a) AS SELECT * FROM view_t1;

CREATE VIEW IF NOT EXISTS view_v1 (a) AS SELECT n FROM view_t1;

SHOW CREATE VIEW view_v1;

SELECT * FROM view_v1 ORDER BY a;

SELECT a FROM view_v1 WHERE a > 4 ORDER BY a;

CREATE OR REPLACE VIEW view_v1 (a, b) AS SELECT n, n+1 FROM view_t1;

SHOW CREATE VIEW view_v1;

SELECT * FROM view_v1 WHERE b > 5 ORDER BY a;

SELECT x, b FROM view_v1 AS v(x) WHERE x < 3 ORDER BY x;

-- the view follows its table: a column added is not in it, a column dropped fails it
CREATE OR REPLACE VIEW view_v1 AS SELECT n, ts FROM view_t1 ORDER BY ts LIMIT 3;

ALTER TABLE view_t1 ADD COLUMN s STRING DEFAULT '';

SELECT * FROM view_v1;

ALTER TABLE view_t1 DROP COLUMN n;

SELECT * FROM view_v1;

SELECT count(*) FROM view_t1;

DROP VIEW view_v1;

DROP TABLE view_t1;
