-- TQL EVAL over a table (GreptimeDB's tql/basic cases): selectors answer the table's own columns
CREATE TABLE test(i DOUBLE, j TIMESTAMP TIME INDEX, k STRING PRIMARY KEY);

-- two points at 1ms and one at 2ms
INSERT INTO test VALUES (1, 1, "a"), (1, 1, "b"), (2, 2, "a");

-- evaluate at 0s, 5s and 10s. No point at 0s.
TQL EVAL (0, 10, '5s') test;

TQL EVAL (0, 10, '5s') {__name__="test"};

tql evaluate (0, 10, '5s') {__name__="test"} AS test_series;

TQL EVAL (0, 10, '5s') count by (k) (test) AS c;

TQL EVAL (0, 10, '5s') test{__schema__="public"};

TQL EVAL (0, 10, '5s') test{__schema__="greptime_private"};

TQL EVAL (0, 10, '5s') test{__database__="public"};

TQL EVAL (0, 10, '5s') {__name__="test", __field__="i"};

TQL EVAL (0, 10, '5s') test{__field__="nope"};

-- the point at 1ms is shadowed by the point at 2ms
TQL EVAL (0, 10, '5s') test{k="a"};

-- lookback 2s: the samples at 1ms and 2ms are seen at 1s and 2s only
TQL EVAL (0, 10, '1s', '2s') test{k="a"};

TQL EVAL (0, 3, '0.5') test{k="b"};

TQL EVAL (0, 3, 0.5) test{k="b"};

TQL EVAL ('1970-01-01T00:00:00'::timestamp, '1970-01-01T00:00:00'::timestamp + '3 seconds'::interval, '1s') test{k="a"};

TQL EVAL (now() - now(), now() - (now() - '3 seconds'::interval), '1s') test{k="a"};

TQL EVAL ('1970-01-01T00:00:01Z', '1970-01-01T00:00:03Z', '1s') test{k="a"};

-- no parameters: (0, 0, '5m')
TQL EVAL test;

-- empty results: a table without matching series, a table that does not exist
TQL EVAL (0, 10, '5s') test{k="zzz"};

TQL EVAL (0, 10, '5s') no_such_table;

DROP TABLE test;

CREATE TABLE metrics(val DOUBLE, ts TIMESTAMP TIME INDEX, host STRING PRIMARY KEY);

INSERT INTO metrics VALUES
    (10.0, '2024-01-01 00:00:00', 'host1'),
    (15.0, '2024-01-01 06:00:00', 'host1'),
    (20.0, '2024-01-01 12:00:00', 'host1'),
    (25.0, '2024-01-01 18:00:00', 'host1'),
    (30.0, '2024-01-02 00:00:00', 'host1'),
    (12.0, '2024-01-01 02:00:00', 'host2'),
    (18.0, '2024-01-01 08:00:00', 'host2'),
    (22.0, '2024-01-01 14:00:00', 'host2');

TQL EVAL (date_trunc('day', '2024-01-01 10:00:00'::timestamp), date_trunc('day', '2024-01-02 10:00:00'::timestamp), '6h') last_over_time(metrics[12h]);

TQL EVAL (date_trunc('day', '2024-01-02 00:00:00'::timestamp) - interval '1' day, date_trunc('day', '2024-01-02 00:00:00'::timestamp), '4h') metrics{host="host1"};

TQL EVAL ('2024-01-01 06:00:00'::timestamp, '2024-01-01 18:00:00'::timestamp, '3h', '6h') metrics;

-- timestamp strings without an offset are read in the session's time zone
SET time_zone = '+08:00';

TQL EVAL ('2024-01-01 08:00:00', '2024-01-01 20:00:00', '6h') metrics{host="host1"};

SET time_zone = 'UTC';

DROP TABLE metrics;

-- metric-engine logical tables are metrics too
CREATE TABLE phy (ts TIMESTAMP TIME INDEX, val DOUBLE) ENGINE=metric WITH ("physical_metric_table" = '');

CREATE TABLE up (ts TIMESTAMP TIME INDEX, val DOUBLE, job STRING, instance STRING, PRIMARY KEY (job, instance)) ENGINE=metric WITH (on_physical_table = 'phy');

INSERT INTO up VALUES (0, 1, 'api', 'a:1'), (0, 0, 'api', 'a:2'), (0, 1, 'db', 'd:1');

TQL EVAL (0, 0, '1s') up;

TQL EVAL (0, 0, '1s') sum by (job) (up);

DROP TABLE up;

DROP TABLE phy;
