CREATE TABLE t (ts TIMESTAMP TIME INDEX, v VECTOR(3));

-- Insert strings
INSERT INTO t VALUES
(1, '[1.0, 2.0, 3.0]'),
(2, '[4.0, 5.0, 6.0]'),
(3, '[7.0, 8.0, 9.0]');

-- Insert vector values
INSERT INTO t VALUES
(4, parse_vec('[1.0, 2.0, 3.0]')),
(5, parse_vec('[4.0, 5.0, 6.0]')),
(6, parse_vec('[7.0, 8.0, 9.0]'));

SELECT ts, v, vec_to_string(v) FROM t ORDER BY ts;

DESC TABLE t;

SHOW CREATE TABLE t;

SELECT column_name, data_type, column_type FROM information_schema.columns WHERE table_name = 't' ORDER BY column_name;

SELECT ts, vec_to_string(v), round(vec_cos_distance('[7.0, 8.0, 9.0]', v), 2) as d FROM t ORDER BY d, ts;

SELECT ts, vec_to_string(v), round(vec_l2sq_distance(v, '[0.0, 0.0, 0.0]'), 2) as d FROM t ORDER BY d, ts;

SELECT ts, vec_to_string(v), round(vec_dot_product('[7.0, 8.0, 9.0]', v), 2) as d FROM t ORDER BY d, ts;

SELECT vec_cos_distance(v, v), vec_l2sq_distance(v, v) FROM t ORDER BY ts;

-- Unexpected dimension
SELECT vec_cos_distance(v, '[1.0]') FROM t;

SELECT vec_l2sq_distance(v, '[1.0]') FROM t;

SELECT vec_dot_product(v, '[1.0]') FROM t;

INSERT INTO t VALUES
(4, '[1.0]');

-- Invalid vector value
INSERT INTO t VALUES
(5, '1.0,2.0,3.0');

INSERT INTO t VALUES
(6, '[30h, 40s, 50m]');

ADMIN flush_table('t');

SELECT vec_to_string(vec_sum(v)), vec_to_string(vec_avg(v)), vec_to_string(vec_product(v)) FROM t;

SELECT vec_to_string(v), vec_dim(v), vec_kth_elem(v, 0), vec_elem_sum(v) FROM t WHERE vec_kth_elem(v, 0) > 2.0 ORDER BY ts;

CREATE TABLE t2 (ts TIMESTAMP TIME INDEX, v VECTOR(3) DEFAULT '[1.0, 2.0, 3.0]');

INSERT INTO t2 (ts) VALUES
(1),
(2),
(3);

SELECT ts, v, vec_to_string(v) FROM t2 ORDER BY ts;

CREATE TABLE t3 (ts TIMESTAMP TIME INDEX, v VECTOR(2) DEFAULT '[1.0]');

CREATE TABLE t4 (ts TIMESTAMP TIME INDEX, v VECTOR(2) PRIMARY KEY);

DROP TABLE t;

DROP TABLE t2;
