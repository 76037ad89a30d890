-- SQL PREPARE / EXECUTE / DEALLOCATE. Over HTTP a session is one request: the statements of one
-- request share their prepared statements; a later request does not see them.
CREATE TABLE prep_cake (domain STRING PRIMARY KEY, is_expire BOOLEAN NULL, ts TIMESTAMP(3) TIME INDEX);

INSERT INTO prep_cake (domain, is_expire, ts) VALUES ('happy', false, '2025-03-18 12:55:51.758000'), ('sad', true, '2025-03-18 12:55:52');

PREPARE stmt FROM 'SELECT domain, is_expire, ts FROM prep_cake WHERE domain = ? LIMIT ? OFFSET ?'; EXECUTE stmt USING 'happy', 42, 0; EXECUTE stmt USING 'sad', 1, 0; DEALLOCATE stmt;

PREPARE stmt FROM 'SELECT CAST(? AS INTEGER) AS i, CAST(? AS STRING) AS s;'; EXECUTE stmt USING 1, 'hello';

EXECUTE stmt USING 1, 'hello';

-- An unaliased parameter is named as GreptimeDB (DataFusion) names it: `$n` (a `?` by its position), not by its value
PREPARE stmt FROM 'SELECT ?::int;'; EXECUTE stmt USING 1;

PREPARE stmt FROM 'SELECT CAST(? AS INTEGER), CAST(? AS STRING);'; EXECUTE stmt USING 1, 'hello';

PREPARE stmt FROM 'SELECT ? + 1, upper(?), ? IS NULL, domain FROM prep_cake WHERE domain = ?'; EXECUTE stmt USING 41, 'x', NULL, 'sad';

PREPARE p AS SELECT $1; EXECUTE p(5); EXECUTE p('five');

PREPARE p (TIMESTAMP, DOUBLE) AS SELECT $2 * 2, $1, $1 AS t; EXECUTE p('2025-03-18 12:55:52', -1.5);

PREPARE stmt FROM 'SELECT ? + 1 AS x'; EXECUTE stmt USING 1, 2;

PREPARE stmt FROM 'SELECT ?::int AS x'; EXECUTE stmt USING 'a';

PREPARE stmt FROM 'SELECT 1 LIMIT ? OFFSET ?'; EXECUTE stmt USING 1, 2;

PREPARE stmt FROM 'SELECT 1; SELECT 2';

PREPARE stmt FROM 'SELEC 1';

-- PostgreSQL's forms: declared parameter types, $n placeholders, EXECUTE s(args)
PREPARE ins (STRING, BIGINT) AS INSERT INTO prep_cake (domain, ts) VALUES ($1, $2); EXECUTE ins('new', 1742302552000); EXECUTE ins('it''s', 1742302553000);

PREPARE q AS SELECT domain, '$1' AS literal FROM prep_cake WHERE ts >= $1 ORDER BY domain; EXECUTE q('2025-03-18 12:55:52'); DEALLOCATE PREPARE q;

PREPARE t (BIGINT) AS SELECT domain FROM prep_cake WHERE ts = $1 ORDER BY domain; EXECUTE t(1742302552000); EXECUTE t(0);

PREPARE q AS SELECT 1; DEALLOCATE PREPARE q; EXECUTE q;

PREPARE a FROM 'SELECT 1 AS one'; PREPARE b FROM 'SELECT 2 AS two'; DEALLOCATE ALL; EXECUTE a;

EXECUTE nope;

DEALLOCATE nope;

DROP TABLE prep_cake;
