CREATE DATABASE info_db WITH (ttl = '1d');

CREATE TABLE info_db.t (host STRING PRIMARY KEY, ts TIMESTAMP TIME INDEX, v DOUBLE DEFAULT 1 COMMENT 'value', n INT UNSIGNED);

INSERT INTO info_db.t VALUES ('a', now(), 1, 2), ('b', now(), 3, 4);

SHOW TABLES FROM information_schema;

SELECT table_schema, table_name, table_type, engine FROM information_schema.tables WHERE table_schema = 'info_db';

SELECT table_name, table_rows FROM information_schema.tables WHERE table_schema = 'info_db';

SELECT column_name, ordinal_position, data_type, tsdb_data_type, semantic_type, column_key, is_nullable, column_default, column_comment FROM information_schema.columns WHERE table_schema = 'info_db' ORDER BY ordinal_position;

SELECT schema_name, options FROM information_schema.schemata ORDER BY schema_name;

SELECT constraint_name, table_name, column_name FROM information_schema.key_column_usage WHERE table_schema = 'info_db' ORDER BY constraint_name, column_name;

SELECT engine, support FROM information_schema.engines;

SELECT count(*) FROM information_schema.build_info;

SELECT r.table_id = t.table_id AS same_table, r.region_number, r.region_rows FROM information_schema.region_statistics r JOIN information_schema.tables t ON r.table_id = t.table_id WHERE t.table_name = 't' AND t.table_schema = 'info_db';

USE information_schema;

SELECT count(*) > 0 AS has_columns FROM columns;

INSERT INTO information_schema.tables VALUES (1);

DELETE FROM information_schema.build_info;

SELECT * FROM information_schema.nope;

USE public;

DROP DATABASE info_db;
