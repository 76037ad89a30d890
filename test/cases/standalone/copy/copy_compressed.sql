CREATE TABLE cmp(`id` INT UNSIGNED, `name` STRING, `value` DOUBLE, d DATE, ts TIMESTAMP TIME INDEX);

INSERT INTO cmp(`id`, `name`, `value`, d, ts) VALUES (1, 'Alice', 10.5, '2022-01-01', 1640995200000), (2, 'Bob, Jr', 20.3, '2022-01-02', 1640995260123), (3, 'Eve', 50.9, '2022-01-03', 1640995440000);

COPY cmp TO 'compressed/cmp.csv.gz' WITH (format='csv', compression_type='gzip');

COPY cmp TO 'compressed/cmp.csv.zst' WITH (format='csv', compression_type='zstd');

COPY cmp TO 'compressed/cmp.json.gz' WITH (format='json', compression_type='gzip');

COPY cmp TO 'compressed/cmp_tab.csv' WITH (format='csv', delimiter='9', timestamp_format='%Y-%m-%d %H:%M:%S%.3f', date_format='%Y/%m/%d');

COPY cmp TO 'compressed/cmp.csv.bz2' WITH (format='csv', compression_type='bzip2');

COPY cmp TO 'compressed/cmp.csv.lz4' WITH (format='csv', compression_type='lz4');

COPY cmp TO 'compressed/bad.csv' WITH (format='csv', delimiter='ab');

CREATE TABLE cmp_back LIKE cmp;

COPY cmp_back FROM 'compressed/cmp.csv.gz' WITH (format='csv', compression_type='gzip');

SELECT * FROM cmp_back ORDER BY ts;

TRUNCATE TABLE cmp_back;

COPY cmp_back FROM 'compressed/cmp.csv.zst' WITH (format='csv');

COPY cmp_back FROM 'compressed/cmp.json.gz' WITH (format='json', compression_type='gzip');

SELECT count(*) FROM cmp_back;

TRUNCATE TABLE cmp_back;

COPY cmp_back FROM 'compressed/cmp_tab.csv' WITH (format='csv', delimiter='9', timestamp_format='%Y-%m-%d %H:%M:%S%.3f', date_format='%Y/%m/%d');

SELECT * FROM cmp_back ORDER BY ts;

DROP TABLE cmp;

DROP TABLE cmp_back;
