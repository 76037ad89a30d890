-- TQL EXPLAIN: the PromQL as evaluated, and the SQL scans it runs (matchers and time range in the WHERE)
CREATE TABLE test(i DOUBLE, j TIMESTAMP TIME INDEX, k STRING PRIMARY KEY);

INSERT INTO test VALUES (1, 1, "a"), (1, 1, "b"), (2, 2, "a");

TQL EXPLAIN (0, 10, '5s') test;

TQL EXPLAIN (0, 10, '1s', '2s') test{k="a"};

TQL EXPLAIN ('1970-01-01T00:00:00'::timestamp, '1970-01-01T00:00:00'::timestamp + '10 seconds'::interval, '5s') sum by (k) (rate(test{k=~"a|b"}[1m])) / 2;

TQL EXPLAIN VERBOSE (0, 10, '5s') test AS v;

TQL EXPLAIN FORMAT JSON (0, 10, '5s') 1 + 1;

TQL EXPLAIN (0, 10, '5s') test{__schema__="no_such_db"};

EXPLAIN WITH t (v, ts, k) AS (TQL EVAL (0, 10, '5s') test{k="a"}) SELECT count(*) FROM t WHERE v > 1;

DROP TABLE test;
