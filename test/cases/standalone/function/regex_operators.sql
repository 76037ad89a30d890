-- `~` searches (DataFusion's regex match), `~*` ignoring case; `!~`, `!~*` negate.
SELECT 'hello123' ~ '\d+', 'hello' !~ '\d+', 'HELLO' ~* 'hel', 'HELLO' !~* 'hel';

SELECT regexp_like('no numbers here', '\d+'), regexp_like('abc', 'B'), regexp_like('abc', 'B', 'i');

SELECT regexp_like('abc', 'b', 'g');

SELECT OCTET_LENGTH(''), OCTET_LENGTH('世界'), OCTET_LENGTH('🚀');

SELECT arrow_cast(24, 'UInt8'), arrow_cast('1.5', 'Decimal128(10, 2)'), arrow_cast(1.5, 'Float32'), arrow_cast('x', 'Utf8');

SELECT arrow_typeof(arrow_cast(24, 'Int16')), arrow_typeof(arrow_cast(24, 'UInt64'));

CREATE TABLE regex_test(s STRING, ts TIMESTAMP TIME INDEX);

INSERT INTO regex_test VALUES ('error: disk full', 1), ('Error: timeout', 2), ('ok', 3);

SELECT ts, s ~ 'rror', s ~* '^error', s !~ 'rror' FROM regex_test ORDER BY ts;

SELECT count(*) FROM regex_test WHERE s ~* 'ERROR:';

DROP TABLE regex_test;
