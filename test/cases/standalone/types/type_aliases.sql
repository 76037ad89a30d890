CREATE TABLE aliases (
  ts TIMESTAMP_SEC TIME INDEX,
  a INT2,
  b INT4,
  c INT8,
  d INT16,
  e INT32,
  f INT64,
  g UINT8,
  h UINT16,
  i UINT32,
  j UINT64,
  k FLOAT4,
  l FLOAT8,
  m FLOAT32,
  n FLOAT64,
  o TINYTEXT,
  p MEDIUMTEXT,
  q LONGTEXT,
  r DATETIME,
  s TimestampMillisecond,
  t TIMESTAMP_US,
  u TimestampNanosecond,
  v BOOL,
  w TIMESTAMP_MS,
  x TIMESTAMP_NS,
  y TimestampSecond
);

DESC aliases;

SHOW CREATE TABLE aliases;

ALTER TABLE aliases ADD COLUMN z UINT32;

ALTER TABLE aliases MODIFY COLUMN a INT64;

DESC aliases;

INSERT INTO aliases (ts, a, n, r) VALUES ('2024-01-01 00:00:01', 1, 1.5, '2024-01-01 12:00:00.123456');

SELECT ts, a, n, r FROM aliases;

SELECT '2023-01-01 00:00:01'::TimestampSecond AS a, '2023-01-01 00:00:01.5'::TIMESTAMP_MS AS b, '2023-01-01 00:00:01.5'::TimestampMillisecond AS c;

SELECT '2023-01-01 00:00:01.123456789'::TimestampNanosecond AS a, '2023-01-01 00:00:01.123456'::TimestampMicrosecond AS b, '2023-01-01 00:00:01.123456'::DATETIME AS c;

SELECT 1::FLOAT64 AS a, 1::FLOAT32 AS b, 1::INT8 AS c, 1::UINT8 AS d, 'x'::LONGTEXT AS e, CAST(2 AS float64) AS float64;

SELECT '2022-01-01T00:00:01'::TIMESTAMP AS t;

DROP TABLE aliases;
