CREATE TABLE blobs (host STRING PRIMARY KEY, ts TIMESTAMP TIME INDEX, b VARBINARY, s STRING);

INSERT INTO blobs VALUES ('hex', 1, X'00ff', 'a'), ('lower', 2, x'0A0b', 'b'), ('zero_x', 3, 0x00ff, 'c'), ('empty', 4, X'', 'd'), ('text', 5, 'x00ff', 'e');

INSERT INTO blobs VALUES ('expr', 6, X'01' || 0x02, 'f');

INSERT INTO blobs VALUES ('odd', 7, X'0ff', 'g');

INSERT INTO blobs VALUES ('bad', 8, X'zz', 'h');

INSERT INTO blobs VALUES ('str', 9, 'ok', X'41');

SELECT host, b, hex(b) AS h, octet_length(b) AS n FROM blobs ORDER BY ts;

SELECT host FROM blobs WHERE b = X'00ff' ORDER BY host;

SELECT host FROM blobs WHERE b = 0x00FF ORDER BY host;

SELECT host FROM blobs WHERE b IN (x'0a0b', X'') ORDER BY host;

SELECT host FROM blobs WHERE b > X'00' AND b < X'02' ORDER BY host;

SELECT X'00ff' AS x, 0x41 AS y, x'' AS z;

SELECT X'0g';

DELETE FROM blobs WHERE b = X'0102';

SELECT count(*) FROM blobs;

DROP TABLE blobs;
