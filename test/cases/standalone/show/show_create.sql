CREATE TABLE system_metrics (
  `id` INT UNSIGNED,
  host STRING,
  cpu DOUBLE,
  disk FLOAT COMMENT 'comment',
  ts TIMESTAMP NOT NULL DEFAULT current_timestamp(),
  TIME INDEX (ts),
  PRIMARY KEY (`id`, host)
)
ENGINE=mito
WITH(
  ttl = '7d',
  write_buffer_size = '1KiB'
);

SHOW CREATE TABLE system_metrics;

ALTER TABLE system_metrics SET 'compaction.type' = 'twcs';

SHOW CREATE TABLE system_metrics;

ALTER TABLE system_metrics UNSET 'ttl';

ALTER TABLE system_metrics UNSET 'compaction.type';

SHOW CREATE TABLE system_metrics;

DROP TABLE system_metrics;

create table table_without_options (
  ts TIMESTAMP TIME INDEX NOT NULL DEFAULT current_timestamp()
);

show create table table_without_options;

drop table table_without_options;

CREATE TABLE hint_table (host STRING, ts TIMESTAMP TIME INDEX, cpu DOUBLE, PRIMARY KEY(host)) WITH ('repartition.column.hint' = 'host');

SHOW CREATE TABLE hint_table;

DROP TABLE hint_table;

CREATE TABLE `table_comment_in_cjk` (
    `ts` TIMESTAMP(3) NOT NULL COMMENT '时间戳',
    `val` DOUBLE NULL COMMENT '值',
    TIME INDEX ("ts"),
) WITH (comment = '你好\nこんにちは\n안녕하세요');

show create table table_comment_in_cjk;

drop table table_comment_in_cjk;

show create table numbers;

show create table information_schema.columns;

SHOW CREATE DATABASE public;

CREATE DATABASE show_create_db WITH (ttl = '1 second');

SHOW CREATE DATABASE show_create_db;

ALTER DATABASE show_create_db SET ttl = '1 day';

SHOW CREATE DATABASE show_create_db;

DROP DATABASE show_create_db;
