CREATE DATABASE opts_db WITH (ttl = '2 seconds', 'compaction.type' = 'twcs', 'compaction.twcs.time_window' = '1h', 'append_mode' = 'true');

USE opts_db;

CREATE TABLE inherits (ts TIMESTAMP TIME INDEX, v INT);

SHOW CREATE TABLE inherits;

CREATE TABLE own (ts TIMESTAMP TIME INDEX, v INT) WITH (ttl = '7d', 'compaction.type' = 'twcs', 'compaction.twcs.time_window' = '2h');

SHOW CREATE TABLE own;

SELECT table_name, create_options FROM information_schema.tables WHERE table_schema = 'opts_db' ORDER BY table_name;

ALTER DATABASE opts_db SET ttl = '1 day';

SHOW CREATE TABLE inherits;

ALTER DATABASE opts_db SET 'compaction.twcs.time_window' = '3h';

SHOW CREATE TABLE own;

ALTER TABLE inherits SET 'ttl' = '6 hours';

SHOW CREATE TABLE inherits;

ALTER TABLE inherits UNSET 'ttl';

SHOW CREATE TABLE inherits;

ALTER DATABASE opts_db SET ttl = 'forever';

SHOW CREATE TABLE inherits;

ALTER DATABASE opts_db SET ttl = 'instant';

ALTER DATABASE opts_db SET 'no_such_option' = '1s';

ALTER DATABASE opts_db SET ttl = 'soon';

ALTER DATABASE opts_db UNSET 'no_such_option';

ALTER DATABASE opts_db UNSET 'ttl';

SHOW CREATE TABLE inherits;

SHOW CREATE DATABASE opts_db;

INSERT INTO inherits VALUES (now(), 1);

SELECT v FROM inherits;

USE public;

DROP DATABASE opts_db;

CREATE DATABASE instant_db WITH (ttl = 'instant');
