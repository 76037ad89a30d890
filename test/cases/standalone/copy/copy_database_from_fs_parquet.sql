CREATE DATABASE copy_db1;

USE copy_db1;

CREATE TABLE demo(host string, cpu double, memory double, ts TIMESTAMP time index);

INSERT INTO demo(host, cpu, memory, ts) values ('host1', 66.6, 1024, 1655276557000), ('host2', 88.8,  333.3, 1655276558000);

COPY DATABASE copy_db1 TO 'copy_database/export/parquet/' WITH (FORMAT="parquet");

COPY DATABASE copy_db1 TO 'copy_database/export/parquet_range/' WITH (FORMAT="parquet", start_time='2022-06-15 07:02:37.000Z', end_time='2022-06-15 07:02:37.1Z');

DELETE FROM demo;

SELECT * FROM demo ORDER BY ts;

COPY DATABASE copy_db1 FROM 'copy_database/export/parquet/';

SELECT * FROM demo ORDER BY ts;

DELETE FROM demo;

COPY DATABASE copy_db1 FROM 'copy_database/export/parquet_range/';

SELECT * FROM demo ORDER BY ts;

DELETE FROM demo;

COPY DATABASE copy_db1 FROM 'copy_database/export/parquet_range/' LIMIT 2;

DROP TABLE demo;

USE public;

DROP DATABASE copy_db1;

CREATE DATABASE copy_db_src;

USE copy_db_src;

CREATE TABLE cpu_metrics (host STRING PRIMARY KEY, `usage` DOUBLE, ts TIMESTAMP TIME INDEX);

INSERT INTO cpu_metrics VALUES ('host1', 66.6, 1655276557000), ('host2', 77.7, 1655276558000), ('host3', 88.8, 1655276559000);

CREATE TABLE event_logs (`id` INT, `message` STRING, ts TIMESTAMP(6) TIME INDEX) WITH (ttl = '36500d');

INSERT INTO event_logs VALUES (1, 'start', 1655276557000000), (2, 'processing', 1655276558000000), (3, 'finish', 1655276559000000);

CREATE TABLE phy (ts timestamp time index, val double) engine=metric with ('physical_metric_table' = '');

CREATE TABLE up (ts timestamp time index, val double, job string primary key) engine=metric with ('on_physical_table' = 'phy');

INSERT INTO up VALUES (1655276557000, 1, 'a'), (1655276558000, 0, 'b');

COPY DATABASE copy_db_src TO 'copy_database/export_all/' WITH (format='parquet', parallelism=2);

COPY DATABASE copy_db_src TO 'copy_database/export_csv/' WITH (format='csv');

CREATE DATABASE copy_db_dst;

USE copy_db_dst;

COPY DATABASE copy_db_dst FROM 'copy_database/export_all/' WITH (parallelism=2);

SHOW TABLES;

SELECT * FROM cpu_metrics ORDER BY ts;

SELECT * FROM event_logs ORDER BY ts;

SELECT * FROM up ORDER BY ts;

SHOW CREATE TABLE event_logs;

CREATE DATABASE copy_db_csv;

COPY DATABASE copy_db_csv FROM 'copy_database/export_csv/' WITH (format='csv');

SELECT * FROM copy_db_csv.event_logs ORDER BY ts;

CREATE DATABASE copy_db_schema;

COPY DATABASE copy_db_schema FROM 'copy_database/export_all/' WITH (schema_only=true);

SHOW TABLES FROM copy_db_schema;

SELECT count(*) FROM copy_db_schema.cpu_metrics;

COPY DATABASE copy_db_missing FROM 'copy_database/export_all/';

COPY DATABASE copy_db_dst FROM 'copy_database/not_there/';

USE public;

DROP DATABASE copy_db_src;

DROP DATABASE copy_db_dst;

DROP DATABASE copy_db_csv;

DROP DATABASE copy_db_schema;
