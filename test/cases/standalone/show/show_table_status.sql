CREATE DATABASE status_db;

USE status_db;

CREATE TABLE t1 (host STRING PRIMARY KEY, ts TIMESTAMP TIME INDEX, v DOUBLE) WITH (ttl = '1d', comment = 'first');

CREATE TABLE t2 (ts TIMESTAMP TIME INDEX, v DOUBLE);

INSERT INTO t1 VALUES ('a', 1, 1), ('b', 2, 2);

SELECT table_name, engine, version, row_format, table_rows, create_options, table_comment, create_time = update_time AS same FROM information_schema.tables WHERE table_schema = 'status_db' ORDER BY table_name;

SHOW TABLE STATUS LIKE 'nope';

SHOW TABLE STATUS WHERE Name = 'nope';

USE information_schema;

SHOW TABLE STATUS LIKE 'tables';

SHOW TABLE STATUS WHERE Name = 'schemata' AND Version = 11;

USE public;

SHOW TABLE STATUS FROM status_db LIKE 'nope';

DROP DATABASE status_db;
