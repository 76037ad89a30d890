CREATE TABLE d (host STRING PRIMARY KEY, ts TIMESTAMP TIME INDEX, v DOUBLE);

INSERT INTO d VALUES ('a', 0, 1), ('a', 1000, 2), ('b', 0, 3), ('b', 1000, 4);

DELETE FROM d WHERE host = 'a' AND ts >= 1000;

SELECT * FROM d ORDER BY host, ts;

DELETE FROM d WHERE v > 100;

ADMIN FLUSH_TABLE('d');

DELETE FROM d WHERE host = 'b';

SELECT * FROM d ORDER BY host, ts;

INSERT INTO d VALUES ('b', 0, 30);

SELECT * FROM d ORDER BY host, ts;

DELETE FROM d;

SELECT count(*) FROM d;

DELETE FROM nope WHERE x = 1;

DELETE FROM d WHERE nope = 1;

CREATE TABLE logs (host STRING PRIMARY KEY, ts TIMESTAMP TIME INDEX, msg STRING) WITH (append_mode = 'true');

INSERT INTO logs VALUES ('a', 0, 'x');

DELETE FROM logs WHERE host = 'a';

DROP TABLE d, logs;
