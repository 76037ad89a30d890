EXPLAIN SELECT number FROM numbers WHERE number > 5 ORDER BY number LIMIT 3;

EXPLAIN SELECT count(*) FROM numbers;

EXPLAIN VERBOSE SELECT 1;

-- VERBOSE: the plan before DuckDB's optimizers first, labelled as DataFusion labels it
EXPLAIN VERBOSE SELECT number FROM numbers WHERE number > 2 + 3 ORDER BY number LIMIT 3;
