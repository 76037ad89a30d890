CREATE DATABASE opts_db WITH (ttl = '1h', 'memtable.type' = 'bulk', 'append_mode' = 'false', 'merge_mode' = 'last_non_null', 'compaction.type' = 'twcs', 'compaction.twcs.time_window' = '1h', 'skip_wal' = 'true');

USE opts_db;

CREATE TABLE inherits(host STRING, cpu DOUBLE, ts TIMESTAMP TIME INDEX);

SHOW CREATE TABLE inherits;

CREATE TABLE own_opts(host STRING, cpu DOUBLE, ts TIMESTAMP TIME INDEX) WITH ('append_mode' = 'true', 'merge_mode' = '', 'skip_wal' = 'false');

SHOW CREATE TABLE own_opts;

USE public;

DROP DATABASE opts_db;

CREATE DATABASE cmp_db;

USE cmp_db;

CREATE TABLE before_alter(ts TIMESTAMP TIME INDEX, val INT);

ALTER DATABASE cmp_db SET 'compaction.type' = 'twcs';

ALTER DATABASE cmp_db SET 'compaction.twcs.time_window' = '2h';

SHOW CREATE DATABASE cmp_db;

SHOW CREATE TABLE before_alter;

CREATE TABLE after_alter(ts TIMESTAMP TIME INDEX, val INT);

SHOW CREATE TABLE after_alter;

CREATE TABLE own_compaction(ts TIMESTAMP TIME INDEX, v INT) WITH ('compaction.type' = 'twcs', 'compaction.twcs.time_window' = '1h');

SHOW CREATE TABLE own_compaction;

ALTER TABLE before_alter SET 'ttl' = '7d';

SHOW CREATE TABLE before_alter;

ALTER TABLE before_alter SET 'ttl' = '2years';

ALTER TABLE after_alter SET 'ttl' = '365d';

SELECT table_name, create_options FROM information_schema.tables WHERE table_schema = 'cmp_db' AND table_name LIKE '%alter' ORDER BY table_name;

USE public;

DROP DATABASE cmp_db;
