CREATE TABLE metrics_tagged (
  ts TIMESTAMP TIME INDEX,
  val DOUBLE,
)
WITH (
  'tsdb.semantic.signal_type' = 'metric',
  'tsdb.semantic.source' = 'opentelemetry',
  'tsdb.semantic.source_version' = '2.0',
  'tsdb.semantic.pipeline' = 'tsdb_metric_v1',
  'tsdb.semantic.metric.metadata_quality' = 'declared',
  'tsdb.semantic.metric.type' = 'counter',
  'tsdb.semantic.metric.unit' = 'By'
);

CREATE TABLE plain_table (host STRING PRIMARY KEY, ts TIMESTAMP TIME INDEX, val DOUBLE);

SELECT table_schema, table_name, signal_type, source, source_version, pipeline, metadata_quality, semantic_options FROM information_schema.table_semantics ORDER BY table_name;

SELECT * FROM INFORMATION_SCHEMA.TABLE_CONSTRAINTS WHERE TABLE_SCHEMA = 'public' ORDER BY TABLE_NAME, CONSTRAINT_NAME;

SELECT * FROM Information_Schema.Key_Column_Usage WHERE table_schema = 'public' ORDER BY table_name, constraint_name, column_name;

SELECT table_name, table_type, table_id < 1024 AS system, engine FROM information_schema.tables WHERE table_schema = 'public' ORDER BY table_name;

SELECT column_name, data_type, semantic_type, column_key, is_nullable FROM information_schema.columns WHERE table_name = 'numbers';

SELECT * FROM information_schema.engines;

SELECT * FROM information_schema.character_sets;

SELECT * FROM information_schema.collations;

SELECT * FROM information_schema.collation_character_set_applicability;

SELECT count(*) FROM information_schema.routines;

SELECT count(*) FROM information_schema.column_privileges;

SELECT count(*) FROM information_schema.flows;

DESC TABLE information_schema.statistics;

DESC TABLE INFORMATION_SCHEMA.TABLE_SEMANTICS;

USE INFORMATION_SCHEMA;

SELECT table_name FROM TABLES WHERE table_schema = 'information_schema' AND table_name LIKE 'c%' ORDER BY table_name;

USE public;

DROP TABLE metrics_tagged;

DROP TABLE plain_table;
