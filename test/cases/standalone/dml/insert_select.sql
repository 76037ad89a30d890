CREATE TABLE src (host STRING PRIMARY KEY, ts TIMESTAMP TIME INDEX, v DOUBLE);

CREATE TABLE dst (host STRING PRIMARY KEY, ts TIMESTAMP(9) TIME INDEX, v DOUBLE, n BIGINT);

INSERT INTO src VALUES ('a', 1000, 1.5), ('b', 2000, 2.5), ('c', 3000, NULL);

INSERT INTO dst (host, ts, v) SELECT host, ts, v * 2 FROM src WHERE v IS NOT NULL;

INSERT INTO dst SELECT host, ts, v, 7 FROM src WHERE host = 'c';

SELECT * FROM dst ORDER BY host;

INSERT INTO dst SELECT host FROM src;

REPLACE INTO dst (host, ts, v) VALUES ('a', '1970-01-01 00:00:01', 100);

SELECT host, v FROM dst ORDER BY host;

DROP TABLE src, dst;
