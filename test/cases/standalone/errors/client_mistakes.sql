-- Mistakes a client makes: each is a clear error with a status code below 500, never an internal one.
CREATE TABLE t (h STRING PRIMARY KEY, ts TIMESTAMP TIME INDEX, v DOUBLE);

INSERT INTO t VALUES ('a', 0, 1.5), ('a', 60000, 2.5), ('b', 0, 3.5);

-- A range query cut short, or with an empty select item.
SELECT ts, avg(v) RANGE '5m' FROM t ALIGN '1m' BY (h;

SELECT ts, avg(v) RANGE '5m' FROM t ALIGN '1m' BY (h, lower(h);

SELECT , h, min(v) RANGE '5s' FROM t ALIGN '5s';

SELECT h, min(v) RANGE '5s', FROM t ALIGN '5s';

SELECT ts, h, avg(v) RANGE '5m' FROM t ALIGN '1m' BY (h) ORDER BY h, ts;

-- Numbers DOUBLE cannot hold.
SELECT 1e309;

SELECT v FROM t WHERE v < -99999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999;

-- Names: GreptimeDB's pattern for tables and databases; a database name is a directory name.
CREATE TABLE "a b" (ts TIMESTAMP TIME INDEX);

CREATE TABLE "1t" (ts TIMESTAMP TIME INDEX);

CREATE TABLE "" (ts TIMESTAMP TIME INDEX);

CREATE TABLE ok_name (ts TIMESTAMP TIME INDEX, "" DOUBLE);

CREATE TABLE "sys.cpu-1:x@y#z" (ts TIMESTAMP TIME INDEX);

CREATE TABLE "bad/name" LIKE t;

ALTER TABLE t RENAME "bad name";

ALTER TABLE t RENAME "🈲";

CREATE TABLE information_schema.x (ts TIMESTAMP TIME INDEX);

CREATE TABLE information_schema.y LIKE t;

CREATE DATABASE "a/b";

CREATE DATABASE "..";

CREATE DATABASE dddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddd;

CREATE DATABASE ddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddd;

CREATE TABLE ddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddd.x (ts TIMESTAMP TIME INDEX, v DOUBLE);

INSERT INTO ddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddd.x VALUES (1, 2);

ADMIN FLUSH_TABLE('ddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddd.x');

SELECT * FROM ddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddd.x;

DROP DATABASE ddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddd;

DROP TABLE "sys.cpu-1:x@y#z";

-- A parameter placeholder where DuckDB takes none, and a function of an extension tsdb does not ship.
SELECT h FROM t ORDER BY h, $ts;

SELECT h FROM t GROUP BY $1;

SELECT host('a');

DROP TABLE t;
