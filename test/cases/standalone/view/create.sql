-- CREATE VIEW: syntax, name clashes with tables and views, IF NOT EXISTS / OR REPLACE
CREATE DATABASE view_ddl;

USE view_ddl;

CREATE TABLE view_base (a STRING, ts TIMESTAMP TIME INDEX);

INSERT INTO view_base VALUES ('x', 1), ('y', 2), ('z', 3);

CREATE VIEW view_a;

CREATE VIEW view_a AS DELETE FROM view_base;

CREATE VIEW view_base AS SELECT * FROM view_base;

CREATE VIEW IF NOT EXISTS view_base AS SELECT * FROM view_base;

CREATE OR REPLACE VIEW view_base AS SELECT * FROM view_base;

CREATE VIEW view_a AS SELECT * FROM view_base;

CREATE VIEW view_b AS SELECT * FROM view_a;

CREATE VIEW view_a AS SELECT a FROM view_base;

CREATE VIEW IF NOT EXISTS view_a AS SELECT a FROM view_base;

CREATE OR REPLACE VIEW IF NOT EXISTS view_a AS SELECT a FROM view_base;

CREATE OR REPLACE VIEW view_a AS SELECT a, ts FROM view_base WHERE a <> 'y';

CREATE VIEW view_missing AS SELECT * FROM dontexist;

CREATE VIEW view_bad AS SELECT nope FROM view_base;

CREATE TABLE view_a (ts TIMESTAMP TIME INDEX);

CREATE TABLE IF NOT EXISTS view_a (ts TIMESTAMP TIME INDEX);

SHOW TABLES;

SHOW FULL TABLES;

SHOW VIEWS;

SHOW VIEWS LIKE '%_b';

SHOW VIEWS WHERE Views = 'view_a';

SELECT * FROM view_a ORDER BY ts;

SELECT * FROM view_b ORDER BY ts;

SELECT table_schema, table_name, table_type, engine, temporary FROM information_schema.tables WHERE table_schema = 'view_ddl' ORDER BY table_name;

SHOW COLUMNS FROM view_a;

DESC view_a;

SELECT * FROM information_schema.columns WHERE table_name = 'view_a';

INSERT INTO view_a VALUES (1);

SHOW CREATE TABLE view_a;

DROP VIEW view_base;

DROP VIEW view_missing;

DROP VIEW IF EXISTS view_missing;

DROP VIEW view_b;

DROP TABLE view_a;

SELECT * FROM view_a;

SHOW VIEWS;

DROP TABLE view_base;

SHOW TABLES;

USE public;

DROP DATABASE view_ddl;
