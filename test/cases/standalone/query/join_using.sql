-- SELECT * over USING and NATURAL joins: every relation's columns in FROM order, of each joined
-- column only the one whose qualified name sorts first (DataFusion's wildcard), with its own values
CREATE TABLE emp_natural("id" INTEGER, "name" VARCHAR, dept_id INTEGER, ts1 TIMESTAMP TIME INDEX);

CREATE TABLE dept_natural(dept_id INTEGER, dept_name VARCHAR, ts2 TIMESTAMP TIME INDEX);

INSERT INTO emp_natural VALUES (1, 'Alice', 10, 1000), (2, 'Bob', 20, 2000), (3, 'Carol', 10, 3000), (4, 'Dan', 40, 4000);

INSERT INTO dept_natural VALUES (10, 'Engineering', 4000), (20, 'Sales', 5000), (30, 'Marketing', 6000);

SELECT * FROM emp_natural NATURAL JOIN dept_natural ORDER BY "id";

-- dept_natural.dept_id is the one kept: Dan's is NULL
SELECT * FROM emp_natural NATURAL LEFT JOIN dept_natural ORDER BY "id";

SELECT * FROM emp_natural NATURAL RIGHT JOIN dept_natural ORDER BY dept_id, "id";

SELECT * FROM emp_natural JOIN dept_natural USING (dept_id) ORDER BY "id";

-- Aliases are the qualifiers sorted: a.dept_id (the left one) is kept
SELECT * FROM dept_natural a JOIN emp_natural b USING (dept_id) ORDER BY "id";

SELECT * FROM emp_natural AS z FULL JOIN dept_natural AS a USING (dept_id) ORDER BY dept_id, "id";

-- A qualified star keeps the joined column; a subquery's star is the join's
SELECT e.*, d.dept_id FROM emp_natural e JOIN dept_natural d USING (dept_id) ORDER BY "id";

SELECT * FROM (SELECT * FROM emp_natural e JOIN dept_natural d USING (dept_id)) s WHERE dept_name = 'Sales';

DROP TABLE dept_natural;

DROP TABLE emp_natural;

-- Two columns in common (dept_id, ts); three tables
CREATE TABLE employees_nat(emp_id INTEGER, "name" VARCHAR, dept_id INTEGER, ts TIMESTAMP TIME INDEX);

CREATE TABLE departments_nat(dept_id INTEGER, dept_name VARCHAR, budget INTEGER, ts TIMESTAMP TIME INDEX);

CREATE TABLE dept_locations(dept_id INTEGER, "location" VARCHAR, ts TIMESTAMP TIME INDEX);

INSERT INTO employees_nat VALUES (1, 'Alice', 10, 1000), (2, 'Bob', 20, 2000), (3, 'Charlie', 10, 3000), (4, 'Diana', 30, 4000), (5, 'Eve', 20, 5000);

INSERT INTO departments_nat VALUES (10, 'Engineering', 500000, 1000), (20, 'Marketing', 300000, 2000), (30, 'Sales', 200000, 3000);

INSERT INTO dept_locations VALUES (10, 'Building A', 1000), (20, 'Building B', 2000), (30, 'Building C', 3000);

SELECT * FROM employees_nat NATURAL JOIN departments_nat ORDER BY emp_id;

SELECT * FROM employees_nat NATURAL JOIN departments_nat WHERE budget > 250000 ORDER BY emp_id;

SELECT emp_id, "name", dept_name, "location", budget FROM employees_nat NATURAL JOIN departments_nat NATURAL JOIN dept_locations ORDER BY emp_id;

DROP TABLE employees_nat;

DROP TABLE departments_nat;

DROP TABLE dept_locations;
