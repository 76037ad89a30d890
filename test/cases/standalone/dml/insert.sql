CREATE TABLE host_load (host STRING PRIMARY KEY, ts TIMESTAMP TIME INDEX, load DOUBLE, note STRING DEFAULT 'none');

INSERT INTO host_load VALUES ('a', 1700000000000, 1.5, 'x'), ('b', 1700000000000, 2, DEFAULT);

INSERT INTO host_load (host, ts, load) VALUES ('a', '2023-11-14 22:13:21', 3.25), ("c", '2023-11-14T22:13:20+01:00', -1,);

INSERT INTO host_load (ts, host, load) VALUES (1700000000000, 'a', 99);

SELECT * FROM host_load ORDER BY host, ts;

INSERT INTO host_load VALUES ('a', 1);

INSERT INTO host_load (host, nope) VALUES ('a', 1);

INSERT INTO host_load (host, ts, load) VALUES ('a', 'yesterday', 1);

INSERT INTO host_load (host, ts, load) VALUES ('a', 1700000000000, 'much');

INSERT INTO nope VALUES (1);

SELECT count(*) FROM host_load;

CREATE TABLE deduped (host STRING PRIMARY KEY, ts TIMESTAMP TIME INDEX, a DOUBLE, b DOUBLE) WITH (merge_mode = 'last_non_null');

INSERT INTO deduped VALUES ('h', 0, 1, NULL);

INSERT INTO deduped VALUES ('h', 0, NULL, 2);

SELECT * FROM deduped;

CREATE TABLE appended (host STRING PRIMARY KEY, ts TIMESTAMP TIME INDEX, a DOUBLE) WITH (append_mode = 'true');

INSERT INTO appended VALUES ('h', 0, 1), ('h', 0, 1);

SELECT count(*) FROM appended;

ADMIN FLUSH_TABLE('host_load');

SELECT * FROM host_load ORDER BY host, ts;

DROP TABLE host_load, deduped, appended;
