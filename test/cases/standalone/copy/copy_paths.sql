-- Local paths are under the copy directory ([copy] dir); nothing else on the machine is reachable.
CREATE TABLE paths(host string, ts TIMESTAMP time index);

INSERT INTO paths VALUES ('a', 1000);

COPY paths TO 'copy_paths/ok.csv' WITH (format='csv');

COPY paths TO './copy_paths/dot.csv' WITH (format='csv');

COPY paths TO '../escape.csv' WITH (format='csv');

COPY paths TO 'copy_paths/../../escape.csv' WITH (format='csv');

COPY paths TO '/tmp/escape.csv' WITH (format='csv');

COPY paths TO 'file:///tmp/escape.csv' WITH (format='csv');

COPY paths FROM '/etc/passwd' WITH (format='csv');

COPY paths FROM '/etc/' WITH (format='csv');

COPY paths FROM '..' WITH (format='csv');

COPY paths FROM '.tsdb-staging/x.csv' WITH (format='csv');

COPY DATABASE public TO '/tmp/escape/';

COPY DATABASE public FROM '../';

COPY paths TO 'http://example.com/x.csv' WITH (format='csv');

COPY paths TO 'copy_paths/ok.csv' WITH (format='csv') CONNECTION (region = 'x');

COPY paths FROM 'copy_paths/ok.csv' WITH (format='csv');

SELECT * FROM paths;

DROP TABLE paths;
