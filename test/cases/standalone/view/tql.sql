-- Views over TQL: the rows the TQL gives when the view is read
CREATE TABLE view_tql_m (host STRING PRIMARY KEY, val DOUBLE, ts TIMESTAMP TIME INDEX);

INSERT INTO view_tql_m VALUES ('a', 1, 0), ('a', 2, 5000), ('b', 10, 0), ('b', 20, 5000);

CREATE VIEW view_tql_sum AS TQL EVAL (0, 10, '5s') sum(view_tql_m);

SHOW CREATE VIEW view_tql_sum;

SELECT * FROM view_tql_sum ORDER BY ts;

CREATE VIEW view_tql_a (h, v, t) AS TQL EVAL (0, 10, '5s') view_tql_m{host="a"};

SELECT h, max(v) AS peak, count(*) AS n FROM view_tql_a GROUP BY h;

INSERT INTO view_tql_m VALUES ('a', 7, 10000);

SELECT t, v FROM view_tql_a WHERE v > 1 ORDER BY t;

CREATE VIEW view_tql_bad AS TQL EXPLAIN (0, 10, '5s') view_tql_m;

CREATE VIEW view_tql_bad (a) AS TQL EVAL (0, 10, '5s') view_tql_m;

DROP VIEW view_tql_sum;

DROP VIEW view_tql_a;

DROP TABLE view_tql_m;
