SELECT date_add('2023-12-06 07:39:46.222'::TIMESTAMP_MS, INTERVAL '5 day');

SELECT date_add('2023-12-06 07:39:46.222'::TIMESTAMP_MS, '5 day');

SELECT date_sub('2023-12-06 07:39:46.222'::TIMESTAMP_MS, INTERVAL '5 day');

SELECT date_sub('2023-12-06 07:39:46.222'::TIMESTAMP_MS, '5 day');

SELECT FROM_UNIXTIME(1494410783);

SELECT FROM_UNIXTIME(1494410783.5);

SELECT FROM_UNIXTIME(NULL);

SELECT UNIX_TIMESTAMP('2017-05-10 10:06:23');

SELECT UNIX_TIMESTAMP('2017-05-10 10:06:23') = 1494410783 AS ok;

SELECT UNIX_TIMESTAMP() > 1494410783 AS ok;

CREATE TABLE grafana(host STRING PRIMARY KEY, ts TIMESTAMP TIME INDEX, v DOUBLE);

INSERT INTO grafana VALUES ('a', '2017-05-10 10:00:00', 1), ('a', '2017-05-10 10:00:30', 2), ('a', '2017-05-10 10:01:10', 3), ('b', '2017-05-10 10:02:00', 4);

SELECT UNIX_TIMESTAMP(ts) DIV 60 * 60 AS "time", avg(v) AS v FROM grafana WHERE ts BETWEEN FROM_UNIXTIME(1494410400) AND FROM_UNIXTIME(1494410500) GROUP BY 1 ORDER BY 1;

SELECT UNIX_TIMESTAMP(ts) AS "time", v FROM grafana WHERE ts >= FROM_UNIXTIME(1494410470) ORDER BY ts;

SELECT date_add(ts, INTERVAL '1 year 2 month 3 day') AS d FROM grafana WHERE host = 'b';

SELECT date_sub(ts, '1 day') AS d FROM grafana WHERE host = 'b';

DROP TABLE grafana;

SELECT date_add('2023-12-06'::DATE, INTERVAL '3 month 5 day');

SELECT date_sub('2023-12-06'::DATE, '3 month 5 day');

CREATE TABLE dates(d DATE, ts TIMESTAMP TIME INDEX);

INSERT INTO dates VALUES ('1992-01-01', 1), ('1993-12-30', 2), ('2023-12-06', 3);

SELECT date_add(d, INTERVAL '1 year 2 month 3 day') AS a, date_sub(d, '1 year 2 month 3 day') AS s FROM dates ORDER BY ts;

SELECT date_add(ts, '1 year 2 month 3 day') AS a, date_sub(ts, INTERVAL '1 year 2 month 3 day') AS s FROM dates ORDER BY ts;

SELECT ts FROM dates WHERE date_add(ts, INTERVAL '1 day') > '1970-01-02 00:00:00.001' ORDER BY ts;

SELECT date_format(ts, '%Y-%m-%d %H:%M:%S:%3f') AS f, date_format(d, '%Y-%m-%d %H:%M:%S:%3f') AS g FROM dates ORDER BY ts;

DROP TABLE dates;
